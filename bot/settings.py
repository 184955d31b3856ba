"""Per-server settings: documented defaults, validation, and a small read-through cache."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from db.store import Store

MIN_TURN_SECONDS = 30
MAX_TURN_SECONDS = 24 * 60 * 60


@dataclass(frozen=True)
class GuildSettings:
    """What a server can change. Every field has the default a new server gets."""

    turn_seconds: int = 300
    open_games_per_channel: int = 1
    hints: bool = True
    game_channels: tuple[int, ...] = ()
    easy_letters: bool = False
    word_list: str = "full"
    turnover_words: str = "challenge"
    hotscore_floor: bool = True

    def validated(self) -> GuildSettings:
        """Self, or ValueError with a sentence an admin can act on."""
        if not MIN_TURN_SECONDS <= self.turn_seconds <= MAX_TURN_SECONDS:
            raise ValueError("The turn deadline must be between 30 seconds and 24 hours.")
        if not 1 <= self.open_games_per_channel <= 25:
            raise ValueError("Open games per channel must be between 1 and 25.")
        if self.word_list not in ("full", "family"):
            raise ValueError("The word list is either 'full' or 'family'.")
        if self.turnover_words not in ("challenge", "checked"):
            raise ValueError("Apple Turnover words are either 'challenge' or 'checked'.")
        return self


def from_json(data: dict[str, Any]) -> GuildSettings:
    known = {f.name for f in fields(GuildSettings)}
    values = {k: v for k, v in data.items() if k in known}
    if "game_channels" in values:
        values["game_channels"] = tuple(values["game_channels"])
    return GuildSettings(**values)


class Settings:
    """Reads settings through a cache: a move needs the deadline, and must not pay a query."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._cache: dict[int, GuildSettings] = {}

    async def get(self, guild_id: int) -> GuildSettings:
        if guild_id not in self._cache:
            self._cache[guild_id] = from_json(await self.store.guild_settings(guild_id))
        return self._cache[guild_id]

    async def update(self, guild_id: int, **changes: Any) -> GuildSettings:
        new = replace(await self.get(guild_id), **changes).validated()
        data = asdict(new)
        data["game_channels"] = list(new.game_channels)
        await self.store.set_guild_settings(guild_id, data)
        self._cache[guild_id] = new
        return new

    async def turn_seconds(self, guild_id: int) -> int:
        return (await self.get(guild_id)).turn_seconds
