"""Orchard's persistent controls: buttons and selects whose custom_id says what they do.

Every button and select carries ``game id, version, verb, argument`` in its custom_id, so any
click on any message works after a restart without re-posting, and a click on an older version
of a board is recognised as stale (already played, or changed by others since). discord.py
never dispatches them: the client reads every click's custom_id (:data:`OURS`) and hands it
on, so this module needs nothing from the rest of the interface.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord
from discord import ui

_FIELDS = (
    r"(?P<game>[0-9]{1,18}):(?P<version>[0-9]{1,9}):"
    r"(?P<verb>[a-z_]{1,20}):(?P<arg>[A-Za-z0-9_+\-]{0,40})"
)
CUSTOM_ARG = re.compile(r"[A-Za-z0-9_+\-]{0,40}")
"""What an action's argument may be to travel in a custom_id (engines format to it)."""
MAX_BUTTONS = 25  # Discord's limit for one message
MAX_OPTIONS = 25  # Discord's limit for one select
OURS = re.compile(r"orcs?:" + _FIELDS)


def custom_id(prefix: str, game_id: int, version: int, verb: str, arg: str = "") -> str:
    return f"{prefix}:{game_id}:{version}:{verb}:{arg}"


_PUBLIC_PART = re.compile(r"[a-z]{1,8}(?::[0-9]{1,20}){0,2}(?::[a-z_]{1,20})?")
"""The start of a custom_id that says what kind of control it is: its prefix, then a game
id, version and verb where it has them, never the argument."""


def logged_id(custom: str) -> str:
    """What the logs may show of a custom_id: ``orc:12:3:play``, without its argument, which
    can be a word its player tried (an Appletters "which way?" button) and so show tiles
    still in their hand."""
    public = _PUBLIC_PART.match(custom)
    return public[0] if public else "?"


@dataclass(frozen=True, slots=True)
class GameButton:
    """A button on a game message; pressing it sends one action to the client.

    Plain data turned straight into Discord's JSON, not a discord.py ``ui.Button``: building
    a board's dozen buttons as ``ui`` items, then reading them back out as JSON, was most of a
    board's rendering, on every move. discord.py never dispatches these: every click reaches
    the client's ``on_interaction``, which reads the action from the custom_id (:data:`OURS`)
    and checks the control is on the message.
    """

    game_id: int
    version: int
    verb: str
    arg: str = ""
    label: str | None = None
    style: discord.ButtonStyle = discord.ButtonStyle.secondary
    emoji: str | discord.PartialEmoji | None = None
    disabled: bool = False

    @property
    def custom_id(self) -> str:
        return custom_id("orc", self.game_id, self.version, self.verb, self.arg)

    def to_component_dict(self) -> dict[str, Any]:
        """What discord.py's ``ui.Button`` would send for it (a test compares the two)."""
        data: dict[str, Any] = {"type": 2, "style": self.style.value, "disabled": self.disabled}
        if self.label:
            data["label"] = self.label
        data["custom_id"] = self.custom_id
        if self.emoji is not None:
            emoji = self.emoji
            if isinstance(emoji, str):
                emoji = discord.PartialEmoji.from_str(emoji)
            data["emoji"] = emoji.to_dict()
        return data


@dataclass(frozen=True, slots=True)
class GameSelect:
    """A select on a game message; the chosen value becomes the action's argument.

    With several values (single-character die positions), they are joined in order: "024".
    Data like :class:`GameButton`, and dispatched by the client the same way. ``arg`` only
    tells apart selects of one verb in one message (Discord refuses two equal custom_ids):
    the action's argument is always the chosen value.
    """

    game_id: int
    version: int
    verb: str
    options: Sequence[discord.SelectOption] = ()
    placeholder: str | None = None
    max_values: int = 1
    arg: str = ""

    @property
    def custom_id(self) -> str:
        return custom_id("orcs", self.game_id, self.version, self.verb, self.arg)

    def to_component_dict(self) -> dict[str, Any]:
        """What discord.py's ``ui.Select`` would send for it (a test compares the two)."""
        choices = list(self.options) or [discord.SelectOption(label="-")]
        data: dict[str, Any] = {
            "type": 3,
            "custom_id": self.custom_id,
            "min_values": 1,
            "max_values": min(self.max_values, len(choices)),
            "disabled": False,
            "required": True,
        }
        if self.placeholder:
            data["placeholder"] = self.placeholder
        data["options"] = [option.to_dict() for option in choices]
        return data


Control = GameButton | GameSelect
"""A game control: a button or a select, turned into Discord's JSON by itself."""


class Drawn(ui.LayoutView):
    """A Components V2 message given as Discord's own JSON: sent as it is, never dispatched
    by discord.py (whose ``view=`` it is only to carry)."""

    def __init__(self, components: list[dict[str, Any]]) -> None:
        super().__init__(timeout=None)
        self._components = components

    def to_components(self) -> list[dict[str, Any]]:
        return self._components

    def has_components_v2(self) -> bool:
        return True


class DrawnRows(ui.View):
    """Game controls in rows of their own under a plain message (an ephemeral answer)."""

    def __init__(self, controls: Sequence[Control]) -> None:
        super().__init__(timeout=None)
        self._components = [action_row(row) for row in rows_of(controls)]

    def to_components(self) -> list[dict[str, Any]]:
        return self._components


def action_row(controls: Sequence[Control]) -> dict[str, Any]:
    return {"type": 1, "components": [control.to_component_dict() for control in controls]}


def rows_of(controls: Sequence[Control]) -> list[list[Control]]:
    """Up to five buttons a row, a select alone in its own, in order (Discord's limits)."""
    rows: list[list[Control]] = []
    for control in controls:
        if not rows or len(rows[-1]) == 5 or GameSelect in (type(control), type(rows[-1][0])):
            rows.append([control])
        else:
            rows[-1].append(control)
    return rows


def select_value(interaction: discord.Interaction[Any]) -> str:
    """A select's choice as an action argument; several die positions join in order: "024"."""
    values = [str(v) for v in data_of(interaction).get("values") or [""]]
    return ("".join(sorted(values)) if len(values) > 1 else values[0])[:100]


def component_arg(interaction: discord.Interaction[Any], match: re.Match[str]) -> str:
    """The action argument of a click: the button's own, or the select's chosen value."""
    return select_value(interaction) if "values" in data_of(interaction) else match["arg"]


SHOWN = "orchard_shown"
"""Set by :func:`read_click` in a click's data: the clicked control's type on its message."""


def read_click(data: dict[str, Any]) -> None:
    """A click as it arrives, before discord.py parses it: note the clicked control's type on
    the message (:data:`SHOWN`, None when not there), and for Orchard's own controls drop the
    message's components. They are a whole board nothing else reads, and discord.py's parse of
    them was two thirds of a click's. Other items keep theirs: discord.py rebuilds their view
    from the message to run them."""
    inner, message = data.get("data"), data.get("message")
    if data.get("type") != discord.InteractionType.component.value or not isinstance(inner, dict):
        return
    if not isinstance(message, dict):
        return
    custom = inner.get("custom_id")
    inner[SHOWN] = _type_on(message.get("components") or [], custom)
    if isinstance(custom, str) and OURS.fullmatch(custom):
        message["components"] = []


def _type_on(components: list[dict[str, Any]], custom: object) -> int | None:
    """The type of the component ``custom`` names among ``components`` and those they nest
    (Components V2: action rows in a container, a section's accessory)."""
    for component in components:
        if component.get("custom_id") == custom:
            return int(component["type"])
        nested = list(component.get("components") or [])
        if "accessory" in component:
            nested.append(component["accessory"])
        found = _type_on(nested, custom)
        if found is not None:
            return found
    return None


def shown_as(data: dict[str, Any]) -> int | None:
    """The component type the clicked control has on the clicked message, or None when it is
    not there, from the click's data (:func:`data_of`) as :func:`read_click` noted it.

    A game control not on the clicked message is one its board no longer shows (the runner
    says why the click is refused); another kind of control there is forged.
    """
    shown = data.get(SHOWN)
    return None if shown is None else int(shown)


def data_of(interaction: discord.Interaction[Any]) -> dict[str, Any]:
    """The interaction's raw data as a plain dict (discord.py types it as a union)."""
    return dict(interaction.data or {})
