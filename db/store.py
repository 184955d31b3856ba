"""Orchard's SQLite store: games, seats, the move log, results and per-server settings.

One connection in autocommit mode; every write that must be atomic runs inside an explicit
``BEGIN IMMEDIATE`` under ``self._lock``, because coroutines share the connection and must not
interleave statements inside each other's transactions. Parameterised SQL only.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiosqlite

from bot.model import (
    KEEP,
    GameChange,
    GameRow,
    GameStatus,
    KindStats,
    Move,
    MoveSource,
    PastGame,
    Player,
    RatingUpdate,
    Result,
)
from db.migrate import migrate

STATE_FORMAT = 1
OPEN = ("lobby", "active")
# A game between people: two or more seats and no Orchard. Only these count for wins.
PEOPLE_GAME = "(seats > 1 AND orchard = 0)"
PEOPLE_WIN = f"(won * {PEOPLE_GAME})"


_GAME_COLUMNS = (
    "id, kind, variant, guild_id, channel_id, message_id, host_id, status, seed, options,"
    " state, version, deadline, created_at, updated_at, hinted"
)
_GAME_COLUMNS_OF_G = ", ".join(f"g.{c.strip()}" for c in _GAME_COLUMNS.split(","))


class Store:
    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str | Path) -> Store:
        """Open (creating folders and schema as needed) the database at ``path``."""
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(str(path), isolation_level=None)
        await conn.execute("PRAGMA journal_mode = WAL")
        await conn.execute("PRAGMA synchronous = FULL")
        await conn.execute("PRAGMA foreign_keys = ON")
        await conn.execute("PRAGMA busy_timeout = 5000")
        await migrate(conn)
        return cls(conn)

    async def close(self) -> None:
        await self._conn.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._lock:
            await self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                await self._conn.execute("ROLLBACK")
                raise
            await self._conn.execute("COMMIT")

    async def _fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        async with self._lock:  # one trip to the database thread, not two
            return list(await self._conn.execute_fetchall(sql, tuple(params)))

    # Games.

    async def create_game(
        self,
        kind: str,
        guild_id: int,
        channel_id: int,
        host: Player,
        *,
        seed: int,
        options: dict[str, Any] | None = None,
        variant: str = "",
        deadline: float | None = None,
    ) -> int:
        now = time.time()
        async with self.transaction() as conn:
            cur = await conn.execute(
                "INSERT INTO games (kind, variant, guild_id, channel_id, host_id, status, seed,"
                " options, deadline, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, 'lobby', ?, ?, ?, ?, ?)",
                (
                    kind,
                    variant,
                    guild_id,
                    channel_id,
                    host.user_id,
                    seed,
                    json.dumps(options or {}),
                    deadline,
                    now,
                    now,
                ),
            )
            game_id = int(cur.lastrowid or 0)
            await _insert_player(conn, game_id, host)
        return game_id

    async def get_game(self, game_id: int) -> GameRow | None:
        """A game and its seats in one query: every move starts with this read."""
        rows = await self._fetchall(
            f"SELECT {_GAME_COLUMNS_OF_G}, p.seat, p.user_id, p.name, p.is_bot, p.timeouts,"
            " p.level FROM games g LEFT JOIN game_players p ON p.game_id = g.id"
            " WHERE g.id = ? ORDER BY p.seat",
            (game_id,),
        )
        if not rows:
            return None
        width = len(_GAME_COLUMNS.split(","))
        players = tuple(
            Player(r[width], r[width + 1], r[width + 2], bool(r[width + 3]), *r[width + 4 :])
            for r in rows
            if r[width] is not None
        )
        return _game(rows[0][:width], players)

    async def open_games(
        self, guild_id: int | None = None, channel_id: int | None = None, kind: str | None = None
    ) -> list[GameRow]:
        """Lobbies and games in play, optionally narrowed to a server, channel and game."""
        where = "status IN ('lobby', 'active')"
        params: list[Any] = []
        for column, value in (("guild_id", guild_id), ("channel_id", channel_id), ("kind", kind)):
            if value is not None:
                where += f" AND {column} = ?"
                params.append(value)
        rows = await self._fetchall(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE {where} ORDER BY id", params
        )
        seats: dict[int, list[Player]] = {}
        for r in await self._fetchall(  # every seat in one query: start-up reads 10,000 games
            "SELECT game_id, seat, user_id, name, is_bot, timeouts, level FROM game_players"
            f" WHERE game_id IN (SELECT id FROM games WHERE {where}) ORDER BY game_id, seat",
            params,
        ):
            seats.setdefault(r[0], []).append(Player(r[1], r[2], r[3], bool(r[4]), r[5], r[6]))
        return [_game(row, tuple(seats.get(row[0], ()))) for row in rows]

    async def games_waiting_on_bots(self) -> list[int]:
        """Games in play with an Orchard seat: the ones Orchard must pick up after a restart."""
        rows = await self._fetchall(
            "SELECT id FROM games WHERE status = 'active' AND EXISTS"
            " (SELECT 1 FROM game_players p WHERE p.game_id = games.id AND p.is_bot = 1)"
            " ORDER BY id",
            (),
        )
        return [r[0] for r in rows]

    async def write(self, change: GameChange) -> bool:
        """Apply one change to a game row (and its seats, log and results) atomically.

        Returns False, writing nothing, when the row is no longer in ``from_status`` or at
        ``expected_version``: someone else's change got there first.
        """
        now = time.time()
        sets, params = _game_sets(change, now)
        where, guard = _game_guards(change)
        async with self.transaction() as conn:
            cur = await conn.execute(
                f"UPDATE games SET {', '.join(sets)} WHERE {where}", (*params, *guard)
            )
            if cur.rowcount != 1:
                return False
            if change.players is not None:
                await _replace_players(conn, change.game_id, change.players)
            if change.moves:
                await _append_moves(conn, change, now)
            if change.timeouts:
                await conn.executemany(
                    "UPDATE game_players SET timeouts = ? WHERE game_id = ? AND seat = ?",
                    [(count, change.game_id, seat) for seat, count in change.timeouts.items()],
                )
            if change.results:
                await _insert_results(conn, change.game_id, change.results, now)
            if change.rating is not None:
                await _update_ratings(conn, change.game_id, change.rating, now)
        return True


    async def moves(self, game_id: int) -> list[Move]:
        rows = await self._fetchall(
            "SELECT seat, kind, arg, user_id, source FROM moves WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
        return [Move(r[0], r[1], r[2], r[3], MoveSource(r[4])) for r in rows]

    async def next_deadline(self) -> float | None:
        rows = await self._fetchall(
            "SELECT MIN(deadline) FROM games WHERE deadline IS NOT NULL"
            " AND status IN ('lobby', 'active')"
        )
        return float(rows[0][0]) if rows and rows[0][0] is not None else None

    async def due_games(self, now: float) -> list[int]:
        rows = await self._fetchall(
            "SELECT id FROM games WHERE deadline IS NOT NULL AND deadline <= ?"
            " AND status IN ('lobby', 'active') ORDER BY deadline",
            (now,),
        )
        return [int(r[0]) for r in rows]

    # Results and boards.

    async def board(
        self, guild_id: int, kind: str, by: str, *, lower_is_better: bool = False
    ) -> list[tuple[int, float, int]]:
        """People's (user, value, games) in this server for one game, best first.

        ``by`` is rating (people's pool), wins (games between people only: nobody climbs by
        playing alone or by beating Orchard), best or average score.
        """
        if by == "rating":
            rows = await self._fetchall(
                "SELECT user_id, mu - 3 * sigma, games FROM ratings WHERE guild_id = ?"
                " AND kind = ? AND pool = 'people' AND user_id > 0"
                " ORDER BY mu - 3 * sigma DESC, user_id",
                (guild_id, kind),
            )
            return [(r[0], float(r[1]), r[2]) for r in rows]
        column = {"wins": 0, "best": 2, "average": 3}[by]
        sign = 1 if lower_is_better and by in ("best", "average") else -1
        records = await self.records(guild_id, kind, lower_is_better=lower_is_better)
        ranked = sorted(  # best value first, then more games, then the older account
            records.items(), key=lambda item: (sign * item[1][column], -item[1][1], item[0])
        )
        return [(user, float(record[column]), record[1]) for user, record in ranked]

    async def records(
        self, guild_id: int, kind: str, *, lower_is_better: bool = False
    ) -> dict[int, tuple[int, int, float, float]]:
        """Each person's (wins, games, best, average score) here in one game: a board line."""
        best = "MIN(score)" if lower_is_better else "MAX(score)"
        rows = await self._fetchall(
            f"SELECT user_id, SUM({PEOPLE_WIN}), COUNT(*), {best}, AVG(score) FROM results"
            " WHERE guild_id = ? AND kind = ? AND is_bot = 0 GROUP BY user_id",
            (guild_id, kind),
        )
        return {r[0]: (int(r[1]), int(r[2]), float(r[3]), float(r[4])) for r in rows}

    async def user_stats(self, guild_id: int, user_id: int) -> list[KindStats]:
        """One player's record here, per game."""
        rows = await self._fetchall(
            f"SELECT kind, COUNT(*), SUM({PEOPLE_WIN}), SUM({PEOPLE_GAME}), MAX(score),"
            " MIN(score), AVG(score), MAX(finished_at), SUM(won * orchard), SUM(orchard)"
            " FROM results WHERE guild_id = ? AND user_id = ? AND is_bot = 0"
            " GROUP BY kind ORDER BY kind",
            (guild_id, user_id),
        )
        ratings = {
            (r[0], r[1]): (r[2], r[3])
            for r in await self._fetchall(
                "SELECT kind, pool, mu, sigma FROM ratings WHERE guild_id = ? AND user_id = ?",
                (guild_id, user_id),
            )
        }
        return [
            KindStats(
                kind=r[0],
                games=r[1],
                wins=r[2],
                rated_games=r[3],
                best=r[4],
                lowest=r[5],
                average=float(r[6]),
                last_played=r[7],
                rating=ratings.get((r[0], "people")),
                orchard_wins=r[8],
                orchard_games=r[9],
                orchard_rating=ratings.get((r[0], "orchard")),
            )
            for r in rows
        ]

    async def rating_history(
        self, guild_id: int, user_id: int, kind: str, pool: str = "people", limit: int = 30
    ) -> list[tuple[float, float, float]]:
        """(mu, sigma, time) of a player's last rated games of one kind here, oldest first.

        One game and one pool: ratings of different games (or pools) are different scales.
        """
        rows = await self._fetchall(
            "SELECT mu, sigma, at FROM rating_history WHERE guild_id = ? AND user_id = ?"
            " AND kind = ? AND pool = ? ORDER BY at DESC, game_id DESC LIMIT ?",
            (guild_id, user_id, kind, pool, limit),
        )
        return [(r[0], r[1], r[2]) for r in reversed(rows)]

    async def history(
        self, guild_id: int, user_id: int, kind: str | None = None, limit: int = 10
    ) -> list[PastGame]:
        """A player's latest finished games here, newest first, with everyone's scores."""
        sql = (
            "SELECT g.id, g.kind, g.channel_id, g.message_id, r.finished_at, r.hinted"
            " FROM results r"
            " JOIN games g ON g.id = r.game_id WHERE r.guild_id = ? AND r.user_id = ?"
            " AND r.is_bot = 0"
        )
        params: list[Any] = [guild_id, user_id]
        if kind is not None:
            sql += " AND r.kind = ?"
            params.append(kind)
        rows = await self._fetchall(
            sql + " ORDER BY r.finished_at DESC, g.id DESC LIMIT ?", [*params, limit]
        )
        games = []
        for game_id, game_kind, channel, message, at, hinted in rows:
            seats = await self._fetchall(
                "SELECT user_id, is_bot, score, placement, won FROM results WHERE game_id = ?"
                " ORDER BY placement, seat",
                (game_id,),
            )
            games.append(
                PastGame(
                    game_id,
                    game_kind,
                    channel,
                    message,
                    at,
                    tuple((s[0], bool(s[1]), s[2], s[3], bool(s[4])) for s in seats),
                    bool(hinted),
                )
            )
        return games

    # Appletters' private tiles.

    async def tile_dms(self, game_id: int) -> dict[int, tuple[str, bool]]:
        """Per player of a game: the hand last sent by DM, and whether their DMs are closed."""
        rows = await self._fetchall(
            "SELECT user_id, hand, closed FROM tile_dms WHERE game_id = ?", (game_id,)
        )
        return {r[0]: (r[1], bool(r[2])) for r in rows}

    async def note_tile_dm(self, game_id: int, user_id: int, hand: str, *, closed: bool) -> None:
        async with self.transaction() as conn:
            await conn.execute(
                "INSERT INTO tile_dms (game_id, user_id, hand, closed) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (game_id, user_id) DO UPDATE SET hand = excluded.hand,"
                " closed = excluded.closed",
                (game_id, user_id, hand, int(closed)),
            )

    async def forget_tile_dms(self, game_id: int) -> None:
        """A finished game sends no more tiles: its notes go."""
        async with self.transaction() as conn:
            await conn.execute("DELETE FROM tile_dms WHERE game_id = ?", (game_id,))

    async def forget_user(self, guild_id: int, user_id: int) -> int:
        """Delete a person's results and ratings in one server; returns rows removed."""
        removed = 0
        async with self.transaction() as conn:
            for table in ("results", "ratings", "rating_history"):
                cur = await conn.execute(
                    f"DELETE FROM {table} WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
                )
                removed += cur.rowcount
        return removed

    async def guild_left(self, guild_id: int, when: float) -> None:
        async with self.transaction() as conn:
            await conn.execute(
                "INSERT INTO guild_departures (guild_id, left_at) VALUES (?, ?)"
                " ON CONFLICT (guild_id) DO NOTHING",
                (guild_id, when),
            )

    async def guild_returned(self, guild_id: int) -> None:
        async with self.transaction() as conn:
            await conn.execute("DELETE FROM guild_departures WHERE guild_id = ?", (guild_id,))

    async def purge_departed(self, before: float) -> list[int]:
        """Remove every row of servers the bot left before ``before``."""
        rows = await self._fetchall(
            "SELECT guild_id FROM guild_departures WHERE left_at < ?", (before,)
        )
        gone = [int(r[0]) for r in rows]
        async with self.transaction() as conn:
            for guild_id in gone:
                for table in (
                    "games",
                    "results",
                    "ratings",
                    "rating_history",
                    "guild_settings",
                    "guild_departures",
                ):
                    await conn.execute(f"DELETE FROM {table} WHERE guild_id = ?", (guild_id,))
        return gone

    # Settings and bookkeeping.

    async def guild_settings(self, guild_id: int) -> dict[str, Any]:
        rows = await self._fetchall(
            "SELECT settings FROM guild_settings WHERE guild_id = ?", (guild_id,)
        )
        return dict(json.loads(rows[0][0])) if rows else {}

    async def set_guild_settings(self, guild_id: int, settings: dict[str, Any]) -> None:
        async with self.transaction() as conn:
            await conn.execute(
                "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET settings = excluded.settings,"
                " updated_at = excluded.updated_at",
                (guild_id, json.dumps(settings, sort_keys=True), time.time()),
            )

    async def get_meta(self, key: str) -> str | None:
        rows = await self._fetchall("SELECT value FROM meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    async def set_meta(self, key: str, value: str) -> None:
        async with self.transaction() as conn:
            await conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )


def _game_sets(change: GameChange, now: float) -> tuple[list[str], list[Any]]:
    """The ``SET`` clauses of a change: only the fields it changes, and the time."""
    sets: list[str] = ["updated_at = ?"]
    params: list[Any] = [now]
    for column, value in (
        ("status", change.status),
        ("state", None if change.state is None else _state_json(change.state)),
        ("version", change.version),
        ("message_id", change.message_id),
    ):
        if value is not None:
            sets.append(f"{column} = ?")
            params.append(value)
    if change.deadline is not KEEP:
        sets.append("deadline = ?")
        params.append(change.deadline)
    if change.hinted:
        sets.append("hinted = 1")
    return sets, params


def _game_guards(change: GameChange) -> tuple[str, list[Any]]:
    where = "id = ?"
    guard: list[Any] = [change.game_id]
    if change.from_status is not None:
        where += " AND status = ?"
        guard.append(change.from_status)
    if change.expected_version is not None:
        where += " AND version = ?"
        guard.append(change.expected_version)
    return where, guard


async def _replace_players(
    conn: aiosqlite.Connection, game_id: int, players: Sequence[Player]
) -> None:
    """A lobby's seats anew: join and leave renumber them in joining order."""
    await conn.execute("DELETE FROM game_players WHERE game_id = ?", (game_id,))
    for seat, player in enumerate(players):
        await _insert_player(conn, game_id, replace(player, seat=seat, timeouts=0))


async def _append_moves(conn: aiosqlite.Connection, change: GameChange, now: float) -> None:
    first = (change.expected_version or 0) + 1
    await conn.executemany(
        "INSERT INTO moves (game_id, seq, seat, user_id, kind, arg, source, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (change.game_id, first + i, m.seat, m.user_id, m.verb, m.arg, m.source, now)
            for i, m in enumerate(change.moves)
        ],
    )


async def _insert_player(conn: aiosqlite.Connection, game_id: int, player: Player) -> None:
    await conn.execute(
        "INSERT INTO game_players (game_id, seat, user_id, name, is_bot, level)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (game_id, player.seat, player.user_id, player.name, int(player.is_bot), player.level),
    )


async def _insert_results(
    conn: aiosqlite.Connection, game_id: int, results: Sequence[Result], now: float
) -> None:
    sql = "SELECT guild_id, kind, hinted FROM games WHERE id = ?"
    async with conn.execute(sql, (game_id,)) as cur:
        row = await cur.fetchone()
    assert row is not None
    orchard = int(any(r.is_bot for r in results))
    await conn.executemany(
        "INSERT INTO results (game_id, seat, guild_id, kind, user_id, is_bot, score, placement,"
        " won, seats, finished_at, hinted, orchard)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                game_id,
                r.seat,
                row[0],
                row[1],
                r.user_id,
                int(r.is_bot),
                r.score,
                r.placement,
                int(r.won),
                len(results),
                now,
                row[2],
                orchard,
            )
            for r in results
        ],
    )


async def _update_ratings(
    conn: aiosqlite.Connection, game_id: int, update: RatingUpdate, now: float
) -> None:
    async with conn.execute("SELECT guild_id, kind FROM games WHERE id = ?", (game_id,)) as cur:
        game = await cur.fetchone()
    assert game is not None
    guild_id, kind = game
    users = [user for user, _ in update.places]
    marks = ",".join("?" * len(users))
    async with conn.execute(
        f"SELECT user_id, mu, sigma FROM ratings WHERE guild_id = ? AND kind = ? AND pool = ?"
        f" AND user_id IN ({marks})",
        (guild_id, kind, update.pool, *users),
    ) as cur:
        previous = {row[0]: (row[1], row[2]) for row in await cur.fetchall()}
    new = update.rate(previous, update.places)
    for user, (mu, sigma) in new.items():
        await conn.execute(
            "INSERT INTO ratings (guild_id, kind, pool, user_id, mu, sigma, games, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, 1, ?) ON CONFLICT (guild_id, kind, pool, user_id)"
            " DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, games = games + 1,"
            " updated_at = excluded.updated_at",
            (guild_id, kind, update.pool, user, mu, sigma, now),
        )
        await conn.execute(
            "INSERT INTO rating_history (game_id, user_id, guild_id, kind, pool, mu, sigma, at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (game_id, user, guild_id, kind, update.pool, mu, sigma, now),
        )


def _state_json(state: dict[str, Any]) -> str:
    return json.dumps({"format": STATE_FORMAT, "state": state}, separators=(",", ":"))


def _game(row: Sequence[Any], players: tuple[Player, ...]) -> GameRow:
    state = json.loads(row[10])["state"] if row[10] else None
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
    )
