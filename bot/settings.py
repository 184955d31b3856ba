"""Per-server settings: documented defaults, validation, and a small read-through cache; and
each person's own choice of turn pings by DM, which is theirs, not the server's."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from bot.recent import Recent
from db.store import Store

REMEMBERED_CHOICES = 10_000  # people's choices of turn pings, most recently read or set
MIN_TURN_SECONDS = 30
MAX_TURN_SECONDS = 24 * 60 * 60
TURN_PINGS = ("channel", "dm", "off")
SHARED_KEPT_SECONDS = 5.0
"""How long a server's settings read from a shared store are used before they are read again.
Another process may change them (/settings reaches the process of the server's shard, while
any process fires deadlines and Orchard's moves), so a change is in force everywhere within
this long; reading them on every move would cost each move one more round trip."""


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
    turn_pings: str = "channel"  # where a player is told it is their turn (TURN_PINGS)

    def validated(self) -> GuildSettings:
        """Self, or ValueError with a sentence an admin can act on."""
        if not MIN_TURN_SECONDS <= self.turn_seconds <= MAX_TURN_SECONDS:
            raise ValueError("The turn deadline must be between 30 seconds and 24 hours.")
        if not 1 <= self.open_games_per_channel <= 25:
            raise ValueError("Open games of one kind per channel must be between 1 and 25.")
        if self.word_list not in ("full", "family"):
            raise ValueError("The word list is either 'full' or 'family'.")
        if self.turnover_words not in ("challenge", "checked"):
            raise ValueError("Apple Turnover words are either 'challenge' or 'checked'.")
        if self.turn_pings not in TURN_PINGS:
            raise ValueError("Turn pings go to the 'channel', by 'dm', or are 'off'.")
        return self


def to_json(settings: GuildSettings) -> dict[str, Any]:
    data = asdict(settings)
    data["game_channels"] = list(settings.game_channels)
    return data


def from_json(data: dict[str, Any]) -> GuildSettings:
    known = {f.name for f in fields(GuildSettings)}
    values = {k: v for k, v in data.items() if k in known}
    if "game_channels" in values:
        values["game_channels"] = tuple(values["game_channels"])
    return GuildSettings(**values)


class Settings:
    """Reads settings through a cache: a move needs the deadline, and must not pay a query.
    On a store only this process writes they are read once (its own changes keep them
    right); on a shared one they are read again once :data:`SHARED_KEPT_SECONDS` old."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self._kept: dict[int, tuple[float, GuildSettings]] = {}  # when read, and what
        self._changed = 0  # counts updates: a read begun before one is old
        # Kept only on a store this process alone writes (see bot.recent); on a shared one,
        # another process may have set or erased a choice since.
        self._choices: Recent[tuple[int, int], bool | None] = Recent(REMEMBERED_CHOICES)
        self._choices_changed = 0  # counts sets and erasures: a read begun before one is old

    async def get(self, guild_id: int) -> GuildSettings:
        now = self.clock()
        kept = self._fresh(guild_id, now)
        return kept if kept is not None else await self._read(guild_id, now)

    async def get_many(self, guild_ids: Iterable[int]) -> dict[int, GuildSettings]:
        """Many servers' settings, those not kept read in one query: a shard's servers all
        arrive at start-up, and one read each would be a query per server before play."""
        now, ids = self.clock(), list(dict.fromkeys(guild_ids))
        found: dict[int, GuildSettings] = {}
        for guild_id in ids:
            if (kept := self._fresh(guild_id, now)) is not None:
                found[guild_id] = kept
        missing = [g for g in ids if g not in found]
        if not missing:
            return found
        changed = self._changed
        stored = await self.store.guilds_settings(missing)
        for guild_id in missing:
            found[guild_id] = from_json(stored.get(guild_id, {}))
            if changed == self._changed:  # as in _read: an update ran meanwhile
                self._kept[guild_id] = (now, found[guild_id])
        return found

    def _fresh(self, guild_id: int, now: float) -> GuildSettings | None:
        """The kept settings, if still good to use at ``now``."""
        kept = self._kept.get(guild_id)
        if kept is not None and (
            not self.store.shared or kept[0] <= now < kept[0] + SHARED_KEPT_SECONDS
        ):  # a clock set back reads them again too
            return kept[1]
        return None

    async def _read(self, guild_id: int, now: float) -> GuildSettings:
        """The stored settings, kept unless an update ran while they were read."""
        changed = self._changed
        found = from_json(await self.store.guild_settings(guild_id))
        if changed == self._changed:
            self._kept[guild_id] = (now, found)
        return found

    async def update(
        self,
        guild_id: int,
        *,
        add_channels: Iterable[int] = (),
        remove_channels: Iterable[int] = (),
        **changes: Any,
    ) -> GuildSettings:
        """Change some settings (and add or remove game channels) and keep the rest as
        stored: applied to the settings as read in the writing transaction, so a change made
        meanwhile, in this process or another, is never written back over. Invalid
        settings, or removing a channel that is not a game channel, raise ValueError and
        write nothing."""
        added, removed = set(add_channels), set(remove_channels)

        def merged(stored: dict[str, Any]) -> dict[str, Any]:
            new = replace(from_json(stored), **changes)
            unlisted = sorted(removed - set(new.game_channels))
            if unlisted:  # a wrong channel picked: "Saved." would say it was done
                raise ValueError(f"<#{unlisted[0]}> is not a game channel: nothing changed.")
            channels = (set(new.game_channels) | added) - removed
            new = replace(new, game_channels=tuple(sorted(channels)))
            return to_json(new.validated())

        self._kept.pop(guild_id, None)  # if the write fails, whether it landed is unknown
        try:
            new = from_json(await self.store.update_guild_settings(guild_id, merged))
        finally:
            self._changed += 1
        self._kept[guild_id] = (self.clock(), new)
        return new

    async def turn_seconds(self, guild_id: int) -> int:
        return (await self.get(guild_id)).turn_seconds

    async def ping_choice(self, guild_id: int, user_id: int) -> bool | None:
        """A person's own choice of turn pings by DM here (None: the server's way): read once
        per person, not on every turn change, on a store only this process writes."""
        key = (guild_id, user_id)
        if key in self._choices:
            return self._choices.get(key)
        changed = self._choices_changed
        choice = await self.store.ping_choice(guild_id, user_id)
        if not self.store.shared and changed == self._choices_changed:
            self._choices.keep(key, choice)
        return choice

    async def set_ping_choice(self, guild_id: int, user_id: int, dm: bool) -> None:
        try:
            await self.store.set_ping_choice(guild_id, user_id, dm)
        finally:
            self.forget_choices()

    def forget(self) -> None:
        """Rows were erased behind this cache (a departed server purged): settings and
        choices are read afresh, so a server that comes back starts from the defaults."""
        self._changed += 1
        self._kept.clear()
        self.forget_choices()

    def forget_choices(self) -> None:
        """Choices were set or erased in the store (/pings, /forget-me, a purge): each is read
        afresh, and a read begun before is not kept."""
        self._choices_changed += 1
        self._choices.clear()

    async def ping_mode(self, guild_id: int, user_id: int) -> str:
        """Where this person's turn pings go here: the server's mode, unless they chose (a
        server that turned pings off sends none)."""
        server = (await self.get(guild_id)).turn_pings
        choice = await self.ping_choice(guild_id, user_id)
        if server == "off" or choice is None:
            return server
        return "dm" if choice else "channel"
