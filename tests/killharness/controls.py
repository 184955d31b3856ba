"""Reading the bot's boards as a player does: its controls, whose turn, who is seated.

A control's custom_id is ``orc…:game:version:action:argument`` (see ``bot/components.py``).
"""

from __future__ import annotations

import re
from typing import Any

from bot.boards import LOBBY_VERBS
from bot.interface import NOT_MOVES as DONE  # a game no longer in play, or /games: not moves
from tests.fakediscord import Component, FakeDiscord, components_of, text_of

SEATED = re.compile(r"\*\*(\d+) players?\*\*")
NOT_MOVES = (*LOBBY_VERBS, *DONE)

Key = tuple[int, str, str]  # a control by what it does: component type, action, argument


def parts(component: Component) -> tuple[int, int, str, str]:
    """``game id, version, action, argument`` of one of the bot's controls."""
    _, game, version, kind, arg = (component.custom_id or "").split(":", 4)
    return int(game), int(version), kind, arg


def action_of(component: Component) -> str | None:
    custom = component.custom_id or ""
    return parts(component)[2] if custom.startswith("orc") and custom.count(":") == 4 else None


def controls(message: dict[str, Any]) -> list[Component]:
    """The bot's enabled buttons and selects on a message, in display order."""
    return [
        c
        for c in components_of(message)
        if (c.is_button or c.is_select) and not c.disabled and action_of(c) is not None
    ]


def find(message: dict[str, Any], action: str) -> Component | None:
    for c in controls(message):
        if action_of(c) == action:
            return c
    return None


def is_move(component: Component) -> bool:
    action = action_of(component)
    return action is not None and action not in NOT_MOVES and not action.startswith("ui_")


def key_of(component: Component) -> Key:
    _, _, kind, arg = parts(component)
    return component.type, kind, arg


def named(fake: FakeDiscord, message: dict[str, Any]) -> list[int]:
    """Whose turn it is: the game's message names the players it waits for (it mentions
    nobody: an edit would notify no one, so turn pings are messages of their own)."""
    content = turn_line(message)
    return [
        user_id
        for user_id, user in fake.users.items()
        # the substring test first: a regex each for hundreds of people (compiled anew, as
        # they outnumber re's cache) took a third of a game night's driver
        if (name := user["global_name"]) in content
        and re.search(rf"\b{re.escape(name)}\b", content)
    ]


def turn_line(message: dict[str, Any]) -> str:
    """A board's line saying whom it waits for (a legacy board's content, else the V2 line)."""
    for line in text_of(message).splitlines():
        if "'s turn" in line or line.startswith(("Waiting for", "**Waiting for")):
            return line
    return ""


def seated(message: dict[str, Any]) -> int:
    """How many players a lobby message lists."""
    found = SEATED.search(text_of(message))
    return int(found[1]) if found else 0


def version_of(payload: dict[str, Any]) -> int | None:
    """The game version a board (message or edit) was drawn for, from its controls."""
    shown = [c for c in components_of(payload) if action_of(c) is not None]
    return parts(shown[0])[1] if shown else None


def games_shown(fake: FakeDiscord) -> set[int]:
    """The id of every game any version of any message had a control of."""
    return {
        parts(c)[0]
        for versions in fake.versions.values()
        for message in versions
        for c in components_of(message)
        if action_of(c) is not None
    }
