"""Results and ratings: finished games' standings (``results``), skill ratings per server, game
and pool (``ratings``) and their history for charts (``rating_history``).

/forget-me (:func:`forget`) deletes the person's results, ratings and rating history in that
server; the others' results of the same games stay. Used in a direct message, it does so in
every server holding a result or rating of theirs (:data:`PERSON_SERVERS`). The purge of a
departed server (:func:`purge`) deletes all three for the server.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from bot.model import NOBODY, GameChange, KindStats, PastGame, RatingUpdate, Result, Viewer
from db.connection import Database, Dialect, Transaction

# A game between people: two or more seats and no Orchard. Only these count for wins.
# (CASE, not arithmetic on a comparison: PostgreSQL's comparisons are booleans, not 0 or 1.)
PEOPLE_GAME = "(seats > 1 AND orchard = 0)"
PEOPLE_WIN = f"(CASE WHEN {PEOPLE_GAME} THEN won ELSE 0 END)"
PEOPLE_GAMES = f"(CASE WHEN {PEOPLE_GAME} THEN 1 ELSE 0 END)"
TABLES = ("results", "ratings", "rating_history")
PERSON_SERVERS: tuple[str, ...] = (
    "SELECT guild_id FROM results WHERE user_id = ?",
    "SELECT guild_id FROM ratings WHERE user_id = ?",  # a rating history goes with its rating
)
"""The servers where a person has rows here (each query takes their id)."""

_RATINGS_OF = "SELECT user_id, mu, sigma FROM ratings WHERE guild_id = ? AND kind = ? AND pool = ?"
# Some players' stored ratings (SQL and the ids' parameters), read to rate the game they just
# finished. SQLite takes the ids as ``IN (?, …)``, PostgreSQL as one array; PostgreSQL also
# locks the rows (FOR UPDATE, in id order so that two such transactions cannot deadlock), so
# that two games finishing at once with one player rate one after the other, as SQLite's
# single writer makes them. A row not yet stored cannot be locked: see :data:`_PLACEHOLDER`.
PLAYERS_RATINGS: dict[Dialect, Callable[[list[int]], tuple[str, list[Any]]]] = {
    Dialect.SQLITE: lambda ids: (f"{_RATINGS_OF} AND user_id IN ({','.join('?' * len(ids))})", ids),
    Dialect.POSTGRES: lambda ids: (
        f"{_RATINGS_OF} AND user_id = ANY(?) AND games > 0 ORDER BY user_id FOR UPDATE",
        [ids],
    ),
}
# PostgreSQL: a newcomer's row, inserted (in id order) before the read, unrated (games 0: the
# read passes over it, so the newcomer starts from the model's default) and rated below in the
# same transaction. FOR UPDATE finds no row to lock for a newcomer, so without it two games
# ending at once would both rate them from the default, and the later upsert would drop the
# earlier game's rating; a second inserter of the row waits for the first to commit instead.
_PLACEHOLDER = (
    "INSERT INTO ratings (guild_id, kind, pool, user_id, mu, sigma, games, updated_at)"
    " VALUES (?, ?, ?, ?, 0, 0, 0, ?) ON CONFLICT (guild_id, kind, pool, user_id) DO NOTHING"
)


# Reads.


Record = tuple[int, int, float, float, int]
"""A person's (wins, games, best, average score, games between people) in one game here: a
board line."""


async def leaderboard(
    db: Database, guild_id: int, kind: str, by: str, lower_is_better: bool
) -> list[tuple[int, float, int]]:
    """People's (user, value, games) in this server for one game, best first.

    ``by`` is rating (people's pool), wins (games between people only: nobody climbs by
    playing alone or by beating Orchard), best or average score.
    """
    if by == "rating":
        return await rated(db, guild_id, kind)
    return ranked(await records(db, guild_id, kind, lower_is_better), by, lower_is_better)


async def rated(db: Database, guild_id: int, kind: str) -> list[tuple[int, float, int]]:
    """The board by rating: people's conservative ratings here (mu - 3 sigma), best first."""
    rows = await db.fetchall(
        "SELECT user_id, mu - 3 * sigma, games FROM ratings WHERE guild_id = ?"
        " AND kind = ? AND pool = 'people' AND user_id > 0"
        " ORDER BY mu - 3 * sigma DESC, user_id",
        (guild_id, kind),
    )
    return [(r[0], float(r[1]), r[2]) for r in rows]


def ranked(
    found: dict[int, Record], by: str, lower_is_better: bool
) -> list[tuple[int, float, int]]:
    """Best value first, then more games (by wins, fewer: the same wins in fewer games are
    the better record), then the older account.

    The board by wins holds only people with a game between people, and counts those games:
    a win is only ever had there (solo games and Orchard's never count, as on /stats), so a
    player who only played alone or against Orchard would read "0 wins" among those who
    played and lost, and ahead of them for playing more. Best and average count every game.
    """
    column = {"wins": 0, "best": 2, "average": 3}[by]
    sign = 1 if lower_is_better and by in ("best", "average") else -1
    counted = {user: record[4] if by == "wins" else record[1] for user, record in found.items()}
    fewer = 1 if by == "wins" else -1  # games counted: which come first among equals
    order = sorted(
        (user for user in found if counted[user]),
        key=lambda user: (sign * found[user][column], fewer * counted[user], user),
    )
    return [(user, float(found[user][column]), counted[user]) for user in order]


async def records(
    db: Database, guild_id: int, kind: str, lower_is_better: bool
) -> dict[int, Record]:
    """Each person's (wins, games, best, average score, games between people) here in one
    game: a board line."""
    best = "MIN(score)" if lower_is_better else "MAX(score)"
    rows = await db.fetchall(
        f"SELECT user_id, SUM({PEOPLE_WIN}), COUNT(*), {best}, AVG(score), SUM({PEOPLE_GAMES})"
        " FROM results"
        f" WHERE guild_id = ? AND kind = ? AND is_bot = 0 AND user_id <> {NOBODY}"
        " GROUP BY user_id",
        (guild_id, kind),
    )
    return {r[0]: (int(r[1]), int(r[2]), float(r[3]), float(r[4]), int(r[5])) for r in rows}


async def user_stats(db: Database, guild_id: int, user_id: int) -> list[KindStats]:
    """One player's record here, per game."""
    rows = await db.fetchall(
        f"SELECT kind, COUNT(*), SUM({PEOPLE_WIN}), SUM({PEOPLE_GAMES}), MAX(score),"
        " MIN(score), AVG(score), MAX(finished_at), SUM(won * orchard), SUM(orchard)"
        " FROM results WHERE guild_id = ? AND user_id = ? AND is_bot = 0"
        " GROUP BY kind ORDER BY kind",
        (guild_id, user_id),
    )
    ratings = {
        (r[0], r[1]): (r[2], r[3])
        for r in await db.fetchall(
            "SELECT kind, pool, mu, sigma FROM ratings WHERE guild_id = ? AND user_id = ?",
            (guild_id, user_id),
        )
    }
    return [
        KindStats(
            kind=r[0],
            games=r[1],
            wins=r[2],
            people_games=r[3],
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
    db: Database, guild_id: int, user_id: int, kind: str, pool: str, limit: int
) -> list[tuple[float, float, float]]:
    """(mu, sigma, time) of a player's last rated games of one kind here, oldest first.

    One game and one pool: ratings of different games (or pools) are different scales.
    """
    rows = await db.fetchall(
        "SELECT mu, sigma, at FROM rating_history WHERE guild_id = ? AND user_id = ?"
        " AND kind = ? AND pool = ? ORDER BY at DESC, game_id DESC LIMIT ?",
        (guild_id, user_id, kind, pool, limit),
    )
    return [(r[0], r[1], r[2]) for r in reversed(rows)]


HISTORY_SCAN = 100
# Pages of HISTORY_SCAN a history of someone else reads at most: a person with 100,000 games
# in channels hidden from the asker was read through to the end, a read slot held meanwhile.
HISTORY_PAGES = 10
"""Finished games read at a time for a /history with a viewer, of which those they may not
see are left out: a player's latest ten in channels the viewer sees are nearly always among
the first hundred, and the next hundred are read only if not."""


async def history(
    db: Database,
    guild_id: int,
    user_id: int,
    kind: str | None,
    limit: int,
    viewer: Viewer | None = None,
) -> list[PastGame]:
    """A player's latest finished games here, newest first, with everyone's scores (and how
    many seats' people were erased since, taking their results). With a ``viewer``, only games
    they played in or whose channel they may view."""
    played = "EXISTS (SELECT 1 FROM results v WHERE v.game_id = g.id AND v.user_id = ?)"
    sql = (
        f"SELECT g.id, g.kind, g.channel_id, g.message_id, r.finished_at, r.hinted, {played}"
        " FROM results r"
        " JOIN games g ON g.id = r.game_id WHERE r.guild_id = ? AND r.user_id = ?"
        " AND r.is_bot = 0"
    )
    params: list[Any] = [viewer.user_id if viewer else user_id, guild_id, user_id]
    if kind is not None:
        sql += " AND r.kind = ?"
        params.append(kind)
    if viewer is None:
        rows = await db.fetchall(sql + _NEWEST_FIRST, [*params, limit])
    else:
        rows = await _seen_by(db, sql, params, limit, viewer)
    return [await _past_game(db, *row[:6]) for row in rows]


_NEWEST_FIRST = " ORDER BY r.finished_at DESC, g.id DESC LIMIT ?"


async def _seen_by(
    db: Database, sql: str, params: list[Any], limit: int, viewer: Viewer
) -> list[Sequence[Any]]:
    """The first ``limit`` rows of ``sql`` the viewer played in or may see, read
    :data:`HISTORY_SCAN` at a time, each page from the oldest game of the last, through
    :data:`HISTORY_PAGES` pages at most."""
    seen: list[Sequence[Any]] = []
    older = " AND (r.finished_at < ? OR (r.finished_at = ? AND g.id < ?))"
    page = await db.fetchall(sql + _NEWEST_FIRST, [*params, HISTORY_SCAN])
    for pages in itertools.count(1):
        seen += [r for r in page if r[6] or viewer.sees(r[2])]
        if len(seen) >= limit or len(page) < HISTORY_SCAN or pages == HISTORY_PAGES:
            break
        at, game_id = page[-1][4], page[-1][0]
        page = await db.fetchall(
            sql + older + _NEWEST_FIRST, [*params, at, at, game_id, HISTORY_SCAN]
        )
    return seen[:limit]


async def _past_game(
    db: Database, game_id: int, kind: str, channel: int, message: int | None, at: float, hinted: int
) -> PastGame:
    """One finished game of a history, with every seat's result."""
    seats = await db.fetchall(
        "SELECT user_id, is_bot, score, placement, won, seats FROM results"
        " WHERE game_id = ? ORDER BY placement, seat",
        (game_id,),
    )
    return PastGame(
        game_id,
        kind,
        channel,
        message,
        at,
        tuple((s[0], bool(s[1]), s[2], s[3], bool(s[4])) for s in seats),
        bool(hinted),
        seats[0][5] - len(seats),  # every seat had a result; the player's is here
    )


# Writes, inside the caller's transaction (the game row is already written).


async def write(tx: Transaction, change: GameChange, now: float) -> None:
    """The hint mark, results and rating a game change brings."""
    if change.hinted:  # results already stored are marked too; new ones copy the game's mark
        await tx.execute("UPDATE results SET hinted = 1 WHERE game_id = ?", (change.game_id,))
    if change.results:
        await _insert_results(tx, change.game_id, change.results, now)
    if change.rating is not None:
        await _update_ratings(tx, change.game_id, change.rating, now)


async def _insert_results(
    tx: Transaction, game_id: int, results: Sequence[Result], now: float
) -> None:
    """The standings of a finished game; server, game and hint mark come from its row."""
    (row,) = await tx.fetchall("SELECT guild_id, kind, hinted FROM games WHERE id = ?", (game_id,))
    orchard = int(any(r.is_bot for r in results))
    await tx.executemany(
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


async def _update_ratings(tx: Transaction, game_id: int, update: RatingUpdate, now: float) -> None:
    """Rate a finished game from the stored ratings, read inside this same transaction."""
    ((guild_id, kind),) = await tx.fetchall(
        "SELECT guild_id, kind FROM games WHERE id = ?", (game_id,)
    )
    users = sorted(user for user, _ in update.places)
    if tx.dialect is Dialect.POSTGRES:
        await tx.executemany(
            _PLACEHOLDER, [(guild_id, kind, update.pool, user, now) for user in users]
        )
    sql, ids = PLAYERS_RATINGS[tx.dialect](users)
    rows = await tx.fetchall(sql, (guild_id, kind, update.pool, *ids))
    previous = {row[0]: (row[1], row[2]) for row in rows}
    new = update.rate(previous, update.places)
    for user, (mu, sigma) in new.items():
        await tx.execute(
            "INSERT INTO ratings (guild_id, kind, pool, user_id, mu, sigma, games, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, 1, ?) ON CONFLICT (guild_id, kind, pool, user_id)"
            " DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, games = ratings.games + 1,"
            " updated_at = excluded.updated_at",
            (guild_id, kind, update.pool, user, mu, sigma, now),
        )
        await tx.execute(
            "INSERT INTO rating_history (game_id, user_id, guild_id, kind, pool, mu, sigma, at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (game_id, user, guild_id, kind, update.pool, mu, sigma, now),
        )


# What leaves with a person or a server.


async def forget(tx: Transaction, guild_id: int, user_id: int) -> int:
    """The person's results, ratings and rating history here; returns the rows deleted."""
    removed = 0
    for table in TABLES:
        removed += await tx.execute(
            f"DELETE FROM {table} WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
        )
    return removed


async def purge(tx: Transaction, guild_id: int) -> None:
    for table in TABLES:
        await tx.execute(f"DELETE FROM {table} WHERE guild_id = ?", (guild_id,))
