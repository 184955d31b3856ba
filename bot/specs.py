"""Every game Orchard hosts, each declared once: the one list the rest of Orchard derives from.

A game is an engine module (``bot/games``), a UI module (``cogs``), one :class:`GameSpec` here
and its rules in ``seeds/``. The runner's engines, Orchard's strategies and tables, the
command choices, titles and whether lower scores win all come from :data:`SPECS`, so no
hand-kept list elsewhere can forget a game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.ai import (
    applejack_players,
    applejack_review,
    appletters_players,
    appletters_review,
    cheerio_players,
    cheerio_review,
    hotscore_players,
    hotscore_review,
)
from bot.games import applejack, appletters, cheerio, hotscore
from bot.games.applejack import ApplejackAction
from bot.games.appletters import AppLettersAction
from bot.games.base import Engine
from bot.games.cheerio import CheerioAction
from bot.games.hotscore import HotscoreAction
from bot.model import Move

LEVELS = ("easy", "normal", "hard")
"""How well Orchard plays, weakest first; the order ranks Orchard's seats for ratings."""
DEFAULT_LEVEL = "normal"
"""Orchard's level when none is chosen (and for seats stored before levels were)."""


def orchard_name(level: str) -> str:
    """Orchard's seat as people read it, in the lobby's menu, its seat list and its games."""
    return f"Orchard ({level.capitalize()})"


GameAction = CheerioAction | ApplejackAction | HotscoreAction | AppLettersAction
"""Any game's typed action: what Orchard's strategies return."""

Strategy = Callable[[Any, int, str, int], GameAction]
"""``choose(view, seat, level, seed)``: a seat's typed action from what that seat may see."""

DiceRules = tuple[Sequence[str], Callable[[str, Sequence[int]], int]]
"""A dice game's categories and scoring: all its exact tables depend on (tools/build_tables.py
builds them into the package under the game's command name)."""

Reviewer = Callable[[str, int, int, Mapping[str, Any], Sequence[Move], int], str]
"""``review(kind, seed, players, options, moves, seat)``: one seat's review of a finished game,
as the text only that player is shown (the Review button; see bot/reviews.py)."""

DailyAccuracy = Callable[[int, Mapping[str, Any], Sequence[Move]], int | None]
"""``accuracy(seed, options, moves)`` of a finished solo daily game (None if it has none): a
game that has one is played by /daily with options ``{"daily": day}`` (see bot/daily.py)."""


@dataclass(frozen=True)
class Variant:
    """One playable form of a game: its stored ``kind``, names and engine."""

    kind: str
    title: str
    blurb: str
    engine: Engine[Any, Any]
    lower_is_better: bool = False  # the score is what is left (tiles), not what was made
    option: str = ""  # what the game's /new command calls it; empty for the game itself


@dataclass(frozen=True)
class GameSpec:
    """A game: its variants (the first is the game itself), UI, and Orchard's play.

    What a seat may see is its engine's ``view_for``: Orchard's strategy is given nothing else.
    """

    command: str  # the slash-command group
    ui: str  # the extension module that draws it in Discord
    variants: tuple[Variant, ...]
    strategy: Strategy | None = None  # None: Orchard does not play this game
    levels: tuple[str, ...] = LEVELS
    tables: DiceRules | None = None  # what Orchard's exact tables (shipped) are built from
    review: Reviewer | None = None  # None: a finished game has no Review button
    daily: DailyAccuracy | None = None  # set: /daily plays it solo (bot/daily.py)

    @property
    def main(self) -> Variant:
        return self.variants[0]

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(v.kind for v in self.variants)


CHEERIO = GameSpec(
    command="cheerio",
    ui="cogs.cheerio",
    variants=(
        Variant(
            "cheerio",
            "Cheerio",
            "Five dice, seven categories, ones wild. 1 to 6 players.",
            cheerio.ENGINE,
        ),
    ),
    strategy=cheerio_players.choose,
    tables=(cheerio.CATEGORIES, cheerio.score),
    review=cheerio_review.review_text,
    daily=cheerio_review.accuracy,
)

APPLEJACK = GameSpec(
    command="applejack",
    ui="cogs.applejack",
    variants=(
        Variant(
            "applejack",
            "Apple Jack",
            "Cheerio played together: the caller picks where everyone scores. 2 to 6 players.",
            applejack.ENGINE,
        ),
    ),
    strategy=applejack_players.choose,
    tables=(applejack.CATEGORIES, applejack.score),
    review=applejack_review.review_text,
    daily=applejack_review.accuracy,
)

HOTSCORE = GameSpec(
    command="hotscore",
    ui="cogs.hotscore",
    variants=(
        Variant(
            "hotscore",
            "Hot Score",
            "A dice duel to exactly 100. 2 players.",
            hotscore.ENGINE,
        ),
    ),
    strategy=hotscore_players.choose,
    review=hotscore_review.review_text,
)

APPLETTERS = GameSpec(
    command="appletters",
    ui="cogs.appletters",
    variants=(
        Variant(
            "appletters",
            "Appletters",
            "Grow one word snake together; use all your tiles first. 2 to 6 players.",
            appletters.ENGINE,
            lower_is_better=True,
            option="appletters",
        ),
        Variant(
            "appleturnover",
            "Apple Turnover",
            "Appletters with bigger hands, stolen words, a Bad Apple swap and challenges."
            " 2 to 6 players.",
            appletters.TURNOVER_ENGINE,
            lower_is_better=True,
            option="turnover",
        ),
        Variant(
            "applescore",
            "Applescore",
            "Appletters with points for every tile, long words and mirror words. 2 to 6 players.",
            appletters.SCORE_ENGINE,
            option="applescore",
        ),
    ),
    strategy=appletters_players.choose,
    review=appletters_review.review_text,
)

SPECS: tuple[GameSpec, ...] = (CHEERIO, APPLEJACK, HOTSCORE, APPLETTERS)

VARIANTS: Mapping[str, Variant] = {v.kind: v for spec in SPECS for v in spec.variants}
"""Every playable kind, in the order the specs list them."""

SPEC_OF: Mapping[str, GameSpec] = {v.kind: spec for spec in SPECS for v in spec.variants}

ENGINES: Mapping[str, Engine[Any, Any]] = {kind: v.engine for kind, v in VARIANTS.items()}


def title(kind: str) -> str:
    """A kind's display name (the kind itself for one no spec declares, e.g. a removed game)."""
    variant = VARIANTS.get(kind)
    return variant.title if variant else kind


def lower_is_better(kind: str) -> bool:
    variant = VARIANTS.get(kind)
    return variant is not None and variant.lower_is_better


def orchard_plays(kind: str) -> bool:
    spec = SPEC_OF.get(kind)
    return spec is not None and spec.strategy is not None
