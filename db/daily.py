"""The Daily Orchard's storage: plays (``daily_plays``), the players on the board across
servers (``daily_world``), each server's channel for yesterday's board (``daily_channels``)
and the boards posted there (``daily_boards``: message ids, no person).

/forget-me (:func:`forget`) deletes the person's plays in that server and their place on the
board across servers, except that a play of today is kept until the day is over as a bare
marker (day, game, person; no name, result or game: :data:`~bot.daily.NO_GAME`), which
:func:`expire` then deletes; used in a direct message, it does so in every server holding a
play of theirs (:data:`PERSON_SERVERS`). The boards posted there that showed them are then
drawn again without them. The purge of a departed server (:func:`purge`) deletes its plays,
channel and boards.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from bot.daily import (
    NO_CHANNEL,
    NO_GAME,
    BoardToDraw,
    DailyChannel,
    DailyPlay,
    PostedBoard,
    closes,
    day_of,
)
from bot.model import Player
from db import games
from db.connection import Database, Transaction


def _play_named(name: str) -> str:
    """A play's columns, its name read from ``name`` (a column or an expression)."""
    return f"day, kind, user_id, guild_id, game_id, {name}, score, accuracy, world_name"


_PLAY = _play_named("name")
_WORLD_NAME = "COALESCE(world_name, name)"  # a play stored before world_name: its server's name


def _play(row: Sequence[Any]) -> DailyPlay:
    return DailyPlay(*row)


def board_order(play: DailyPlay) -> tuple[bool, int, bool, int, str, int]:
    """A board's order, best first: the higher score, then the higher accuracy, a play
    without one after those with one; equal plays by name regardless of case, then by id.

    Sorted here, not by the backend, so that it is the same on both: PostgreSQL puts NULLs
    first in a descending order, SQLite last; SQLite compares names byte by byte (every
    capital before every small letter), PostgreSQL by its collation (LOWER() too differs,
    SQLite's lowering only ASCII)."""
    score, accuracy = play.score, play.accuracy
    return (
        score is None,
        -(score or 0),
        accuracy is None,
        -(accuracy or 0),
        play.name.casefold(),
        play.user_id,
    )


class _Played(Exception):
    """Rolls back a day's new game: its player has a play of that day already."""


class DailyStore:
    """The daily tables, on the store's database (writes in its transactions)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def play(self, day: int, kind: str, user_id: int) -> DailyPlay | None:
        rows = await self.db.fetchall(
            f"SELECT {_PLAY} FROM daily_plays WHERE day = ? AND kind = ? AND user_id = ?",
            (day, kind, user_id),
        )
        return _play(rows[0]) if rows else None

    async def add_game_and_play(
        self, play: DailyPlay, host: Player, seed: int, options: dict[str, Any], now: float
    ) -> DailyPlay | None:
        """Create the play's game (a lobby of one, without channel) and record the play, in
        one transaction: a crash between the two would leave a game nobody can see, and the
        next /daily would make another. None, and nothing written, if the person has a play
        of that day already (once a day).

        The lobby's deadline is its game's closing (:func:`~bot.daily.closes`, the next
        day's end), not its own day's end: a /daily just before midnight is started after
        it. A crash before the start leaves a lobby only a /daily that day starts; the clock
        closes it then, as any lobby nobody started."""
        try:
            async with self.db.transaction() as tx:
                game_id = await games.create_game(
                    tx,
                    play.kind,
                    "",
                    play.guild_id,
                    NO_CHANNEL,
                    host,
                    seed,
                    options,
                    closes(options),
                    now,
                )
                play = replace(play, game_id=game_id)
                added = await tx.execute(
                    f"INSERT INTO daily_plays ({_PLAY}) VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, ?)"
                    " ON CONFLICT (day, kind, user_id) DO NOTHING",
                    (
                        play.day,
                        play.kind,
                        play.user_id,
                        play.guild_id,
                        game_id,
                        play.name,
                        play.world_name,
                    ),
                )
                if added != 1:
                    raise _Played
        except _Played:
            return None
        return play

    async def finish(self, play: DailyPlay, score: int, accuracy: int | None, now: float) -> None:
        """Record the result of ``play``'s game, unless /forget-me has made the play a bare
        marker since it was read (its game is then :data:`~bot.daily.NO_GAME`)."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE daily_plays SET score = ?, accuracy = ?, finished_at = ?"
                " WHERE day = ? AND kind = ? AND user_id = ? AND game_id = ? AND score IS NULL",
                (score, accuracy, now, play.day, play.kind, play.user_id, play.game_id),
            )

    async def board(self, day: int, kind: str, guild_id: int | None) -> list[DailyPlay]:
        """A day's plays in one server, or (``guild_id`` None) of everyone on the world board,
        each under the name that board shows: on the world board the person's own name on
        Discord, not a nickname of the server where they played (see :class:`DailyPlay`)."""
        params: tuple[int | str, ...] = (day, kind)
        if guild_id is None:
            where, shown = "user_id IN (SELECT user_id FROM daily_world)", _WORLD_NAME
        else:
            where, shown, params = "guild_id = ?", "name", (*params, guild_id)
        rows = await self.db.fetchall(
            f"SELECT {_play_named(shown)} FROM daily_plays"
            f" WHERE day = ? AND kind = ? AND {where} AND game_id <> ?",
            (*params, NO_GAME),
        )
        return sorted((_play(r) for r in rows), key=board_order)

    async def days_played(self, kind: str, user_id: int, since: int) -> list[int]:
        """The days (from ``since`` on) the person finished a daily game of ``kind``: by its
        game's status, as a result is recorded only on the first read after the last move."""
        rows = await self.db.fetchall(
            "SELECT p.day FROM daily_plays p JOIN games g ON g.id = p.game_id"
            " WHERE p.kind = ? AND p.user_id = ? AND p.day >= ?"
            " AND (p.score IS NOT NULL OR g.status = 'finished')",
            (kind, user_id, since),
        )
        return [int(r[0]) for r in rows]

    async def set_world(self, user_id: int, joined: bool, now: float) -> None:
        async with self.db.transaction() as conn:
            if joined:
                await conn.execute(
                    "INSERT INTO daily_world (user_id, joined_at) VALUES (?, ?)"
                    " ON CONFLICT (user_id) DO NOTHING",
                    (user_id, now),
                )
            else:
                await conn.execute("DELETE FROM daily_world WHERE user_id = ?", (user_id,))

    async def in_world(self, user_id: int) -> bool:
        rows = await self.db.fetchall("SELECT 1 FROM daily_world WHERE user_id = ?", (user_id,))
        return bool(rows)

    async def set_channel(self, guild_id: int, channel_id: int | None) -> None:
        async with self.db.transaction() as conn:
            if channel_id is None:
                await conn.execute("DELETE FROM daily_channels WHERE guild_id = ?", (guild_id,))
                return
            await conn.execute(
                "INSERT INTO daily_channels (guild_id, channel_id) VALUES (?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET channel_id = excluded.channel_id,"
                " refused_day = NULL",
                (guild_id, channel_id),
            )

    async def channel(self, guild_id: int) -> DailyChannel | None:
        rows = await self.db.fetchall(
            "SELECT channel_id, refused_day FROM daily_channels WHERE guild_id = ?", (guild_id,)
        )
        return DailyChannel(*rows[0]) if rows else None

    async def channels(self, guild_ids: Sequence[int]) -> dict[int, DailyChannel]:
        """Many servers' channels in one query (a server choosing none is absent): see
        :func:`db.settings.guilds_settings`."""
        if not guild_ids:
            return {}
        marks = ", ".join("?" * len(guild_ids))
        rows = await self.db.fetchall(
            "SELECT guild_id, channel_id, refused_day FROM daily_channels"
            f" WHERE guild_id IN ({marks})",
            tuple(guild_ids),
        )
        return {int(r[0]): DailyChannel(int(r[1]), r[2]) for r in rows}

    async def set_refused(self, guild_id: int, channel_id: int, day: int | None) -> None:
        """Note that Discord refused the board of ``day`` in ``channel_id`` (None: that a post
        went through), unless the server has chosen another channel meanwhile."""
        unless = "" if day is not None else " AND refused_day IS NOT NULL"  # nothing to clear
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE daily_channels SET refused_day = ? WHERE guild_id = ? AND channel_id = ?"
                + unless,
                (day, guild_id, channel_id),
            )

    async def drop_channel(self, guild_id: int, channel_id: int) -> bool:
        """Stop posting in ``channel_id``, unless the server has chosen another meanwhile."""
        async with self.db.transaction() as conn:
            dropped = await conn.execute(
                "DELETE FROM daily_channels WHERE guild_id = ? AND channel_id = ?",
                (guild_id, channel_id),
            )
            return dropped == 1

    async def channels_due(self, day: int) -> list[tuple[int, int]]:
        """(server, channel) whose board of ``day`` is not posted yet."""
        rows = await self.db.fetchall(
            "SELECT guild_id, channel_id FROM daily_channels WHERE posted_day < ?", (day,)
        )
        return [(int(r[0]), int(r[1])) for r in rows]

    async def claim(self, guild_id: int, day: int) -> bool:
        """Take the posting of the server's board of ``day``, for one caller only, however many
        processes read it as due at once (False: another has it). A board of ``day`` posted
        already, before the server cleared or changed its channel, is not posted again."""
        async with self.db.transaction() as conn:
            posted = await conn.fetchall(
                "SELECT 1 FROM daily_boards WHERE guild_id = ? AND day = ?", (guild_id, day)
            )
            claimed = await conn.execute(
                "UPDATE daily_channels SET posted_day = ? WHERE guild_id = ? AND posted_day < ?",
                (day, guild_id, day),
            )
        return claimed == 1 and not posted

    async def unclaim(self, guild_id: int, day: int) -> None:
        """Give back the claim of the server's board of ``day``, whose post a shutdown cut
        off: the board is due again (unless it was chosen anew meanwhile)."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE daily_channels SET posted_day = ? WHERE guild_id = ? AND posted_day = ?",
                (day - 1, guild_id, day),
            )

    async def posted(self, guild_id: int, board: PostedBoard, draw_on: int) -> None:
        """The server's board of ``board.day`` went out as that message: it is to be drawn
        again from the day ``draw_on`` (:meth:`to_draw`)."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO daily_boards (guild_id, day, channel_id, message_id, draw_on)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, day) DO NOTHING",
                (guild_id, board.day, board.channel_id, board.message_id, draw_on),
            )

    async def to_draw(self, today: int) -> list[BoardToDraw]:
        """The boards to be drawn again by ``today``: their day has closed since they were
        drawn, or someone on them was erased."""
        rows = await self.db.fetchall(
            "SELECT guild_id, day, channel_id, message_id, draw_on FROM daily_boards"
            " WHERE draw_on IS NOT NULL AND draw_on <= ?",
            (today,),
        )
        return [
            BoardToDraw(int(r[0]), PostedBoard(int(r[1]), int(r[2]), int(r[3])), int(r[4]))
            for r in rows
        ]

    async def take(self, due: BoardToDraw) -> bool:
        """Take the drawing of a board due, for one caller only (False: another has it, or
        has drawn it, or it became due again meanwhile and is read again at the next pass)."""
        async with self.db.transaction() as conn:
            taken = await conn.execute(
                "UPDATE daily_boards SET draw_on = NULL"
                " WHERE guild_id = ? AND day = ? AND draw_on = ?",
                (due.guild_id, due.board.day, due.draw_on),
            )
        return taken == 1

    async def draw_again_on(self, due: BoardToDraw, draw_on: int) -> None:
        """The board taken was drawn while its day is still open: it is to be drawn again
        from ``draw_on``, unless it became due again meanwhile."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE daily_boards SET draw_on = ?"
                " WHERE guild_id = ? AND day = ? AND draw_on IS NULL",
                (draw_on, due.guild_id, due.board.day),
            )

    async def put_back(self, due: BoardToDraw, tries: int) -> None:
        """Drawing the board taken failed: to be drawn at the next pass, unless it has
        failed ``tries`` times in a row since it was posted or someone on it was erased (it
        is left as it is) or it became due again meanwhile."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "UPDATE daily_boards SET draw_on = ?, tries = tries + 1"
                " WHERE guild_id = ? AND day = ? AND draw_on IS NULL AND tries + 1 < ?",
                (due.draw_on, due.guild_id, due.board.day, tries),
            )


PERSON_SERVERS: tuple[str, ...] = ("SELECT guild_id FROM daily_plays WHERE user_id = ?",)
"""The servers where a person has plays: a play's game has their seat (see db.games), but a
marker an earlier /forget-me kept has no game, and once its day is over :func:`forget` deletes
it (a marker of today it keeps again)."""


async def forget(tx: Transaction, guild_id: int, user_id: int) -> int:
    """The person's daily plays here, and their place on the board across servers; the
    boards posted here that showed them are to be drawn again (:meth:`DailyStore.to_draw`).

    A play of today (the wall clock's day, as /daily's) loses its names, result and game but
    stays as a marker until the day is over: everyone's dice that day are the same, so
    deleting it would let the person play the day again knowing them."""
    today = day_of(time.time())
    person = (guild_id, user_id)
    await tx.execute(  # the boards posted here that show them: drawn again at once
        "UPDATE daily_boards SET draw_on = 0, tries = 0 WHERE guild_id = ?"
        " AND day IN (SELECT day FROM daily_plays WHERE guild_id = ? AND user_id = ?)",
        (guild_id, *person),
    )
    past = await tx.execute(
        "DELETE FROM daily_plays WHERE guild_id = ? AND user_id = ? AND day < ?",
        (*person, today),
    )
    kept = await tx.execute(
        "UPDATE daily_plays SET game_id = ?, name = '', world_name = NULL, score = NULL,"
        " accuracy = NULL, finished_at = NULL"
        " WHERE guild_id = ? AND user_id = ? AND day >= ? AND game_id <> ?",
        (NO_GAME, *person, today, NO_GAME),
    )
    return past + kept + await forget_world(tx, user_id)


async def forget_world(tx: Transaction, user_id: int) -> int:
    """The person's place on the board across servers (which no server holds)."""
    return await tx.execute("DELETE FROM daily_world WHERE user_id = ?", (user_id,))


async def expire(tx: Transaction, today: int) -> int:
    """Delete the markers /forget-me kept of days before ``today``: a day over needs no
    once-a-day rule any more."""
    return await tx.execute(
        "DELETE FROM daily_plays WHERE game_id = ? AND day < ?", (NO_GAME, today)
    )


async def purge(tx: Transaction, guild_id: int) -> None:
    for table in ("daily_plays", "daily_channels", "daily_boards"):
        await tx.execute(f"DELETE FROM {table} WHERE guild_id = ?", (guild_id,))
