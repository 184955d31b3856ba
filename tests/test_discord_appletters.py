"""Appletters through discord.py against the fake Discord: tiles stay private, words go in.

A tiny word list is registered under one name and given to every game through the cog's
``options_for``; words are added to it as the test needs them, from the dealt hands. The
lobby's seed is fixed so the deal is the same on every run.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.app import OrchardBot
from bot.games.appletters import AppState, register_words, word_set
from cogs.appletters import tiles_text
from tests.botharness import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    answered,
    new_game,
    orchard_bot,
    press,
    server,
)
from tests.fakediscord import EPHEMERAL, FakeDiscord, InteractionRecord, components_of

WORDS = "test-appletters"
SEED = 20240611
USERS = {0: ALICE, 1: BOB}


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
    (row,) = [g for g in await bot.store.open_games(GUILD) if g.status == "active"]
    return await bot.runner.load(row.id)


async def state_of(bot: OrchardBot) -> AppState:
    (row,) = await bot.store.open_games(GUILD)
    return (await bot.runner.load(row.id)).state


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


async def modal_word(
    fake: FakeDiscord, user: int, board: int, word: str, end: str = ""
) -> InteractionRecord:
    opened = await press(fake, user, board, "Play word")
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


def assert_nothing_leaked(fake: FakeDiscord, hands: dict[int, set[str]], logs: list[str]) -> None:
    public = public_texts(fake)
    assert public and not any("Your tiles" in t for t in public)
    for seat, seen in hands.items():
        for hand in seen:
            for form in secret_forms(hand):
                assert not any(form in t for t in public), (seat, form)
                assert not any(form in line for line in logs), (seat, form)
    for seat, user in USERS.items():
        other = {h for s, seen in hands.items() if s != seat for h in seen} - hands[seat]
        for dm in fake.dms(user):
            assert any(f": {tiles_text(h)}\n" in dm["content"] for h in hands[seat])
            assert not any(f": {tiles_text(h)}\n" in dm["content"] for h in other)


async def test_a_whole_game_keeps_every_hand_private(
    fake_discord: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fake = fake_discord
    server(fake)
    hands: dict[int, set[str]] = {0: set(), 1: set()}

    def note(state: AppState) -> None:
        for seat, hand in enumerate(state.hands):
            hands[seat].add(hand)

    async with appletters_bot(fake, tmp_path / "o.db") as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB])
        game_id = (await game_of(bot)).id
        state = await state_of(bot)
        note(state)
        for seat, user in USERS.items():
            await got_tiles(fake, user, state.hands[seat])
        mover, other = state.turn, 1 - state.turn
        a, b = shared_pair(state.hands[mover], state.hands[other])

        wrong = await press(fake, USERS[other], board, "Play word")
        assert wrong.ephemeral and "not your turn" in wrong.content
        stranger = await press(fake, CAROL, board, "My tiles")
        assert stranger.ephemeral and "not playing" in stranger.content
        unknown = await modal_word(fake, USERS[mover], board, "QZQZ")
        assert unknown.ephemeral and "not in the word list" in unknown.content

        first = await modal_word(fake, USERS[mover], board, add_word(a + b))
        assert first.type == 7 and not first.ephemeral, first.describe()
        state = await state_of(bot)
        note(state)
        assert [w.text for w in state.snake] == [a + b]
        await got_tiles(fake, USERS[mover], state.hands[mover])
        shown = fake.message(board)
        assert (a + b) in shown["embeds"][0]["description"]
        assert shown["attachments"][0]["description"].startswith("The word snake")

        add_word(b + a)
        both = await answered(
            await fake.slash(USERS[other], GUILD, CHANNEL, "appletters play", {"word": b + a})
        )
        assert both.ephemeral and "more than one way" in both.content, both.content
        assert both.original is not None
        labels = [c.label for c in components_of(both.original)]
        assert len(labels) >= 2 and any(str(label).startswith("At the end") for label in labels)
        at_end = next(str(label) for label in labels if str(label).startswith("At the end"))
        chosen = await press(fake, USERS[other], int(both.original["id"]), at_end)
        assert chosen.ephemeral and "Played" in chosen.content
        state = await state_of(bot)
        note(state)
        assert [w.text for w in state.snake] == [a + b, b + a]
        assert (b + a) in fake.message(board)["embeds"][0]["description"]

        end = state.snake[-1].text[-1]
        short = {"word": add_word("ZZ" + end), "end": "start"}
        lacking = await answered(
            await fake.slash(USERS[mover], GUILD, CHANNEL, "appletters play", short)
        )
        assert lacking.ephemeral and "don't have the tiles" in lacking.content, lacking.content

        picked = await press(fake, USERS[mover], board, "Pick and pass")
        assert picked.type == 7
        state = await state_of(bot)
        note(state)
        await got_tiles(fake, USERS[mover], state.hands[mover])

        mine = await press(fake, USERS[other], board, "My tiles")
        assert mine.ephemeral and tiles_text(state.hands[other]) in mine.content

        last = add_word(end + state.hands[other][::-1])  # not the hand as sorted: no false alarm
        out = await modal_word(fake, USERS[other], board, last, "end")
        assert out.type == 7, out.describe()
        live = await bot.runner.load(game_id)
        note(live.state)
        assert live.row.status == "finished"
        final = fake.message(board)
        assert "Game over" in final["embeds"][0]["description"]
        assert fake.find_button(board, "Rematch")
        assert await bot.runner.replay(live.id) == live.state
    # Orchard's own log lines at every level; the libraries' from INFO up (discord.http's
    # DEBUG lines echo every request body, DMs included: never run production at DEBUG).
    logs = [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.INFO or r.name.split(".")[0] in ("bot", "cogs", "db")
    ]
    assert any(r.name.startswith("bot.") for r in caplog.records)  # the refusals were logged
    assert_nothing_leaked(fake, hands, logs)


async def test_closed_dms_still_see_tiles_with_my_tiles(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    server(fake)
    fake.dms_closed.add(BOB)
    async with appletters_bot(fake, tmp_path / "o.db") as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB])
        state = await state_of(bot)
        await got_tiles(fake, ALICE, state.hands[0])
        note = await fake.wait_for_message(
            CHANNEL, lambda m: "can't send you direct messages" in m["content"]
        )
        assert f"<@{BOB}>" in note["content"]
        assert fake.dms(BOB) == []
        mine = await press(fake, BOB, board, "My tiles")
        assert mine.ephemeral and tiles_text(state.hands[1]) in mine.content
        mover = state.turn
        await press(fake, USERS[mover], board, "Pick and pass")
        if mover == 0:
            await got_tiles(fake, ALICE, (await state_of(bot)).hands[0])
        notes = [
            m
            for m in fake.channel_messages(CHANNEL)
            if "can't send you direct messages" in m["content"]
        ]
        assert len(notes) == 1


async def test_a_modal_opened_before_a_restart_still_plays(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    server(fake)
    path = tmp_path / "o.db"
    async with appletters_bot(fake, path) as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB])
        state = await state_of(bot)
        mover = USERS[state.turn]
        opened = await press(fake, mover, board, "Play word")
        assert opened.modal is not None
        word = add_word(state.hands[state.turn][:3])
    async with appletters_bot(fake, path) as bot:
        played = await answered(
            await fake.submit_modal(mover, CHANNEL, opened.modal["custom_id"], {"word": word})
        )
        assert played.type == 7 and not played.ephemeral, played.describe()
        assert [w.text for w in (await state_of(bot)).snake] == [word]


async def test_apple_turnover_bad_apple_and_challenge(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, tmp_path / "o.db") as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB], variant="turnover")
        assert "Apple Turnover" in fake.message(board)["embeds"][0]["title"]
        state = await state_of(bot)
        mover, other = USERS[state.turn], USERS[1 - state.turn]
        offered = await press(fake, mover, board, "Bad apple")
        assert offered.ephemeral and offered.original is not None
        (menu,) = [c for c in components_of(offered.original) if c.is_select]
        letter = state.hands[state.turn][0]
        thrown = await answered(
            await fake.select(mover, int(offered.original["id"]), menu, [letter])
        )
        assert thrown.ephemeral and f"threw {letter}" in thrown.content
        assert f"Bad Apple pile: {letter}" in json.dumps(fake.message(board)["embeds"])
        state = await state_of(bot)
        nonsense = state.hands[state.turn][:2]  # unchecked: any letters are laid
        await modal_word(fake, other, board, nonsense)
        challenge = await press(fake, mover, board, f"Challenge {nonsense.upper()}")
        assert challenge.type == 7, challenge.describe()
        assert (await state_of(bot)).snake == ()
