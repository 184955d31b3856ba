"""People at a game night, driving the fake Discord: tables opened through slash commands and
buttons, then clicks with think time, each click timed from the moment it is sent to the
moment the bot's callback reaches the fake.

A player reads the board as Discord shows it (``tests/killharness/controls.py``): they act when
the board names them, the host starts lobbies and clicks Rematch when a game ends. Against
the floor bot (``bench/floor_bot.py``) the same people press the one button of their table's
message, taking turns. Answers are awaited with :meth:`InteractionRecord.answered`, which is
woken by its own callback, so hundreds of waiting clicks cost the fake nothing between requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from bench.loadkit import Latencies
from tests.fakediscord import Component, FakeDiscord, InteractionRecord, components_of
from tests.killharness.controls import action_of, controls, find, is_move, named

THINK = (0.5, 3.0)  # seconds between a player seeing the board and clicking
ANSWER_WAIT = 10.0  # a click unanswered after this is counted as never answered
TOGGLES = ("hold", "pick")  # a die held or picked: clicked less often than a roll or a score
BREAK = (35.0, 45.0)  # a player who steps away, past a 30 s turn deadline
IMPATIENT_AFTER = 5.0  # seconds a board may stand still before an impatient player clicks anyway
FLOOR_BUTTON = "floor:"
DEFERRED = (5, 6)  # callback types that only promise an answer (an edit or a follow-up)


@dataclass(frozen=True)
class Click:
    guild: int
    sent: float  # time.monotonic() when the interaction was sent
    latency: float | None  # until the bot's callback reached the fake; None: never answered
    verb: str
    record: InteractionRecord | None = field(default=None, compare=False, repr=False)


Span = tuple[float, float]  # [began, ended) in time.monotonic()


def within(at: float, spans: list[Span]) -> bool:
    """Whether the moment ``at`` falls in one of ``spans`` (each from its start, to its end)."""
    return any(began <= at < ended for began, ended in spans)


def latencies(
    log: Iterable[Click], spans: list[Span], keep: Callable[[Click], bool] | None = None
) -> Latencies:
    """The clicks sent within the spans that ``keep`` accepts (all by default)."""
    return Latencies.of(
        c.latency for c in log if within(c.sent, spans) and (keep is None or keep(c))
    )


SLOW = 0.05  # seconds: a click slower than this is looked into (the floor's p99 is about 10 ms)


def slow_clicks(
    log: Iterable[Click], spans: list[Span], causes: dict[str, list[Span]]
) -> dict[str, int]:
    """The clicks sent within the spans that took longer than :data:`SLOW`, by the first of
    ``causes`` (stalls: when a loop stood still) that took up half their time or more, else
    "something else" (a lock, a queue, Discord's limits: whatever the click waited for)."""
    found = dict.fromkeys([*causes, "something else"], 0)
    for c in slowest(log, spans):
        took = c.latency or 0.0
        during = [n for n, stalls in causes.items() if _covered(stalls, c.sent, took) >= took / 2]
        found[during[0] if during else "something else"] += 1
    return found


TAIL = 0.01  # the share of the slowest clicks that the p99 is read from


def tail_by_verb(
    log: Iterable[Click], spans: list[Span], keep: Callable[[Click], bool]
) -> list[tuple[str, int, int]]:
    """What the slowest :data:`TAIL` of the clicks sent within the spans (that ``keep``
    accepts) had clicked: (verb, how many in the tail, how many in all), most in the tail
    first. A verb whose share of the tail is far above its share of all clicks is slow
    itself; one in proportion waited behind everyone's work."""
    sent = [c for c in log if within(c.sent, spans) and keep(c)]
    if not sent:
        return []
    ranked = sorted(sent, key=_slowness, reverse=True)
    tail = Counter(c.verb for c in ranked[: max(1, round(TAIL * len(ranked)))])
    every = Counter(c.verb for c in sent)
    return [(verb, n, every[verb]) for verb, n in tail.most_common()]


def slowest(log: Iterable[Click], spans: list[Span], most: int | None = None) -> list[Click]:
    """The clicks sent within the spans that took longer than :data:`SLOW`, slowest first
    (the never-answered first of all)."""
    slow = [c for c in log if within(c.sent, spans) and (c.latency is None or c.latency > SLOW)]
    slow.sort(key=_slowness, reverse=True)
    return slow[:most]


def _slowness(click: Click) -> float:
    """How long a click took; a click never answered, longest of all."""
    return click.latency if click.latency is not None else float("inf")


def timeline(fake: FakeDiscord, click: Click) -> str:
    """What the bot sent for a slow click's game meanwhile, times from the click's sending:
    its answers (a deferral, then an edit), and every request to its channel (edits held by
    a rate limit, turn pings, their deletions), with each one's status."""
    record = click.record
    if record is None:
        return ""
    until = click.sent + (click.latency or ANSWER_WAIT)
    seen = [
        r
        for r in fake.requests
        if click.sent <= r.at <= until
        and (record.token in r.path or f"/channels/{record.channel_id}/" in r.path)
    ]
    return ", ".join(
        f"{r.method} {re.sub(r'[0-9]{5,}', '#', r.path.replace(record.token, 'TOKEN'))} "
        f"{r.status} at +{1000 * (r.at - click.sent):.0f} ms"
        for r in seen
    )


def _covered(stalls: list[Span], began: float, took: float) -> float:
    """How much of [began, began + took) the stalls cover (they do not overlap each other)."""
    ended = began + took
    return sum(max(0.0, min(b, ended) - max(a, began)) for a, b in stalls)


async def timed(
    log: list[Click] | None,
    guild: int,
    verb: str,
    sending: Awaitable[InteractionRecord],
    wait: float = ANSWER_WAIT,
) -> InteractionRecord | None:
    """Send an interaction and wait for its answer; the time taken goes into ``log``: until
    the bot's callback reached the fake or, for a deferral, until its edit or follow-up did
    (then as this process saw it, re-checked after every request)."""
    sent = time.monotonic()
    record = await sending
    try:
        await record.called_back(wait)
    except TimeoutError:
        if log is not None:
            log.append(Click(guild, sent, None, verb))
        return None
    assert record.answered_at is not None
    shown = record.answered_at
    if record.type in DEFERRED:  # people see the answer when the deferral is completed
        try:
            await record.fake.wait_for(
                lambda: bool(record.edits or record.followup_ids), wait, "a deferred answer"
            )
        except TimeoutError:
            if log is not None:
                log.append(Click(guild, sent, None, verb))
            return None
        shown = time.monotonic()
    if log is not None:
        log.append(Click(guild, sent, shown - sent, verb, record))
    return record


async def press(
    fake: FakeDiscord,
    log: list[Click] | None,
    guild: int,
    user: int,
    board: int,
    component: Component,
    value: str | None = None,
) -> InteractionRecord | None:
    """Click a button, or choose ``value`` in a select, and time the answer."""
    verb = action_of(component) or (component.custom_id or "?").split(":")[0]
    if value is None:
        return await timed(log, guild, verb, fake.click(user, board, component))
    return await timed(log, guild, verb, fake.select(user, board, component, [value]))


@dataclass
class Table:
    """One game's channel and its people; ``orchard`` is Orchard's level when it has a seat."""

    kind: str
    guild: int
    channel: int
    humans: tuple[int, ...]
    orchard: str | None = None
    short: bool = False  # the server's turn deadline is 30 s, and some of its people step away
    impatient: bool = False  # clicks anyway when the board stands still (a bad neighbour)
    board: int | None = None
    turn: int = 0  # whose go it is at the floor, which has no game to say so
    seen: tuple[int, float] = (0, 0.0)  # (versions of the board, when that last changed)

    @property
    def host(self) -> int:
        return self.humans[0]


def choose(moves: list[Component], rng: random.Random) -> tuple[Component, str | None]:
    """A move a player might make: any enabled one, holds and picks less often."""
    weights = [0.3 if action_of(c) in TOGGLES else 1.0 for c in moves]
    move = rng.choices(moves, weights)[0]
    return move, (rng.choice(move.options) if move.is_select else None)


async def open_table(fake: FakeDiscord, table: Table, wait: float = 30.0) -> int:
    """Open the table's game as people do: ``/<game> new`` (against Orchard it starts at once),
    the guests join, the host starts. Returns the board's message id."""
    options = {"opponent": "orchard", "level": table.orchard} if table.orchard else {}
    opened = await timed(
        None,
        table.guild,
        "new",
        fake.slash(table.host, table.guild, table.channel, f"{table.kind} new", options),
        wait,
    )
    assert opened is not None and opened.original is not None, f"/{table.kind} new unanswered"
    board = int(opened.original["id"])
    if table.orchard:
        return board
    for guest in table.humans[1:]:
        join = find(fake.message(board), "lobby_join")
        assert join is not None, fake.message(board)
        joined = await timed(None, table.guild, "join", fake.click(guest, board, join), wait)
        assert joined is not None and joined.type == 7, joined and joined.describe()
    start = find(fake.message(board), "lobby_start")
    assert start is not None
    started = await timed(None, table.guild, "start", fake.click(table.host, board, start), wait)
    assert started is not None and started.type == 7, started and started.describe()
    return board


async def open_floor(fake: FakeDiscord, table: Table, wait: float = 30.0) -> int:
    """The floor bot's board for the table: ``/floor`` answers with a message and one button."""
    opened = await timed(
        None,
        table.guild,
        "floor",
        fake.slash(table.host, table.guild, table.channel, "floor"),
        wait,
    )
    assert opened is not None and opened.original is not None, "/floor unanswered"
    return int(opened.original["id"])


async def set_up(
    fake: FakeDiscord,
    tables: list[Table],
    opener: Callable[[FakeDiscord, Table], Awaitable[int]],
    parallel: int = 25,
) -> None:
    """Open every table, ``parallel`` at a time (set-up clicks are not timed)."""
    gate = asyncio.Semaphore(parallel)

    async def one(table: Table) -> None:
        async with gate:
            table.board = await opener(fake, table)

    await asyncio.gather(*(one(t) for t in tables))


Intent = tuple[int, Component, str | None]  # board, control, select value


class Night:
    """Everyone at every table, clicking with think time until :meth:`finish`.

    ``floor``: the tables are the floor bot's, where people press their one button in turn.
    Players of ``short`` tables each step away once (with probability ``break_share``) at a
    moment in the ``break_within`` s after :attr:`breaks_from`, longer than a 30 s deadline.
    """

    def __init__(
        self,
        fake: FakeDiscord,
        tables: list[Table],
        *,
        floor: bool = False,
        seed: int = 1,
        think: tuple[float, float] = THINK,
        break_share: float = 0.5,
        break_within: float = 20.0,
    ) -> None:
        self.fake, self.tables, self.floor, self.seed = fake, tables, floor, seed
        self.think = think
        self.break_share, self.break_within = break_share, break_within
        self.log: list[Click] = []
        self.skipped = 0  # clicks not sent because the bot was not connected (Discord drops them)
        self.breaks_from: float | None = None
        self.impatient = False  # the impatient tables' people click whatever the board says
        self.stop = asyncio.Event()
        self.playing = asyncio.Event()  # cleared: everyone waits (the other bot's turn)
        self.playing.set()
        self.in_flight = 0
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        for table in self.tables:
            for user in table.humans:
                self._tasks.append(asyncio.create_task(self.person(table, user)))

    async def finish(self) -> None:
        """Everyone stops clicking; clicks on the way are answered (or time out) first."""
        self.stop.set()
        self.playing.set()
        await asyncio.gather(*self._tasks)

    async def pause(self) -> None:
        """Nobody clicks any more; returns once the clicks on the way are answered."""
        self.playing.clear()
        while self.in_flight:
            await asyncio.sleep(0.01)

    def play(self) -> None:
        """Everyone plays again, each after a think of their own (no burst of clicks)."""
        self.playing.set()

    async def nap(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self.stop.wait()

    async def person(self, table: Table, user: int) -> None:
        rng = random.Random(f"{self.seed}:{user}")
        steps_away = table.short and rng.random() < self.break_share
        away_at: float | None = None
        while not self.stop.is_set():
            if not self.playing.is_set():
                await self.playing.wait()
                continue
            if steps_away and away_at is None and self.breaks_from is not None:
                away_at = self.breaks_from + rng.uniform(0.0, self.break_within)
            if away_at is not None and time.monotonic() >= away_at:
                steps_away, away_at = False, None
                await self.nap(rng.uniform(*BREAK))
            else:
                await self.nap(rng.uniform(*self.think))
            if self.stop.is_set() or not self.playing.is_set():
                continue
            try:
                if self.floor:
                    intent = self.floor_intent(table, user)
                else:
                    intent = self.intent(table, user, rng)
                if intent is None:
                    continue
                if not self.fake.connected(self.fake.shard_of(table.guild)):
                    self.skipped += 1
                    continue
                self.in_flight += 1
                try:
                    record = await press(self.fake, self.log, table.guild, user, *intent)
                finally:
                    self.in_flight -= 1
            except (LookupError, AssertionError, ValueError):
                continue  # the board changed under the player's finger
            if record is not None:
                self.answered(table, intent, record)

    def intent(self, table: Table, user: int, rng: random.Random) -> Intent | None:
        """What this person clicks on the table's board now, if anything."""
        message = self.fake.messages.get(table.board or 0)
        if message is None or table.board is None:
            return None
        start = find(message, "lobby_start")
        if start is not None:  # a lobby (a rematch's seats are already in): the host starts
            return (table.board, start, None) if user == table.host else None
        moves = [c for c in controls(message) if is_move(c)]
        if not moves:
            again = find(message, "rematch")
            return (table.board, again, None) if again is not None and user == table.host else None
        if user in named(self.fake, message) or (
            table.impatient and self.impatient and self.standing(table) > IMPATIENT_AFTER
        ):
            return (table.board, *choose(moves, rng))
        return None

    def standing(self, table: Table) -> float:
        """Seconds since the table's board last changed."""
        count = len(self.fake.versions.get(table.board or 0, []))
        now = time.monotonic()
        if count != table.seen[0]:
            table.seen = (count, now)
        return now - table.seen[1]

    def floor_intent(self, table: Table, user: int) -> Intent | None:
        if table.board is None or table.humans[table.turn % len(table.humans)] != user:
            return None
        buttons = [
            c
            for c in components_of(self.fake.message(table.board))
            if (c.custom_id or "").startswith(FLOOR_BUTTON)
        ]
        return (table.board, buttons[0], None) if buttons else None

    def answered(self, table: Table, intent: Intent, record: InteractionRecord) -> None:
        if self.floor:
            table.turn += 1
            return
        verb = action_of(intent[1])
        shown: dict[str, Any] | None = record.original
        if verb == "rematch" and record.type == 4 and shown is not None and not record.ephemeral:
            table.board = int(shown["id"])  # the new lobby, posted as the answer
