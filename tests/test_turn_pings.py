"""Turn pings through the unchanged bot on the fake Discord, read from the fake's record of
notifications (only a created message notifies; an edit never does): in every game each turn
change notifies exactly the people newly awaited, the first turn included, in the channel,
by DM or not at all; one live turn message per game, a restart included; the end is
announced without a ping."""

from __future__ import annotations

import asyncio
import itertools
import re
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from bot.app import OrchardBot
from bot.games.cheerio import CATEGORIES, open_categories
from bot.model import GameChange, GameStatus, Player, TurnPing
from bot.orchard import Orchard
from bot.pacing import Pacer, traced
from bot.pings import TIDIERS, TurnPings
from bot.runner import Snapshot
from bot.specs import ENGINES, SPEC_OF
from db import games
from db.connection import Target
from db.store import Store
from tests.botharness import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    answered,
    config,
    hastened,
    new_game,
    no_errors,
    orchard_bot,
    press,
    server,
    unpaced,
)
from tests.databases import fresh_schema
from tests.fakediscord import JSON, FakeDiscord, run_bot, text_of
from tests.support import Clock, Table, orchard
from tests.support import started as opened

MANAGE_GUILD = 1 << 5


def content(fake: FakeDiscord, message_id: int) -> str:
    message = fake.messages.get(message_id) or fake.deleted.get(message_id) or {}
    return str(message.get("content") or "")


def pinged(fake: FakeDiscord) -> list[int]:
    """Whom turn pings notified, in order (tile DMs and other notes left out)."""
    return [
        user
        for user, message_id in fake.notifications
        if "your turn in" in content(fake, message_id).lower()
    ]


def channel_of(fake: FakeDiscord, message_id: int) -> int:
    message = fake.messages.get(message_id) or fake.deleted[message_id]
    return int(message["channel_id"])


def mentioned(message: JSON) -> list[int]:
    return sorted(int(m) for m in re.findall(r"<@!?([0-9]+)>", message["content"]))


def turn_messages(fake: FakeDiscord, channel: int = CHANNEL) -> list[JSON]:
    """The live turn messages in a game's channel."""
    return [m for m in fake.channel_messages(channel) if "your turn in" in m["content"]]


def awaited(live: Snapshot) -> set[int]:
    """The people (never Orchard's seats) the game waits for."""
    engine = ENGINES[live.row.kind]
    players = live.row.players
    return {players[s].user_id for s in engine.to_act(live.state) if not players[s].is_bot}


@pytest.fixture
async def bot(fake_discord: FakeDiscord, tmp_path: Path) -> AsyncIterator[OrchardBot]:
    """The bot on a server with Alice, Bob and Carol; moves are made by calling the runner,
    faster than any table plays, so Discord's per-channel pace is lifted."""
    server(fake_discord)
    unpaced(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as running:
        yield running


@pytest.fixture
async def hastened_bot(fake_discord: FakeDiscord, tmp_path: Path) -> AsyncIterator[OrchardBot]:
    """As ``bot``, with Discord's global limit and Orchard's pace under it four times as fast:
    a whole game's boards, pings and deletes take a quarter of the limit's time."""
    server(fake_discord)
    unpaced(fake_discord)
    options = hastened(fake_discord, 4)
    async with orchard_bot(fake_discord, tmp_path / "o.db", **options) as running:
        yield running


async def the_game(bot: OrchardBot) -> Snapshot:
    (row,) = await bot.orchard.store.open_games(GUILD)
    return await bot.orchard.runner.load(row.id)


class Pings:
    """What the pings must be so far, checked against the fake's record at every turn:
    ``by_dm`` are told by DM, everyone else in the channel; ``off``: nobody is told."""

    def __init__(self, fake: FakeDiscord, by_dm: set[int] = frozenset(), off: bool = False):
        self.fake = fake
        self.by_dm = set(by_dm)
        self.off = off
        self.expected: list[int] = []
        self.side_by_side = 0  # turns that newly awaited two people or more
        self.posted: list[int] = []  # every turn message seen live, in order

    async def turn(self, before: set[int], live: Snapshot) -> None:
        """After a write: the newly awaited are pinged, nobody else; one live turn message."""
        new = awaited(live) - before if live.row.status is GameStatus.ACTIVE else set()
        new = set() if self.off else new
        self.expected += sorted(new)
        self.side_by_side += len(new) >= 2
        fake = self.fake
        await fake.wait_for(
            lambda: len(pinged(fake)) >= len(self.expected), what=f"pings of {sorted(new)}"
        )
        assert Counter(pinged(fake)) == Counter(self.expected), (pinged(fake), self.expected)
        # the previous one is tidied away in the background, after the new one is posted
        await fake.wait_for(lambda: len(turn_messages(fake)) <= 1, what="one turn message")
        live_ones = turn_messages(fake)
        if new - self.by_dm:
            (newest,) = live_ones
            assert mentioned(newest) == sorted(new - self.by_dm)
            assert all(old in fake.deleted for old in self.posted), "the previous one is gone"
            self.posted.append(int(newest["id"]))

    async def end(self, live: Snapshot) -> JSON:
        """The end: announced in a new message that pings nobody, and no turn message left;
        each ping came where it should (the channel, or the person's DMs)."""
        fake = self.fake
        end = await fake.wait_for_message(CHANNEL, lambda m: "is over" in m["content"])
        assert int(end["id"]) not in {m for _, m in fake.notifications}
        assert f"/{live.row.message_id}" in end["content"], "it links to the board"
        await fake.wait_for(lambda: turn_messages(fake) == [], what="no turn message left")
        assert Counter(pinged(fake)) == Counter(self.expected)
        for user, message_id in fake.notifications:
            if "your turn in" in content(fake, message_id).lower():
                where = fake.dm_channels.get(user) if user in self.by_dm else CHANNEL
                assert channel_of(fake, message_id) == where, (user, content(fake, message_id))
        return end


async def started(
    bot: OrchardBot, pings: Pings, kind: str, people: list[int]
) -> tuple[int, Snapshot]:
    """A game opened, joined and started by clicks, its first turn's pings checked: its
    board's message id and the game."""
    board = await new_game(pings.fake, kind, people[0], people[1:])
    live = await the_game(bot)
    await pings.turn(set(), live)
    return board, live


async def play(bot: OrchardBot, pings: Pings, live: Snapshot, moves: int = 10_000) -> Snapshot:
    """Every seat plays Orchard's easy choice through the runner (as a click does), and the
    pings are checked after each move."""
    runner = bot.orchard.runner
    choose = SPEC_OF[live.row.kind].strategy
    assert choose is not None
    engine = runner.engine(live.row.kind)
    for _ in range(moves):
        if live.row.status is not GameStatus.ACTIVE:
            break
        seat = min(engine.to_act(live.state))
        action = choose(engine.view_for(live.state, seat), seat, "easy", live.row.seed)
        verb, arg = engine.format(action)
        before = awaited(live)
        user = live.row.players[seat].user_id
        live = await runner.act(live.id, user, verb, arg, version=live.row.version)
        await pings.turn(before, live)
    return live


def with_a_challenge(seed: int) -> bool:
    """Whether Hot Score, played as :func:`play` plays it from ``seed``, throws a challenge."""
    return any(state.phase == "challenge" for state in hotscore_states(seed))


def hotscore_states(seed: int) -> Iterator[Any]:
    engine = ENGINES["hotscore"]
    choose = SPEC_OF["hotscore"].strategy
    assert choose is not None
    state = engine.new(seed, 2, {"floor_zero": True})
    while not engine.is_over(state):
        seat = min(engine.to_act(state))
        state = engine.apply(state, choose(engine.view_for(state, seat), seat, "easy", seed))
        yield state


@pytest.mark.parametrize(
    ("kind", "people"),
    [
        ("cheerio", [ALICE, BOB]),
        ("cheerio", [ALICE, BOB, CAROL]),
        ("applejack", [ALICE, BOB, CAROL]),
    ],
)
async def test_every_turn_of_a_dice_game_pings_exactly_the_newly_awaited(
    fake_discord: FakeDiscord, hastened_bot: OrchardBot, kind: str, people: list[int]
) -> None:
    bot = hastened_bot
    pings = Pings(fake_discord)
    board, live = await started(bot, pings, kind, people)
    assert pinged(fake_discord) == [people[0]], "the first turn notifies"
    assert "Alice's turn" in text_of(fake_discord.message(board)), "named on the board"
    live = await play(bot, pings, live)
    await pings.end(live)
    shown = [text_of(version) for version in fake_discord.versions[board]]
    assert not any("<@" in text for text in shown), "the board never mentions anyone"
    if kind == "applejack":
        assert pings.side_by_side, "the last turn of a round awaits everyone at once"
    no_errors(fake_discord)


async def test_hot_score_pings_both_players_for_the_challenge_throw(
    fake_discord: FakeDiscord, bot: OrchardBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed = next(s for s in range(1, 500) if with_a_challenge(s))
    monkeypatch.setattr("bot.lobby.secrets.randbits", lambda bits: seed)
    pings = Pings(fake_discord)
    _, live = await started(bot, pings, "hotscore", [ALICE, BOB])
    assert live.row.seed == seed
    both = 0  # versions awaiting both players' challenge dice
    while live.row.status is GameStatus.ACTIVE:
        live = await play(bot, pings, live, moves=1)
        both += live.row.status is GameStatus.ACTIVE and awaited(live) == {ALICE, BOB}
    await pings.end(live)
    assert both, "a challenge was thrown"
    no_errors(fake_discord)


async def test_every_appletters_turn_pings_and_the_winner_is_named(
    fake_discord: FakeDiscord, bot: OrchardBot
) -> None:
    pings = Pings(fake_discord)
    _, live = await started(bot, pings, "appletters", [ALICE, BOB])
    live = await play(bot, pings, live)
    end = await pings.end(live)
    results = ENGINES["appletters"].results(live.state)
    winners = [live.row.players[r.seat].name for r in results if r.won]
    assert winners and all(name in end["content"] for name in winners), "named, not mentioned"
    assert "<@" not in end["content"]
    no_errors(fake_discord)


async def play_cheerio(bot: OrchardBot, pings: Pings) -> JSON:
    """A two-player Cheerio game from its lobby to its end, pings checked all the way."""
    _, live = await started(bot, pings, "cheerio", [ALICE, BOB])
    return await pings.end(await play(bot, pings, live))


async def test_dm_mode_tells_each_player_by_dm_naming_the_game_with_its_link(
    fake_discord: FakeDiscord, bot: OrchardBot
) -> None:
    fake_discord.permissions[ALICE] = MANAGE_GUILD
    saved = await answered(
        await fake_discord.slash(ALICE, GUILD, CHANNEL, "settings", {"turn_pings": "dm"})
    )
    assert saved.ephemeral and "Turn pings: By DM" in saved.content
    pings = Pings(fake_discord, by_dm={ALICE, BOB})
    await play_cheerio(bot, pings)
    assert pings.posted == [], "no turn message in the channel"
    first = fake_discord.dms(ALICE)[0]["content"]
    assert first.startswith("Your turn in **Cheerio · game 1**")
    assert f"https://discord.com/channels/{GUILD}/{CHANNEL}/" in first
    no_errors(fake_discord)


async def test_off_mode_pings_nobody_and_still_announces_the_end(
    fake_discord: FakeDiscord, bot: OrchardBot
) -> None:
    await bot.orchard.settings.update(GUILD, turn_pings="off")
    await play_cheerio(bot, Pings(fake_discord, off=True))
    assert fake_discord.notifications == []
    no_errors(fake_discord)


async def test_a_choice_made_while_the_server_has_pings_off_says_when_it_counts(
    fake_discord: FakeDiscord, bot: OrchardBot
) -> None:
    """With the server's turn pings off, /pings dm:true is still saved, for when they are
    back on: the answer says so, not only "Saved." and "nowhere", as if it did nothing; and
    it says where they will go, not the server's way, once it is so."""
    await bot.orchard.settings.update(GUILD, turn_pings="off")
    chose = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "pings", {"dm": True}))
    assert chose.content == (
        "Saved. When it is your turn here, Orchard tells you nowhere: this server has turned"
        " turn pings off. If it turns them back on, yours come by direct message, as you chose."
    ), chose.content
    shown = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "pings"))
    assert shown.content == chose.content.removeprefix("Saved. ")
    plain = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "pings"))
    assert plain.content.endswith("this server has turned turn pings off."), plain.content
    await bot.orchard.settings.update(GUILD, turn_pings="channel")
    back = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "pings"))
    assert "tells you by direct message" in back.content, back.content
    no_errors(fake_discord)


async def test_a_players_own_dm_choice_wins_over_the_channel(
    fake_discord: FakeDiscord, bot: OrchardBot
) -> None:
    shown = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "pings"))
    assert shown.ephemeral and "in the game's channel" in shown.content
    chose = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "pings", {"dm": True}))
    assert chose.ephemeral and "Saved" in chose.content and "by direct message" in chose.content
    assert await bot.orchard.settings.ping_choice(GUILD, BOB) is True
    pings = Pings(fake_discord, by_dm={BOB})
    await play_cheerio(bot, pings)
    assert pings.posted and fake_discord.dms(BOB), "Alice in the channel, Bob by DM"
    no_errors(fake_discord)


async def test_a_choice_saved_after_orchard_deferred_is_answered_as_saved(
    fake_discord: FakeDiscord, bot: OrchardBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A busy database can hold the choice past the 2 s after which Orchard defers the answer:
    the answer then completes the deferral, and says the choice was saved (it was)."""
    store = bot.orchard.store
    real = store.set_ping_choice

    def deferred() -> bool:
        return bool(fake_discord.requests_matching("POST", r"/interactions/.*/callback$"))

    async def after_the_deferral(guild_id: int, user_id: int, dm: bool) -> None:
        await fake_discord.wait_for(deferred, what="Orchard to defer /pings")
        await real(guild_id, user_id, dm)

    monkeypatch.setattr(store, "set_ping_choice", after_the_deferral)
    chose = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "pings", {"dm": True}))
    assert chose.type == 5 and chose.ephemeral, chose.describe()
    assert chose.content.startswith("Saved. ") and "by direct message" in chose.content
    assert await bot.orchard.settings.ping_choice(GUILD, BOB) is True
    no_errors(fake_discord)


async def test_a_player_who_takes_no_dms_is_pinged_in_the_channel(
    fake_discord: FakeDiscord, bot: OrchardBot
) -> None:
    fake_discord.dms_closed.add(BOB)
    await bot.orchard.settings.update(GUILD, turn_pings="dm")
    await play_cheerio(bot, Pings(fake_discord, by_dm={ALICE}))
    no_errors(fake_discord)


async def test_orchards_seats_are_never_pinged(fake_discord: FakeDiscord, bot: OrchardBot) -> None:
    fake = fake_discord

    def over() -> bool:
        return any("is over" in m["content"] for m in fake.channel_messages(CHANNEL))

    opened = await answered(
        await fake.slash(ALICE, GUILD, CHANNEL, "cheerio new", {"opponent": "orchard"})
    )
    turns = 0
    while True:  # Orchard plays its own turns in between
        await fake.wait_for(
            lambda told=turns: len(pinged(fake)) > told or over(), what="Alice's turn"
        )
        if over():
            break
        turns += 1
        live = await the_game(bot)
        assert awaited(live) == {ALICE}
        category = open_categories(live.state.cards[0])[0]
        await bot.orchard.runner.act(live.id, ALICE, "score", category)
    assert pinged(fake) == [ALICE] * len(CATEGORIES)
    assert fake.bot_id not in {user for user, _ in fake.notifications}
    first = content(fake, fake.notifications[0][1])
    assert first.endswith(f"/{opened.original_id})"), "even a game started at once links"
    no_errors(fake)


async def test_a_restart_catches_up_and_leaves_one_turn_message(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Pings lost to a crash (a move committed while no bot ran) are caught up at start-up,
    and the turn message from before the restart is deleted, not left beside the next.
    Moves are made by calling the runner, so Discord's per-channel pace is lifted as for the
    other games here (at that pace the game took over a minute)."""
    server(fake_discord)
    unpaced(fake_discord)
    pings = Pings(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        _, live = await started(bot, pings, "cheerio", [ALICE, BOB])
        live = await play(bot, pings, live, moves=4)  # Alice's turn, Bob's turn, ...
    offline = await Orchard.open(database)
    before = awaited(live)
    seat = min(ENGINES["cheerio"].to_act(live.state))
    category = open_categories(live.state.cards[seat])[0]
    user = live.row.players[seat].user_id
    live = await offline.runner.act(live.id, user, "score", category)
    await offline.close()
    async with orchard_bot(fake_discord, database) as bot:
        await pings.turn(before, live)  # the one the crash lost
        await pings.end(await play(bot, pings, live))
        no_errors(fake_discord)


async def test_a_first_turn_a_crash_kept_from_its_ping_is_pinged_at_the_restart(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """A game's first ping makes its record, which is what a restart catches up from: a
    game started by a process that died before its first ping (or whose ping a shutdown
    cut off) is caught up too. A daily game, never pinged, is left alone."""
    server(fake_discord)
    unpaced(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        await press(fake_discord, BOB, int(opened.original["id"]), "Join")
        (lobby,) = await bot.orchard.store.open_games(GUILD)
        await answered(await fake_discord.slash(CAROL, GUILD, CHANNEL, "daily"))
    offline = await Orchard.open(database)
    live = await offline.lobby.start(lobby.id, ALICE)
    await offline.close()
    first = live.row.players[min(ENGINES["cheerio"].to_act(live.state))].user_id
    async with orchard_bot(fake_discord, database):
        await fake_discord.wait_for(lambda: pinged(fake_discord) == [first], what="the ping")
        await asyncio.sleep(0.3)
        assert pinged(fake_discord) == [first]
        no_errors(fake_discord)


async def test_a_ping_after_the_board_was_posted_anew_links_to_the_new_board(
    fake_discord: FakeDiscord, bot: OrchardBot
) -> None:
    """A moderator deleted the board: the move's display posts it anew, and the ping of
    that move links to the new one, not to the message deleted."""
    fake = fake_discord
    board = await new_game(fake, "cheerio", ALICE, [BOB])
    await fake.wait_for(lambda: pinged(fake) == [ALICE], what="Alice's ping")
    live = await the_game(bot)
    fake._delete_message(board)
    await bot.orchard.runner.act(live.id, ALICE, "score", first_open(live))
    await fake.wait_for(lambda: pinged(fake) == [ALICE, BOB], what="Bob's ping")
    reposted = (await the_game(bot)).row.message_id
    assert reposted != board
    bobs = content(fake, fake.notifications[-1][1])
    assert f"/{reposted})" in bobs, bobs


async def test_a_failed_ping_is_logged_and_tried_again_while_the_game_goes_on(
    fake_discord: FakeDiscord, bot: OrchardBot
) -> None:
    await new_game(fake_discord, "cheerio", ALICE, [BOB])
    live = await the_game(bot)
    await fake_discord.wait_for(lambda: pinged(fake_discord) == [ALICE], what="Alice's ping")
    fake_discord.fail("POST", r"^/channels/\d+/messages$", 503)  # discord.py gives up
    score = open_categories(live.state.cards[0])[0]
    live = await bot.orchard.runner.act(live.id, ALICE, "score", score)
    assert awaited(live) == {BOB}, "the move stands"
    await fake_discord.wait_for(lambda: fake_discord.pending_faults == 0, what="the 503s")
    live = await bot.orchard.runner.act(live.id, BOB, "roll")
    await fake_discord.wait_for(lambda: pinged(fake_discord) == [ALICE, BOB], what="retry")
    no_errors(fake_discord)


async def test_a_ping_choice_is_a_persons_and_forget_me_deletes_it(database: Target) -> None:
    o = await Orchard.open(database)
    settings = o.settings
    assert await settings.ping_mode(GUILD, ALICE) == "channel"
    await settings.set_ping_choice(GUILD, ALICE, True)
    await settings.set_ping_choice(GUILD + 1, ALICE, False)
    assert await settings.ping_mode(GUILD, ALICE) == "dm"
    await settings.update(GUILD, turn_pings="off")
    assert await settings.ping_mode(GUILD, ALICE) == "off", "a server's off is off"
    await settings.update(GUILD, turn_pings="dm")
    assert await settings.ping_mode(GUILD + 1, ALICE) == "channel"
    with pytest.raises(ValueError, match="'channel', by 'dm', or are 'off'"):
        await settings.update(GUILD, turn_pings="loud")
    assert await o.forget(GUILD, ALICE) == 1  # as /forget-me does
    assert await settings.ping_choice(GUILD, ALICE) is None
    assert await settings.ping_choice(GUILD + 1, ALICE) is False, "another server's stays"
    assert await settings.ping_mode(GUILD, ALICE) == "dm", "the server's way again"
    await o.store.guild_left(GUILD + 1, 0.0)
    o.leader.leading = True  # the only process: it leads (as its start would make it)
    assert await o.purge_departed(1.0) == [GUILD + 1]
    assert await settings.ping_choice(GUILD + 1, ALICE) is None
    await o.close()


async def test_a_ping_choice_is_read_once_where_one_process_writes(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a read on every turn change: on SQLite a choice is read once, and its change is
    known at once; on a shared store another process may change it, so it is read each time."""
    o = await Orchard.open(database)
    reads: list[int] = []
    stored = o.store.ping_choice

    async def counted(guild_id: int, user_id: int) -> bool | None:
        reads.append(user_id)
        return await stored(guild_id, user_id)

    monkeypatch.setattr(o.store, "ping_choice", counted)
    for _ in range(3):
        assert await o.settings.ping_mode(GUILD, ALICE) == "channel"
    await o.settings.set_ping_choice(GUILD, ALICE, True)
    for _ in range(3):
        assert await o.settings.ping_mode(GUILD, ALICE) == "dm"
    assert len(reads) == (6 if o.store.shared else 2)
    await o.close()


async def test_a_ping_choice_read_while_it_is_changed_is_not_kept(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read of Alice's choice that began before she changed it returns the old choice; it
    must not be kept, or her turn pings would go the old way until the bot restarts."""
    o = await Orchard.open(database)
    stored = o.store.ping_choice
    read, go = asyncio.Event(), asyncio.Event()

    async def slow(guild_id: int, user_id: int) -> bool | None:
        choice = await stored(guild_id, user_id)
        read.set()
        await go.wait()  # read, not yet returned: the change lands meanwhile
        return choice

    monkeypatch.setattr(o.store, "ping_choice", slow)
    reading = asyncio.create_task(o.settings.ping_choice(GUILD, ALICE))
    await read.wait()  # not a fixed pause: a slow read would see the change
    monkeypatch.setattr(o.store, "ping_choice", stored)
    await o.settings.set_ping_choice(GUILD, ALICE, True)
    go.set()
    assert await reading is None, "the read began before the change"
    assert await o.settings.ping_choice(GUILD, ALICE) is True
    await o.close()


async def test_a_turn_the_clock_ends_pings_the_next_player_and_no_one_else(
    fake_discord: FakeDiscord, bot: OrchardBot
) -> None:
    pings = Pings(fake_discord)
    _, live = await started(bot, pings, "cheerio", [ALICE, BOB])
    await bot.orchard.runner.postpone(live.id, time.time())  # Alice's deadline has passed
    runner = bot.orchard.runner
    # Fired here, or by the scheduler if it woke first: either way the clock played.
    timed_out = await runner.fire_deadline(live.id) or await runner.load(live.id)
    assert timed_out.row.version > live.row.version
    await pings.turn({ALICE}, timed_out)
    notice = await fake_discord.wait_for_message(CHANNEL, lambda m: "ran out" in m["content"])
    assert int(notice["id"]) not in {m for _, m in fake_discord.notifications}
    no_errors(fake_discord)


async def test_a_turn_the_clock_ends_is_pinged_once_its_board_shows_it(
    fake_discord: FakeDiscord, bot: OrchardBot
) -> None:
    """The clock ends Alice's turn: the scheduler's display workers draw the board, apart
    from the commit. Bob's ping waits for that board, as a click's does: pinged while it
    still showed Alice's turn, his press on it would be refused as changed."""
    fake = fake_discord
    board = await new_game(fake, "cheerio", ALICE, [BOB])
    await fake.wait_for(lambda: pinged(fake) == [ALICE], what="Alice's ping")
    live = await the_game(bot)
    editing = fake.hold("PATCH", rf"^/channels/{CHANNEL}/messages/{board}$")
    try:
        await bot.orchard.runner.postpone(live.id, time.time())  # Alice's deadline has passed
        bot.orchard.scheduler.wake()
        await fake.wait_for(
            lambda: any(not r.status for r in fake.requests_matching("PATCH", f"/{board}")),
            what="the board's edit on its way",
        )
        await asyncio.sleep(0.5)
        assert pinged(fake) == [ALICE], "Bob was pinged while his board showed Alice's turn"
    finally:
        editing.set()
    await fake.wait_for(lambda: pinged(fake) == [ALICE, BOB], what="Bob's ping")
    no_errors(fake)


async def test_a_move_that_changes_no_turn_never_overtakes_one_still_being_told(
    fake_discord: FakeDiscord, bot: OrchardBot
) -> None:
    """Most moves change nobody's turn and are noted without a task; never ahead of an
    earlier version whose pings are still on their way. Here the board's display is held
    while Alice ends her turn, Bob plays his whole turn, and Alice is awaited again (as she
    was when her pings were last handled): she is pinged anew. Bob's turn was over before
    it could be told, so he is not."""
    pings = Pings(fake_discord)
    _, live = await started(bot, pings, "cheerio", [ALICE, BOB])
    runner = bot.orchard.runner
    engine = runner.engine("cheerio")
    choose = SPEC_OF["cheerio"].strategy
    assert choose is not None
    moves: list[asyncio.Task[Snapshot]] = []
    async with runner.showing(live.id):  # every display of the game waits meanwhile
        turns = [engine.to_act(live.state)]
        while len(turns) < 3:
            seat = min(engine.to_act(live.state))
            action = choose(engine.view_for(live.state, seat), seat, "easy", live.row.seed)
            user = live.row.players[seat].user_id
            moves.append(asyncio.create_task(runner.act(live.id, user, *engine.format(action))))
            # committed (read back: a loaded machine's commit can outlast any fixed sleep);
            # its display waits for the lock
            live = await committed(bot, live.id, live.row.version + 1)
            if engine.to_act(live.state) != turns[-1]:
                turns.append(engine.to_act(live.state))
    await asyncio.gather(*moves)
    await fake_discord.wait_for(lambda: len(pinged(fake_discord)) >= 2, what="Alice's again")
    await asyncio.sleep(0.2)  # time for any more to arrive
    assert pinged(fake_discord) == [ALICE, ALICE]
    no_errors(fake_discord)


async def test_turns_over_before_their_ping_could_be_posted_are_never_pinged(
    fake_discord: FakeDiscord, bot: OrchardBot
) -> None:
    """While the channel holds Bob's turn message unanswered (rate-limited, say), Bob, Alice
    and Bob end their turns: once it goes through, only the turn now being played is told.
    Pinging each version in turn would notify Alice twice and Bob once more, each for a turn
    already over."""
    fake = fake_discord
    pings = Pings(fake)
    _, live = await started(bot, pings, "cheerio", [ALICE, BOB])
    runner = bot.orchard.runner
    posting = rf"^/channels/{CHANNEL}/messages$"
    released = fake.hold("POST", posting)
    for turn in range(4):
        seat = min(runner.engine("cheerio").to_act(live.state))
        user = live.row.players[seat].user_id
        category = open_categories(live.state.cards[seat])[0]
        live = await runner.act(live.id, user, "score", category, version=live.row.version)
        if turn == 0:
            await fake.wait_for(
                lambda: fake.requests_matching("POST", posting),
                what="Bob's turn message, held",
            )
    assert awaited(live) == {ALICE}
    released.set()
    await fake.wait_for(lambda: len(pinged(fake)) >= 3, what="Bob's ping, then Alice's")
    await asyncio.sleep(0.2)  # time for any more to arrive
    assert pinged(fake) == [ALICE, BOB, ALICE]
    await fake.wait_for(lambda: len(turn_messages(fake)) == 1, what="one turn message")
    assert mentioned(turn_messages(fake)[0]) == [ALICE]
    no_errors(fake)


async def committed(bot: OrchardBot, game_id: int, version: int) -> Snapshot:
    """The game once ``version`` is committed (its display may still wait); 10 s at most."""
    deadline = time.monotonic() + 10
    while (live := await bot.orchard.runner.load(game_id)).row.version < version:
        assert time.monotonic() < deadline, f"version {version} never committed"
        await asyncio.sleep(0.01)
    return live


async def waits_for_its_board(bot: OrchardBot, game_id: int) -> None:
    """Until the game's ping task has taken up its latest version, so it waits for that
    version's board (it takes it up only on its way to the display lock); 10 s at most."""
    pings = bot.boards.pings
    deadline = time.monotonic() + 10
    while game_id in pings._latest or game_id not in pings._busy:
        assert time.monotonic() < deadline, "the ping task never took up the latest version"
        await asyncio.sleep(0.01)


async def test_a_turn_broken_while_the_next_ping_waits_for_its_board_is_told_anew(
    fake_discord: FakeDiscord, bot: OrchardBot
) -> None:
    """Bob's ping is held by the channel while he rolls; the board is held while Bob ends his
    turn and Alice plays hers, so it is Bob's again. His ping then waits for the board of his
    roll, and the versions after it are gathered apart: what they passed over still counts,
    and Bob is pinged for his new turn."""
    fake = fake_discord
    pings = Pings(fake)
    _, live = await started(bot, pings, "cheerio", [ALICE, BOB])
    runner = bot.orchard.runner
    released = fake.hold("POST", rf"^/channels/{CHANNEL}/messages$")

    def score(seat: int) -> tuple[str, str]:
        return "score", open_categories(live.state.cards[seat])[0]

    live = await runner.act(live.id, ALICE, *score(0), version=live.row.version)
    live = await runner.act(live.id, BOB, "roll", version=live.row.version)
    moves: list[asyncio.Task[Snapshot]] = []
    async with runner.showing(live.id):
        released.set()
        await fake.wait_for(lambda: pinged(fake) == [ALICE, BOB], what="Bob's ping, let through")
        await waits_for_its_board(bot, live.id)  # the board of his roll
        for user, move in ((BOB, score(1)), (ALICE, ("roll", "")), (ALICE, score(0))):
            version = live.row.version
            moves.append(asyncio.create_task(runner.act(live.id, user, *move, version=version)))
            live = await committed(bot, live.id, version + 1)
    await asyncio.gather(*moves)
    assert awaited(live) == {BOB}
    await fake.wait_for(lambda: len(pinged(fake)) >= 3, what="Bob's new turn")
    await asyncio.sleep(0.2)  # time for any more to arrive
    assert pinged(fake) == [ALICE, BOB, BOB]
    no_errors(fake)


async def status_of(bot: OrchardBot, game_id: int, status: GameStatus) -> Snapshot:
    """The game once its status is ``status`` (its display may still wait); 10 s at most."""
    deadline = time.monotonic() + 10
    while (live := await bot.orchard.runner.load(game_id)).row.status is not status:
        assert time.monotonic() < deadline, f"the game never became {status}"
        await asyncio.sleep(0.01)
    return live


async def test_a_game_ended_before_its_first_ping_is_handled_leaves_no_pings_behind(
    fake_discord: FakeDiscord, bot: OrchardBot
) -> None:
    """Displays are held while the game starts and a moderator ends it: its first ping's task,
    once the boards are shown, finds it over with nobody ever told, so there is nothing to
    tidy or announce. Nor is anything of it kept in memory: a game a day closed so would
    otherwise stay there for good."""
    fake = fake_discord
    runner = bot.orchard.runner
    pings = bot.boards.pings
    opened = await answered(await fake.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
    assert opened.original is not None, opened.describe()
    board = int(opened.original["id"])
    await press(fake, BOB, board, "Join")
    (row,) = await bot.orchard.store.open_games(GUILD)
    async with runner.showing(row.id):  # the start's display, and so its ping, wait
        start = asyncio.create_task(press(fake, ALICE, board, "Start"))
        await status_of(bot, row.id, GameStatus.ACTIVE)
        end = asyncio.create_task(runner.abandon(row.id))
        await status_of(bot, row.id, GameStatus.ABANDONED)
    await start
    assert (await end).row.status is GameStatus.ABANDONED
    while pings._tasks:  # the ping's task, and any tidier
        await asyncio.wait(pings._tasks)
    assert pinged(fake) == []
    assert row.id not in pings._pings
    no_errors(fake)


async def test_a_game_ended_as_a_restart_catches_up_leaves_no_pings_behind(
    fake_discord: FakeDiscord, bot: OrchardBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restart reads the games whose pings fell behind, then each in its lock: one that
    ended in between has had its record dropped by the live pings. Catching up on it tells
    nobody, and keeps nothing of it in memory."""
    fake = fake_discord
    pings = bot.boards.pings
    _, live = await started(bot, Pings(fake), "cheerio", [ALICE, BOB])
    await bot.orchard.runner.abandon(live.id)
    while pings._tasks:  # the end handled: its turn message tidied, its record dropped
        await asyncio.wait(pings._tasks)
    assert live.id not in pings._pings
    assert await bot.orchard.store.turn_ping(live.id) is None

    async def read_before_it_ended() -> list[tuple[int, bool]]:
        return [(live.id, True)]

    monkeypatch.setattr(bot.orchard.store, "turn_pings_behind", read_before_it_ended)
    await pings._resume()
    while pings._tasks:
        await asyncio.wait(pings._tasks)
    assert pinged(fake) == [ALICE]
    assert live.id not in pings._pings
    no_errors(fake)


CHANNELS = [CHANNEL + 100 + n for n in range(6)]  # a second server's, a game in each


async def games_in_six_channels(fake: FakeDiscord, bot: OrchardBot) -> list[int]:
    """Alice against Bob in each of :data:`CHANNELS`, started: the games' ids."""
    fake.add_guild(GUILD + 1, CHANNELS, [ALICE, BOB])
    games = []
    for channel in CHANNELS:
        await new_game(fake, "cheerio", ALICE, [BOB], guild=GUILD + 1, channel=channel)
        (row,) = await bot.orchard.store.open_games(GUILD + 1, channel)
        games.append(row.id)
    return games


async def turns_in_six_channels(fake: FakeDiscord, bot: OrchardBot) -> asyncio.Event:
    """A game in each of six channels, Alice's turn and then Bob's ended in each, while
    Discord holds every deletion; returns what lets them through."""
    released = fake.hold("DELETE", r"^/channels/[0-9]+/messages/[0-9]+$")
    runner = bot.orchard.runner
    games = await games_in_six_channels(fake, bot)
    for _ in range(2):  # each time, the turn message before is old
        for game_id in games:
            live = await runner.load(game_id)
            seat = min(runner.engine("cheerio").to_act(live.state))
            user = live.row.players[seat].user_id
            await runner.act(game_id, user, "score", open_categories(live.state.cards[seat])[0])
    await fake.wait_for(lambda: len(pinged(fake)) == 3 * len(games), what="every turn told")
    return released


async def test_turns_the_scheduler_ends_are_told_by_the_backlogs_workers(
    fake_discord: FakeDiscord, bot: OrchardBot
) -> None:
    """The clock ends Alice's turn in six games at once, in the scheduler's background (as
    after downtime, when there may be thousands): a few workers tell Bob in every one."""
    fake = fake_discord
    games = await games_in_six_channels(fake, bot)
    await fake.wait_for(lambda: len(pinged(fake)) == len(games), what="Alice told in each")
    for game_id in games:
        await bot.orchard.runner.postpone(game_id, time.time())  # her deadline has passed
    bot.orchard.scheduler.wake()
    await fake.wait_for(lambda: len(pinged(fake)) == 2 * len(games), what="Bob told in each")
    assert Counter(pinged(fake)) == {ALICE: len(games), BOB: len(games)}
    for channel in CHANNELS:
        await fake.wait_for(lambda c=channel: len(turn_messages(fake, c)) == 1, what=str(channel))
        assert mentioned(turn_messages(fake, channel)[0]) == [BOB]
    no_errors(fake)


def deleting(fake: FakeDiscord) -> list[str]:
    """The deletions Discord holds unanswered."""
    return [r.path for r in fake.requests_matching("DELETE", "/messages/") if not r.status]


async def test_turn_messages_wait_their_turn_to_be_deleted_and_all_go(
    fake_discord: FakeDiscord, bot: OrchardBot
) -> None:
    """Deletions that cannot keep up wait in Orchard as numbers, not as requests in flight:
    at most TIDIERS reach Discord at once, where a request each would send one a channel.
    Every old turn message goes in the end."""
    fake = fake_discord
    released = await turns_in_six_channels(fake, bot)
    await fake.wait_for(lambda: len(deleting(fake)) >= TIDIERS, what="the tidiers' deletions")
    await asyncio.sleep(0.2)  # time for any more to arrive
    assert len(deleting(fake)) == TIDIERS, deleting(fake)
    released.set()
    for channel in CHANNELS:
        await fake.wait_for(
            lambda c=channel: len(turn_messages(fake, c)) == 1, what=f"the live one in {channel}"
        )
    no_errors(fake)


async def test_past_the_most_waiting_the_oldest_turn_messages_stay(
    fake_discord: FakeDiscord,
    bot: OrchardBot,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Twelve old turn messages: the tidiers take four, three wait, and the five oldest of the
    rest are left standing (and logged) rather than kept without end."""
    monkeypatch.setattr("bot.pings.MOST_UNTIDY", 3)
    fake = fake_discord
    released = await turns_in_six_channels(fake, bot)
    await fake.wait_for(lambda: len(deleting(fake)) >= TIDIERS, what="the tidiers' deletions")
    # An old turn message is handed to the tidiers only once its successor's record is
    # written, after Discord has the successor. Deletions let through before the last ones are
    # handed over would free a tidier for them; the fifth left standing means all twelve were.
    deadline = time.monotonic() + 10
    while (left := sum("too many to delete" in r.message for r in caplog.records)) < 5:
        assert time.monotonic() < deadline, f"{left} old turn messages left, not 5"
        await asyncio.sleep(0.01)
    released.set()
    await fake.wait_for(
        lambda: sum(len(turn_messages(fake, c)) for c in CHANNELS) == len(CHANNELS) + 5,
        what="five old turn messages left",
    )
    await asyncio.sleep(0.2)  # and no more deleted
    assert sum(len(turn_messages(fake, c)) for c in CHANNELS) == len(CHANNELS) + 5
    assert sum("too many to delete" in r.message for r in caplog.records) == 5


async def test_a_turn_ping_record_never_goes_back_to_an_older_version(database: Target) -> None:
    """Processes committing consecutive versions of a game each handle their own pings, and
    the older handler may finish last: its record is refused, and the newer one stands. A
    write says which message the record it replaced held, where another process may have
    written that record (a shared store); one process knows, as it wrote it itself."""
    store = await Store.open(database)
    game_id = await store.create_game("cheerio", 1, 2, Player(0, 7, "Ann"), seed=1)
    newer = TurnPing(game_id, 5, frozenset({1}), 51, frozenset({1}))

    def held(message_id: int | None) -> tuple[bool, int | None]:
        return True, message_id if store.shared else None

    assert await store.set_turn_ping(TurnPing(game_id, 3, frozenset({0}), 31, frozenset({0}))) == (
        True,
        None,
    )
    assert await store.set_turn_ping(newer) == held(31)
    older = TurnPing(game_id, 4, frozenset({0}), 41, frozenset({0}))
    assert await store.set_turn_ping(older) == (False, None)
    assert await store.turn_ping(game_id) == newer
    mine = replace(newer, message_id=52)
    assert await store.set_turn_ping(mine) == held(51), "its own version again"
    assert (await store.turn_ping(game_id)) == mine
    await store.close()


async def test_a_dropped_record_says_which_message_it_held(database: Target) -> None:
    """A game's end drops its record, and learns the message it held when dropped: on a
    shared store another process may have recorded its own since the ender read it."""
    store = await Store.open(database)
    game_id = await store.create_game("cheerio", 1, 2, Player(0, 7, "Ann"), seed=1)
    await store.set_turn_ping(TurnPing(game_id, 3, frozenset({0}), 31, frozenset({0})))
    assert await store.drop_turn_ping(game_id) == 31
    assert await store.turn_ping(game_id) is None
    assert await store.drop_turn_ping(game_id) is None, "nothing left to drop"
    await store.close()


@pytest.mark.postgres
async def test_a_record_for_a_game_over_is_refused_on_a_shared_store() -> None:
    """The handler of the version that ended a game may drop its record before an older
    version's handler writes one: that write is refused, or its turn message would be in no
    record, for a game over."""
    async with fresh_schema() as url:
        o = await orchard(url)
        live = await opened(o, "cheerio", [ALICE, BOB])
        ping = TurnPing(live.id, live.row.version, frozenset({0}), 11, frozenset({0}))
        await o.runner.abandon(live.id)
        written = await o.store.set_turn_ping(ping)
        stored = await o.store.turn_ping(live.id)
        await o.close()
    assert written == (False, None) and stored is None


@pytest.mark.postgres
async def test_a_record_written_while_the_game_ends_waits_for_the_end_and_is_refused() -> None:
    """A write that checked the game open while its end was still uncommitted could land after
    the ender's drop (a record and a turn message for a game over, for good): it takes the
    game's lock, so it waits for the end to commit, then is refused."""
    async with fresh_schema() as url:
        a, b = await Store.open(url), await Store.open(url)
        game_id = await a.create_game("cheerio", 1, 2, Player(0, 7, "Ann"), seed=1)
        async with a.game(game_id) as session:
            ended = GameChange(game_id, from_status=GameStatus.LOBBY, status=GameStatus.CANCELLED)
            assert await session.write(ended)
            write = asyncio.create_task(
                b.set_turn_ping(TurnPing(game_id, 1, frozenset({0}), 11, frozenset({0})))
            )
            await asyncio.sleep(0.3)
            assert not write.done(), "it waits for the end"
        written = await write
        stored = await b.turn_ping(game_id)
        await a.close()
        await b.close()
    assert written == (False, None) and stored is None


@pytest.mark.postgres
async def test_a_first_record_written_meanwhile_is_known_to_the_write_it_held_up() -> None:
    """Two processes write a game's first record at once: the second write waits for the
    first to commit, then replaces its record and says which message that held."""
    async with fresh_schema() as url:
        a, b = await Store.open(url), await Store.open(url)
        game_id = await a.create_game("cheerio", 1, 2, Player(0, 7, "Ann"), seed=1)
        async with a.db.transaction() as tx:
            first = TurnPing(game_id, 1, frozenset({1}), 11, frozenset({1}))
            assert await games.set_turn_ping(tx, first) == (True, None)
            second = asyncio.create_task(
                b.set_turn_ping(TurnPing(game_id, 2, frozenset({0}), 21, frozenset({0})))
            )
            await asyncio.sleep(0.3)
            assert not second.done(), "it waits for the first record"
        assert await second == (True, 11)
        stored = await b.turn_ping(game_id)
        await a.close()
        await b.close()
    assert stored is not None and stored.message_id == 21


class Channel:
    """A game channel as two processes' clients reach it: messages posted, those deleted, and
    a gate a test may shut to hold one process's next post on its way."""

    def __init__(self) -> None:
        self.ids = itertools.count(1000)
        self.posted: dict[int, str] = {}
        self.deleted: list[int] = []
        self.waiting = 0  # posts held at their gate

    def client(self, gate: asyncio.Event | None = None) -> Any:
        channel = self

        class Message:
            def __init__(self, message_id: int) -> None:
                self.id = message_id
                self.jump_url = f"https://discord.test/{message_id}"

            async def delete(self) -> None:
                channel.deleted.append(self.id)

        class Messageable:
            async def send(self, text: str, **_: Any) -> Message:
                if gate is not None:
                    channel.waiting += 1
                    await gate.wait()
                    channel.waiting -= 1
                message = Message(next(channel.ids))
                channel.posted[message.id] = text
                return message

            def get_partial_message(self, message_id: int) -> Message:
                return Message(message_id)

        class Client:
            def get_partial_messageable(self, *_: Any, **__: Any) -> Messageable:
                return Messageable()

        return Client()


@dataclass
class TwoProcesses:
    """Two Orchards on one PostgreSQL, a Cheerio game of Alice and Bob opened by ``a``, and
    each process's turn pings (started) posting in one :class:`Channel`."""

    a: Table
    b: Table
    live: Snapshot
    channel: Channel
    a_pings: TurnPings
    b_pings: TurnPings


@asynccontextmanager
async def two_processes(
    a_gate: asyncio.Event | None, b_gate: asyncio.Event | None = None
) -> AsyncIterator[TwoProcesses]:
    """:class:`TwoProcesses`, each process's posts held at its gate (None: none held); both
    Orchards are closed after."""
    async with fresh_schema() as url:
        clock = Clock()
        a, b = await orchard(url, clock), await orchard(url, clock)  # type: ignore[arg-type]
        try:
            live = await opened(a, "cheerio", [ALICE, BOB])
            # Its start handled, as if told (or a restart's catch-up would tell it now).
            await a.store.set_turn_ping(TurnPing(live.id, live.row.version))
            channel = Channel()
            two = TwoProcesses(
                a,
                b,
                live,
                channel,
                TurnPings(channel.client(a_gate), a.runner),
                TurnPings(channel.client(b_gate), b.runner),
            )
            two.a_pings.start()
            two.b_pings.start()
            yield two
        finally:
            await a.close()
            await b.close()


async def until_posting(channel: Channel, posts: int) -> None:
    """Wait (5 s at most) until ``posts`` posts are held at their gates."""
    for _ in range(500):
        if channel.waiting == posts:
            return
        await asyncio.sleep(0.01)
    assert channel.waiting == posts


@pytest.mark.postgres
async def test_an_older_versions_pings_finishing_last_leave_the_newer_record() -> None:
    """A commits version 1 (Bob's turn) and B version 2 (Ann's again); A's post is slow, so B
    records version 2 first. A's record of version 1 must not replace it (the newer turn
    message would never be deleted), and A's message, for a turn already over, goes."""
    gate = asyncio.Event()
    async with two_processes(gate) as two:
        a, b, live, channel = two.a, two.b, two.live, two.channel
        live = await a.runner.act(
            live.id, ALICE, "score", first_open(live), version=live.row.version
        )
        live = await b.runner.act(live.id, BOB, "score", first_open(live), version=live.row.version)
        await two.b_pings.stop()
        gate.set()
        await two.a_pings.stop()
        stored = await a.store.turn_ping(live.id)
    assert stored is not None and stored.version == live.row.version
    newer, older = sorted(channel.posted, key=lambda m: f"<@{BOB}>" in channel.posted[m])
    assert f"<@{ALICE}>" in channel.posted[newer] and f"<@{BOB}>" in channel.posted[older]
    assert stored.message_id == newer and newer not in channel.deleted
    assert channel.deleted == [older], "the older version's message goes"


@pytest.mark.postgres
async def test_a_turn_handled_before_the_older_record_lands_still_pings_its_player() -> None:
    """Alice's first turn is recorded (version 0). A commits version 1 (Bob's turn) and its
    post is slow; B commits version 2 (Alice's again) and reads the record of version 0:
    knowing nothing of version 1, it would take Alice as still awaited from before and tell
    nobody, and A's record of Bob's turn, landing last, would stay, so Bob's next turn went
    untold too. B tells Alice, and its record stands; Bob's next turn is told."""
    gate = asyncio.Event()
    async with two_processes(gate) as two:
        a, b, live, channel = two.a, two.b, two.live, two.channel
        seat = live.row.seat_of(ALICE)
        told = frozenset({seat})
        await a.store.set_turn_ping(TurnPing(live.id, live.row.version, told, 999, told))
        live = await a.runner.act(live.id, ALICE, "score", first_open(live), version=0)
        live = await b.runner.act(live.id, BOB, "score", first_open(live), version=1)
        await two.b_pings.stop()
        assert [t for t in channel.posted.values() if f"<@{ALICE}>" in t], channel.posted
        gate.set()
        while two.a_pings._tasks:
            await asyncio.wait(two.a_pings._tasks)
        stored = await a.store.turn_ping(live.id)
        assert stored is not None and stored.version == live.row.version == 2
        bob = len([t for t in channel.posted.values() if f"<@{BOB}>" in t])
        live = await a.runner.act(live.id, ALICE, "score", first_open(live), version=2)
        await two.a_pings.stop()
    assert len([t for t in channel.posted.values() if f"<@{BOB}>" in t]) == bob + 1


@pytest.mark.postgres
async def test_an_older_record_written_after_the_newer_handler_read_it_loses_its_message() -> None:
    """A commits version 1 (Bob's turn) and B version 2 (Ann's again); both posts are slow, so
    B reads the record before A's is written. A records version 1 with its message, and B's
    version 2 then replaces that record, which B never read: A's message, for a turn already
    over, would be in no record and never deleted. B's write learns of it and deletes it."""
    first, second = asyncio.Event(), asyncio.Event()
    async with two_processes(first, second) as two:
        a, b, live, channel = two.a, two.b, two.live, two.channel
        live = await a.runner.act(
            live.id, ALICE, "score", first_open(live), version=live.row.version
        )
        live = await b.runner.act(live.id, BOB, "score", first_open(live), version=live.row.version)
        await until_posting(channel, 2)  # both handlers read the record (none yet) and post
        first.set()
        await two.a_pings.stop()
        between = await a.store.turn_ping(live.id)
        second.set()
        await two.b_pings.stop()
        stored = await a.store.turn_ping(live.id)
    assert between is not None and between.version == live.row.version - 1, "A's record first"
    assert stored is not None and stored.version == live.row.version
    newer, older = sorted(channel.posted, key=lambda m: f"<@{BOB}>" in channel.posted[m])
    assert f"<@{ALICE}>" in channel.posted[newer] and f"<@{BOB}>" in channel.posted[older]
    assert between.message_id == older and stored.message_id == newer
    assert channel.deleted == [older], "the older version's message goes"


def first_open(live: Snapshot) -> str:
    return open_categories(live.state.cards[live.state.turn])[0]


@pytest.mark.postgres
async def test_a_turn_message_posted_as_another_process_ends_the_game_goes() -> None:
    """A commits version 1 (Bob's turn) and posts Bob's ping slowly; meanwhile B ends the game
    (a moderator's /end) and handles its end before A writes its record. A's record, for a
    game over, is refused, and its message goes: before, it was written, and the message
    stayed in the channel for good."""
    gate = asyncio.Event()
    async with two_processes(gate) as two:
        a, b, live, channel = two.a, two.b, two.live, two.channel
        await a.runner.act(live.id, ALICE, "score", first_open(live), version=live.row.version)
        await until_posting(channel, 1)  # A is posting Bob's ping
        await b.runner.abandon(live.id)
        await two.b_pings.stop()
        gate.set()
        await two.a_pings.stop()
        stored = await a.store.turn_ping(live.id)
    [posted] = channel.posted
    assert f"<@{BOB}>" in channel.posted[posted]
    assert stored is None and channel.deleted == [posted]


class Halting:
    """A clock that can stand still: the pacer it drives grants no more requests than it has
    slots left meanwhile, as when Discord's global limit is used up."""

    def __init__(self) -> None:
        self.held_at: float | None = None

    def __call__(self) -> float:
        return time.monotonic() if self.held_at is None else self.held_at

    async def use_up(self, pacer: Pacer) -> None:
        """Stand still, and take every slot the pacer has left."""
        self.held_at = time.monotonic()
        while True:
            try:
                await asyncio.wait_for(pacer.slot(), 0.05)
            except TimeoutError:
                return


def tidying() -> list[asyncio.Task[Any]]:
    """The tidiers running, deleting old turn messages."""
    return [t for t in asyncio.all_tasks() if "_tidying" in t.get_coro().__qualname__]


async def test_a_turn_message_left_to_delete_as_orchard_closes_ends_with_the_close(
    fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob's ping is on its way as Orchard closes; once it is posted, Alice's old turn message
    is tidied as the backlog, behind a global limit used up. The close lets the delete wait
    its time, then cuts it short: none is left to run once Discord's session is closed
    (aiohttp failed it there with an AssertionError nobody retrieved); Alice's message stays,
    as a restart in between leaves it."""
    monkeypatch.setattr("bot.background.DRAIN_SECONDS", 0.3)
    fake = fake_discord
    server(fake)
    unpaced(fake)
    clock = Halting()
    pacer = Pacer(clock=clock)
    bot = OrchardBot(config(tmp_path / "o.db"), guild_ready_timeout=0.05, http_trace=traced(pacer))
    running = run_bot(bot, fake)
    await running.__aenter__()
    closing: asyncio.Task[Any] | None = None
    try:
        await new_game(fake, "cheerio", ALICE, [BOB])
        await fake.wait_for(lambda: pinged(fake) == [ALICE], what="Alice's ping")
        (alices,) = turn_messages(fake)
        live = await the_game(bot)
        posting = fake.hold("POST", rf"^/channels/{CHANNEL}/messages$")
        score = open_categories(live.state.cards[0])[0]
        await bot.orchard.runner.act(live.id, ALICE, "score", score)
        await fake.wait_for(
            lambda: any(not r.status for r in fake.requests_matching("POST", "/messages")),
            what="Bob's ping on its way",
        )
        await clock.use_up(pacer)
        closing = asyncio.create_task(running.__aexit__(None, None, None))
        await draining(bot)
        posting.set()
        await fake.wait_for(lambda: pinged(fake) == [ALICE, BOB], what="Bob's ping")
        await closing
        assert [t for t in tidying() if not t.done()] == [], "nothing deletes after the close"
        assert int(alices["id"]) not in fake.deleted
        no_errors(fake)
    finally:
        if closing is None:
            await running.__aexit__(None, None, None)


async def draining(bot: OrchardBot) -> None:
    """Until the turn pings are stopping: their hook is gone, the pings in flight drain."""
    pings = bot.boards.pings
    for _ in range(500):
        if all(
            getattr(hook, "__self__", None) is not pings for hook in bot.orchard.runner.on_commit
        ):
            return
        await asyncio.sleep(0.01)
    raise TimeoutError("the turn pings never began to stop")
