"""``orchard health``: is the running bot alive? Exit 0, or 1 with one line saying why.

Docker's HEALTHCHECK runs it beside the bot, so it asks nothing of Discord: the running bot
records its gateway heartbeat as a row of the store's ``meta`` table (key ``HEARTBEAT``, a
Unix time), rewritten every ``BEAT_EVERY`` seconds while it is connected. The store rather
than a file beside it, because one read then answers both questions (does the database
answer, is the gateway alive), and because the write queues behind every other write on the
store's lock: a bot whose store is stuck stops beating too.

The same record tells a start whether the last run crashed (:func:`after_a_crash`): a
start and an orderly stop note themselves beside it, and a run alive after its last stop's
note crashed.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import sys
import time
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from bot.shards import ShardPlan, ranges_text
from db.connection import Target, is_url
from db.migrate import NewerSchema

if TYPE_CHECKING:
    from bot.app import OrchardBot

log = logging.getLogger(__name__)

HEARTBEAT = "gateway_heartbeat"
BEAT_EVERY = 15.0  # seconds between records
# Four missed records. discord.py itself closes a gateway that stayed silent for 60 s and
# reconnects, so an open connection has heard from Discord within about a minute.
STALE_AFTER = 60.0
HEARTBEAT_SQL = "SELECT value FROM meta WHERE key = ?"
SCHEMA_EVERY = 5.0  # seconds between looks at the store's schema (a read of one key)
# How far behind its game a board's drawing may have been when the bot crashed: one held up
# longer (Discord down for over a minute) waits for its game's next click instead.
DRAW_LAG = 60.0


def connected(bot: OrchardBot) -> bool:
    """Ready, and every shard's gateway connection open."""
    shards = bot.shards.values()
    return bot.is_ready() and bool(shards) and not any(s.is_closed() for s in shards)


def heartbeat_key(shards: ShardPlan) -> str:
    """Each process running some shards beats under a key of its own: otherwise a live
    process's beat would hide a dead one's from its health check."""
    if shards.ids is None or shards.count is None:
        return HEARTBEAT
    return f"{HEARTBEAT}:{ranges_text(shards.ids)}/{shards.count}"


def stop_key(heartbeat: str) -> str:
    """Where an orderly stop of the process beating under ``heartbeat`` notes its time."""
    return f"{heartbeat}:stopped"


def start_key(heartbeat: str) -> str:
    """Where a start of that process notes its time: a crash before its first beat shows."""
    return f"{heartbeat}:started"


async def after_a_crash(bot: OrchardBot) -> None:
    """Before the bot connects: if the last run of these shards was alive (it started, or
    beat) after its last orderly stop, it crashed, and boards it had not yet drawn stay a
    version behind their games, with no stop to queue them
    (:meth:`bot.orchard.Orchard.stop`). The boards of every game changed since
    :data:`DRAW_LAG` before it was last known alive are queued to be drawn anew. Then this
    run's start is noted, and its orderly stop will be: only once the look is done, so a
    stop meanwhile (a SIGTERM while starting) or a failed look leaves the crash for the
    next start to find."""
    store = bot.orchard.store
    key = heartbeat_key(bot.config.shards)
    try:
        known = [await store.get_meta(k) for k in (key, start_key(key), stop_key(key))]
        beat, started, stopped = (None if v is None else float(v) for v in known)
        alive = max((t for t in (beat, started) if t is not None), default=None)
        if alive is not None and (stopped is None or stopped < alive):
            queued = await store.queue_changed_since(alive - DRAW_LAG)
            log.info("the last run stopped without closing: %d boards to draw anew", queued)
        await store.set_meta(start_key(key), f"{time.time():.3f}")
    except Exception:  # those boards wait for their next click, or the next start's look
        log.warning("could not look for boards a crash left undrawn", exc_info=True)
        return
    bot.orchard.on_stopped.append(lambda: _note_stop(bot, key))


async def _note_stop(bot: OrchardBot, key: str) -> None:
    try:
        await bot.orchard.store.set_meta(stop_key(key), f"{time.time():.3f}")
    except Exception:  # the next start takes it for a crash: some boards drawn twice
        log.warning("could not note the orderly stop", exc_info=True)


async def record_heartbeats(bot: OrchardBot, every: float = BEAT_EVERY) -> None:
    """Record the time in the store while the gateway is connected, from ready until cancelled."""
    await bot.wait_until_ready()
    key = heartbeat_key(bot.config.shards)
    while not bot.is_closed():
        if connected(bot):
            try:
                await bot.orchard.store.set_meta(key, f"{time.time():.3f}")
            except Exception:  # the record goes stale, and health says so
                log.warning("could not record the gateway heartbeat", exc_info=True)
        await asyncio.sleep(every)


async def newer_schema(bot: OrchardBot, every: float = SCHEMA_EVERY) -> NewerSchema:
    """Return once another process has migrated the store past what this code knows: a newer
    Orchard started on the same database (an upgrade), whose rows this one would write without
    what the newer keeps in them. The caller stops this bot; a failed read is retried."""
    await bot.wait_until_ready()
    while True:
        try:
            await bot.orchard.store.check_schema()
        except NewerSchema as err:
            return err
        except Exception:
            log.warning("could not read the database's schema version", exc_info=True)
        await asyncio.sleep(every)


def problem(db: Target, now: float | None = None, key: str = HEARTBEAT) -> tuple[str | None, float]:
    """What is wrong (None if nothing) and the age in seconds of the heartbeat under ``key``."""
    if is_url(db):
        try:
            row = asyncio.run(_server_heartbeat(str(db), key))
        except Exception as err:  # asyncpg's errors and OSError alike: it does not answer
            if type(err).__name__ == "UndefinedTableError":
                return (
                    "no Orchard tables there: has Orchard ever started with this ORCHARD_DB?",
                    0.0,
                )
            return f"the PostgreSQL database does not answer: {err}", 0.0
    else:
        path = Path(db)
        if not path.is_file():
            return f"no database at {db}: has Orchard ever started with this ORCHARD_DB?", 0.0
        try:
            uri = f"{path.resolve().as_uri()}?mode=ro"  # read only: never creates a database
            with closing(sqlite3.connect(uri, uri=True, timeout=5.0)) as conn:
                row = conn.execute(HEARTBEAT_SQL, (key,)).fetchone()
        except sqlite3.Error as err:
            return f"the database at {db} does not answer: {err}", 0.0
    if row is None:
        return "no gateway heartbeat recorded: the bot has not connected to Discord yet", 0.0
    age = (time.time() if now is None else now) - float(row[0])
    if age > STALE_AFTER:
        return f"the last gateway heartbeat was {age:.0f} s ago (more than {STALE_AFTER:.0f})", age
    return None, age


async def _server_heartbeat(url: str, key: str) -> tuple[str] | None:
    """The heartbeat row on PostgreSQL, over one short-lived connection (no pool, no migration:
    a health check changes nothing)."""
    import asyncpg

    from db.postgres import numbered

    conn = await asyncpg.connect(url, timeout=5.0)
    try:
        row = await conn.fetchrow(numbered(HEARTBEAT_SQL), key, timeout=5.0)
    finally:
        await conn.close()
    return None if row is None else (str(row[0]),)


def main(db: Target, shards: ShardPlan | None = None) -> int:
    """The ``orchard health`` command: 0 when healthy, else 1 and one line on stderr. With
    ``shards``, the heartbeat of the process running them."""
    wrong, age = problem(db, key=heartbeat_key(shards or ShardPlan()))
    if wrong is not None:
        print(f"unhealthy: {wrong}", file=sys.stderr)
        return 1
    print(f"healthy: gateway heartbeat {age:.0f} s ago")
    return 0
