"""A game night: hundreds of games at once across 50 servers, against the floor no bot can beat.

    python bench/game_night.py [--runs 3] [--seconds 60] [--slice 10] [--warm 10]
    python bench/game_night.py --postgres URL --processes 2 [--runs 3] ...

The fake Discord and the people run in this process; each bot runs alone in its own process
(``tests/bot_process.py``), so its CPU is read from /proc for it alone, with this process's
and the rest of the machine's beside it. Click to answer is timed in the fake: from the
interaction being sent to the bot's callback arriving.

The people: 200 solo Cheerio, 25 Hot Score (two people) and 25 Apple Jack (three) tables in
50 servers, one table of a kind in ten with Orchard seated instead of the other people; each
person clicks 0.5–3 s after seeing the board, the host starts lobbies and asks for a rematch.
Every fifth server has a 30 s turn deadline, and half of its people step away once for
35–45 s, so timeouts fire. Each run:

1. **Game night against the floor**: Orchard (on a copy of a database seeded once) and the
   floor (``bench/floor_bot.py``: one insert and commit per click, then an edit of the
   message) both run, each on its own fake with its own copy of the tables; after warm-up the
   same people play ``--slice`` seconds on one, then on the other, in turn, until each has
   had ``--seconds``. Interleaving puts whatever else the shared machine does on both sides.
   Then nobody clicks for 10 s, and each bot's CPU meanwhile is read: what it spends on its
   own (deadlines, Orchard's seats, anything a harness would add in its process).
2. **Restart**: Orchard alone, SIGTERM and start again while people play on: the clicks sent
   in the first 10 s after it is connected.
3. **Bad neighbour**: ``--seconds`` of Orchard as it is, then ``--seconds`` with a neighbour:
   one person sending /leaderboard and /stats in turn, one every ``--spam-every`` seconds, in
   a server with 40,000 results, and a channel (three people against Orchard, clicking anyway
   when their board stands still) where every message edit is answered 429, retry_after 5 s.

With ``--postgres URL`` Orchard runs on that PostgreSQL server instead (each run in a fresh
schema of its own, seeded anew, dropped after) in ``--processes`` processes, each running its
share of the shards (the servers' ids spread them evenly), all on one fake Discord; the floor
stays the same one process on SQLite, the floor no bot can beat on any store. The server's CPU
(its postmaster and every child) is read beside the bot's.

Slow clicks are looked into: Orchard's processes log when their loop stood still and when
their collector ran long (``tests.bot_process.StallLog``, on the same clock as the clicks),
and each click over 50 ms is put down to the first of those, or of this process's own late
loop, that was in flight with it. ``--turn-pings off`` sets every server's turn pings off:
what the messages issue 13 asks for cost, beside the same run with them. ``--floor-game``
runs the floor as the least a dice game's bot does (a Cheerio-sized board redrawn, a game's
row and its move written: ``bench/floor_bot.py --game``) instead of the issue's floor, which
redraws one button and writes one row. ``--calls`` counts each bot's calls in the slices by
whose code made them (``bench/call_owners.py``): the work each part asks of Python, where
``--steps`` gives the loop's time by step.

Figures are printed, nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import itertools
import os
import random
import shutil
import signal
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import call_owners  # noqa: E402
from bench.loadkit import (  # noqa: E402
    LATE,
    SETTLED,
    Latencies,
    LoopLag,
    Row,
    Window,
    add_run_options,
    bot_stalls,
    count,
    machine,
    measure,
    ms,
    no_collection,
    pg_query,
    postmaster,
    quiet,
    seconds,
    summarise,
    times,
)
from bench.loop_steps import Steps, launcher, read  # noqa: E402
from bench.players import (  # noqa: E402
    SLOW,
    TAIL,
    Click,
    Night,
    Span,
    Table,
    latencies,
    open_floor,
    open_table,
    set_up,
    slow_clicks,
    slowest,
    tail_by_verb,
    timed,
    timeline,
    within,
)
from bot.model import GameChange, GameStatus, Player, RatingPool, RatingUpdate, Result  # noqa: E402
from bot.orchard import Orchard  # noqa: E402
from bot.ratings import rate  # noqa: E402
from bot.settings import GuildSettings  # noqa: E402
from bot.shards import ShardPlan  # noqa: E402
from db.store import Store  # noqa: E402
from tests.bot_process import PROGRAM, STALLS, BotProcess  # noqa: E402
from tests.databases import with_schema  # noqa: E402
from tests.fakediscord import FakeDiscord  # noqa: E402
from tests.live_db import fill_without_fsync  # noqa: E402

GUILD, CHANNEL, USER = 5_001, 600_001, 700_001
LEVELS = ("easy", "normal", "hard")
SHORT_SECONDS = 30  # the shortest turn deadline a server may set
RESTART_WINDOW = 10.0  # seconds after the restarted bot connects whose clicks are counted
SETTLE = 10.0  # after that and the tables' warming, before the first window without the floor
WARM_LIMIT = 180.0  # seconds after start-up by which Orchard's tables must be warm
LATE_DETAIL = 0.25  # seconds: a slow click past this is shown with what the bot sent meanwhile
IDLE = 10.0  # seconds after the slices when nobody clicks and each bot's CPU is read
SEATS = 4  # seated in each of the neighbour's finished games
COPIES = 10  # the finished games written through the store, then copied to make up the rest
GAME_ROWS = [("games", "id"), ("game_players", "game_id"), ("results", "game_id")]
GAME_ROWS += [("rating_history", "game_id")]
FLOOR = (str(ROOT / "bench" / "floor_bot.py"),)
FLOOR_GAME = (*FLOOR, "--game")  # the least a dice game's bot does (see bench/floor_bot.py)
SPAM: dict[str, dict[str, str]] = {"leaderboard": {"game": "applejack", "by": "wins"}, "stats": {}}


def guild_of(server: int) -> int:
    """A server's id: Discord sends its events to shard ``(id >> 22) % shard_count``, so
    consecutive servers fall on consecutive shards."""
    return GUILD + (server << 22)


@dataclass(frozen=True)
class Plan:
    """Who plays where. The neighbour's server is one more, after the game night's."""

    tables: list[Table]
    servers: int
    neighbour: int  # its guild id
    spammer: int
    spam_channel: int
    limited: int  # the channel answering every message edit with 429
    people: list[int]  # the neighbour server's players of finished games
    break_within: float = 20.0  # people of short-deadline servers step away this soon

    def others(self, guild: int) -> bool:
        return guild != self.neighbour

    def channels(self, guild: int) -> list[int]:
        mine = [t.channel for t in self.tables if t.guild == guild]
        return mine + ([self.spam_channel] if guild == self.neighbour else [])

    def members(self, guild: int) -> list[int]:
        mine = [u for t in self.tables if t.guild == guild for u in t.humans]
        return mine + ([self.spammer] if guild == self.neighbour else [])


def plan(servers: int, cheerio: int, hotscore: int, applejack: int, orchard_every: int) -> Plan:
    """Tables spread over the servers in turn, one channel each; every ``orchard_every``-th
    table of a kind seats Orchard (at easy, normal, hard in turn) instead of the other people;
    every fifth server has the shortest turn deadline."""
    users = iter(range(USER, USER + 10**6))
    channels = iter(range(CHANNEL, CHANNEL + 10**6))
    tables: list[Table] = []
    kinds = [("cheerio", 1)] * cheerio + [("hotscore", 2)] * hotscore
    kinds += [("applejack", 3)] * applejack
    counted: dict[str, int] = {}
    for n, (kind, people) in enumerate(kinds):
        index = counted[kind] = counted.get(kind, -1) + 1
        server = n % servers
        level = LEVELS[(index // orchard_every) % 3] if index % orchard_every == 0 else None
        humans = tuple(next(users) for _ in range(1 if level else people))
        tables.append(
            Table(kind, guild_of(server), next(channels), humans, level, short=server % 5 == 0)
        )
    neighbour = guild_of(servers)
    limited = next(channels)
    for level in LEVELS:  # three people against Orchard in the channel Discord throttles
        tables.append(Table("cheerio", neighbour, limited, (next(users),), level, impatient=True))
    spammer = next(users)
    return Plan(
        tables,
        servers,
        neighbour,
        spammer,
        next(channels),
        limited,
        [spammer] + [next(users) for _ in range(199)],
    )


def populate(fake: FakeDiscord, night: Plan) -> None:
    for guild in map(guild_of, range(night.servers + 1)):
        members = night.members(guild)
        for user in members:
            fake.add_user(user, f"player{user}")
        fake.add_guild(guild, night.channels(guild), members)


async def seed(db: Path | str, night: Plan, results: int, pings: str = "channel") -> float:
    """The database every Orchard run copies: the servers' turn deadlines and turn pings
    (``pings``: the default "channel", or "off" to tell their cost), and ``results`` results
    of finished four-player Apple Jack games in the neighbour's server.

    A tenth of the games are written through the store's own write path (a game, its seats,
    then its end with results, ratings and rating history); then their rows are copied nine
    times over with new game ids, every column as the store wrote it (``SELECT *``), which
    takes a second where writing them all one by one takes minutes on this machine."""
    began = time.monotonic()
    orchard = await Orchard.open(db)
    if isinstance(db, Path):
        await fill_without_fsync(orchard.store)
    short = {t.guild for t in night.tables if t.short}
    for guild in {t.guild for t in night.tables}:
        seconds = SHORT_SECONDS if guild in short else GuildSettings().turn_seconds
        await orchard.settings.update(guild, turn_seconds=seconds, turn_pings=pings)
    await orchard.settings.update(
        night.neighbour,
        turn_seconds=SHORT_SECONDS,
        open_games_per_channel=len(LEVELS),
        turn_pings=pings,
    )
    games = max(1, results // SEATS // COPIES)
    await finished_games(orchard.store, night, games)
    await orchard.close()
    if isinstance(db, Path):
        await asyncio.to_thread(copy_games, db, COPIES)
    else:
        await copy_games_pg(db, COPIES)
    return time.monotonic() - began


async def finished_games(store: Store, night: Plan, games: int) -> None:
    rng = random.Random(7)
    for n in range(games):
        seated = rng.sample(night.people, SEATS)
        players = tuple(Player(i, user, f"player{user}") for i, user in enumerate(seated))
        game_id = await store.create_game(
            "applejack", night.neighbour, night.spam_channel, players[0], seed=n
        )
        scores = [rng.randint(80, 220) for _ in seated]
        order = sorted(range(SEATS), key=lambda seat: -scores[seat])
        place = {seat: rank + 1 for rank, seat in enumerate(order)}
        done = tuple(
            Result(s, user, False, scores[s], place[s], place[s] == 1)
            for s, user in enumerate(seated)
        )
        places = [(user, place[s]) for s, user in enumerate(seated)]
        await store.write(
            GameChange(
                game_id,
                from_status=GameStatus.LOBBY,
                status=GameStatus.FINISHED,
                players=players,
                results=done,
                rating=RatingUpdate(RatingPool.PEOPLE, places, rate),
            )
        )


def copying(last: int, copies: int) -> list[str]:
    """The statements writing every game's rows (the game, its seats, results and rating
    history) ``copies`` times in all, the copies under new game ids; ``last`` is the highest
    id so far. The same SQL on either store."""
    statements = []
    for table, key in GAME_ROWS:
        statements.append(f"CREATE TEMP TABLE copied AS SELECT * FROM {table}")
        for _ in range(copies - 1):
            statements.append(f"UPDATE copied SET {key} = {key} + {last}")
            statements.append(f"INSERT INTO {table} SELECT * FROM copied")
        statements.append("DROP TABLE copied")
    return statements


def copy_games(db: Path, copies: int) -> None:
    conn = sqlite3.connect(db)
    try:
        (last,) = conn.execute("SELECT MAX(id) FROM games").fetchone()
        for statement in copying(last, copies):
            conn.execute(statement)
        conn.commit()
    finally:
        conn.close()


async def copy_games_pg(url: str, copies: int) -> None:
    """As :func:`copy_games`, then the id sequence moved past the copies."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        async with conn.transaction():
            last = await conn.fetchval("SELECT MAX(id) FROM games")
            for statement in copying(last, copies):
                await conn.execute(statement)
            await conn.execute(
                "SELECT setval(pg_get_serial_sequence('games', 'id'), MAX(id)) FROM games"
            )
    finally:
        await conn.close()


@dataclass
class Side:
    """One bot, in its own process (or processes) on its own fake, with its own copy of the
    tables."""

    fake: FakeDiscord
    bots: list[BotProcess]
    db: Path | str
    people: Night
    server: int | None = None  # the PostgreSQL server's postmaster, whose CPU is read too
    steps: list[Path] = field(default_factory=list)  # each process's meter (--steps, --calls)
    windows: list[Window] = field(default_factory=list)

    @property
    def orchard(self) -> bool:
        return not self.people.floor

    async def measure(self, seconds: float) -> Window:
        """``seconds`` of this bot at work; Orchard's moves are counted by source."""
        pids = [bot.proc.pid for bot in self.bots if bot.proc is not None]
        return await measure(pids, self.db, seconds, by_source=self.orchard, server=self.server)

    def time_steps(self, on: bool) -> None:
        """Start or stop timing the loop steps (``--steps``) or counting the calls
        (``--calls``) of this side's processes."""
        for bot in self.bots if self.steps else []:
            if bot.proc is not None and bot.proc.returncode is None:
                bot.proc.send_signal(signal.SIGUSR1 if on else signal.SIGUSR2)

    def read_steps(self) -> tuple[float, Steps]:
        """The loop steps timed in this side's processes, added up, and their loop threads'
        CPU in all (seconds)."""
        loop_cpu, steps = 0.0, []
        for path in self.steps:
            cpu, timed = read(path)
            loop_cpu += cpu
            steps.append(timed)
        return loop_cpu, added(steps)

    def read_calls(self) -> Counter[str]:
        """The calls counted in this side's processes (``--calls``), by part, added up."""
        return sum((call_owners.read(path) for path in self.steps), Counter())

    def spans(self) -> list[Span]:
        return [(w.began, w.ended) for w in self.windows]

    def logged(self) -> list[int]:
        """How much each process has logged so far."""
        return [bot.log.stat().st_size for bot in self.bots]

    async def start(self) -> None:
        """Every process at once, until all are connected."""
        await asyncio.gather(*(bot.start(wait=False) for bot in self.bots))
        await asyncio.gather(*(bot.ready(0) for bot in self.bots))

    async def stop(self) -> None:
        await asyncio.gather(*(bot.stop() for bot in self.bots))

    async def close(self) -> None:
        try:
            await self.people.finish()
        finally:
            await self.stop()
            await self.fake.close()


async def open_side(
    night: Plan,
    db: Path | str,
    logs: list[Path],
    program: tuple[str, ...],
    seed: int,
    server: int | None = None,
    steps: bool = False,
    calls: bool = False,
) -> tuple[Side, float]:
    """Start the fake and the bot (one process per log, each with its share of the shards),
    open every table through Discord; the people wait. Returns the side and when its bot was
    connected."""
    fake = FakeDiscord(shard_count=len(logs))
    await fake.start()
    populate(fake, night)
    floor = program[:1] == FLOOR
    count = len(logs)
    metered, meter = steps or calls, call_owners.launcher if calls else launcher
    timed = [log.with_suffix(".calls.json" if calls else ".steps.json") for log in logs]
    bots = [
        BotProcess(
            fake,
            db,
            log,
            meter(timed[k], program) if metered else program,
            ShardPlan((k,), count) if count > 1 else None,
        )
        for k, log in enumerate(logs)
    ]
    tables = [dataclasses.replace(t) for t in night.tables]
    people = Night(fake, tables, floor=floor, seed=seed, break_within=night.break_within)
    people.playing.clear()
    side = Side(fake, bots, db, people, server, timed if metered else [])
    try:
        await side.start()
        connected = time.monotonic()
        await set_up(fake, tables, open_floor if floor else open_table)
    except BaseException:
        await side.close()
        raise
    people.start()
    return side, connected


@dataclass(frozen=True)
class Run:
    """One run's figures: Orchard and the floor interleaved, the restart, the neighbour."""

    floor: Window
    floor_clicks: Latencies
    night: Window  # Orchard's slices of the game night, added up
    clicks: Latencies  # ... the clicks sent in them
    slow: dict[str, int]  # ... those slower than SLOW, by what stood still meanwhile
    worst: list[Click]  # ... the slowest of them
    tail: list[tuple[str, int, int]]  # ... what the slowest 1% clicked (see tail_by_verb)
    worst_told: list[str]  # ... what the bot sent for their games meanwhile, past LATE_DETAIL
    connected: float  # when Orchard's side was first connected (time.monotonic())
    warm: float  # ... when its tables were warm (no window is measured before)
    lag: Latencies  # how late this process's loop woke during the game night
    lag_later: Latencies  # ... from the first window alone to the end of the neighbour's
    down: float  # SIGTERM to connected again
    skipped: int  # clicks not sent while it was down
    first: Latencies  # clicks sent in the first seconds after it connected
    alone: Window  # Orchard as it is, just before the neighbour
    quiet: Latencies  # ... the game night's servers' clicks then
    crowded: Window  # with the neighbour at work
    others: Latencies  # ... the game night's servers' clicks then
    others_worst: list[Click]  # ... the slowest three of them
    others_told: list[str]  # ... what the bot sent for their games meanwhile, past LATE_DETAIL
    spam: Latencies  # the neighbour's own commands
    limited: int  # message edits answered 429
    global_429s: tuple[int, int]  # answered with a global 429: inside Orchard's windows, outside
    errors: int  # lines the bot logged at ERROR before its last stop
    # Orchard's loop (its thread's CPU, and its steps) in its slices, the floor's (--steps)
    steps: tuple[tuple[float, Steps], tuple[float, Steps]] | None
    calls: tuple[Counter[str], Counter[str]] | None  # ... their calls by part (--calls)
    # Orchard's Discord requests in its slices by kind, the floor's
    requests: tuple[Counter[str], Counter[str]]
    idle: list[Window]  # Orchard's and the floor's, nobody clicking

    @property
    def p99_ratio(self) -> float:
        return self.clicks.p99 / self.floor_clicks.p99

    @property
    def crowding(self) -> float:
        return self.others.p99 / self.quiet.p99


async def tables_warm(stalls: Path, since: float, processes: int) -> float:
    """When each of Orchard's ``processes`` had warmed its exact players' tables after
    ``since`` (their ``warm`` lines in ``stalls``), waiting for it: a start-up's one-off work
    (about 1.5 s of CPU a process), so no window is measured before it."""
    gives_up = time.monotonic() + WARM_LIMIT
    while True:
        warm = [at for at, _ in bot_stalls(stalls)["warm"] if at > since]
        if len(warm) >= processes:
            return max(warm)
        if time.monotonic() > gives_up:
            raise RuntimeError(f"Orchard's tables were not warm {WARM_LIMIT:.0f} s after start")
        await asyncio.sleep(0.5)


async def spam(people: Night, night: Plan, every: float) -> None:
    """The bad neighbour: /leaderboard and /stats in turn, one every ``every`` seconds,
    never waiting for an answer."""
    fake, sent = people.fake, set()
    commands = list(SPAM.items())
    try:
        for n in itertools.count():
            name, options = commands[n % len(commands)]
            slash = fake.slash(night.spammer, night.neighbour, night.spam_channel, name, options)
            task = asyncio.create_task(timed(people.log, night.neighbour, name, slash))
            sent.add(task)
            task.add_done_callback(sent.discard)
            await asyncio.sleep(every)
    finally:
        await asyncio.gather(*sent, return_exceptions=True)


@asynccontextmanager
async def orchard_database(
    night: Plan, template: Path, folder: Path, args: argparse.Namespace, n: int
) -> AsyncIterator[Path | str]:
    """Run ``n``'s database: a copy of the SQLite template, or a PostgreSQL schema of its own
    seeded as the template was (dropped after)."""
    if args.postgres is None:
        shutil.copy(template, folder / "orchard.db")
        yield folder / "orchard.db"
        return
    schema = f"game_night_{n + 1}"
    await pg_query(args.postgres, f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    await pg_query(args.postgres, f"CREATE SCHEMA {schema}")
    try:
        url = with_schema(args.postgres, schema)
        took = await seed(url, night, args.results, args.turn_pings)
        print(f"  seeded a schema of its own on PostgreSQL in {took:.1f} s")
        yield url
    finally:
        await pg_query(args.postgres, f"DROP SCHEMA {schema} CASCADE")


async def game_night(
    night: Plan, db: Path | str, folder: Path, args: argparse.Namespace, n: int
) -> Run:
    lag = LoopLag().start()
    server = None if args.postgres is None else await postmaster(args.postgres)
    logs = [folder / f"orchard-{n + 1}-{k + 1}.log" for k in range(args.processes)]
    stalls = folder / f"stalls-{n + 1}.log"
    stalls.unlink(missing_ok=True)
    os.environ[STALLS] = str(stalls)  # Orchard's processes log their stalls (the floor doesn't)
    orchard, started = await open_side(night, db, logs, PROGRAM, n, server, args.steps, args.calls)
    floor: Side | None = None
    try:
        floor, _ = await open_side(
            night,
            folder / f"floor-{n + 1}.db",
            [folder / f"floor-{n + 1}.log"],
            FLOOR_GAME if args.floor_game else FLOOR,
            n,
            steps=args.steps,
            calls=args.calls,
        )
        # warm up: no window starts in the bot's first SETTLED seconds after connecting
        orchard.people.play()
        await asyncio.sleep(max(args.warm, started + SETTLED - time.monotonic()))
        warm = await tables_warm(stalls, started, args.processes)
        await orchard.people.pause()
        floor.people.play()
        await asyncio.sleep(args.warm / 2)
        await floor.people.pause()
        orchard.people.breaks_from = time.monotonic()
        turns = [floor, orchard] if n % 2 == 0 else [orchard, floor]
        for _ in range(max(1, round(args.seconds / args.slice))):
            for side in turns:
                side.people.play()
                with no_collection():  # collected between slices, while nobody clicks
                    side.time_steps(True)
                    side.windows.append(await side.measure(args.slice))
                    side.time_steps(False)
                    await side.people.pause()
        with no_collection():
            idle = await asyncio.gather(orchard.measure(IDLE), floor.measure(IDLE))
        steps = (orchard.read_steps(), floor.read_steps()) if args.steps else None
        calls = (orchard.read_calls(), floor.read_calls()) if args.calls else None
        await floor.close()

        people = orchard.people
        people.play()
        skipped, stopped = people.skipped, time.monotonic()
        with no_collection():
            await orchard.stop()
            await orchard.start()
            up = time.monotonic()
            await asyncio.sleep(RESTART_WINDOW)
            await people.pause()
        people.play()
        await tables_warm(stalls, up, args.processes)
        await asyncio.sleep(SETTLE)

        with no_collection():
            alone = await orchard.measure(args.seconds)
            await people.pause()
        path = rf"^/channels/{night.limited}/messages/"
        edits = len(orchard.fake.requests_matching("PATCH", path))
        orchard.fake.fail("PATCH", path, 429, 10**9, retry_after=5.0)
        people.impatient = True
        people.play()
        spammer = asyncio.create_task(spam(people, night, args.spam_every))
        await asyncio.sleep(5.0)
        with no_collection():
            crowded = await orchard.measure(args.seconds)
            spammer.cancel()
            await asyncio.gather(spammer, return_exceptions=True)
            await people.pause()
        limited = len(orchard.fake.requests_matching("PATCH", path)) - edits
        running = orchard.logged()  # what the bot logged before its last stop
    finally:
        await orchard.close()
        if floor is not None:
            await floor.close()
        await lag.stop()

    def others(click: Click) -> bool:
        return night.others(click.guild)

    spans = orchard.spans()
    worst = slowest(people.log, spans, 3)
    later = [(w.began, w.ended) for w in (alone, crowded)]
    others_worst = [c for c in slowest(people.log, later) if others(c)][:3]
    logged = bot_stalls(stalls)
    causes = {f"the bot's {k}": logged[k] for k in ("gc", "loop")}
    causes["the fake's loop"] = lag.stalls()
    return Run(
        floor=Window.total(floor.windows),
        floor_clicks=latencies(floor.people.log, floor.spans(), others),
        night=Window.total(orchard.windows),
        clicks=latencies(people.log, spans, others),
        slow=slow_clicks(people.log, spans, causes),
        worst=worst,
        tail=tail_by_verb(people.log, spans, others),
        worst_told=[timeline(orchard.fake, c) for c in worst if told_of(c)],
        connected=started,
        warm=warm,
        lag=Latencies.of(late for span in [*spans, *floor.spans()] for late in lag.between(*span)),
        lag_later=Latencies.of(
            late for w in (alone, crowded) for late in lag.between(w.began, w.ended)
        ),
        down=up - stopped,
        skipped=people.skipped - skipped,
        first=latencies(people.log, [(up, up + RESTART_WINDOW)]),
        alone=alone,
        quiet=latencies(people.log, [(alone.began, alone.ended)], others),
        crowded=crowded,
        others=latencies(people.log, [(crowded.began, crowded.ended)], others),
        others_worst=others_worst,
        others_told=[timeline(orchard.fake, c) for c in others_worst if told_of(c)],
        spam=latencies(people.log, [(crowded.began, crowded.ended)], lambda c: c.verb in SPAM),
        limited=limited,
        global_429s=global_429s(
            orchard.fake,
            [*spans, (up, up + RESTART_WINDOW), *((w.began, w.ended) for w in (alone, crowded))],
        ),
        errors=sum(map(logged_errors, [b.log for b in orchard.bots], running)),
        steps=steps,
        calls=calls,
        requests=(sent_in(orchard), sent_in(floor)),
        idle=idle,
    )


def sent_in(side: Side) -> Counter[str]:
    """The Discord requests the side's bot made in its slices, by kind: what Orchard asks of
    Discord beyond each click's answer (turn pings, boards edited outside a click)."""
    spans = side.spans()
    return Counter(
        request_kind(r.method, r.path) for r in side.fake.requests if within(r.at, spans)
    )


def request_kind(method: str, path: str) -> str:
    if path.startswith("/interactions/"):
        return "answers"
    if path.startswith("/webhooks/"):
        return "follow-ups"
    if "/messages" in path:
        return {"POST": "posts", "PATCH": "edits", "DELETE": "deletions"}.get(method, "other")
    return "other"


def global_429s(fake: FakeDiscord, windows: list[Span]) -> tuple[int, int]:
    """Requests the fake answered with a global 429, inside the measured ``windows`` and
    outside them: a fake whose loop stood still (this process's collections between windows)
    reads what queued meanwhile all at once, into one second of its own."""
    hits = [r.at for r in fake.requests if r.status == 429 and r.headers.get("X-RateLimit-Global")]
    inside = sum(1 for at in hits if within(at, windows))
    return inside, len(hits) - inside


def logged_errors(log: Path, size: int) -> int:
    """ERROR lines in the first ``size`` bytes of the bot's log."""
    text = log.read_bytes()[:size].decode(errors="replace")
    return sum(" ERROR " in line for line in text.splitlines())


def report(n: int, run: Run) -> None:
    def say(label: str, *lines: str) -> None:
        print(f"  {label:<14}" + f"\n  {'':<14}".join(lines))

    def window(clicks: str, latencies: Latencies, w: Window) -> list[str]:
        return [f"{clicks} {latencies.text()}", w.text(), w.usage.shares()]

    print(f"run {n}:")
    say("floor", *window("clicks", run.floor_clicks, run.floor))
    say(
        "Orchard",
        *window("clicks", run.clicks, run.night),
        f"p99 {run.p99_ratio:.2f}× the floor's, CPU a move "
        f"{run.night.cpu_per_move / run.floor.cpu_per_move:.2f}× the floor's; "
        f"this process's loop was late by p99 {ms(run.lag.p99)}, max {ms(run.lag.max)} "
        f"(in the slices); its tables warm {run.warm - run.connected:.0f} s after connecting",
        f"clicks over {ms(SLOW)}, by what stood still for half their time or more: "
        + ", ".join(f"{cause} {n}" for cause, n in run.slow.items()),
        slowest_text(run.worst, run.connected),
        *(f"what the bot sent meanwhile for it: {told}" for told in run.worst_told),
        f"the slowest {TAIL:.0%} by what was clicked (in it / of all): "
        + ", ".join(f"{verb} {n}/{every}" for verb, n, every in run.tail),
        "Discord requests a move: "
        + "; ".join(
            f"{who} {a_move_by_kind(sent, w.committed)}"
            for who, sent, w in zip(
                ("Orchard", "the floor"), run.requests, (run.night, run.floor), strict=True
            )
        ),
    )
    mine, floors = run.idle
    say(
        "idle",
        f"nobody clicking for {IDLE:.0f} s: Orchard {ms(cpu_a_second(mine))} of CPU a second "
        f"({mine.committed} moves: deadlines and its seats), the floor "
        f"{ms(cpu_a_second(floors))}",
    )
    say(
        "restart",
        f"down {run.down:.2f} s (SIGTERM to connected), {run.skipped} clicks not sent meanwhile",
        f"first {RESTART_WINDOW:.0f} s after: {run.first.text()}",
    )
    say("alone", *window("other servers' clicks", run.quiet, run.alone))
    say(
        "bad neighbour",
        *window("other servers' clicks", run.others, run.crowded),
        f"p99 {run.crowding:.2f}× without it",
        f"the neighbour's commands {run.spam.text()}; {run.limited} edits answered 429",
        f"this process's loop was late by p99 {ms(run.lag_later.p99)}, max "
        f"{ms(run.lag_later.max)} (alone and with the neighbour)",
        f"alone or not, other servers' {slowest_text(run.others_worst, run.connected)}",
        *(f"what the bot sent meanwhile for it: {told}" for told in run.others_told),
    )
    inside, outside = run.global_429s
    print(f"  global 429s from the fake: {inside} in the measured windows, {outside} outside")
    print(f"  the bot logged {run.errors} errors before its last stop")
    if run.steps is not None:
        print_steps(run.steps, (run.night, run.floor))
    if run.calls is not None:
        call_owners.report(run.calls, (run.night.committed, run.floor.committed))


def cpu_a_second(window: Window) -> float:
    return window.usage.bot / window.usage.seconds


def told_of(click: Click) -> bool:
    """Whether a slow click is shown with what the bot sent for its game meanwhile."""
    return click.latency is None or click.latency > LATE_DETAIL


def slowest_text(clicks: list[Click], connected: float) -> str:
    """The slowest clicks over :data:`SLOW`, each with when it was sent after connecting."""
    if not clicks:
        return f"the slowest: none over {ms(SLOW)}"
    return "the slowest: " + ", ".join(
        f"{c.verb} {'never' if c.latency is None else ms(c.latency)} at {c.sent - connected:.1f} s"
        for c in clicks
    )


def a_move_by_kind(sent: Counter[str], moves: int) -> str:
    """Requests a move, in all and by kind: "1.21 (answers 0.95, posts 0.10, …)"."""
    kinds = ", ".join(f"{kind} {n / moves:.2f}" for kind, n in sent.most_common())
    return f"{sum(sent.values()) / moves:.2f} ({kinds})"


STEPS_SHOWN = 25


def print_steps(
    loops: tuple[tuple[float, Steps], tuple[float, Steps]], windows: tuple[Window, Window]
) -> None:
    """The loop's CPU a move in the slices, by task and by step, Orchard beside the floor;
    then the loop thread's in all, and the other threads'."""
    print("  the loop's CPU a move in the slices (ms), timed callback by callback:")
    moves = [w.committed for w in windows]
    steps = [timed for _, timed in loops]
    for title, pair, shown in (
        ("by task", [added([s], by_task=True) for s in steps], 12),
        ("by step (a task's: where it then waited)", steps, STEPS_SHOWN),
    ):
        print(f"  {'Orchard':>9} {'floor':>7}  {title}")
        mine, floors = (a_move(side, n) for side, n in zip(pair, moves, strict=True))
        keys = sorted({*mine, *floors}, key=lambda k: -max(mine.get(k, 0.0), floors.get(k, 0.0)))
        for key in keys[:shown]:
            print(f"  {mine.get(key, 0.0):9.3f} {floors.get(key, 0.0):7.3f}  {key[:110]}")
    callbacks = [sum(a_move(s, n).values()) for s, n in zip(steps, moves, strict=True)]
    loop = [cpu / max(1, n) * 1e3 for (cpu, _), n in zip(loops, moves, strict=True)]
    process = [w.cpu_per_move * 1e3 for w in windows]
    lines = {
        "all callbacks": callbacks,
        "between callbacks (waiting for events, the loop's own)": [
            a - b for a, b in zip(loop, callbacks, strict=True)
        ],
        "the loop's thread in all": loop,
        "the other threads (the process's CPU less the loop's)": [
            a - b for a, b in zip(process, loop, strict=True)
        ],
    }
    for label, (mine_ms, floor_ms) in lines.items():
        print(f"  {mine_ms:9.3f} {floor_ms:7.3f}  {label}")


def a_move(steps: Steps, moves: int) -> dict[str, float]:
    """Each step's CPU a move, in ms."""
    return {step: cpu / max(1, moves) * 1e3 for step, (cpu, _) in steps.items()}


def added(many: list[Steps], by_task: bool = False) -> Steps:
    """Steps (or, ``by_task``, their tasks) added up."""
    total: Steps = {}
    for steps in many:
        for step, (cpu, n) in steps.items():
            key = step.split(" | ")[0] if by_task else step
            into = total.setdefault(key, [0.0, 0.0])
            into[0] += cpu
            into[1] += n
    return total


def summary(runs: list[Run]) -> None:
    def cores(value: float) -> str:
        return f"{value:.2f} cores"

    rows: list[Row] = [
        ("floor: click p99", [r.floor_clicks.p99 for r in runs], ms),
        ("floor: bot CPU a move", [r.floor.cpu_per_move for r in runs], ms),
        ("Orchard: click median", [r.clicks.median for r in runs], ms),
        ("Orchard: click p99", [r.clicks.p99 for r in runs], ms),
        ("Orchard: click max", [r.clicks.max for r in runs], ms),
        (
            f"Orchard: later than {LATE:.0f} s or never (target 0)",
            [r.clicks.late() for r in runs],
            count,
        ),
        ("Orchard: moves a second", [r.night.per_second for r in runs], count),
        ("Orchard: bot CPU a move", [r.night.cpu_per_move for r in runs], ms),
        ("Orchard: PostgreSQL's CPU a move", [r.night.server_per_move for r in runs], ms),
        ("Orchard p99 / floor p99 (target ≤ 2)", [r.p99_ratio for r in runs], times),
        (
            "Orchard CPU a move / floor's (target ≤ 1.5)",
            [r.night.cpu_per_move / r.floor.cpu_per_move for r in runs],
            times,
        ),
        ("idle: Orchard's CPU a second", [cpu_a_second(r.idle[0]) for r in runs], ms),
        ("idle: the floor's CPU a second", [cpu_a_second(r.idle[1]) for r in runs], ms),
        ("restart: down, SIGTERM to connected", [r.down for r in runs], seconds),
        (
            f"restart: later than {LATE:.0f} s in the first {RESTART_WINDOW:.0f} s (target 0)",
            [r.first.late() for r in runs],
            count,
        ),
        ("neighbour: other servers' p99 without it", [r.quiet.p99 for r in runs], ms),
        ("neighbour: other servers' p99 with it", [r.others.p99 for r in runs], ms),
        ("neighbour: p99 with / without (target ≤ 1.5)", [r.crowding for r in runs], times),
        ("neighbour: other servers' later than 3 s", [r.others.late() for r in runs], count),
        ("anything else running, Orchard's slices", [r.night.usage.elsewhere for r in runs], cores),
        ("anything else running, floor's slices", [r.floor.usage.elsewhere for r in runs], cores),
    ]
    summarise(len(runs), rows)


async def main_async(args: argparse.Namespace) -> None:
    print(machine())
    night = plan(args.servers, args.cheerio, args.hotscore, args.applejack, args.orchard_every)
    night = dataclasses.replace(night, break_within=args.seconds)
    people = sum(len(t.humans) for t in night.tables)
    print(
        f"{len(night.tables)} tables ({people} people) in {night.servers} servers and the "
        f"neighbour's; {args.seconds:.0f} s a side in {args.slice:.0f} s slices"
    )
    if args.floor_game:
        print("the floor: a dice game's least (a Cheerio-sized board, a game row and its move)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.dir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        template = folder / "template.db"
        template.unlink(missing_ok=True)
        if args.postgres is None:
            took = await seed(template, night, args.results, args.turn_pings)
            print(f"seeded {args.results} results in the neighbour's server in {took:.1f} s")
        runs: list[Run] = []
        for n in range(args.runs):
            if args.quiet:
                print(await quiet(args.quiet / 100, args.quiet_wait))
            async with orchard_database(night, template, folder, args, n) as db:
                runs.append(await game_night(night, db, folder, args, n))
            report(n + 1, runs[-1])
        summary(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="measured, for each side")
    parser.add_argument("--slice", type=float, default=10.0, help="Orchard and floor take turns")
    parser.add_argument("--warm", type=float, default=10.0, help="warm-up before measuring")
    parser.add_argument("--servers", type=int, default=50)
    parser.add_argument("--cheerio", type=int, default=200)
    parser.add_argument("--hotscore", type=int, default=25)
    parser.add_argument("--applejack", type=int, default=25)
    parser.add_argument("--orchard-every", type=int, default=10, help="1 table in N seats Orchard")
    parser.add_argument("--results", type=int, default=40_000, help="in the neighbour's server")
    parser.add_argument("--spam-every", type=float, default=0.1, help="the neighbour's commands")
    parser.add_argument(
        "--turn-pings",
        choices=("channel", "off"),
        default="channel",
        help="every server's setting: 'off' tells what the turn messages cost",
    )
    parser.add_argument("--postgres", metavar="URL", help="Orchard on this PostgreSQL server")
    parser.add_argument(
        "--steps", action="store_true", help="time each bot's loop, step by step, in the slices"
    )
    parser.add_argument(
        "--calls",
        action="store_true",
        help="count each bot's calls in the slices by whose code made them (slows both bots)",
    )
    parser.add_argument("--processes", type=int, default=1, help="Orchard's, each with shards")
    parser.add_argument(
        "--floor-game",
        action="store_true",
        help="the floor draws a Cheerio-sized board and writes a game row with each move",
    )
    add_run_options(parser)
    args = parser.parse_args()
    if args.processes > 1 and args.postgres is None:
        parser.error("--processes above 1 needs --postgres: processes cannot share SQLite")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
