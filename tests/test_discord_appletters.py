"""Appletters through discord.py against the fake Discord: tiles stay private, words go in.

A tiny word list is registered under one name and given to every game through the cog's
``options_for``; words are added to it as the test needs them, from the dealt hands. The
lobby's seed is fixed so the deal is the same on every run.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import logging
import re
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from string import ascii_uppercase
from typing import Any

import pytest
from PIL import Image

from bot.app import OrchardBot
from bot.cli import OWN_LOGGERS, configure_logging
from bot.games.appletters import (
    AppState,
    placements_for,
    public_view,
    register_words,
    tile_bag,
    turnovers_for,
    word_set,
)
from bot.model import GameChange
from bot.runner import Snapshot, no_display
from cogs.appletters_tiles import tiles_text
from db.connection import Target
from tests.botharness import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    answered,
    new_game,
    no_errors,
    orchard_bot,
    press,
    server,
    snapshot,
    unpaced,
)
from tests.fakediscord import EPHEMERAL, FakeDiscord, InteractionRecord, components_of, text_of

WORDS = "test-appletters"
SEED = 20240611
USERS = {0: ALICE, 1: BOB}
SEATS = {user: seat for seat, user in USERS.items()}
MANAGE_GUILD = 1 << 5
TILE_RUN = re.compile(r"`[A-Z]`(?: `[A-Z]`)*")
"""Tiles as :func:`tiles_text` shows them (only ever to their owner): one or more in a row."""


@pytest.fixture(autouse=True)
def fixed_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    register_words(WORDS, ["zz"])
    monkeypatch.setattr("bot.lobby.secrets.randbits", lambda bits: SEED)


@asynccontextmanager
async def appletters_bot(fake: FakeDiscord, path: Path) -> AsyncIterator[OrchardBot]:
    """The bot, its new games using the tiny list (the cog is loaded anew per bot)."""
    async with orchard_bot(fake, path) as bot:

        async def options_for(guild_id: int) -> dict[str, Any]:
            return {"word_list": WORDS}

        cog = bot.get_cog("AppLettersCog")
        assert cog is not None
        cog.options_for = options_for  # type: ignore[method-assign]
        yield bot


def add_word(word: str) -> str:
    register_words(WORDS, word_set(WORDS) | {word.lower()})
    return word


async def game_of(bot: OrchardBot):
    (row,) = [g for g in await bot.orchard.store.open_games(GUILD) if g.status == "active"]
    return await bot.orchard.runner.load(row.id)


async def games_by_kind(bot: OrchardBot) -> dict[str, Snapshot]:
    """The open games here, one a kind."""
    rows = await bot.orchard.store.open_games(GUILD)
    return {row.kind: await bot.orchard.runner.load(row.id) for row in rows}


async def state_of(bot: OrchardBot) -> AppState:
    (row,) = await bot.orchard.store.open_games(GUILD)
    return (await bot.orchard.runner.load(row.id)).state


async def deal_to_mover(
    bot: OrchardBot, hand: str, core_size: int | None = None, edition: int | None = None
) -> tuple[AppState, int]:
    """Give the seat to move ``hand`` in the one game here, as picks could have, and leave
    ``core_size`` tiles in the core (by default the other seat keeps as many as it had, and
    the core the rest): no tile is made or lost; ``edition``, a game of an older rules
    edition. Written behind the runner's back (no move), so the runner reads the game afresh.
    The state then, and who is to move."""
    (row,) = await bot.orchard.store.open_games(GUILD)
    state: AppState = (await bot.orchard.runner.load(row.id)).state
    seat, other = state.turn, 1 - state.turn
    rest = Counter("".join(state.hands) + state.core)
    rest.subtract(hand)
    assert min(rest.values()) >= 0, f"{hand} is not in this game's tiles"
    left = "".join(sorted(rest.elements()))
    split = len(state.hands[other]) if core_size is None else len(left) - core_size
    hands = list(state.hands)
    hands[seat], hands[other] = hand, left[:split]
    rigged = replace(state, hands=tuple(hands), core=left[split:])
    rigged = rigged if edition is None else replace(rigged, edition=edition)
    engine = bot.orchard.runner.engine(row.kind)
    await bot.orchard.store.write(GameChange(row.id, state=engine.dump(rigged)))
    bot.orchard.runner.forget_committed()
    return rigged, USERS[seat]


def shared_pair(mine: str, theirs: str) -> tuple[str, str]:
    """Two of my tiles ``a, b`` that the other hand also holds: then BA fits both ends of AB."""
    have = Counter(theirs)
    for i, a in enumerate(mine):
        for b in mine[i + 1 :]:
            if have[a] and have[b] and (a != b or have[a] >= 2):
                return a, b
    raise AssertionError(f"no shared pair in {mine} / {theirs}: choose another SEED")


async def got_tiles(fake: FakeDiscord, user: int, hand: str) -> None:
    """Wait for a DM to ``user`` showing exactly ``hand``."""
    shown = f": {tiles_text(hand)}\n"
    await fake.wait_for(
        lambda: any(shown in m["content"] for m in fake.dms(user)), what=f"tiles DM to {user}"
    )


def note(hands: dict[int, set[str]], state: AppState) -> AppState:
    """Remember every hand each seat has held, for :func:`assert_nothing_leaked`."""
    for seat, hand in enumerate(state.hands):
        hands.setdefault(seat, set()).add(hand)
    return state


async def noted(bot: OrchardBot, hands: dict[int, set[str]]) -> AppState:
    return note(hands, await state_of(bot))


def orchard_logs(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What the bot logs at LOG_LEVEL=DEBUG: Orchard's own lines at every level, the
    libraries' from INFO up (see ``configure_logging``: below INFO they echo hidden tiles)."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.INFO or r.name.split(".")[0] in ("bot", "cogs", "db")
    ]


@pytest.fixture
def debug_log() -> Iterator[io.StringIO]:
    """Everything the root logger writes, as an operator reads it, with logging set up as
    the entry point does for LOG_LEVEL=DEBUG: Orchard's own lines and every library's."""
    root = logging.getLogger()
    saved = root.level, root.handlers[:]
    configure_logging("DEBUG")
    written = io.StringIO()
    handler = logging.StreamHandler(written)
    handler.setFormatter(root.handlers[0].formatter)
    root.handlers[:] = [*saved[1], handler]  # pytest's and the fake's handlers, not stderr
    try:
        yield written
    finally:
        root.setLevel(saved[0])
        root.handlers[:] = saved[1]
        for name in OWN_LOGGERS:
            logging.getLogger(name).setLevel(logging.NOTSET)


def a_word(state: AppState, seat: int, size: int, end: str, *, turnover: bool = False) -> str:
    """A ``size``-letter word ``seat`` can lay at ``end`` in exactly one way (or, with
    ``turnover``, turn over the word there with): the shared letter plus tiles from the hand.
    Unchecked games take any letters, so it is rarely a real word."""
    snake = state.snake
    if turnover:
        snake = snake[:-1] if end == "end" else snake[1:]
    ends = public_view(replace(state, snake=snake)).open_ends
    shared = [letter for e, _, letter in ends if e == end]
    find = turnovers_for if turnover else placements_for
    tried: set[str] = set()
    for letters in itertools.permutations(state.hands[seat], size - len(shared)):
        middle = "".join(letters)
        words = [middle] if not shared else []
        for letter in shared:  # begins or ends with it, not both: one way only
            words += [letter + middle] if middle[-1] != letter else []
            words += [middle + letter] if middle[0] != letter else []
        for word in words:
            if word in tried:
                continue
            tried.add(word)
            ways = [p for p in find(state, seat, word) if p.end in (None, end)]
            if len(ways) == 1:
                return word
    raise AssertionError(f"no {size}-letter word for seat {seat} at the {end}: another SEED")


async def until_turnable(
    fake: FakeDiscord, bot: OrchardBot, board: int, hands: dict[int, set[str]]
) -> tuple[AppState, str]:
    """Two-letter words until the last word is not the mover's (so it can be turned over);
    the state then, and the hand its owner paid it from."""
    state = await noted(bot, hands)
    paid_from = ""
    while len(state.snake) < 2 or state.snake[-1].seat == state.turn:
        end = "end" if state.snake else ""
        word = a_word(state, state.turn, 2, "end")
        paid_from = state.hands[state.turn]
        laid = await modal_word(fake, USERS[state.turn], board, word, end)
        assert laid.updated, laid.describe()
        state = await noted(bot, hands)
    return state, paid_from


async def modal_word(
    fake: FakeDiscord,
    user: int,
    board: int,
    word: str,
    end: str = "",
    button: str = "Play a word",
) -> InteractionRecord:
    opened = await press(fake, user, board, button)
    assert opened.modal is not None, opened.describe()
    custom = opened.modal["custom_id"]
    fields = {"word": word, "end": end}
    return await answered(await fake.submit_modal(user, CHANNEL, custom, fields))


def secret_forms(hand: str) -> list[str]:
    """Ways a hand could leak: as shown to its owner, spaced out, or as one long string."""
    forms = [tiles_text(hand)]
    if len(hand) >= 3:
        forms.append(" ".join(hand))
    if len(hand) >= 5:
        forms.append(hand)
    return forms


def public_texts(fake: FakeDiscord) -> list[str]:
    """Every version of every non-ephemeral message in the game channel, as JSON text."""
    texts = []
    for versions in fake.versions.values():
        for m in versions:
            if int(m["channel_id"]) == CHANNEL and not int(m["flags"]) & EPHEMERAL:
                texts.append(json.dumps(m))
    for r in fake.requests_matching("*", rf"/channels/{CHANNEL}/"):
        texts.append(json.dumps(r.json))
    return texts


def replies_by_user(fake: FakeDiscord) -> dict[int, list[str]]:
    """Everything the bot sent in answer to each user's interactions, ephemeral or not, as
    JSON text: callbacks, follow-ups and edits as requested, and every version of the
    messages they made."""
    records = {r.token: r for r in fake.interactions.values()}
    texts: dict[int, list[str]] = defaultdict(list)
    for request in fake.requests:
        hook = re.match(r"/(?:interactions/\d+|webhooks/\d+)/([^/]+)", request.path)
        if hook and hook[1] in records and request.json is not None:
            texts[records[hook[1]].user_id].append(json.dumps(request.json))
    for record in fake.interactions.values():
        made = list(record.followup_ids)
        if record.type in (4, 5) and record.original_id is not None:
            made.append(record.original_id)
        for message_id in made:
            texts[record.user_id] += [json.dumps(m) for m in fake.versions.get(message_id, [])]
    return texts


def tile_runs(text: str) -> list[str]:
    """Every run of tiles shown in ``text``, as the sorted letters (a hand is a multiset)."""
    return [
        "".join(sorted(run.replace("`", "").replace(" ", ""))) for run in TILE_RUN.findall(text)
    ]


def assert_private(texts: list[str], own: set[str], other: set[str], who: object) -> None:
    """Texts seen by one user show, as tiles, only hands that user held, in any order; and no
    other seat's hand in any form :func:`secret_forms` knows."""
    mine = {"".join(sorted(h)) for h in own}
    for text in texts:
        for run in tile_runs(text):
            assert run in mine, (who, run, text)
        for hand in other - own:
            if hand:
                for form in secret_forms(hand):
                    assert form not in text, (who, form, text)


def assert_nothing_leaked(
    fake: FakeDiscord, hands: dict[int, set[str]], logs: Sequence[str] = ()
) -> None:
    public = public_texts(fake)
    assert public and not any("Your tiles" in t or TILE_RUN.search(t) for t in public)
    for seat, seen in hands.items():
        for hand in seen:
            for form in secret_forms(hand):
                assert not any(form in t for t in public), (seat, form)
                assert not any(form in line for line in logs), (seat, form)
    everyone = {h for seen in hands.values() for h in seen}
    for seat, user in USERS.items():
        other = {h for s, seen in hands.items() if s != seat for h in seen} - hands[seat]
        for dm in fake.dms(user):
            assert any(f": {tiles_text(h)}\n" in dm["content"] for h in hands[seat])
            assert not any(f": {tiles_text(h)}\n" in dm["content"] for h in other)
        assert_private([json.dumps(dm) for dm in fake.dms(user)], hands[seat], other, user)
    replies = replies_by_user(fake)
    assert replies
    for user, texts in replies.items():
        own = hands.get(SEATS[user], set()) if user in SEATS else set()
        assert_private(texts, own, everyone - own, user)


async def test_a_whole_game_keeps_every_hand_private(
    fake_discord: FakeDiscord, database: Target, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fake = fake_discord
    server(fake)
    hands: dict[int, set[str]] = {0: set(), 1: set()}
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB])
        game_id = (await game_of(bot)).id
        state = await state_of(bot)
        note(hands, state)
        for seat, user in USERS.items():
            await got_tiles(fake, user, state.hands[seat])
        mover, other = state.turn, 1 - state.turn
        a, b = shared_pair(state.hands[mover], state.hands[other])

        wrong = await press(fake, USERS[other], board, "Play a word")
        assert wrong.ephemeral and "not your turn" in wrong.content
        stranger = await press(fake, CAROL, board, "My tiles")
        assert stranger.ephemeral and "not playing" in stranger.content
        unknown = await modal_word(fake, USERS[mover], board, "QZQZ")
        assert unknown.ephemeral and "not in the word list" in unknown.content

        add_word(b + a)  # listed from the start: its mirror bonus for a + b must not change
        first = await modal_word(fake, USERS[mover], board, add_word(a + b))
        assert first.updated and not first.ephemeral, first.describe()
        state = await state_of(bot)
        note(hands, state)
        assert [w.text for w in state.snake] == [a + b]
        await got_tiles(fake, USERS[mover], state.hands[mover])
        shown = fake.message(board)
        assert (a + b) in text_of(shown)
        assert shown["attachments"][0]["description"].startswith("The word snake")
        # A lone word leaves room every way, told in words on the board and in the picture's
        # alt text alike (ROOM_SHOWN letters is as far as room is measured).
        open_room = "at least 12 letters either way"
        for end, letter in (("start", a), ("end", b)):
            told = f"Room at the {end} ({letter}): {open_room}"
            assert told in text_of(shown) and told in shown["attachments"][0]["description"]

        # The word form covers the board on a phone: it shows its player (only) their tiles,
        # the ends and their room.
        form = await press(fake, USERS[other], board, "Play a word")
        assert form.modal is not None
        told = text_of(form.modal)
        hand = state.hands[other]
        assert f"Your tiles ({len(hand)}): {tiles_text(hand)}" in told, told
        assert f"Open ends: **{a}** (start, of {a + b}) and **{b}** (end, of {a + b})" in told
        assert f"Room at the end ({b}): {open_room}" in told
        both = await answered(
            await fake.slash(USERS[other], GUILD, CHANNEL, "appletters play", {"word": b + a})
        )
        assert both.ephemeral and "more than one way" in both.content, both.content
        assert both.original is not None
        labels = [c.label for c in components_of(both.original)]
        assert len(labels) >= 2 and any(str(label).startswith("At the end") for label in labels)
        at_end = next(str(label) for label in labels if str(label).startswith("At the end"))
        chosen = await press(fake, USERS[other], int(both.original["id"]), at_end)
        assert chosen.ephemeral and "Done" in chosen.content, chosen.content
        state = await state_of(bot)
        note(hands, state)
        assert [w.text for w in state.snake] == [a + b, b + a]
        assert (b + a) in text_of(fake.message(board))

        end = state.snake[-1].text[-1]
        short = {"word": add_word("ZZ" + end), "end": "start"}
        lacking = await answered(
            await fake.slash(USERS[mover], GUILD, CHANNEL, "appletters play", short)
        )
        assert lacking.ephemeral and "don't have the tiles" in lacking.content, lacking.content

        picked = await press(fake, USERS[mover], board, "Pick 3 tiles and pass")
        assert picked.type == 7
        state = await state_of(bot)
        note(hands, state)
        await got_tiles(fake, USERS[mover], state.hands[mover])

        mine = await press(fake, USERS[other], board, "My tiles")
        assert mine.ephemeral and tiles_text(state.hands[other]) in mine.content

        last = add_word(end + state.hands[other][::-1])  # not the hand as sorted: no false alarm
        out = await modal_word(fake, USERS[other], board, last, "end")
        assert out.updated, out.describe()
        live = await bot.orchard.runner.load(game_id)
        note(hands, live.state)
        assert live.row.status == "finished"
        final = fake.message(board)
        assert "Game over" in text_of(final)
        assert fake.find_button(board, "Rematch (same players)")
        assert await bot.orchard.runner.replay(live.id) == live.state
    assert any(r.name.startswith("bot.") for r in caplog.records)  # the refusals were logged
    assert_nothing_leaked(fake, hands, orchard_logs(caplog))


async def test_closed_dms_still_see_tiles_with_my_tiles(
    fake_discord: FakeDiscord, database: Target, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fake = fake_discord
    server(fake)
    fake.dms_closed.add(BOB)
    hands: dict[int, set[str]] = {}
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB])
        state = await noted(bot, hands)
        await got_tiles(fake, ALICE, state.hands[0])
        note = await fake.wait_for_message(
            CHANNEL, lambda m: "can't send you direct messages" in m["content"]
        )
        assert f"<@{BOB}>" in note["content"]
        assert fake.dms(BOB) == []
        mine = await press(fake, BOB, board, "My tiles")
        assert mine.ephemeral and tiles_text(state.hands[1]) in mine.content
        mover = state.turn
        await press(fake, USERS[mover], board, "Pick 3 tiles and pass")
        state = await noted(bot, hands)
        if mover == 0:
            await got_tiles(fake, ALICE, state.hands[0])
        again = await press(fake, BOB, board, "My tiles")
        assert again.ephemeral and tiles_text(state.hands[1]) in again.content
        theirs = await press(fake, ALICE, board, "My tiles")
        assert theirs.ephemeral and tiles_text(state.hands[0]) in theirs.content
        notes = [
            m
            for m in fake.channel_messages(CHANNEL)
            if "can't send you direct messages" in m["content"]
        ]
        assert len(notes) == 1
    assert_nothing_leaked(fake, hands, orchard_logs(caplog))


async def test_a_modal_opened_before_a_restart_still_plays(
    fake_discord: FakeDiscord, database: Target
) -> None:
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB])
        state = await state_of(bot)
        mover = USERS[state.turn]
        opened = await press(fake, mover, board, "Play a word")
        assert opened.modal is not None
        word = add_word(state.hands[state.turn][:3])
    async with appletters_bot(fake, database) as bot:
        played = await answered(
            await fake.submit_modal(mover, CHANNEL, opened.modal["custom_id"], {"word": word})
        )
        assert played.updated and not played.ephemeral, played.describe()
        assert [w.text for w in (await state_of(bot)).snake] == [word]


async def test_apple_turnover_bad_apple_challenge_and_turn_over(
    fake_discord: FakeDiscord, database: Target, caplog: pytest.LogCaptureFixture
) -> None:
    unpaced(fake_discord)
    caplog.set_level(logging.DEBUG)
    fake = fake_discord
    server(fake)
    hands: dict[int, set[str]] = {}
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB], variant="turnover")
        assert "Apple Turnover" in text_of(fake.message(board))
        state = await noted(bot, hands)
        mover, other = USERS[state.turn], USERS[1 - state.turn]
        offered = await press(fake, mover, board, "Toss a tile on the Bad Apple")
        assert offered.ephemeral and offered.original is not None
        (menu,) = [c for c in components_of(offered.original) if c.is_select]
        letter = state.hands[state.turn][0]
        thrown = await answered(
            await fake.select(mover, int(offered.original["id"]), menu, [letter])
        )
        assert thrown.ephemeral and f"threw {letter}" in thrown.content
        assert "Bad Apple pile: 1 tile, face down" in text_of(fake.message(board))
        thrower, drawn, before = state.turn, state.core[0], Counter(state.hands[state.turn])
        state = await noted(bot, hands)
        assert Counter(state.hands[thrower]) == before - Counter(letter) + Counter(drawn)
        assert f"and drew {drawn} from the core" in thrown.content, "said only to the thrower"
        nonsense = state.hands[state.turn][:2]  # unchecked: any letters are laid
        await modal_word(fake, other, board, nonsense)
        note(hands, await state_of(bot))
        challenge = await press(fake, mover, board, f"Challenge {nonsense.upper()}")
        assert challenge.type == 7, challenge.describe()
        state = await noted(bot, hands)
        assert state.snake == ()

        state, paid_from = await until_turnable(fake, bot, board, hands)
        turner, owner = state.turn, state.snake[-1].seat
        old = state.snake[-1]
        before, owner_before = state.hands[turner], state.hands[owner]
        assert owner_before != paid_from  # the owner paid for the word now turned over
        longer = a_word(state, turner, len(old.text) + 2, "end", turnover=True)
        turned = await modal_word(fake, USERS[turner], board, longer, "end", "Turn over a word")
        assert turned.updated and not turned.ephemeral, turned.describe()
        state = await noted(bot, hands)
        assert state.snake[-1].text == longer and old not in state.snake
        assert state.hands[owner] == paid_from  # every tile they paid came back
        assert "TURN OVER!" in text_of(fake.message(board))
        await got_tiles(fake, USERS[owner], state.hands[owner])

        # Not in the list: the turned-over word is restored, the longer one goes back.
        refused = await press(fake, USERS[owner], board, f"Challenge {longer}")
        assert refused.type == 7, refused.describe()
        state = await noted(bot, hands)
        assert state.snake[-1] == old
        assert state.hands[turner] == before and state.hands[owner] == owner_before
        await got_tiles(fake, USERS[turner], before)
    assert_nothing_leaked(fake, hands, orchard_logs(caplog))


async def test_a_hand_holding_every_letter_is_offered_every_letter_for_the_bad_apple(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Picks can grow a Turnover hand to all 26 letters, one more than a select may offer:
    two selects, A to M and N to Z, each its own custom_id, and either one throws."""
    unpaced(fake_discord)
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB], variant="turnover")
        state, mover = await deal_to_mover(bot, "".join(sorted(ascii_uppercase + "AEIOU")))
        offered = await press(fake, mover, board, "Toss a tile on the Bad Apple")
        assert offered.ephemeral and offered.original is not None, offered.describe()
        menus = [c for c in components_of(offered.original) if c.is_select]
        offers = ["".join(menu.options) for menu in menus]
        assert offers == [ascii_uppercase[:13], ascii_uppercase[13:]]
        assert len({menu.custom_id for menu in menus}) == 2
        assert [menu.raw["placeholder"] for menu in menus] == ["Throw A to M…", "Throw N to Z…"]
        thrown = await answered(
            await fake.select(mover, int(offered.original["id"]), menus[1], ["Z"])
        )
        drawn = state.core[0]
        said = f"You threw Z on the Bad Apple pile and drew {drawn} from the core."
        assert thrown.ephemeral and thrown.content == said, thrown.describe()
        after = await state_of(bot)
        kept = Counter(state.hands[state.turn]) - Counter("Z")
        assert Counter(after.hands[state.turn]) == kept + Counter(drawn)
        assert after.bad_apples == "Z"


@pytest.mark.parametrize(
    ("hand", "core_size", "edition"), [("E", 5, None), ("AE", 0, None), ("AE", 5, 1)]
)
async def test_a_bad_apple_says_which_tile_was_drawn_even_for_a_last_tile(
    fake_discord: FakeDiscord, database: Target, hand: str, core_size: int, edition: int | None
) -> None:
    """Throwing a last tile, the thrower learns what replaced it (the hand left once the tile
    is thrown is empty, which is not an empty core); with the core empty, that none did. The
    offer says so before the throw too. A game of the first rules edition (still running
    from before the change) threw the tile away: no tile comes back, the core not empty."""
    unpaced(fake_discord)
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB], variant="turnover")
        state, mover = await deal_to_mover(bot, hand, core_size, edition)
        offered = await press(fake, mover, board, "Toss a tile on the Bad Apple")
        assert offered.original is not None, offered.describe()
        if edition == 1:
            assert "No tile comes back in its place" in offered.content, offered.content
        elif core_size:
            assert "You take the core's next tile in its place" in offered.content
        else:
            assert "The core is empty, so no tile comes back" in offered.content
            assert "next tile" not in offered.content, offered.content
        (menu,) = [c for c in components_of(offered.original) if c.is_select]
        thrown = await answered(await fake.select(mover, int(offered.original["id"]), menu, ["E"]))
        drawn = "" if edition == 1 else state.core[:1]
        assert (await state_of(bot)).hands[state.turn] == hand.replace("E", "") + drawn
        got = f" and drew {drawn} from the core" if drawn else ": the core is empty"
        got = ": no tile comes back in its place" if edition == 1 else got
        said = f"You threw E on the Bad Apple pile{got}."
        assert thrown.ephemeral and thrown.content == said, thrown.describe()


async def test_a_last_tile_the_bad_apple_cannot_replace_is_refused_before_the_choice(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """With the core empty, a last tile thrown would leave an empty hand: the Bad Apple button
    says so at once, rather than offering a choice the throw refuses."""
    unpaced(fake_discord)
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB], variant="turnover")
        state, mover = await deal_to_mover(bot, "E", 0)
        refused = await press(fake, mover, board, "Toss a tile on the Bad Apple")
        assert refused.ephemeral and refused.original is not None, refused.describe()
        assert "can't throw away your last tile" in refused.content, refused.content
        assert not [c for c in components_of(refused.original) if c.is_select]
        assert await state_of(bot) == state


async def test_the_turn_over_button_opens_its_modal_and_turns_a_word_over(
    fake_discord: FakeDiscord, database: Target
) -> None:
    fake = fake_discord
    server(fake)
    hands: dict[int, set[str]] = {}
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB], variant="turnover")
        assert fake.find_button(board, "Turn over a word").disabled, "no word to turn over yet"
        state, paid_from = await until_turnable(fake, bot, board, hands)
        assert not fake.find_button(board, "Turn over a word").disabled
        turner, owner = state.turn, state.snake[-1].seat
        old = state.snake[-1]
        waiting = await press(fake, USERS[owner], board, "Turn over a word")
        assert waiting.ephemeral and "not your turn" in waiting.content, waiting.describe()
        opened = await press(fake, USERS[turner], board, "Turn over a word")
        assert opened.modal is not None, opened.describe()
        assert opened.modal["title"] == "Turn over a word"
        assert opened.modal["custom_id"].endswith(":turnover:")
        fields = {c.custom_id for c in components_of(opened.modal)}
        assert {"word", "end"} <= fields
        fields_sent: dict[str, str | list[str]] = {"word": old.text[::-1], "end": "end"}
        short = await answered(
            await fake.submit_modal(USERS[turner], CHANNEL, opened.modal["custom_id"], fields_sent)
        )
        assert short.ephemeral and f"longer than {old.text}" in short.content, short.content
        longer = a_word(state, turner, len(old.text) + 1, "end", turnover=True)
        turned = await modal_word(fake, USERS[turner], board, longer, "end", "Turn over a word")
        assert turned.updated and not turned.ephemeral, turned.describe()
        after = await noted(bot, hands)
        assert [w.text for w in after.snake] == [w.text for w in state.snake[:-1]] + [longer]
        assert after.hands[owner] == paid_from  # the turned-over word's tiles came back
        assert len(after.hands[turner]) == len(state.hands[turner]) - (len(longer) - 1)
        shown = text_of(fake.message(board))
        assert "TURN OVER!" in shown and longer in shown
        await got_tiles(fake, USERS[owner], paid_from)
    assert_nothing_leaked(fake, hands)


async def test_typed_words_go_to_the_game_they_fit_and_orchard_never_guesses_between_two(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Appletters and Apple Turnover open in one channel (the limit is a kind's), the same
    player to move in both: /appletters play asks which, naming both, and goes where its
    variant says; /appletters turnover goes to the one game that turns words over."""
    unpaced(fake_discord)
    fake = fake_discord
    server(fake)
    hands: dict[int, set[str]] = {}
    async with appletters_bot(fake, database) as bot:
        turnover_board = await new_game(fake, "appletters", ALICE, [BOB], variant="turnover")
        turnable, _ = await until_turnable(fake, bot, turnover_board, hands)
        mover, waiting = USERS[turnable.turn], USERS[1 - turnable.turn]
        board = await new_game(fake, "appletters", ALICE, [BOB])
        games = await games_by_kind(bot)
        plain, turnover = games["appletters"].id, games["appleturnover"].id
        if USERS[games["appletters"].state.turn] != mover:
            assert (await press(fake, waiting, board, "Pick 3 tiles and pass")).type == 7
        before = await snapshot(bot, plain, turnover)

        async def typed(user: int, command: str, **options: str) -> InteractionRecord:
            said = await fake.slash(user, GUILD, CHANNEL, f"appletters {command}", options)
            return await answered(said)

        asked = await typed(mover, "play", word="ZZ")
        assert asked.ephemeral, asked.describe()
        assert f"[Appletters game {plain}](https://discord.com/channels/" in asked.content
        assert f"[Apple Turnover game {turnover}](" in asked.content
        assert "`variant`" in asked.content, asked.content
        idle = await typed(waiting, "play", word="ZZ")
        assert idle.ephemeral and "your turn in none of them" in idle.content, idle.content
        assert await snapshot(bot, plain, turnover) == before

        hand = (await games_by_kind(bot))["appletters"].state.hands[turnable.turn]
        played = await typed(mover, "play", word=add_word(hand[:3]), variant="appletters")
        assert played.ephemeral and played.content == f"Played {hand[:3]}.", played.describe()
        games = await games_by_kind(bot)
        assert [w.text for w in games["appletters"].state.snake] == [hand[:3]]
        assert games["appleturnover"].state == turnable
        assert (await press(fake, waiting, board, "Pick 3 tiles and pass")).type == 7

        size = len(turnable.snake[-1].text) + 1
        longer = a_word(turnable, turnable.turn, size, "end", turnover=True)
        turned = await typed(mover, "turnover", word=longer, end="end")
        assert turned.ephemeral and turned.content == f"Turned over with {longer}.", turned.content
        assert (await games_by_kind(bot))["appleturnover"].state.snake[-1].text == longer
        no_errors(fake)


async def test_two_games_of_one_kind_are_chosen_on_their_boards(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """A server allowing two games a kind a channel, Bob in two Apple Turnover games and to
    move in both: no option tells them apart, so he is sent to the board's button."""
    unpaced(fake_discord)
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        await bot.orchard.settings.update(GUILD, open_games_per_channel=2)
        boards = {
            host: await new_game(fake, "appletters", host, [BOB], variant="turnover")
            for host in (ALICE, CAROL)
        }
        for host, board in boards.items():
            (row,) = [g for g in await bot.orchard.store.open_games(GUILD) if g.host_id == host]
            if (await bot.orchard.runner.load(row.id)).state.turn == 0:
                assert (await press(fake, host, board, "Pick 3 tiles and pass")).type == 7
        ids = sorted(g.id for g in await bot.orchard.store.open_games(GUILD))
        before = await snapshot(bot, *ids)
        for command, button in (("turnover", "Turn over a word"), ("play", "Play a word")):
            options = {"word": "ZZ", "variant": "turnover"} if command == "play" else {"word": "ZZ"}
            said = await fake.slash(BOB, GUILD, CHANNEL, f"appletters {command}", options)
            asked = await answered(said)
            assert asked.ephemeral, asked.describe()
            assert all(f"Apple Turnover game {game}" in asked.content for game in ids)
            assert f"Press **{button}** on the board of the one you mean." in asked.content
        assert await snapshot(bot, *ids) == before
        no_errors(fake)


async def test_a_word_game_the_player_has_left_is_not_asked_about(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Carol leaves a three-player Appletters game that Alice and Bob play on, and plays
    Apple Turnover with Alice here. Her typed word goes to the one game she still plays (where
    it is Alice's turn) instead of asking her to choose between it and the game she left;
    once she has left both, she has no word game here."""
    unpaced(fake_discord)
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        await new_game(fake, "appletters", ALICE, [BOB, CAROL])
        await answered(await fake.slash(CAROL, GUILD, CHANNEL, "forfeit"))
        board = await new_game(fake, "appletters", CAROL, [ALICE], variant="turnover")
        turnover = (await games_by_kind(bot))["appleturnover"]
        if turnover.state.turn == 0:  # Carol's: she passes, so that it is Alice's
            assert (await press(fake, CAROL, board, "Pick 3 tiles and pass")).type == 7
        ids = [g.id for g in (await games_by_kind(bot)).values()]
        before = await snapshot(bot, *ids)

        async def typed() -> InteractionRecord:
            said = await fake.slash(CAROL, GUILD, CHANNEL, "appletters play", {"word": "ZZ"})
            return await answered(said)

        waiting = await typed()
        assert waiting.ephemeral, waiting.describe()
        assert waiting.content == "It is not your turn: it is Alice's.", waiting.content
        assert await snapshot(bot, *ids) == before
        await answered(await fake.slash(CAROL, GUILD, CHANNEL, "forfeit"))
        before = await snapshot(bot, *ids)
        gone = await typed()
        assert gone.content == "You have no word game in play in this channel.", gone.content
        assert await snapshot(bot, *ids) == before
        no_errors(fake)


async def test_a_player_who_left_is_told_so_by_every_button_not_that_it_is_not_their_turn(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Carol leaves Apple Turnover for three: the buttons that open a word or a Bad Apple
    menu say what a pick says, that she no longer plays, not that it is someone else's turn
    (a turn that never comes); her set-aside tiles are still hers to see."""
    unpaced(fake_discord)
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB, CAROL], variant="turnover")
        await answered(await fake.slash(CAROL, GUILD, CHANNEL, "forfeit"))
        state = await state_of(bot)
        assert not state.active[2] and state.turn != 2
        for button in ("Play a word", "Toss a tile on the Bad Apple", "Pick 3 tiles and pass"):
            refused = await press(fake, CAROL, board, button)
            assert refused.ephemeral and refused.modal is None, refused.describe()
            assert refused.content == "You are no longer playing in this game.", refused.content
        mine = await press(fake, CAROL, board, "My tiles")
        assert mine.ephemeral and tiles_text(state.hands[2]) in mine.content
        assert await state_of(bot) == state
        no_errors(fake)


async def test_server_settings_reach_a_new_game(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """No stand-in options_for: /settings as an admin, then /appletters new."""
    fake = fake_discord
    server(fake)
    chosen = {"easy_letters": True, "word_list": "family", "turnover_words": "checked"}
    async with orchard_bot(fake, database) as bot:
        with pytest.raises(PermissionError):
            await fake.slash(BOB, GUILD, CHANNEL, "settings", chosen)
        fake.permissions[ALICE] = MANAGE_GUILD
        saved = await answered(await fake.slash(ALICE, GUILD, CHANNEL, "settings", chosen))
        assert saved.ephemeral and "Saved." in saved.content, saved.content
        assert "Easy letters: on" in saved.content
        assert "Word list: Family list (common words)" in saved.content, "as its menu names it"
        assert "Apple Turnover words: Checked when played" in saved.content
        board = await new_game(fake, "appletters", ALICE, [BOB], variant="turnover")
        state = await state_of(bot)
        tiles = Counter("".join(state.hands) + state.core)
        assert state.total_tiles == 107 and sum(tiles.values()) == 107
        assert not set("QXZ") & set(tiles)
        assert tiles == Counter(tile_bag(easy_letters=True))
        assert state.word_list == "family" and state.check_words
        # Checked words: an unlisted one is refused at once (nothing to challenge), a family
        # word is laid.
        family = word_set("family")
        hand = state.hands[state.turn]
        unlisted = next(
            w
            for w in ("".join(p) for p in itertools.permutations(hand, 4))
            if w.lower() not in family
        )
        refused = await modal_word(fake, USERS[state.turn], board, unlisted)
        assert refused.ephemeral and "not in the word list" in refused.content, refused.content
        listed = next(
            w.upper()
            for w in sorted(family, key=lambda w: (-len(w), w))
            if 3 <= len(w) <= 6 and not Counter(w.upper()) - Counter(hand)
        )
        laid = await modal_word(fake, USERS[state.turn], board, listed)
        assert laid.updated, laid.describe()
        after = await state_of(bot)
        assert [w.text for w in after.snake] == [listed] and after.pending is None
        assert not any(
            str(c.label).startswith("Challenge") for c in fake.components(board) if c.is_button
        )


async def test_rules_answer_privately(fake_discord: FakeDiscord, database: Target) -> None:
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database):
        rules = await answered(await fake.slash(CAROL, GUILD, CHANNEL, "appletters rules"))
        assert rules.ephemeral, rules.describe()
        for part in (
            "Appletters",
            "Apple Turnover",
            "Applescore",
            "Pick and pass",
            "My tiles",
            "goes back to its player, who misses a turn",  # seeds: a word challenged off
            "a whole round without a word",  # a stalemate: passing is a choice, not "unable"
        ):
            assert part in rules.content, part
        assert fake.channel_messages(CHANNEL) == []


async def test_leaderboard_after_a_finished_game(
    fake_discord: FakeDiscord, database: Target
) -> None:
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        empty = await answered(await fake.slash(CAROL, GUILD, CHANNEL, "appletters leaderboard"))
        assert "No finished games here yet." in empty.embeds[0]["description"]
        await new_game(fake, "appletters", ALICE, [BOB])
        game_id = (await game_of(bot)).id
        gone = await answered(await fake.slash(BOB, GUILD, CHANNEL, "forfeit"))
        assert gone.ephemeral and "You left" in gone.content, gone.content
        assert (await bot.orchard.runner.load(game_id)).row.status == "finished"
        shown = await answered(
            await fake.slash(CAROL, GUILD, CHANNEL, "appletters leaderboard", {"by": "wins"})
        )
        assert not shown.ephemeral, shown.describe()
        (embed,) = shown.embeds
        assert embed["title"] == "Appletters · by wins"
        first = embed["description"].splitlines()[0]
        assert first.startswith(f"**1.** <@{ALICE}> · **1 win** · 1 game · best ")
        other = await answered(
            await fake.slash(
                CAROL, GUILD, CHANNEL, "appletters leaderboard", {"variant": "turnover"}
            )
        )
        assert other.embeds[0]["title"].startswith("Apple Turnover")
        assert "No finished games here yet." in other.embeds[0]["description"]


async def test_the_pick_button_says_how_many_tiles_the_core_still_gives(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Four tiles in the core: the mover picks 3, the next player is offered the last one,
    and once the core is empty the button says it only passes."""
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB])
        state, mover = await deal_to_mover(bot, "QZ", core_size=4)
        other = USERS[1 - state.turn]
        assert (await press(fake, mover, board, "Pick 3 tiles and pass")).type == 7
        assert (await state_of(bot)).core == state.core[3:]
        assert (await press(fake, other, board, "Pick 1 tile and pass")).type == 7
        assert (await state_of(bot)).core == ""
        passed = await press(fake, mover, board, "Pass: the core is empty")
        assert passed.type == 7, passed.describe()
        assert "found the core empty: PICK AND PASS!" in text_of(fake.message(board))


async def test_a_turn_deadline_picks_and_passes_and_says_so(
    fake_discord: FakeDiscord, database: Target
) -> None:
    fake = fake_discord
    server(fake)
    hands: dict[int, set[str]] = {}
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB])
        state = await noted(bot, hands)
        late = state.turn
        bot.orchard.runner.clock = lambda: time.time() + 301
        bot.orchard.scheduler.wake()
        notice = await fake.wait_for_message(
            CHANNEL, lambda m: "ran out of time" in (m.get("content") or "")
        )
        assert ("Alice", "Bob")[late] in notice["content"]
        live = await game_of(bot)
        after = note(hands, live.state)
        assert after.turn == 1 - late and live.row.players[late].timeouts == 1
        picked = Counter(after.hands[late])
        picked.subtract(state.hands[late])
        assert +picked == Counter(state.core[:3]) and after.core == state.core[3:]
        assert (await bot.orchard.store.moves(live.id))[-1].source == "timeout"
        await fake.wait_for(  # the notice goes before the board's edit
            lambda: "PICK AND PASS!" in text_of(fake.message(board)), what="the board"
        )
        await got_tiles(fake, USERS[late], after.hands[late])
    assert_nothing_leaked(fake, hands)


ATTACH_FILES = 1 << 15


async def with_a_snake(fake: FakeDiscord, bot: OrchardBot) -> tuple[int, str]:
    """A game of Alice and Bob whose first word is laid, so its board has a picture: the
    board's message and the word."""
    board = await new_game(fake, "appletters", ALICE, [BOB])
    state = await state_of(bot)
    a, b = shared_pair(state.hands[state.turn], state.hands[1 - state.turn])
    word = add_word(a + b)
    assert (await modal_word(fake, USERS[state.turn], board, word)).updated
    return board, word


async def test_a_board_whose_picture_discord_refuses_is_drawn_without_it(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """A moderator takes Attach Files away mid-game. An edit that uploads the snake's
    picture is then refused (403), so a timed-out turn's board is drawn without the
    picture, saying why, rather than left showing a turn long gone; and boards in that
    channel go without one for a while, not each refused in turn (a refusal costs a request
    of the channel's limit). A click meanwhile is answered without one too, as the click's
    own word on Orchard's permissions there says. Given back, the next click's board has its
    picture again."""
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        board, word = await with_a_snake(fake, bot)
        assert fake.message(board)["attachments"], "the snake's picture"
        fake.channels[CHANNEL]["permission_overwrites"] = [
            {"id": str(fake.bot_id), "type": 1, "allow": "0", "deny": str(ATTACH_FILES)}
        ]
        fake.app_permissions &= ~ATTACH_FILES  # as a click's interaction now says
        bot.orchard.runner.clock = lambda: time.time() + 301
        bot.orchard.scheduler.wake()
        await fake.wait_for(
            lambda: "PICK AND PASS!" in text_of(fake.message(board)), what="the timed-out turn"
        )
        shown = fake.message(board)
        assert not shown["attachments"] and word in text_of(shown)
        assert "Attach Files" in text_of(shown), "the reason the picture is missing"
        fake._delete_message(board)  # by a moderator: the next turn's board is posted anew
        bot.orchard.runner.clock = lambda: time.time() + 602
        bot.orchard.scheduler.wake()
        again = await fake.wait_for_message(CHANNEL, lambda m: bool(m.get("components")))
        assert not again["attachments"] and "Attach Files" in text_of(again)
        refused = [r for r in fake.requests if r.status == 403 and "/messages" in r.path]
        assert len(refused) == 1, [(r.method, r.path) for r in refused]
        for given_back in (False, True):
            if given_back:
                fake.channels[CHANNEL]["permission_overwrites"] = []
                fake.app_permissions |= ATTACH_FILES
            state = await state_of(bot)
            mover = USERS[state.turn]
            assert (await press(fake, mover, int(again["id"]), "Pick 3 tiles and pass")).updated
            shown = fake.message(int(again["id"]))
            assert bool(shown["attachments"]) is given_back, "the click's board too"
            assert ("Attach Files" in text_of(shown)) is not given_back


async def test_a_picture_board_deleted_is_posted_again_with_its_picture_whole(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """A moderator deletes an Appletters board with a snake on it; the next turn's display
    finds it gone (404) and posts the board anew. The refused edit has read the picture's
    file to its end, so unless it is rewound the new board's picture goes up empty."""
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        board, _ = await with_a_snake(fake, bot)
        fake._delete_message(board)
        bot.orchard.runner.clock = lambda: time.time() + 301
        bot.orchard.scheduler.wake()
        again = await fake.wait_for_message(CHANNEL, lambda m: bool(m.get("components")))
        posts = fake.requests_matching("POST", rf"/channels/{CHANNEL}/messages$")
        (picture,) = [r for r in posts if r.uploads][-1].uploads
        image = Image.open(io.BytesIO(picture.data))
        image.load()
        assert image.format == "PNG" and again["attachments"][0]["size"] > 0
        no_errors(fake)


async def test_a_picture_board_edited_again_in_a_reopened_thread_uploads_it_whole(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Discord archived the thread of an Appletters game after a quiet spell: a word laid
    then has its board's edit refused (50083) until Orchard reopens the thread. The edit
    sent again uploads the snake's picture anew, and the refused edit has read its file to
    the end, so unless it is rewound the board's picture goes up empty, a broken image.
    (Turn pings are off: their post in the thread would reopen it first.)"""
    fake = fake_discord
    thread = CHANNEL + 100
    server(fake)
    fake.add_thread(thread, CHANNEL)
    async with appletters_bot(fake, database) as bot:
        await bot.orchard.settings.update(GUILD, turn_pings="off")  # a post reopens a thread
        board = await new_game(fake, "appletters", ALICE, [BOB], channel=thread)
        live = await game_of(bot)
        for seat, user in USERS.items():
            await got_tiles(fake, user, live.state.hands[seat])
        mover = live.state.turn
        word = add_word(live.state.hands[mover][:2])
        way = placements_for(live.state, mover, word)[0]
        await fake.archive_thread(thread)
        await bot.orchard.runner.act(live.id, USERS[mover], "play", way.arg)
        await fake.wait_for(lambda: word in text_of(fake.message(board)), what="the word shown")
        assert not fake.channels[thread]["thread_metadata"]["archived"]
        edits = fake.requests_matching("PATCH", rf"/channels/{thread}/messages/{board}$")
        refused, sent = edits[-2:]
        assert (refused.status, sent.status) == (400, 200), [e.status for e in edits]
        (picture,) = sent.uploads
        image = Image.open(io.BytesIO(picture.data))
        image.load()
        assert image.format == "PNG" and fake.message(board)["attachments"][0]["size"] > 0
        no_errors(fake)


async def test_the_leak_check_catches_a_hand_shown_to_another_player(
    fake_discord: FakeDiscord, database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check itself: an honest game passes; one ephemeral reply with the other seat's
    tiles (in any order) fails it, while ordinary words never do."""
    fake = fake_discord
    server(fake)
    hands: dict[int, set[str]] = {}
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB])
        state = await noted(bot, hands)
        for seat, user in USERS.items():
            await got_tiles(fake, user, state.hands[seat])
        await press(fake, BOB, board, "My tiles")
        assert_nothing_leaked(fake, hands)

        async def leaky(interaction: Any, live: Any) -> None:
            other = 1 - live.row.seat_of(interaction.user.id)
            shuffled = live.state.hands[other][::-1]
            await interaction.response.send_message(tiles_text(shuffled), ephemeral=True)

        monkeypatch.setattr(bot.get_cog("AppLettersCog"), "_show_tiles", leaky)
        await press(fake, BOB, board, "My tiles")
    with pytest.raises(AssertionError, match=rf"^\({BOB}, '{state.hands[0]}'"):
        assert_nothing_leaked(fake, hands)
    assert_private(["Played TEA, then STEAK."], set(), {"AET", "AEKST"}, "words, not tiles")


async def test_a_game_ended_by_a_moderator_has_no_winner_on_its_board(
    fake_discord: FakeDiscord, database: Target
) -> None:
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB])
        game_id = (await game_of(bot)).id
        fake.permissions[CAROL] = 1 << 13  # Manage Messages
        ended = await answered(await fake.slash(CAROL, GUILD, CHANNEL, "end", {"game_id": game_id}))
        assert "ended by a moderator" in ended.content
        standings = text_of(fake.message(board))
        assert standings.startswith("### Appletters · Game abandoned\n") and "🏆" not in standings
        assert "The snake:" in standings


async def test_a_restart_sends_no_unchanged_hand_and_no_second_closed_dms_note(
    fake_discord: FakeDiscord, database: Target
) -> None:
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        fake.dms_closed.add(BOB)
        await new_game(fake, "appletters", ALICE, [BOB])
        state = await state_of(bot)
        await got_tiles(fake, ALICE, state.hands[0])
        await fake.wait_for_message(
            CHANNEL, lambda m: "can't send you direct messages" in m["content"]
        )
    before = len(fake.dms(ALICE))
    async with appletters_bot(fake, database) as bot:
        live = await game_of(bot)
        mover = live.state.turn
        await bot.orchard.runner.act(live.id, USERS[mover], "pick", version=live.row.version)
        state = await state_of(bot)
        await asyncio.gather(*bot.get_cog("AppLettersCog").tiles._tasks)  # every DM of that move
        if mover == 0:
            await got_tiles(fake, ALICE, state.hands[0])
            assert len(fake.dms(ALICE)) == before + 1
        else:
            assert len(fake.dms(ALICE)) == before, "Alice's hand did not change"
    notes = [m for m in fake.channel_messages(CHANNEL) if "direct messages" in m["content"]]
    assert len(notes) == 1, "Bob was told once, before the restart"
    assert fake.dms(BOB) == []


async def test_hands_a_crash_kept_from_their_players_are_sent_at_the_restart(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """A game started by a process that died before DMing the hands (or whose DMs a
    shutdown cut off): the restart sends each player their hand, once."""
    from bot.orchard import Orchard

    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        opened = await answered(await fake.slash(ALICE, GUILD, CHANNEL, "appletters new"))
        await press(fake, BOB, int(opened.original["id"]), "Join")
        (lobby,) = await bot.orchard.store.open_games(GUILD)
    offline = await Orchard.open(database)
    live = await offline.lobby.start(lobby.id, ALICE)
    await offline.close()
    async with appletters_bot(fake, database) as bot:
        for seat, user in USERS.items():
            await got_tiles(fake, user, live.state.hands[seat])
        await asyncio.gather(*bot.get_cog("AppLettersCog").tiles._tasks)
    assert [len(fake.dms(user)) for user in USERS.values()] == [1, 1]


async def test_a_player_owing_two_turns_is_shown_so(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Two failed challenges each cost a turn: the board says how many are owed, and the
    end box of the word form reads "last" as it reads "first"."""
    from cogs.appletters import parse_end

    server(fake_discord)
    async with appletters_bot(fake_discord, database) as bot:
        await new_game(fake_discord, "appletters", ALICE, [BOB])
        live = await game_of(bot)
        for owed, said in ((1, "misses a turn"), (2, "misses 2 turns")):
            owing = replace(live, state=replace(live.state, skips=(0, owed)))
            board = bot.uis["appletters"].render(owing).board
            text = text_of({"components": board.to_components()})
            assert said in text, text
    assert (parse_end("first"), parse_end("last")) == ("start", "end")


THREE = {0: ALICE, 1: BOB, 2: CAROL}
CHANGED = (
    "Another player has changed the game since this was shown, so nothing was played: "
    "choose again from the game's board."
)


def two_ways(state: AppState, seat: int) -> str:
    """A word ``seat`` can lay more than one way: an open end's letter and a tile or two."""
    ends = sorted({letter for _, _, letter in public_view(state).open_ends})
    for size in (1, 2):
        for letters in itertools.permutations(state.hands[seat], size):
            middle = "".join(letters)
            for end in ends:
                for word in (end + middle, middle + end, end + middle + end):
                    if len(placements_for(state, seat, word)) >= 2:
                        return word
    raise AssertionError(f"no word seat {seat} can lay two ways: choose another SEED")


async def a_menu_then_a_challenge(
    fake: FakeDiscord, bot: OrchardBot, board: int, menu: str, listed: bool
) -> tuple[InteractionRecord, AppState, int]:
    """Apple Turnover for three: the starter lays a word, the next player a second one, and
    the third opens a private menu (``which way`` a word they typed fits, or ``bad apple``).
    Before they choose, the starter challenges the second word, which is in the list if
    ``listed``. The menu, the state after the challenge, and who is to choose."""
    state = await state_of(bot)
    starter = state.turn
    await modal_word(fake, THREE[starter], board, a_word(state, starter, 2, "end"))
    state = await state_of(bot)
    second = a_word(state, state.turn, 3, "end")  # not the first reversed: no mirror bonus
    if listed:
        add_word(second)
    await modal_word(fake, THREE[state.turn], board, second, "end")
    state = await state_of(bot)
    chooser = THREE[state.turn]
    if menu == "which way":
        word = {"word": two_ways(state, state.turn)}
        offered = await answered(await fake.slash(chooser, GUILD, CHANNEL, "appletters play", word))
        assert "more than one way" in offered.content, offered.describe()
    else:
        offered = await press(fake, chooser, board, "Toss a tile on the Bad Apple")
    assert offered.ephemeral and offered.original is not None, offered.describe()
    challenged = await press(fake, THREE[starter], board, f"Challenge {second}")
    assert challenged.type == 7, challenged.describe()
    return offered, await state_of(bot), chooser


async def choose_first(
    fake: FakeDiscord, user: int, offered: InteractionRecord
) -> InteractionRecord:
    """Take the first choice a private menu offers: a button, or a select's first option."""
    assert offered.original is not None
    menu = int(offered.original["id"])
    first = components_of(offered.original)[0]
    if first.is_select:
        return await answered(await fake.select(user, menu, first, first.options[:1]))
    return await answered(await fake.click(user, menu, first))


@pytest.mark.parametrize("menu", ["which way", "bad apple"])
async def test_a_menu_from_before_a_word_was_challenged_off_says_the_game_changed(
    fake_discord: FakeDiscord, database: Target, menu: str
) -> None:
    """The third player's menu was opened on a snake whose last word has since been
    challenged off (not in the list): nothing of theirs was played, so they are told the
    game changed and to choose again, not that it was already played; nothing changes."""
    unpaced(fake_discord)
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB, CAROL], variant="turnover")
        offered, after, chooser = await a_menu_then_a_challenge(fake, bot, board, menu, False)
        assert len(after.snake) == 1 and THREE[after.turn] == chooser  # still theirs to play
        for _ in range(2):  # and a second try is told the same
            chosen = await choose_first(fake, chooser, offered)
            assert chosen.ephemeral and chosen.content == CHANGED, chosen.describe()
        assert await state_of(bot) == after
        shown = text_of(fake.message(board))
        assert f"Words, start to end: {after.snake[0].text}\n" in shown, shown
        no_errors(fake)


@pytest.mark.parametrize("menu", ["which way", "bad apple"])
async def test_a_menu_from_before_a_failed_challenge_still_plays(
    fake_discord: FakeDiscord, database: Target, menu: str
) -> None:
    """The third player's menu was opened before the starter challenged the second word,
    which is in the list: the challenger loses a turn, and nothing the third player's move
    reads has changed (snake, hand, core), so their choice stands and plays. The same choice
    again is then already played."""
    unpaced(fake_discord)
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB, CAROL], variant="turnover")
        offered, after, chooser = await a_menu_then_a_challenge(fake, bot, board, menu, True)
        seat = next(s for s, user in THREE.items() if user == chooser)
        challenger = (seat + 1) % 3  # the starter: the first word was theirs
        assert after.skips[challenger] == 1 and after.turn == seat and len(after.snake) == 2
        chosen = await choose_first(fake, chooser, offered)
        assert chosen.ephemeral, chosen.describe()
        state = await state_of(bot)
        if menu == "which way":
            assert chosen.content.startswith("Done"), chosen.content
            (laid,) = [word for word in state.snake if word not in after.snake]
            assert laid.seat == seat and len(state.snake) == 3
        else:
            assert chosen.content.startswith("You threw"), chosen.content
            assert state.bad_apple_used[seat] and len(state.bad_apples) == 1
        assert state.turn == (seat + 2) % 3, "the challenger misses their turn"
        again = await choose_first(fake, chooser, offered)
        assert again.ephemeral and "already played" in again.content, again.describe()
        assert await state_of(bot) == state
        live = await game_of(bot)
        assert await bot.orchard.runner.replay(live.id) == live.state
        no_errors(fake)


async def test_accepting_out_of_turn_says_the_word_may_be_challenged_instead(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Apple Turnover for three: the starter goes out on an unchecked word, so the next
    player accepts it or anyone else challenges, as the board says. The third player pressing
    Accept the word is told it is not theirs, and that they may challenge it instead; the
    word's own player, who may not challenge it, is told only that it is not their turn.
    Nothing changes."""
    unpaced(fake_discord)
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB, CAROL], variant="turnover")
        live = await game_of(bot)
        state: AppState = live.state
        starter = state.turn
        word = state.hands[starter][:3]  # unchecked: any letters go on, to be challenged
        core = state.core + state.hands[starter][3:]
        rigged = replace(
            state,
            hands=tuple(word if s == starter else h for s, h in enumerate(state.hands)),
            core=core,
        )
        engine = bot.orchard.runner.engine(live.row.kind)
        await bot.orchard.store.write(GameChange(live.id, state=engine.dump(rigged)))
        bot.orchard.runner.forget_committed()
        await modal_word(fake, THREE[starter], board, word)
        claim = await state_of(bot)
        assert claim.phase == "claim", claim
        accepter, third = claim.turn, 3 - starter - claim.turn
        names = ["Alice", "Bob", "Carol"]
        name = names[accepter]
        assert (
            f"**{names[starter]} used every tile with {word}!** {name}: accept it or challenge"
            f" it; {names[third]} may challenge it too."
        ) in text_of(fake.message(board))
        refused = await press(fake, THREE[third], board, "Accept the word")
        assert refused.ephemeral and refused.content == (
            f"It is not your turn: it is {name}'s. You may challenge {word} instead."
        ), refused.describe()
        own = await press(fake, THREE[starter], board, "Accept the word")  # their own word
        theirs = "You have used every tile: the others may now accept or challenge your word."
        assert own.ephemeral and own.content == theirs, "not just that it is not their turn"
        accept = fake.find_button(board, "Accept the word").custom_id or ""
        play = accept.replace(":accept:", ":ui_play:")  # Play a word, as an old client shows it
        late = await answered(await fake.forge(THREE[starter], board, play))
        assert late.ephemeral and late.content == theirs, late.describe()
        assert await state_of(bot) == claim
        no_errors(fake)


async def test_a_refusal_discord_did_not_take_logs_no_word_tried(
    fake_discord: FakeDiscord, database: Target, debug_log: io.StringIO
) -> None:
    """A word refused for the tiles it lacks, whose private answer Discord then refuses
    (403): the failure is logged as a warning, without the refusal it follows, which names
    the word and so letters its player holds."""
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB])
        state = await state_of(bot)
        mover, hand = USERS[state.turn], state.hands[state.turn]
        await got_tiles(fake, mover, hand)
        absent = next(letter for letter in ascii_uppercase if letter not in hand)
        lacking = add_word(hand[2::-1] + absent)  # three tiles held, one not
        opened = await press(fake, mover, board, "Play a word")
        assert opened.modal is not None
        fake.fail("POST", r"^/webhooks/\d+/", 403)  # its private follow-up
        await fake.submit_modal(mover, CHANNEL, opened.modal["custom_id"], {"word": lacking})
        await fake.wait_for(lambda: fake.pending_faults == 0, what="the refusal sent")
        await fake.wait_for(
            lambda: "not delivered" in debug_log.getvalue(), what="the failure logged"
        )
    logged = debug_log.getvalue()
    assert "refused orcm:" in logged and "not delivered (Forbidden 403" in logged, logged
    assert lacking not in logged and "missing" not in logged
    no_errors(fake)


async def test_debug_logs_show_no_tiles_and_no_word_tried(
    fake_discord: FakeDiscord, database: Target, debug_log: io.StringIO
) -> None:
    """At LOG_LEVEL=DEBUG, nothing logged (Orchard's lines, discord.py's, aiosqlite's) shows
    a hand or a word its player tried: a refused word's answer names the word, or the letters
    it lacks, and discord.py below INFO logs every request's body (tiles DMed, "My tiles")."""
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, database) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB])
        state = await state_of(bot)
        mover, hand = USERS[state.turn], state.hands[state.turn]
        await got_tiles(fake, mover, hand)
        unlisted = hand[4::-1]
        refused = await modal_word(fake, mover, board, unlisted)
        assert refused.ephemeral, refused.describe()
        assert f"{unlisted} is not in the word list" in refused.content
        absent = next(letter for letter in ascii_uppercase if letter not in hand)
        lacking = add_word(hand[2::-1] + absent)
        short = await modal_word(fake, mover, board, lacking)
        assert short.ephemeral and f"tiles for {lacking}" in short.content, short.content
        mine = await press(fake, mover, board, "My tiles")
        assert mine.ephemeral and tiles_text(hand) in mine.content
        assert await state_of(bot) == state
    logged = debug_log.getvalue()
    assert "DEBUG bot.interface: refused orcm:" in logged, logged[-2000:]
    assert "INFO discord.gateway:" in logged, "discord.py logs here too, but only from INFO"
    leaked = [s for s in [*secret_forms(hand), unlisted, lacking] if s in logged]
    assert leaked == [], leaked
    assert TILE_RUN.search(logged) is None
    no_errors(fake)


async def test_a_refused_which_way_click_logs_no_word_at_debug(
    fake_discord: FakeDiscord, database: Target, caplog: pytest.LogCaptureFixture
) -> None:
    """A "which way?" button's custom id carries the word its player tried, which shows
    tiles still in their hand: refused (the game changed since), the click is logged at
    DEBUG by its kind, game, version and verb only. (Orchard's own logs: discord.py's HTTP
    log at DEBUG shows every request's body.)"""
    caplog.set_level(logging.DEBUG)
    unpaced(fake_discord)
    server(fake_discord)
    async with appletters_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "appletters", ALICE, [BOB, CAROL], variant="turnover")
        offered, _, chooser = await a_menu_then_a_challenge(
            fake_discord, bot, board, "which way", False
        )
        assert offered.original is not None
        custom = components_of(offered.original)[0].custom_id or ""
        word = custom.split(":")[4].split("-")[0]
        assert len(word) >= 2, custom
        chosen = await choose_first(fake_discord, chooser, offered)
        assert chosen.ephemeral and chosen.content == CHANGED, chosen.describe()
    ours = [r.getMessage() for r in caplog.records if r.name.split(".")[0] in ("bot", "cogs")]
    leaked = [line for line in ours if word in line]
    assert leaked == [], leaked
    refused = [line for line in ours if line.startswith("refused ")]
    assert any(f"refused {custom.rsplit(':', 1)[0]} " in line for line in refused), refused


async def test_a_restart_never_dms_the_hands_of_a_game_that_ended_meanwhile(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """A restart reads the games in play, then sends the hands a stop kept from their players.
    One that ended between that read and its turn (its notes of hands sent gone with its end)
    must not have every hand it had DMed again: the game is read afresh first."""
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, tmp_path / "o.db") as bot:
        await new_game(fake, "appletters", ALICE, [BOB])
        tiles = bot.get_cog("AppLettersCog").tiles
        read_before = await game_of(bot)  # as the restart's read has it
        await bot.orchard.runner.abandon(read_before.id, no_display)  # ends meanwhile
        await asyncio.gather(*tiles._tasks)
        tiles._versions.clear()  # this process, restarted, has handled nothing of it
        sent = len(fake.dms(ALICE)) + len(fake.dms(BOB))
        await tiles._send_tiles(read_before)
        assert len(fake.dms(ALICE)) + len(fake.dms(BOB)) == sent
        assert read_before.id not in tiles._versions
        no_errors(fake)
