"""A bounded map of what was used most recently: the memory a process keeps of what it wrote.

The runner keeps each game as it last committed it, so a move on SQLite reads nothing first;
the settings keep each person's choice of turn pings, the store each leaderboard until results
change. All are kept for good only on a store this process alone writes (a SQLite file):
there, what it wrote last is what is stored, while on a store several processes share another
one may have written since (leaderboards are kept there a few seconds). The least recently used
entry goes once there are ``size``: a few hundred games are played at once, not millions.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    """At most ``size`` entries; keeping or reading one makes it the most recent."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: dict[K, V] = {}  # least recent first: a dict keeps insertion order

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: K) -> bool:
        return key in self._entries

    def get(self, key: K) -> V:
        """The entry (KeyError if there is none), now the most recent."""
        value = self._entries.pop(key)
        self._entries[key] = value
        return value

    def take(self, key: K) -> V | None:
        """The entry, taken out (None if there is none)."""
        return self._entries.pop(key, None)

    def keep(self, key: K, value: V) -> None:
        """Keep ``value`` as the most recent; the least recent goes if there are too many."""
        self._entries.pop(key, None)
        self._entries[key] = value
        if len(self._entries) > self.size:
            del self._entries[next(iter(self._entries))]

    def clear(self) -> None:
        self._entries.clear()
