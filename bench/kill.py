"""Kill the bot at random moments mid-game and prove nothing acknowledged is lost.

    python bench/kill.py [--kills 20] [--games 8] [--seed 1]

A fake Discord runs in this process; the real bot runs in a subprocess
(``python -m tests.bot_process PORT DB``). Players drive Cheerio games concurrently through
interactions while the process is SIGKILLed and restarted on the same database. Afterwards:
every move whose interaction was answered (callback received) is in the move log, every
game's stored state equals the replay of its log, and every open game's buttons still work.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.games.registry import ENGINES  # noqa: E402
from bot.runner import Runner  # noqa: E402
from bot.settings import Settings  # noqa: E402
from db.store import Store  # noqa: E402
from tests.fakediscord import Component, FakeDiscord, InteractionRecord, components_of  # noqa: E402

GUILD = 5001
FIRST_CHANNEL, FIRST_USER = 6001, 7001
ANSWER_SECONDS = 3.0
POSTED = re.compile(r"/(\d+)$")


@dataclass(frozen=True)
class Ack:
    """A move the bot answered: it must be move number ``version + 1`` of its game."""

    game_id: int
    version: int
    kind: str
    arg: str
    user_id: int


@dataclass
class Report:
    kills: int = 0
    acked: list[Ack] = field(default_factory=list)
    unanswered: int = 0
    refused: int = 0
    lost: list[Ack] = field(default_factory=list)
    games: int = 0
    finished: int = 0
    mismatched: list[int] = field(default_factory=list)
    open_games: int = 0
    continued: int = 0
    restart_seconds: list[float] = field(default_factory=list)

    def lines(self) -> list[str]:
        starts = sorted(self.restart_seconds)
        median = starts[len(starts) // 2] if starts else 0.0
        return [
            f"kills: {self.kills}",
            f"moves acknowledged: {len(self.acked)}",
            f"moves lost: {len(self.lost)}",
            f"interactions unanswered (bot was down or killed mid-way): {self.unanswered}",
            f"clicks refused (stale boards after a kill, then posted again): {self.refused}",
            f"games: {self.games} ({self.finished} finished)",
            f"games whose state differs from the replay of their log: {len(self.mismatched)}",
            f"open games that played on after the last restart: {self.continued} of "
            f"{self.open_games}",
            f"restart to ready: median {median:.2f} s, max {max(starts, default=0.0):.2f} s",
        ]


class Bot:
    """The bot subprocess, restarted on the same database after every kill."""

    def __init__(self, fake: FakeDiscord, db: Path, log: Path) -> None:
        self.fake, self.db, self.log = fake, db, log
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self, wait: bool = True) -> float:
        began = time.monotonic()
        before = len(self.fake.identifies)
        with self.log.open("ab") as sink:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tests.bot_process",
                str(self.fake.port),
                str(self.db),
                cwd=ROOT,
                stdout=sink,
                stderr=sink,
            )
        if wait:
            await self.ready(before)
        return time.monotonic() - began

    async def ready(self, identifies_before: int) -> None:
        await self.fake.wait_for(
            lambda: len(self.fake.identifies) > identifies_before and self.fake.connected(0),
            60.0,
            "the bot process to connect",
        )

    async def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)
            await self.proc.wait()
        await self.fake.wait_for(lambda: not self.fake.connected(0), 10.0, "the socket to close")

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 10.0)
            except TimeoutError:
                self.proc.send_signal(signal.SIGKILL)
                await self.proc.wait()


def find(message: dict[str, Any], action: str) -> Component | None:
    for c in components_of(message):
        if f":{action}:" in (c.custom_id or "") and not c.disabled:
            return c
    return None


class Player:
    """One person with one channel, playing Cheerio game after game through interactions."""

    def __init__(self, fake: FakeDiscord, report: Report, user: int, channel: int) -> None:
        self.fake, self.report, self.user, self.channel = fake, report, user, channel
        self.board: int | None = None
        self.rng = random.Random(user)

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.step()
            except (TimeoutError, LookupError, KeyError, AssertionError, RuntimeError):
                self.board = None
                await asyncio.sleep(0.05)
            await asyncio.sleep(self.rng.uniform(0.0, 0.02))

    async def answer(self, record: InteractionRecord) -> InteractionRecord | None:
        try:
            return await record.wait(ANSWER_SECONDS)
        except TimeoutError:
            self.report.unanswered += 1
            return None

    async def step(self) -> None:
        if self.board is None or self.board not in self.fake.messages:
            self.board = await self.recover()
            return
        message = self.fake.messages[self.board]
        start = find(message, "lobby_start")
        roll = find(message, "roll")
        score = find(message, "score")
        if start is not None:
            started = await self.answer(await self.fake.click(self.user, self.board, start))
            if started is None or started.type != 7:
                self.board = None
        elif roll is not None and (score is None or self.rng.random() < 0.7):
            await self.move(roll, None)
        elif score is not None:
            await self.move(score, self.rng.choice(score.options))
        else:  # finished (Rematch only) or closed: start another game
            self.board = None

    async def move(self, component: Component, value: str | None) -> None:
        assert self.board is not None and component.custom_id is not None
        if value is None:
            record = await self.fake.click(self.user, self.board, component)
        else:
            record = await self.fake.select(self.user, self.board, component, [value])
        answered = await self.answer(record)
        if answered is None:
            self.board = None
            return
        if answered.type == 7:
            _, game, version, kind, arg = component.custom_id.split(":", 4)
            move = Ack(int(game), int(version), kind, value or arg, self.user)
            self.report.acked.append(move)
        else:
            self.report.refused += 1
            self.board = None

    async def recover(self) -> int | None:
        """Find my open game with /games and post it again, or open a new one."""
        listed = await self.answer(await self.fake.slash(self.user, GUILD, self.channel, "games"))
        if listed is None:
            return None
        shown = listed.original
        again = [c for c in components_of(shown or {}) if ":repost:" in (c.custom_id or "")]
        if shown is not None and again:
            posted = await self.answer(await self.fake.click(self.user, int(shown["id"]), again[0]))
            found = POSTED.search(posted.content) if posted is not None else None
            return int(found[1]) if found else None
        opened = await self.answer(
            await self.fake.slash(self.user, GUILD, self.channel, "cheerio new")
        )
        if opened is None or opened.original is None or opened.ephemeral:
            return None
        return int(opened.original["id"])


async def verify(fake: FakeDiscord, db: Path, report: Report, players: list[Player]) -> None:
    """Compare the acknowledged moves with the log, replay every game, play every open one."""
    store = await Store.open(db)
    runner = Runner(store, ENGINES, Settings(store))
    try:
        logs: dict[int, list[Any]] = {}
        for ack in report.acked:
            if ack.game_id not in logs:
                logs[ack.game_id] = await store.moves(ack.game_id)
            moves = logs[ack.game_id]
            move = moves[ack.version] if ack.version < len(moves) else None
            if move is None or (move.kind, move.arg, move.user_id) != (
                ack.kind,
                ack.arg,
                ack.user_id,
            ):
                report.lost.append(ack)
        rows = await store._fetchall("SELECT id, status FROM games WHERE state IS NOT NULL")
        report.games = len(rows)
        report.finished = sum(status == "finished" for _, status in rows)
        for game_id, _ in rows:
            live = await runner.load(game_id)
            if await runner.replay(game_id) != live.state:
                report.mismatched.append(game_id)
        open_rows = [row for row in await store.open_games(GUILD) if row.status == "active"]
        report.open_games = len(open_rows)
        by_user = {p.user: p for p in players}
        for row in open_rows:
            player = by_user[row.host_id]
            player.board = await player.recover()
            before = row.version
            for _ in range(3):
                await player.step()
                now = await store.get_game(row.id)
                if now is not None and now.version > before:
                    report.continued += 1
                    break
    finally:
        await store.close()


async def chaos(
    kills: int = 20, games: int = 8, seed: int = 1, folder: Path | None = None, quiet: bool = False
) -> Report:
    """Run the whole experiment; returns the figures (asserting is left to the caller)."""
    rng = random.Random(seed)
    report = Report()
    with tempfile.TemporaryDirectory() as tmp:
        where = folder or Path(tmp)
        fake = FakeDiscord()
        await fake.start()
        users = [FIRST_USER + i for i in range(games)]
        channels = [FIRST_CHANNEL + i for i in range(games)]
        for user in users:
            fake.add_user(user, f"player{user}")
        fake.add_guild(GUILD, channels, users)
        bot = Bot(fake, where / "orchard.db", where / "bot.log")
        try:
            report.restart_seconds.append(await bot.start())
            stop = asyncio.Event()
            players = [Player(fake, report, u, c) for u, c in zip(users, channels, strict=True)]
            tasks = [asyncio.create_task(p.run(stop)) for p in players]
            for n in range(kills):
                if rng.random() < 0.25:  # during start-up (migrations, sync, connect)
                    await asyncio.sleep(rng.uniform(0.0, 0.6))
                else:
                    await asyncio.sleep(rng.uniform(0.1, 1.5))
                await bot.kill()
                report.kills += 1
                if not quiet:
                    print(f"kill {n + 1}: {len(report.acked)} moves acknowledged so far")
                before = len(fake.identifies)
                began = time.monotonic()
                await bot.start(wait=False)
                if n + 1 < kills and rng.random() < 0.25:
                    continue  # the next kill may land before this start finished
                await bot.ready(before)
                report.restart_seconds.append(time.monotonic() - began)
            if not fake.connected(0):
                await bot.ready(len(fake.identifies) - 1)
            await asyncio.sleep(1.0)
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            await verify(fake, bot.db, report, players)
        finally:
            await bot.stop()
            await fake.close()
            if folder is None and report.lost and not quiet:
                print((where / "bot.log").read_text()[-4000:])
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--games", type=int, default=8, help="games played at once (<= 25)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    began = time.monotonic()
    report = asyncio.run(chaos(args.kills, min(args.games, 25), args.seed))
    print("\n".join(report.lines()))
    print(f"wall time: {time.monotonic() - began:.1f} s")
    if report.lost or report.mismatched or report.continued < report.open_games:
        sys.exit(1)


if __name__ == "__main__":
    main()
