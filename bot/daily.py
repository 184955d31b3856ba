"""The Daily Orchard, pure: day numbers, which games are daily ones, streaks and share lines.

Every player gets the same dice on the same UTC day: a daily game's options are
``{"daily": day}`` and its engine draws each turn's dice from the day's fixed stream
(:func:`bot.games.base.daily_dice`), so the dice are derived, never stored per player. Day 1
is :data:`EPOCH` (1 January 2026, UTC); a day runs 00:00-24:00 UTC.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.games.base import daily_day

NO_CHANNEL = 0
"""The channel of a daily game: none. It is shown only in its player's own replies, so no
channel's list of games, lobby check or /forfeit there ever finds it."""

NO_GAME = 0
"""The game of a forgotten play (no game has id 0): /forget-me keeps, until the day is over,
only that the person played that day's game of that kind, so they cannot play it again
knowing its dice; the link to the game, the name and the result are gone."""

EPOCH = dt.date(2026, 1, 1)
"""Day 1 of the Daily Orchard (a UTC date); day numbers count on from it."""

HELP = """\
**/daily** (only you see it): the Daily Orchard. Everyone plays the same dice today \
(00:00-24:00 UTC), once a day: Cheerio, or with `game:` Apple Jack's eight categories played \
solo. Your dice depend only on the day, the turn and how many dice you have rerolled, so \
the same choices give everyone the same score. Your game waits for you (a restart too) until \
the next day ends: run /daily again to pick it up. Finished, you get your accuracy, a Review \
and a spoiler-free line to share. **/daily-board** shows today's (or yesterday's) results \
in a server, or across servers for players who joined with **/daily-world**; **/daily-channel** \
(Manage Server) picks a channel where yesterday's board is posted each day."""
"""The /help section of the Daily Orchard (for whoever assembles /help)."""


@dataclass(frozen=True)
class PostedBoard:
    """A server's daily board of ``day`` as posted, so that it can be made final once the
    day's games can no longer be finished (:func:`last_day`)."""

    day: int
    channel_id: int
    message_id: int


@dataclass(frozen=True)
class BoardToDraw:
    """A server's posted board, due to be drawn again from the day ``draw_on`` (0: at once,
    someone on it was erased) to its results as they then stand."""

    guild_id: int
    board: PostedBoard
    draw_on: int


@dataclass(frozen=True)
class DailyChannel:
    """Where a server's board of yesterday is posted, and the day Discord last refused it
    there (Orchard may not post in it: its admins are told in /settings); None since a post
    went through or the channel was chosen."""

    channel_id: int
    refused_day: int | None = None


@dataclass(frozen=True)
class DailyPlay:
    """One person's game of one day: where it was played, and its result once over.

    ``name`` is the person's name in the server where it began (a nickname there, maybe),
    shown on that server's board; ``world_name`` their own name on Discord, the same in every
    server, shown on the board across servers (None for a play stored before it was kept: the
    server's name is shown there instead)."""

    day: int
    kind: str
    user_id: int
    guild_id: int
    game_id: int
    name: str
    score: int | None = None
    accuracy: int | None = None
    world_name: str | None = None

    @property
    def forgotten(self) -> bool:
        """Only the bare fact of this play is left (see :data:`NO_GAME`)."""
        return self.game_id == NO_GAME


def day_number(moment: dt.datetime) -> int:
    """The Daily Orchard's number of the UTC day ``moment`` falls on (1 on :data:`EPOCH`)."""
    if moment.tzinfo is None:
        raise ValueError("a day number needs an aware datetime (UTC)")
    return (moment.astimezone(dt.UTC).date() - EPOCH).days + 1


def day_of(timestamp: float) -> int:
    return day_number(dt.datetime.fromtimestamp(timestamp, dt.UTC))


def date_of(day: int) -> dt.date:
    return EPOCH + dt.timedelta(days=day - 1)


def end_of(day: int) -> float:
    """The moment ``day`` is over (24:00 UTC), as a timestamp."""
    return dt.datetime.combine(date_of(day + 1), dt.time(), dt.UTC).timestamp()


def last_day(day: int) -> int:
    """The last day on which a daily game of ``day`` may be finished: the day after its own,
    so a game left at midnight can be finished the next day, and none stays open for good,
    seen by nobody. Until that day is over, ``day``'s board is not final."""
    return day + 1


def closes(options: Mapping[str, Any]) -> float | None:
    """When a daily game still unfinished closes, without a result (None: not a daily game):
    at the end of its :func:`last_day`."""
    day = daily_day(options)
    return None if day is None else end_of(last_day(day))


def is_daily(options: Mapping[str, Any]) -> bool:
    """A Daily Orchard game: private, without turn deadlines, pings or ordinary results."""
    return daily_day(options) is not None


def streak(days: Iterable[int], today: int) -> int:
    """Days in a row played, up to today (or up to yesterday, while today is still to play)."""
    played = set(days)
    day = today if today in played else today - 1
    count = 0
    while day in played:
        count += 1
        day -= 1
    return count


def share_line(day: int, title: str, score: int, accuracy: int | None) -> str:
    """What a player may post: the day, the game and the result, never a die."""
    line = f"Orchard Daily #{day} · {title} {score}"
    return line if accuracy is None else f"{line} · accuracy {accuracy}%"
