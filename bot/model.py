"""Orchard's game model: what a game, a seat, a move and a result are, apart from storage.

``db/`` stores these and ``bot/`` acts on them; neither owns them. Strings that are stored
(statuses, move sources, rating pools) are enums, so a typo is a type error, not a silent miss.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any


class GameStatus(StrEnum):
    """Where a game is in its life; stored as its value."""

    LOBBY = "lobby"
    ACTIVE = "active"
    FINISHED = "finished"
    ABANDONED = "abandoned"
    CANCELLED = "cancelled"

    @property
    def is_open(self) -> bool:
        """A lobby or a game in play: still someone's business."""
        return self in (GameStatus.LOBBY, GameStatus.ACTIVE)


class Due(StrEnum):
    """What a game can be due for, as the ``games`` column holding when: its deadline (a turn
    or a lobby running out), or Orchard's move (the time the game began awaiting an Orchard
    seat; it is due once Orchard's pause has passed since)."""

    DEADLINE = "deadline"
    ORCHARD = "orchard_since"


class MoveSource(StrEnum):
    """Who made a logged move: a person, Orchard, the clock, or a seat leaving."""

    PLAYER = "player"
    BOT = "bot"
    TIMEOUT = "timeout"
    FORFEIT = "forfeit"


class RatingPool(StrEnum):
    """Ratings between people, and apart from them ratings in games with Orchard seated."""

    PEOPLE = "people"
    ORCHARD = "orchard"


FORFEIT_VERB = "forfeit"
"""The move-log verb of a seat leaving; it is no engine's action, so the runner owns it."""


NOBODY = 0
"""The user id of no one (Discord ids are never 0): a seat or hosted game of a person who used
/forget-me, in a game that was over, carries it instead of theirs."""

FORMER_PLAYER = "Former player"
"""The name such a seat carries instead of theirs."""


@dataclass(frozen=True)
class Player:
    seat: int
    user_id: int
    name: str
    is_bot: bool = False
    timeouts: int = 0
    level: str = ""


@dataclass(frozen=True)
class GameRow:
    """A game as stored; ``state`` is the engine's JSON (None while in the lobby)."""

    id: int
    kind: str
    variant: str
    guild_id: int
    channel_id: int
    message_id: int | None
    host_id: int
    status: GameStatus
    seed: int
    options: dict[str, Any]
    state: dict[str, Any] | None
    version: int
    deadline: float | None
    created_at: float
    updated_at: float
    players: tuple[Player, ...] = ()
    hinted: bool = False  # someone asked for a hint: the standings say so
    # Counts the writes a board draws (see GameChange.revise); ``version`` counts moves only
    # (every button carries it), and an end or a lobby's seats keep it.
    revision: int = 0
    # The clock closed it: a lobby nobody started, a daily game left unfinished, a game whose
    # players all timed out too often at once.
    expired: bool = False
    # A lobby its host's /forget-me closed: not their Cancel, though either way the row no
    # longer names its host.
    host_left: bool = False

    def seat_of(self, user_id: int) -> int | None:
        return seat_of(self.players, user_id)


@dataclass(frozen=True)
class GameSummary:
    """An open game as a list shows it: who plays, where, and at which version, without its
    state or options (decoding every open game's state is what made /games slow)."""

    id: int
    kind: str
    status: GameStatus
    guild_id: int
    channel_id: int
    message_id: int | None
    host_id: int
    version: int
    players: tuple[Player, ...] = ()
    # Seats that have left the game (given up, timed out too often, or /forget-me), read
    # from their logged forfeits: the engine's state says so too, but a list decodes none.
    left: frozenset[int] = frozenset()

    def seat_of(self, user_id: int) -> int | None:
        return seat_of(self.players, user_id)

    @property
    def playing(self) -> tuple[Player, ...]:
        """The seats still in the game."""
        return tuple(p for p in self.players if p.seat not in self.left)

    def plays(self, user_id: int) -> bool:
        """Whether a person has a seat here that they have not left."""
        seat = self.seat_of(user_id)
        return seat is not None and seat not in self.left


def seat_of(players: Sequence[Player], user_id: int) -> int | None:
    """The seat of a person (never one of Orchard's seats, which share the bot's id)."""
    for player in players:
        if player.user_id == user_id and not player.is_bot:
            return player.seat
    return None


@dataclass(frozen=True)
class Move:
    """One entry of a game's move log: who did what (``verb``, ``arg``: the engine's text form)."""

    seat: int
    verb: str
    arg: str = ""
    user_id: int | None = None
    source: MoveSource = MoveSource.PLAYER


@dataclass(frozen=True)
class KindStats:
    """One player's record in one game.

    ``wins`` and ``people_games`` count games between people (two or more seats, no Orchard),
    as the wins board does; games against Orchard are counted apart, like their ratings.
    Ratings are (mu, sigma) in the people's and the Orchard pool, if rated there.
    """

    kind: str
    games: int
    wins: int
    people_games: int
    best: int
    lowest: int
    average: float
    last_played: float
    rating: tuple[float, float] | None
    orchard_wins: int = 0
    orchard_games: int = 0
    orchard_rating: tuple[float, float] | None = None


@dataclass(frozen=True)
class PastGame:
    game_id: int
    kind: str
    channel_id: int
    message_id: int | None
    finished_at: float
    seats: tuple[tuple[int, bool, int, int, bool], ...]  # user, is_bot, score, place, won
    hinted: bool = False
    erased: int = 0
    """Seats whose person was erased since (/forget-me): their results went with them."""


@dataclass(frozen=True)
class Viewer:
    """Who reads a /history, and whether they may view a channel: a game elsewhere is left
    out unless they played in it, so a history never tells of a channel hidden from them."""

    user_id: int
    sees: Callable[[int], bool]


@dataclass(frozen=True)
class TurnPing:
    """Where a game's turn pings stand: the version last handled, the seats it waited for then
    (each told once per turn), and the live turn message with the seats it pinged. Seats, not
    user ids: the record names nobody."""

    game_id: int
    version: int = -1
    awaited: frozenset[int] = frozenset()
    message_id: int | None = None
    mentioned: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Result:
    seat: int
    user_id: int
    is_bot: bool
    score: int
    placement: int
    won: bool


class Keep(Enum):
    """The marker of a field a :class:`GameChange` leaves as it is (where None means clear)."""

    KEEP = "keep"


KEEP = Keep.KEEP


@dataclass(frozen=True)
class GameChange:
    """One change to a game row, written in one transaction, or not at all.

    The guards (``from_status``, ``expected_version``) make it refuse a row that moved on
    meanwhile; every other field left at its default changes nothing.
    """

    game_id: int
    from_status: GameStatus | None = None
    expected_version: int | None = None
    status: GameStatus | None = None
    state: dict[str, Any] | None = None
    version: int | None = None
    deadline: float | Keep | None = KEEP
    orchard_since: float | Keep | None = KEEP  # see Due.ORCHARD; the runner sets it
    players: tuple[Player, ...] | None = None  # the lobby's seats, renumbered in order
    timeouts: Mapping[int, int] = field(default_factory=dict)
    moves: tuple[Move, ...] = ()  # appended to the log after ``expected_version``
    results: tuple[Result, ...] = ()
    rating: RatingUpdate | None = None
    hinted: bool = False
    expired: bool = False  # the clock closes it (see GameRow.expired)
    host_left: bool = False  # its host's /forget-me closes the lobby (see GameRow.host_left)
    message_id: int | None = None
    forgotten: int | None = None  # a person (/forget-me) whose seat becomes a former player's
    # A change a board draws (the runner's, which displays it): the row's revision goes up by
    # one, so processes sharing the store tell the latest drawn row by it. A write nobody
    # draws (a hint mark, a message id, a due time) keeps it: a board drawn just before must
    # not look overtaken by a row no display will draw.
    revise: bool = False

    def __post_init__(self) -> None:
        """Moves are numbered on from ``expected_version``: without it, or with a ``version``
        that does not count them, the log and the row would disagree."""
        if self.moves and (
            self.expected_version is None or self.version != self.expected_version + len(self.moves)
        ):
            raise ValueError("moves need expected_version, and version = expected + len(moves)")


@dataclass(frozen=True)
class RatingUpdate:
    """Rate a finished game: ``rate`` maps the players' stored ratings to their new ones.

    It runs inside the write's transaction, so two games finishing at once cannot both
    start from the same old rating.
    """

    pool: RatingPool
    places: Sequence[tuple[int, int]]
    rate: Callable[
        [dict[int, tuple[float, float]], Sequence[tuple[int, int]]], dict[int, tuple[float, float]]
    ]
