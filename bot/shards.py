"""Which of the bot's gateway shards this process runs: ``ORCHARD_SHARDS`` and
``ORCHARD_SHARD_COUNT``, validated once at start-up.

Discord routes a server's events to shard ``(guild_id >> 22) % shard_count``; every process
must agree on ``shard_count``, and together they must run each shard exactly once. Unset,
discord.py asks Discord how many shards it needs and runs them all in this one process.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_SHARDS = 100_000  # far beyond any bot; catches a typo before Discord does


class ShardError(ValueError):
    """A shard setting that cannot be right; the message says which and how to fix it."""


@dataclass(frozen=True)
class ShardPlan:
    """The shards this process runs out of ``count`` (None, None: all, as Discord advises)."""

    ids: tuple[int, ...] | None = None
    count: int | None = None

    @property
    def partial(self) -> bool:
        """Other processes must run the remaining shards."""
        return self.ids is not None and self.count is not None and len(self.ids) < self.count

    @property
    def share(self) -> float:
        """This process's part of the whole bot: its shards over all. Discord's global limit
        is the bot's, whichever process sends (see :func:`bot.pacing.Pacer.shared`)."""
        if self.ids is None or self.count is None:
            return 1.0
        return len(self.ids) / self.count

    def describe(self) -> str:
        if self.count is None:
            return "every shard Discord advises"
        if self.ids is None:
            return f"all {self.count} shards"
        return f"shards {ranges_text(self.ids)} of {self.count}"


def parse_plan(shards: str, count: str) -> ShardPlan:
    """``ORCHARD_SHARDS`` (``0-7``, ``3``, ``0-3,8-11``) and ``ORCHARD_SHARD_COUNT`` (``32``)."""
    shards, count = shards.strip(), count.strip()
    if not shards and not count:
        return ShardPlan()
    if not count:
        raise ShardError(
            f"ORCHARD_SHARDS={shards} needs ORCHARD_SHARD_COUNT, the number of shards all of "
            "Orchard's processes run together (the same in every process)."
        )
    total = _count(count)
    if not shards:
        return ShardPlan(None, total)
    ids = _ids(shards, total)
    return ShardPlan(None if len(ids) == total else ids, total)


def _count(raw: str) -> int:
    if not raw.isdigit() or not 0 < int(raw) <= MAX_SHARDS:
        raise ShardError(
            f"ORCHARD_SHARD_COUNT must be a whole number from 1 to {MAX_SHARDS} (got {raw!r})."
        )
    return int(raw)


def _ids(raw: str, count: int) -> tuple[int, ...]:
    ids: list[int] = []
    for part in raw.split(","):
        first, dash, last = part.strip().partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise ShardError(
                f"ORCHARD_SHARDS must list shard numbers and ranges such as 0-7 or 0,2,4-5 "
                f"(got {raw!r})."
            )
        low, high = int(first), int(last) if dash else int(first)
        if low > high:
            raise ShardError(f"ORCHARD_SHARDS: the range {part.strip()} runs backwards.")
        if high >= count:
            raise ShardError(
                f"ORCHARD_SHARDS: shard {high} does not exist with ORCHARD_SHARD_COUNT={count} "
                f"(shards are numbered 0 to {count - 1})."
            )
        ids.extend(range(low, high + 1))
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise ShardError(f"ORCHARD_SHARDS lists shard {ranges_text(tuple(twice))} twice.")
    return tuple(sorted(ids))


def ranges_text(ids: tuple[int, ...]) -> str:
    """``0-3,8`` for shards 0, 1, 2, 3 and 8."""
    runs: list[list[int]] = []
    for i in sorted(ids):
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def single_process_refusal(plan: ShardPlan, db: str) -> str:
    """Why this plan cannot run on the SQLite file ``db`` (SQLite is one process on one
    machine: other processes running the other shards could not share it)."""
    assert plan.ids is not None and plan.count is not None
    rest = tuple(i for i in range(plan.count) if i not in plan.ids)
    return (
        f"ORCHARD_SHARDS={ranges_text(plan.ids)} of ORCHARD_SHARD_COUNT={plan.count} leaves "
        f"shards {ranges_text(rest)} to other processes, but ORCHARD_DB ({db}) is a SQLite "
        "file, which only one process on one machine can use. Set ORCHARD_DB to a "
        "postgresql:// URL shared by every process, or unset ORCHARD_SHARDS to run every "
        "shard in this one process."
    )
