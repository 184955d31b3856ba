"""Small builders shared by the store and runner tests: a real store on a file, a clock."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from bot.games.cheerio import open_categories
from bot.lobby import Lobby
from bot.model import Player
from bot.orchard import Orchard
from bot.runner import Runner, Snapshot
from bot.scheduler import Scheduler
from db.store import Store

GUILD, CHANNEL = 100, 200
LEFT_OPEN: set[Table] = set()
"""Tables not closed yet: conftest closes those a failed test leaves, or its SQLite threads
would keep the test process from ever exiting."""


@dataclass
class Clock:
    now: float = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Recorder:
    """Stands in for Discord: remembers every version it was asked to show."""

    shown: list[Snapshot] = field(default_factory=list)

    async def __call__(self, live: Snapshot) -> None:
        self.shown.append(live)


@dataclass(eq=False)
class Table:
    """Orchard as the app wires it, displayed on a :class:`Recorder`, on a test clock."""

    orchard: Orchard
    clock: Clock
    shown: Recorder

    @property
    def store(self) -> Store:
        return self.orchard.store

    @property
    def runner(self) -> Runner:
        return self.orchard.runner

    @property
    def lobby(self) -> Lobby:
        return self.orchard.lobby

    @property
    def scheduler(self) -> Scheduler:
        return self.orchard.scheduler

    async def close(self) -> None:
        LEFT_OPEN.discard(self)
        await self.orchard.close()


async def orchard(path: Path, clock: Clock | None = None) -> Table:
    """Everything but Discord, on the database file at ``path``; Orchard's seats do not
    play unless a test starts them (``Opponents(table.runner)``)."""
    clock = clock or Clock()
    shown = Recorder()
    table = Table(await Orchard.open(path, board=shown, clock=clock), clock, shown)
    LEFT_OPEN.add(table)
    return table


async def close_left_open() -> None:
    """Close every Table a test left open (it failed before closing it)."""
    while LEFT_OPEN:
        with contextlib.suppress(Exception):
            await LEFT_OPEN.pop().close()


def player(user_id: int, seat: int = 0) -> Player:
    return Player(seat, user_id, f"user{user_id}")


async def started(o: Table, kind: str, users: list[int]) -> Snapshot:
    live = await o.lobby.open(kind, GUILD, CHANNEL, player(users[0]))
    for user in users[1:]:
        await o.lobby.join(live.id, player(user))
    return await o.lobby.start(live.id, users[0])


async def finish_cheerio(o: Table, game_id: int, users: dict[int, int]) -> Snapshot:
    """Play a Cheerio game in progress to its end: each seat (user by seat in ``users``)
    scores its first open category."""
    live = await o.runner.load(game_id)
    while live.row.status == "active":
        user = users[live.state.turn]
        category = open_categories(live.state.cards[live.state.turn])[0]
        live = await o.runner.act(game_id, user, "score", category, version=live.row.version)
    return live


async def until(predicate: Callable[[], Awaitable[bool]], timeout: float = 20.0) -> None:
    """Wait, ``timeout`` s at most, until ``predicate`` (read from the store, say) holds:
    what the bot does there sends Discord nothing a test could wait on."""

    async def poll() -> None:
        while not await predicate():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)
