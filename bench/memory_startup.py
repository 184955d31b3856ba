"""Start-up with 10,000 open games: overdue deadlines, Orchard's seats, people clicking meanwhile.

    python bench/memory_startup.py [--runs 3] [--games 10000] [--overdue 10000] [--orchard 1000]
                                   [--clickers 100]

Open Cheerio games are written through Orchard's own runner and lobby (no Discord), spread
over 50 servers of 200 channels, each with a board message in the fake. ``--overdue`` of them
were started an hour ago, so their turn deadline (5 minutes) passed long before the bot
starts; ``--orchard`` of them wait for Orchard's seat (the person has scored, it is Orchard's
turn). Beside them, ``--clickers`` people each have a game of their own, in play and not due.
Every game's turn is recorded as pinged, as by the bot that ran before the downtime: a
start-up pings only the first turns a crash cut off, a few games, not 10,000.

Then the real bot runs in its own process (``python -m tests.bot_process``) against a fake
in this one. Measured from the moment the process is started: time until it is connected,
time until every overdue deadline is committed (read from the database every 50 ms) and
until every Orchard seat has moved (waiting at most ``--longest`` seconds); the clickers,
who start clicking (0.5–3 s think time) as soon as the bot is connected, and how long their
clicks waited meanwhile; the process's resident memory then and at its peak, beside the same
bot on an empty database in the same servers and channels.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.loadkit import (  # noqa: E402
    Latencies,
    Row,
    add_run_options,
    count,
    machine,
    memory_mib,
    ms,
    no_collection,
    query,
    quiet,
    summarise,
)
from bench.players import Night, Table, latencies  # noqa: E402
from bot.games.cheerio import open_categories  # noqa: E402
from bot.model import Player  # noqa: E402
from bot.orchard import Orchard  # noqa: E402
from bot.runner import Snapshot, no_display  # noqa: E402
from tests.bot_process import BotProcess  # noqa: E402
from tests.fakediscord import FakeDiscord  # noqa: E402
from tests.live_db import fill_without_fsync  # noqa: E402

GUILD, CHANNEL, USER = 5_001, 600_001, 700_001
SERVERS, CHANNELS = 50, 200  # 10,000 channels: every game on a message of its own channel
LATE_BY = 3600.0  # the overdue games were started this long ago
POLL = 0.05


@dataclass(frozen=True)
class Where:
    """Every game's server and channel, and who hosts the games of each server."""

    games: int
    clickers: int

    def guild(self, n: int) -> int:
        return GUILD + n % SERVERS

    def channel(self, n: int) -> int:
        return CHANNEL + n

    def host(self, n: int) -> int:
        return USER + n % SERVERS if n < self.games else USER + SERVERS + n - self.games

    def channels(self, guild: int) -> list[int]:
        total = self.games + self.clickers
        return [self.channel(n) for n in range(guild - GUILD, total, SERVERS)]

    def members(self, guild: int) -> list[int]:
        total = self.games + self.clickers
        return sorted({self.host(n) for n in range(guild - GUILD, total, SERVERS)})


def populate(fake: FakeDiscord, where: Where) -> None:
    for guild in range(GUILD, GUILD + SERVERS):
        for user in where.members(guild):
            fake.add_user(user, f"player{user}")
        fake.add_guild(guild, where.channels(guild), where.members(guild))


def board(fake: FakeDiscord, snapshot: Snapshot) -> int:
    """A board for the game in the fake, with the Roll button of the version it is at."""
    row = snapshot.row
    custom = f"orc:{row.id}:{row.version}:roll:"
    button = {"type": 2, "style": 1, "label": "Roll", "custom_id": custom}
    shown = f"{fake.users[row.host_id]['global_name']}'s turn"  # boards name the player to act
    body = {"content": shown, "components": [{"type": 1, "components": [button]}]}
    return int(fake._create_message(row.channel_id, body, [])["id"])


async def fill(
    db: Path, fake: FakeDiscord, where: Where, overdue: int, orchard: int
) -> list[Table]:
    """The games (written without fsync: this is set-up); returns the clickers' tables."""
    shift = 0.0
    o = await Orchard.open(db, clock=lambda: time.time() + shift)
    await fill_without_fsync(o.store)
    seat_every = max(1, where.games // orchard) if orchard else 0
    tables = []
    for n in range(where.games + where.clickers):
        shift = -LATE_BY if n < overdue else 0.0
        host = Player(0, where.host(n), f"player{where.host(n)}")
        lobby = await o.runner.create(
            "cheerio",
            where.guild(n),
            where.channel(n),
            host,
            seed=n,
            options=None,
            variant="",
            deadline=None,
        )
        seated = n < where.games and bool(seat_every) and n % seat_every == 0
        if seated:
            seat = Player(0, fake.bot_id, "Orchard (normal)", is_bot=True, level="normal")
            await o.lobby.add_seat(lobby.id, host.user_id, seat, no_display)
        game = await o.lobby.start(lobby.id, host.user_id, no_display)
        if seated:  # the person scores at once: Orchard's turn
            category = open_categories(game.state.cards[0])[0]
            game = await o.runner.act(game.id, host.user_id, "score", category, version=0)
        await o.runner.record_message(game.id, board(fake, game))
        if n >= where.games:
            tables.append(
                Table("cheerio", where.guild(n), where.channel(n), (host.user_id,), board=None)
            )
    async with o.store.db.transaction() as tx:  # pinged, as by the bot that ran before the downtime
        await tx.execute(
            "INSERT INTO turn_pings (game_id, version) SELECT id, version FROM games"
            " WHERE status = 'active'"
        )
    await o.close()
    for table in tables:  # the board each clicker sees: the last message in their channel
        message = fake.last_message(table.channel)
        assert message is not None
        table.board = int(message["id"])
    return tables


@dataclass(frozen=True)
class Start:
    connected: float
    caught_up: float | None  # every overdue deadline committed (None: not within --longest)
    left: int  # overdue games still not moved when it stopped waiting
    orchard_moved: float | None  # every waiting Orchard seat has moved
    clicks: Latencies
    rss: float
    peak: float


async def db_count(db: Path, sql: str, began: float) -> int:
    """``sql``'s one number, ``began`` (the process's start, wall clock) its parameter."""
    return int((await asyncio.to_thread(query, db, sql, (began,)))[0][0])


OVERDUE = (  # open games whose deadline had passed when the process started
    "SELECT COUNT(*) FROM games WHERE deadline IS NOT NULL AND deadline <= ?"
    " AND status IN ('lobby', 'active')"
)
WAITING = (  # games in play with Orchard seated that have seen no move by Orchard or the clock
    "SELECT COUNT(*) FROM games g WHERE g.status = 'active' AND EXISTS (SELECT 1 FROM"
    " game_players p WHERE p.game_id = g.id AND p.is_bot = 1) AND NOT EXISTS (SELECT 1 FROM"
    " moves m WHERE m.game_id = g.id AND m.source IN ('bot', 'timeout') AND m.created_at >= ?)"
)


async def measure(
    db: Path, fake: FakeDiscord, tables: list[Table], log: Path, longest: float
) -> Start:
    """Start the bot; wait until it is connected and has caught up; what it took."""
    bot = BotProcess(fake, db, log)
    people = Night(fake, tables, seed=1)
    people.playing.clear()
    people.start()
    wall = time.time()
    began = time.monotonic()
    try:
        with no_collection():  # this process's own pauses are not the bot's
            before = len(fake.identifies)
            await bot.start(wait=False)
            await bot.ready(before)
            connected = time.monotonic()
            people.play()
            caught_up = orchard_moved = None
            left = 0
            while time.monotonic() - began < longest:
                if caught_up is None:
                    left = await db_count(db, OVERDUE, wall)
                    caught_up = None if left else time.monotonic()
                if orchard_moved is None and not await db_count(db, WAITING, wall):
                    orchard_moved = time.monotonic()
                if caught_up is not None and orchard_moved is not None:
                    break
                await asyncio.sleep(POLL)
            assert bot.proc is not None
            rss, peak = memory_mib(bot.proc.pid), memory_mib(bot.proc.pid, "VmHWM")
            await people.pause()
    finally:
        await people.finish()
        await bot.stop()
    until = caught_up or time.monotonic()
    return Start(
        connected=connected - began,
        caught_up=None if caught_up is None else caught_up - began,
        left=left,
        orchard_moved=None if orchard_moved is None else orchard_moved - began,
        clicks=latencies(people.log, [(connected, until)]),
        rss=rss,
        peak=peak,
    )


async def once(folder: Path, args: argparse.Namespace, empty: bool) -> tuple[Start, float]:
    """The bot started on a database of the games, or on an empty one in the same servers
    and channels; (figures, seconds taken to write the games)."""
    fake = FakeDiscord()
    await fake.start()
    where = Where(args.games, args.clickers)
    populate(fake, where)
    name = "empty" if empty else "games"
    db = folder / f"startup-{name}.db"
    for old in folder.glob(f"{db.name}*"):
        old.unlink()
    try:
        began = time.monotonic()
        tables = [] if empty else await fill(db, fake, where, args.overdue, args.orchard)
        filled = time.monotonic() - began
        log = folder / f"startup-{name}.log"
        return await measure(db, fake, tables, log, args.longest), filled
    finally:
        await fake.close()


def seconds(value: float | None) -> str:
    return "not within --longest" if value is None else f"{value:.2f} s"


async def main_async(args: argparse.Namespace) -> None:
    print(machine())
    print(
        f"{args.games} open games in {SERVERS} servers: {min(args.overdue, args.games)} overdue "
        f"by an hour, {args.orchard} waiting for Orchard's seat; {args.clickers} people click "
        "their own games from the moment the bot is connected"
    )
    starts: list[Start] = []
    empties: list[Start] = []
    overdue = min(args.overdue, args.games)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.dir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for n in range(args.runs):
            if args.quiet:
                print(await quiet(args.quiet / 100, args.quiet_wait))
            empty, _ = await once(folder, args, empty=True)
            start, filled = await once(folder, args, empty=False)
            empties.append(empty)
            starts.append(start)
            print(f"run {n + 1}: written in {filled:.1f} s")
            print(f"  empty database: connected {empty.connected:.2f} s, RSS {empty.rss:.1f} MiB")
            print(
                f"  {args.games} open games: connected {start.connected:.2f} s; every overdue "
                f"deadline committed {seconds(start.caught_up)}"
                + (f" ({start.left} of {overdue} left)" if start.caught_up is None else "")
                + f"; every Orchard seat moved {seconds(start.orchard_moved)} after start"
            )
            took = start.caught_up or args.longest
            print(
                f"  {(overdue - start.left) / took:.0f} overdue deadlines committed a second; "
                f"clicks meanwhile: {start.clicks.text()}"
            )
            per_game = (start.rss - empty.rss) * 1024 / max(args.games, 1)
            print(
                f"  RSS {start.rss:.1f} MiB then ({start.rss - empty.rss:+.1f} MiB over empty, "
                f"{per_game:.2f} KiB a game), peak {start.peak:.1f} MiB"
            )
    summary(starts, empties, overdue, args.longest)


def summary(starts: list[Start], empties: list[Start], overdue: int, longest: float) -> None:
    def value(pick: Callable[[Start], float | None]) -> list[float]:
        return [float("inf") if pick(s) is None else float(pick(s) or 0.0) for s in starts]

    def secs(v: float) -> str:
        return f"over {longest:.0f} s" if v == float("inf") else f"{v:.2f} s"

    def mib(v: float) -> str:
        return f"{v:.1f} MiB"

    rows: list[Row] = [
        ("connected", value(lambda s: s.connected), secs),
        ("every overdue deadline committed (target ≤ 5 s)", value(lambda s: s.caught_up), secs),
        ("every Orchard seat moved", value(lambda s: s.orchard_moved), secs),
        (
            "overdue deadlines committed a second",
            [(overdue - s.left) / (s.caught_up or longest) for s in starts],
            count,
        ),
        ("clicks meanwhile: p99 (target < 100 ms)", value(lambda s: s.clicks.p99), ms),
        ("clicks meanwhile: median", value(lambda s: s.clicks.median), ms),
        ("clicks meanwhile: later than 3 s or never", value(lambda s: s.clicks.late()), count),
        ("RSS once caught up", value(lambda s: s.rss), mib),
        ("peak RSS", value(lambda s: s.peak), mib),
        ("RSS, empty database", [e.rss for e in empties], mib),
    ]
    summarise(len(starts), rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--overdue", type=int, default=10_000, help="of the games, at most all")
    parser.add_argument("--orchard", type=int, default=1_000, help="games waiting for Orchard")
    parser.add_argument("--clickers", type=int, default=100, help="people clicking meanwhile")
    parser.add_argument("--longest", type=float, default=120.0, help="wait for the catch-up (s)")
    add_run_options(parser)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
