"""Every game engine by its kind: the one place a new game is listed for the runner."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.games import applejack, appletters, cheerio, hotscore
from bot.games.base import Engine

ENGINES: Mapping[str, Engine[Any, Any]] = {
    cheerio.ENGINE.kind: cheerio.ENGINE,
    applejack.ENGINE.kind: applejack.ENGINE,
    hotscore.ENGINE.kind: hotscore.ENGINE,
    **{engine.kind: engine for engine in appletters.ENGINES},
}
