"""Strategies by game kind. A strategy sees one seat's state and returns that seat's action.

``choose(state, seat, level, seed)``: ``level`` is "easy", "normal" or "hard"; ``seed`` makes
any randomness (a Normal player's slips) replayable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bot.ai import applejack_players, appletters_players, cheerio_players, hotscore_players
from bot.ai.dice_optimal import tables_for
from bot.games.applejack import ApplejackAction
from bot.games.appletters import AppLettersAction
from bot.games.cheerio import CheerioAction
from bot.games.hotscore import HotscoreAction

LEVELS = ("easy", "normal", "hard")

GameAction = CheerioAction | ApplejackAction | HotscoreAction | AppLettersAction
Strategy = Callable[[Any, int, str, int], GameAction]

STRATEGIES: Mapping[str, Strategy] = {
    "cheerio": cheerio_players.choose,
    "applejack": applejack_players.choose,
    "hotscore": hotscore_players.choose,
    "appletters": appletters_players.choose,
    "applescore": appletters_players.choose,
    "appleturnover": appletters_players.choose,
}


def warm() -> None:
    """Build every table and cache a Hard decision needs (a second or two; run it off the
    event loop at start-up), so no first move spends that time inside a game's lock."""
    tables_for("cheerio")
    tables_for("applejack")
    hotscore_players.warm()
