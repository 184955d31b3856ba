"""Small builders shared by the store and runner tests: a real store on a file, a clock."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bot.games.registry import ENGINES
from bot.lobby import Lobby
from bot.model import Player
from bot.runner import Live, Runner
from bot.scheduler import Scheduler
from bot.settings import Settings
from db.store import Store

GUILD, CHANNEL = 100, 200


@dataclass
class Clock:
    now: float = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Recorder:
    """Stands in for Discord: remembers every version it was asked to show."""

    shown: list[Live] = field(default_factory=list)

    async def __call__(self, live: Live) -> None:
        self.shown.append(live)


@dataclass
class Orchard:
    store: Store
    runner: Runner
    lobby: Lobby
    scheduler: Scheduler
    clock: Clock
    shown: Recorder

    async def close(self) -> None:
        await self.store.close()


async def orchard(path: Path, clock: Clock | None = None) -> Orchard:
    """Everything but Discord, on the database file at ``path``."""
    store = await Store.open(path)
    clock = clock or Clock()
    shown = Recorder()
    runner = Runner(store, ENGINES, Settings(store), publish=shown, clock=clock)
    lobby = Lobby(runner)
    return Orchard(store, runner, lobby, Scheduler(runner, lobby), clock, shown)


def player(user_id: int, seat: int = 0) -> Player:
    return Player(seat, user_id, f"user{user_id}")


async def started(o: Orchard, kind: str, users: list[int]) -> Live:
    live = await o.lobby.open(kind, GUILD, CHANNEL, player(users[0]))
    for user in users[1:]:
        await o.lobby.join(live.id, player(user))
    return await o.lobby.start(live.id, users[0])
