"""Orchard's persistent controls: buttons and selects whose custom_id says what they do.

Every button and select carries ``game id, version, verb, argument`` in its custom_id, so any
click on any message works after a restart without re-posting, and a click on an older version
of a board is recognised as already played. discord.py never dispatches them: the client
reads every click's custom_id (:data:`OURS`) and hands it on, so this module needs nothing
from the rest of the interface.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
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
OURS = re.compile(r"orcs?:" + _FIELDS)


def custom_id(prefix: str, game_id: int, version: int, verb: str, arg: str = "") -> str:
    return f"{prefix}:{game_id}:{version}:{verb}:{arg}"


class GameButton(ui.Button[Any]):
    """A button on a game message; pressing it sends one action to the client.

    Not dispatchable: discord.py's view store never keeps it or rebuilds the clicked
    message's view to find it (that rebuild of a whole Components V2 board took about 8% of
    the loop in a game night); every click reaches the client's ``on_interaction``, which reads the
    action from the custom_id (:data:`OURS`) and checks the control is on the message.
    """

    def __init__(
        self,
        game_id: int,
        version: int,
        verb: str,
        arg: str = "",
        *,
        label: str | None = None,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        emoji: str | discord.PartialEmoji | None = None,
        disabled: bool = False,
        row: int | None = None,
    ) -> None:
        super().__init__(
            label=label,
            style=style,
            emoji=emoji,
            disabled=disabled,
            row=row,
            custom_id=custom_id("orc", game_id, version, verb, arg),
        )

    def is_dispatchable(self) -> bool:
        return False


class GameSelect(ui.Select[Any]):
    """A select on a game message; the chosen value becomes the action's argument.

    With several values (single-character die positions), they are joined in order: "024".
    Dispatched by the client, like :class:`GameButton`.
    """

    def __init__(
        self,
        game_id: int,
        version: int,
        verb: str,
        options: Sequence[discord.SelectOption] = (),
        *,
        placeholder: str | None = None,
        row: int | None = None,
        max_values: int = 1,
    ) -> None:
        choices = list(options) or [discord.SelectOption(label="-")]
        super().__init__(
            custom_id=custom_id("orcs", game_id, version, verb),
            options=choices,
            placeholder=placeholder,
            row=row,
            max_values=min(max_values, len(choices)),
        )

    def is_dispatchable(self) -> bool:
        return False


def select_value(interaction: discord.Interaction[Any]) -> str:
    """A select's choice as an action argument; several die positions join in order: "024"."""
    values = [str(v) for v in data_of(interaction).get("values") or [""]]
    return ("".join(sorted(values)) if len(values) > 1 else values[0])[:100]


def component_arg(interaction: discord.Interaction[Any], match: re.Match[str]) -> str:
    """The action argument of a click: the button's own, or the select's chosen value."""
    return select_value(interaction) if "values" in data_of(interaction) else match["arg"]


def shown_as(message: discord.Message | None, custom: str) -> int | None:
    """The component type ``custom`` has on ``message``, or None when it is not there.

    A game control not on the clicked message is one its board no longer shows (the runner
    says why the click is refused); another kind of control there is forged. Boards nest
    their controls (Components V2: action rows in a container), so the whole tree is searched.
    """
    if message is None:
        return None
    for child in _every(list(message.components)):
        if getattr(child, "custom_id", None) == custom:
            return int(child.type.value)
    return None


def _every(components: list[Any]) -> Iterator[Any]:
    for component in components:
        yield component
        yield from _every(list(getattr(component, "children", None) or []))
        accessory = getattr(component, "accessory", None)
        if accessory is not None:
            yield from _every([accessory])


def data_of(interaction: discord.Interaction[Any]) -> dict[str, Any]:
    """The interaction's raw data as a plain dict (discord.py types it as a union)."""
    return dict(interaction.data or {})


def view_of(*items: ui.Item[Any]) -> ui.View:
    view = ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view
