"""Games and moves: ``games``, their seats (``game_players``), the move log (``moves``),
Appletters' tile-DM notes (``tile_dms``) and each game's turn pings (``turn_pings``: seats and a
message id, no person): everything a restart needs to resume play.

/forget-me (:func:`forget`), in the server's games that are over (finished, abandoned,
cancelled): the person's seats keep their place but become a nameless "Former player" with no
user id, their moves and the games they hosted lose their id, and their tile-DM notes are
deleted. Open games (lobby, active) are left as they are: the caller ends the person's part in
them first (the runner forfeits them). Engine states, options and turn pings hold seats, never
names or ids. Used in a direct message, /forget-me does so in every server where the person
has a seat (:data:`PERSON_SERVERS`). The boards of those games still posted wait in
``boards_to_draw`` (game ids only) until drawn anew without them, as do boards a stop left a
version behind (:func:`queue_boards`). The purge of a departed
server (:func:`purge`) deletes its games, and with them (cascade) their seats, moves, tile-DM
notes, turn pings and boards waiting to be drawn anew.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import orjson

from bot.games.base import daily_day
from bot.model import (
    FORMER_PLAYER,
    KEEP,
    NOBODY,
    Due,
    GameChange,
    GameRow,
    GameStatus,
    GameSummary,
    Move,
    MoveSource,
    Player,
    TurnPing,
)
from db.connection import Database, Dialect, Reader, Transaction

STATE_FORMAT = 1
OPEN = "status IN ('lobby', 'active')"
ID_FLOOR = "games_id_floor"
"""The meta key of the largest game id a purge deleted. A new game's id is past it: an old
board's Review or Rematch button, still in a channel of a server that came back after its
purge, must never name a new game (SQLite hands out one past the largest id left; PostgreSQL's
sequence never goes back, and :mod:`db.transfer` starts it past this too)."""
_FLOOR_VALUE = f"(SELECT CAST(value AS BIGINT) FROM meta WHERE key = '{ID_FLOOR}')"
_NEXT_ID = {
    Dialect.SQLITE: (
        f"MAX(COALESCE((SELECT MAX(id) FROM games), 0), COALESCE({_FLOOR_VALUE}, 0)) + 1"
    ),
    Dialect.POSTGRES: "DEFAULT",
}
_GREATEST = {  # the floor kept and the one just met, the larger
    Dialect.SQLITE: "MAX(CAST(meta.value AS INTEGER), CAST(excluded.value AS INTEGER))",
    Dialect.POSTGRES: "GREATEST(CAST(meta.value AS BIGINT), CAST(excluded.value AS BIGINT))",
}
OPEN_GAME = f"SELECT 1 FROM games WHERE id = ? AND {OPEN}"

_COLUMNS = (
    "id, kind, variant, guild_id, channel_id, message_id, host_id, status, seed, options,"
    " state, version, deadline, created_at, updated_at, hinted, revision, expired,"
    " host_left"
)
_COLUMNS_OF_G = ", ".join(f"g.{c.strip()}" for c in _COLUMNS.split(","))
_WIDTH = len(_COLUMNS.split(","))
_SUMMARY = "id, kind, status, guild_id, channel_id, message_id, host_id, version"


# Reads.


_LEFT = (
    "EXISTS (SELECT 1 FROM moves m WHERE m.game_id = p.game_id AND m.seat = p.seat"
    f" AND m.source = '{MoveSource.FORFEIT.value}')"
)
"""Whether seat ``p`` has left its game: a forfeit is logged for every seat that leaves
(given up, timed out too often, /forget-me), and only so; an index holds just those moves."""

_WITH_SEATS = (
    f"SELECT {_COLUMNS_OF_G}, p.seat, p.user_id, p.name, p.is_bot, p.timeouts,"
    " p.level FROM games g LEFT JOIN game_players p ON p.game_id = g.id"
)


def _seated(rows: Sequence[Sequence[Any]]) -> GameRow:
    """One game from its rows of :data:`_WITH_SEATS` (a row per seat, or one with none)."""
    players = tuple(_player(r[_WIDTH:]) for r in rows if r[_WIDTH] is not None)
    return _game(rows[0][:_WIDTH], players)


async def get_game(db: Reader, game_id: int) -> GameRow | None:
    """A game and its seats in one query: every move starts with this read."""
    rows = await db.lookup(f"{_WITH_SEATS} WHERE g.id = ? ORDER BY p.seat", (game_id,))
    return _seated(rows) if rows else None


async def revision(db: Reader, game_id: int) -> int | None:
    """A game's stored revision alone (None if it is gone): whether a board is still news."""
    rows = await db.lookup("SELECT revision FROM games WHERE id = ?", (game_id,))
    return int(rows[0][0]) if rows else None


async def open_among(db: Database, game_ids: Sequence[int]) -> set[int]:
    """Which of these games are open (lobby or active), by key."""
    if not game_ids:
        return set()
    marks = ", ".join("?" * len(game_ids))
    rows = await db.fetchall(
        f"SELECT id FROM games WHERE id IN ({marks}) AND {OPEN}", tuple(game_ids)
    )
    return {int(row[0]) for row in rows}


async def get_games(db: Database, game_ids: Sequence[int]) -> list[GameRow]:
    """Many games and their seats in one query (those that exist), in id order."""
    if not game_ids:
        return []
    marks = ", ".join("?" * len(game_ids))
    rows = await db.fetchall(
        f"{_WITH_SEATS} WHERE g.id IN ({marks}) ORDER BY g.id, p.seat", tuple(game_ids)
    )
    return [_seated(list(group)) for _, group in itertools.groupby(rows, key=lambda r: r[0])]


async def open_games(
    db: Database, guild_id: int | None, channel_id: int | None, kind: str | None
) -> list[GameSummary]:
    """Lobbies and games in play, optionally narrowed to a server, channel and game: two
    indexed reads, and no state decoded. A channel's are a few rows (its limit of open games
    a kind), read inline (:meth:`Reader.lookup`): opening a lobby checks them twice, and a trip
    to a reader's thread waits twice on a busy loop. A server's may be thousands: a reader's."""
    where = OPEN
    params: list[Any] = []
    for column, value in (("guild_id", guild_id), ("channel_id", channel_id), ("kind", kind)):
        if value is not None:
            where += f" AND {column} = ?"
            params.append(value)
    read = db.fetchall if channel_id is None else db.lookup
    rows = await read(f"SELECT {_SUMMARY} FROM games WHERE {where} ORDER BY id", params)
    seats: dict[int, list[Player]] = {}
    left: dict[int, set[int]] = {}
    for r in await read(  # every seat in one query, with whether it left (its forfeit logged)
        f"SELECT game_id, seat, user_id, name, is_bot, timeouts, level, {_LEFT} FROM"
        f" game_players p WHERE game_id IN (SELECT id FROM games WHERE {where})"
        " ORDER BY game_id, seat",
        params,
    ):
        seats.setdefault(r[0], []).append(_player(r[1:7]))
        if r[7]:
            left.setdefault(r[0], set()).add(r[1])
    return [_summary(r, tuple(seats.get(r[0], ())), frozenset(left.get(r[0], ()))) for r in rows]


async def games_waiting_on_bots(db: Database) -> list[int]:
    """Games in play with an Orchard seat: the ones Orchard must pick up after a restart."""
    rows = await db.fetchall(
        f"SELECT id FROM games WHERE {OPEN} AND status = 'active' AND EXISTS"
        " (SELECT 1 FROM game_players p WHERE p.game_id = games.id AND p.is_bot = 1)"
        " ORDER BY id"
    )
    return [r[0] for r in rows]


async def moves(db: Reader, game_id: int) -> list[Move]:
    rows = await db.fetchall(
        "SELECT seat, verb, arg, user_id, source FROM moves WHERE game_id = ? ORDER BY seq",
        (game_id,),
    )
    return [Move(r[0], r[1], r[2], r[3], MoveSource(r[4])) for r in rows]


async def next_due(db: Database, due: Due) -> float | None:
    """The soonest time of ``due`` among open games (Due names a column: never user input)."""
    column = Due(due).value
    rows = await db.fetchall(
        f"SELECT MIN({column}) FROM games WHERE {column} IS NOT NULL AND {OPEN}"
    )
    return float(rows[0][0]) if rows and rows[0][0] is not None else None


async def due_games(db: Database, now: float) -> list[int]:
    rows = await db.fetchall(
        f"SELECT id FROM games WHERE deadline IS NOT NULL AND deadline <= ? AND {OPEN}"
        " ORDER BY deadline",
        (now,),
    )
    return [int(r[0]) for r in rows]


async def tile_dms(db: Database, game_id: int) -> dict[int, tuple[str, bool]]:
    """Per player of a game: the hand last sent by DM, and whether their DMs are closed."""
    rows = await db.fetchall(
        "SELECT user_id, hand, closed FROM tile_dms WHERE game_id = ?", (game_id,)
    )
    return {r[0]: (r[1], bool(r[2])) for r in rows}


async def turn_ping(db: Database, game_id: int) -> TurnPing | None:
    rows = await db.lookup(
        "SELECT version, awaited, message_id, mentioned FROM turn_pings WHERE game_id = ?",
        (game_id,),
    )
    if not rows:
        return None
    version, awaited, message_id, mentioned = rows[0]
    return TurnPing(game_id, version, _seats(awaited), message_id, _seats(mentioned))


async def turn_pings_behind(db: Database) -> list[tuple[int, bool]]:
    """Games whose turn pings fell behind (a restart catches up), each with whether it has a
    record: moved on since, or over; or in play and never pinged, as its first ping makes
    the record (daily games, never pinged, left out). It reads every row of both tables in
    play, once at start-up."""
    rows = await db.fetchall(
        "SELECT t.game_id, NULL FROM turn_pings t JOIN games g ON g.id = t.game_id"
        " WHERE g.status <> 'active' OR g.version > t.version"
        " UNION ALL SELECT g.id, g.options FROM games g WHERE g.status = 'active'"
        " AND NOT EXISTS (SELECT 1 FROM turn_pings t WHERE t.game_id = g.id)"
    )
    behind = [
        (int(game_id), options is None)
        for game_id, options in rows
        if options is None or daily_day(json.loads(options)) is None
    ]
    return sorted(behind)


# Writes, inside the caller's transaction.


async def create_game(
    tx: Transaction,
    kind: str,
    variant: str,
    guild_id: int,
    channel_id: int,
    host: Player,
    seed: int,
    options: dict[str, Any],
    deadline: float | None,
    now: float,
) -> int:
    """A new lobby with its host in seat 0; returns its id: never one a purged game had
    (SQLite's own choice, one past the largest id left, would be: see :data:`ID_FLOOR`)."""
    game_id = await tx.insert(
        "INSERT INTO games (id, kind, variant, guild_id, channel_id, host_id, status, seed,"
        " options, deadline, created_at, updated_at)"
        f" VALUES ({_NEXT_ID[tx.dialect]}, ?, ?, ?, ?, ?, 'lobby', ?, ?, ?, ?, ?) RETURNING id",
        (
            kind,
            variant,
            guild_id,
            channel_id,
            host.user_id,
            seed,
            json.dumps(options),
            deadline,
            now,
            now,
        ),
    )
    await _insert_player(tx, game_id, host)
    return game_id


async def write(tx: Transaction, change: GameChange, now: float) -> bool:
    """The game row, its seats and its move log as ``change`` says; False if a guard failed."""
    columns = _columns(change, now)
    where, guards = _guards(change)
    updated = await tx.execute(
        _update(tuple(columns), change.revise, where), (*columns.values(), *guards)
    )
    if updated != 1:
        return False
    if change.players is not None:
        await _replace_seats(tx, change.game_id, change.players)
    if change.timeouts:
        await tx.executemany(
            "UPDATE game_players SET timeouts = ? WHERE game_id = ? AND seat = ?",
            [(count, change.game_id, seat) for seat, count in change.timeouts.items()],
        )
    if change.moves:
        await tx.executemany(_INSERT_MOVE, _move_rows(change, now))
    if change.forgotten is not None:
        await _forget_in(tx, "?", (change.game_id,), change.forgotten)
    return True


async def write_many(tx: Transaction, changes: Sequence[GameChange], now: float) -> bool:
    """Many changes in few statements: those setting the same columns under the same guards
    share one ``executemany``. False if any guard failed (the caller rolls back)."""
    if any(c.players is not None or c.forgotten is not None for c in changes):
        return all([await write(tx, change, now) for change in changes])
    groups: dict[tuple[tuple[str, ...], bool, str], list[tuple[Any, ...]]] = {}
    for change in changes:
        columns = _columns(change, now)
        where, guards = _guards(change)
        key = (tuple(columns), change.revise, where)
        groups.setdefault(key, []).append((*columns.values(), *guards))
    for (names, revise, where), values in groups.items():
        updated = await tx.executemany(_update(names, revise, where), values)
        if updated != len(values):
            return False
    await tx.executemany(
        "UPDATE game_players SET timeouts = ? WHERE game_id = ? AND seat = ?",
        [(n, c.game_id, seat) for c in changes for seat, n in c.timeouts.items()],
    )
    await tx.executemany(
        _INSERT_MOVE, [row for c in changes if c.moves for row in _move_rows(c, now)]
    )
    return True


def _update(names: Sequence[str], revise: bool, where: str) -> str:
    """The UPDATE of a game row setting ``names`` where ``where`` holds; a change a board
    draws counts the revision up in the same statement (a move stays one write)."""
    sets = [f"{c} = ?" for c in names] + (["revision = revision + 1"] if revise else [])
    return f"UPDATE games SET {', '.join(sets)} WHERE {where}"


def _columns(change: GameChange, now: float) -> dict[str, Any]:
    """The games columns ``change`` sets, with their values. A status its guard already holds
    (a move in play) is left out: SQLite then leaves the three indexes on status untouched."""
    columns: dict[str, Any] = {"updated_at": now}
    if change.status is not None and change.status != change.from_status:
        columns["status"] = change.status
    if change.state is not None:
        columns["state"] = _state_json(change.state)
    if change.version is not None:
        columns["version"] = change.version
    if change.deadline is not KEEP:
        columns["deadline"] = change.deadline
    if change.orchard_since is not KEEP:
        columns["orchard_since"] = change.orchard_since
    if change.hinted:
        columns["hinted"] = 1
    if change.expired:
        columns["expired"] = 1
    if change.host_left:
        columns["host_left"] = 1
    if change.message_id is not None:
        columns["message_id"] = change.message_id
    return columns


def _guards(change: GameChange) -> tuple[str, list[Any]]:
    """The WHERE clause that finds the row only while the guards hold, and its values."""
    where = "id = ?"
    values: list[Any] = [change.game_id]
    if change.from_status is not None:
        where += " AND status = ?"
        values.append(change.from_status)
    if change.expected_version is not None:
        where += " AND version = ?"
        values.append(change.expected_version)
    return where, values


async def _replace_seats(tx: Transaction, game_id: int, players: Sequence[Player]) -> None:
    """A lobby's seats after a join, leave or added Orchard: in order, nobody timed out."""
    await tx.execute("DELETE FROM game_players WHERE game_id = ?", (game_id,))
    for seat, player in enumerate(players):
        await _insert_player(tx, game_id, replace(player, seat=seat, timeouts=0))


async def _insert_player(tx: Transaction, game_id: int, player: Player) -> None:
    await tx.execute(
        "INSERT INTO game_players (game_id, seat, user_id, name, is_bot, level)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (game_id, player.seat, player.user_id, player.name, int(player.is_bot), player.level),
    )


_INSERT_MOVE = (
    "INSERT INTO moves (game_id, seq, seat, user_id, verb, arg, source, created_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


def _move_rows(change: GameChange, now: float) -> list[tuple[Any, ...]]:
    """The move log rows of ``change``, numbered on from its expected version."""
    assert change.expected_version is not None  # GameChange checks it
    after = change.expected_version
    return [
        (change.game_id, after + i + 1, m.seat, m.user_id, m.verb, m.arg, m.source, now)
        for i, m in enumerate(change.moves)
    ]


async def note_tile_dm(
    tx: Transaction, game_id: int, user_id: int, hand: str, closed: bool
) -> None:
    await tx.execute(
        "INSERT INTO tile_dms (game_id, user_id, hand, closed) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (game_id, user_id) DO UPDATE SET hand = excluded.hand,"
        " closed = excluded.closed",
        (game_id, user_id, hand, int(closed)),
    )


async def forget_tile_dms(tx: Transaction, game_id: int) -> None:
    await tx.execute("DELETE FROM tile_dms WHERE game_id = ?", (game_id,))


async def set_turn_ping(tx: Transaction, ping: TurnPing) -> tuple[bool, int | None]:
    """Record where the game's pings stand, unless the record is already of a newer version:
    processes committing consecutive versions of a game each handle their own, and the older
    handler may finish last. Returns whether it was written and, on PostgreSQL, the message
    the record it replaced held: another process may have written that record after the
    caller read the one it meant to replace, and its message (for a turn over) is then the
    caller's to delete. The record is read and written under its row lock (``FOR UPDATE``),
    so no write comes in between; with no row to lock, a concurrent first insert makes this
    one's do nothing, and the row it committed is locked instead.

    On PostgreSQL a game over refuses the write too: the handler of the version that ended it
    may have dropped its record already, and this one's message would then be in no record.
    The caller holds the game's lock, so a move ending it commits either before this read or
    after this write (and its handler's drop then finds the record).

    On SQLite one process handles a game's pings one version after another, so the record
    replaced is always the one the caller read: no read, and None for the message."""
    if tx.dialect is not Dialect.POSTGRES:
        return await _upsert_turn_ping(tx, ping) > 0, None
    if not await tx.fetchall(OPEN_GAME, (ping.game_id,)):
        return False, None
    while True:
        rows = await tx.fetchall(
            "SELECT version, message_id FROM turn_pings WHERE game_id = ? FOR UPDATE",
            (ping.game_id,),
        )
        if rows:
            version, held = rows[0]
            if version > ping.version:
                return False, None
            await _upsert_turn_ping(tx, ping)
            return True, held
        if await _upsert_turn_ping(tx, ping, insert_only=True):
            return True, None


async def _upsert_turn_ping(tx: Transaction, ping: TurnPing, insert_only: bool = False) -> int:
    """Write ``ping`` over any record of its version or an older one (``insert_only``: only
    where the game has none); returns the rows written (same SQL on both backends)."""
    conflict = (
        "DO NOTHING"
        if insert_only
        else "DO UPDATE SET version = excluded.version, awaited = excluded.awaited,"
        " message_id = excluded.message_id, mentioned = excluded.mentioned"
        " WHERE turn_pings.version <= excluded.version"
    )
    return await tx.execute(
        "INSERT INTO turn_pings (game_id, version, awaited, message_id, mentioned)"
        f" VALUES (?, ?, ?, ?, ?) ON CONFLICT (game_id) {conflict}",
        (
            ping.game_id,
            ping.version,
            _seats_text(ping.awaited),
            ping.message_id,
            _seats_text(ping.mentioned),
        ),
    )


async def drop_turn_ping(tx: Transaction, game_id: int) -> int | None:
    """Drop a game's record (it ended); returns the message the record held when dropped,
    which on a shared store another process may have written since the caller read it."""
    rows = await tx.fetchall(
        "DELETE FROM turn_pings WHERE game_id = ? RETURNING message_id", (game_id,)
    )
    return rows[0][0] if rows else None


# What leaves with a person or a server.


PERSON_SERVERS: tuple[str, ...] = (
    "SELECT g.guild_id FROM game_players p JOIN games g ON g.id = p.game_id WHERE p.user_id = ?",
)
"""The servers where a person has a seat (their moves, hosting and tile-DM notes are in
those games), each query taking their id."""


async def next_to_draw(db: Database, after: int) -> tuple[int, int] | None:
    """The first game after ``after`` whose board waits to be drawn without someone
    /forget-me erased, and how many erasures it waits for (see :func:`drawn_anew`)."""
    rows = await db.fetchall(
        "SELECT game_id, queued FROM boards_to_draw WHERE game_id > ? ORDER BY game_id LIMIT 1",
        (after,),
    )
    return (int(rows[0][0]), int(rows[0][1])) if rows else None


async def drawn_anew(tx: Transaction, game_id: int, queued: int) -> None:
    """The game's board was drawn anew (or found gone) for ``queued`` erasures; a later one,
    committed while it was drawn from a version that may still name its person, keeps it."""
    await tx.execute(
        "DELETE FROM boards_to_draw WHERE game_id = ? AND queued = ?", (game_id, queued)
    )


async def queue_boards(tx: Transaction, game_ids: Sequence[int]) -> None:
    """Queue these games' boards to be drawn anew (a stop cut their drawing off); one queued
    already waits for one drawing more (see :func:`drawn_anew`)."""
    await tx.executemany(
        "INSERT INTO boards_to_draw (game_id) SELECT id FROM games WHERE id = ?"
        " ON CONFLICT (game_id) DO UPDATE SET queued = boards_to_draw.queued + 1",
        [(game_id,) for game_id in game_ids],
    )


async def queue_changed_since(tx: Transaction, since: float) -> int:
    """Queue the boards of the games changed since ``since``, a crash having maybe cut their
    drawing off; how many. Every open game is read (games_open_status), but of the games
    over only the recent ones (games_ended): the open are few beside all those ever played."""
    return await tx.execute(
        "INSERT INTO boards_to_draw (game_id)"
        f" SELECT id FROM games WHERE {OPEN} AND updated_at >= ?"
        " UNION ALL SELECT id FROM games WHERE status NOT IN ('lobby', 'active')"
        " AND updated_at >= ?"
        " ON CONFLICT (game_id) DO UPDATE SET queued = boards_to_draw.queued + 1",
        (since, since),
    )


async def forget(tx: Transaction, guild_id: int, user_id: int) -> int:
    """Take the person out of the server's games that are over; returns the seats made a
    former player's and the notes deleted (a seat is a record of them too: someone whose only
    trace was a game with no result must not be told nothing of theirs was found). The
    boards of those games still posted are queued to be drawn anew without them, in the
    same transaction: kept by game id only, each until drawn (:func:`drawn_anew`)."""
    await tx.execute(
        "INSERT INTO boards_to_draw (game_id)"
        " SELECT DISTINCT g.id FROM game_players p JOIN games g ON g.id = p.game_id"
        f" WHERE p.user_id = ? AND p.is_bot = 0 AND NOT g.{OPEN} AND g.message_id IS NOT NULL"
        " AND g.guild_id = ?"
        " ON CONFLICT (game_id) DO UPDATE SET queued = boards_to_draw.queued + 1",
        (user_id, guild_id),
    )
    over = f"SELECT id FROM games WHERE guild_id = ? AND NOT {OPEN}"
    return await _forget_in(tx, over, (guild_id,), user_id)


async def _forget_in(tx: Transaction, games: str, params: tuple[Any, ...], user_id: int) -> int:
    """The person's seats, moves, hosting and tile-DM notes in ``games`` (SQL listing game
    ids, with its ``params``) become a former player's; returns the seats renamed and the
    notes deleted. The rows keep their revision: nobody draws a game over anew for it (see
    ``GameChange.revise``); in an open game the runner's change that carries it counts the
    revision, once."""
    seats = "UPDATE game_players SET user_id = ?, name = ? WHERE user_id = ? AND is_bot = 0"
    renamed = await tx.execute(
        f"{seats} AND game_id IN ({games})", (NOBODY, FORMER_PLAYER, user_id, *params)
    )
    await tx.execute(
        f"UPDATE moves SET user_id = NULL WHERE user_id = ? AND game_id IN ({games})",
        (user_id, *params),
    )
    await tx.execute(
        f"UPDATE games SET host_id = ? WHERE host_id = ? AND id IN ({games})",
        (NOBODY, user_id, *params),
    )
    return renamed + await tx.execute(
        f"DELETE FROM tile_dms WHERE user_id = ? AND game_id IN ({games})", (user_id, *params)
    )


async def purge(tx: Transaction, guild_id: int) -> None:
    """A departed server's games; seats, moves and tile-DM notes follow by cascade. Their
    largest id is kept as :data:`ID_FLOOR` first."""
    await tx.execute(
        "INSERT INTO meta (key, value) SELECT ?, CAST(MAX(id) AS TEXT) FROM games"
        " WHERE guild_id = ? HAVING MAX(id) IS NOT NULL"
        f" ON CONFLICT (key) DO UPDATE SET value = CAST({_GREATEST[tx.dialect]} AS TEXT)",
        (ID_FLOOR, guild_id),
    )
    await tx.execute("DELETE FROM games WHERE guild_id = ?", (guild_id,))


def _state_json(state: dict[str, Any]) -> str:
    """Compact JSON through orjson: a write encodes a whole game, 10x faster than ``json``."""
    return orjson.dumps({"format": STATE_FORMAT, "state": state}).decode()


def _seats(text: str) -> frozenset[int]:
    return frozenset(int(seat) for seat in text.split(",") if seat)


def _seats_text(seats: frozenset[int]) -> str:
    return ",".join(str(seat) for seat in sorted(seats))


def _player(r: Sequence[Any]) -> Player:
    return Player(r[0], r[1], r[2], bool(r[3]), r[4], r[5])


def _summary(r: Sequence[Any], players: tuple[Player, ...], left: frozenset[int]) -> GameSummary:
    return GameSummary(r[0], r[1], GameStatus(r[2]), r[3], r[4], r[5], r[6], r[7], players, left)


def _game(row: Sequence[Any], players: tuple[Player, ...]) -> GameRow:
    state = orjson.loads(row[10])["state"] if row[10] else None
    return GameRow(
        id=row[0],
        kind=row[1],
        variant=row[2],
        guild_id=row[3],
        channel_id=row[4],
        message_id=row[5],
        host_id=row[6],
        status=GameStatus(row[7]),
        seed=row[8],
        options=json.loads(row[9]),
        state=state,
        version=row[11],
        deadline=row[12],
        created_at=row[13],
        updated_at=row[14],
        players=players,
        hinted=bool(row[15]),
        revision=row[16],
        expired=bool(row[17]),
        host_left=bool(row[18]),
    )
