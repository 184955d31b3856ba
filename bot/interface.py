"""Discord pieces every game shares: persistent components, one dispatch path, the lobby view.

Every button and select carries ``game id, version, action, argument`` in its custom_id, so
any click on any message works after a restart without re-posting, and a click on an older
version of a board is recognised as already played.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import discord
from discord import ui

from bot.ai.registry import LEVELS, STRATEGIES
from bot.model import Player
from bot.runner import Live, Refusal, Show, Stale

if TYPE_CHECKING:
    from bot.app import OrchardBot

log = logging.getLogger(__name__)

_FIELDS = (
    r"(?P<game>[0-9]{1,18}):(?P<version>[0-9]{1,9}):"
    r"(?P<kind>[a-z_]{1,20}):(?P<arg>[A-Za-z0-9_+\-]{0,40})"
)
BUTTON_TEMPLATE = r"orc:" + _FIELDS
SELECT_TEMPLATE = r"orcs:" + _FIELDS
OURS = re.compile(r"orcs?:" + _FIELDS)

LOBBY_ACTIONS = ("lobby_join", "lobby_leave", "lobby_start", "lobby_cancel", "lobby_addbot")


def custom_id(prefix: str, game_id: int, version: int, kind: str, arg: str = "") -> str:
    return f"{prefix}:{game_id}:{version}:{kind}:{arg}"


class GameButton(ui.DynamicItem[ui.Button[Any]], template=BUTTON_TEMPLATE):
    """A button on a game message; pressing it sends one action through :func:`dispatch`."""

    def __init__(
        self,
        game_id: int,
        version: int,
        kind: str,
        arg: str = "",
        *,
        label: str | None = None,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        emoji: str | None = None,
        disabled: bool = False,
        row: int | None = None,
    ) -> None:
        self.game_id, self.version, self.kind, self.arg = game_id, version, kind, arg
        super().__init__(
            ui.Button(
                label=label,
                style=style,
                emoji=emoji,
                disabled=disabled,
                row=row,
                custom_id=custom_id("orc", game_id, version, kind, arg),
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: ui.Item[Any], match: re.Match[str]
    ) -> GameButton:
        return cls(int(match["game"]), int(match["version"]), match["kind"], match["arg"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await dispatch(interaction, self.game_id, self.version, self.kind, self.arg)


class GameSelect(ui.DynamicItem[ui.Select[Any]], template=SELECT_TEMPLATE):
    """A select on a game message; the chosen value becomes the action's argument.

    With several values (single-character die positions), they are joined in order: "024".
    """

    def __init__(
        self,
        game_id: int,
        version: int,
        kind: str,
        options: Sequence[discord.SelectOption] = (),
        *,
        placeholder: str | None = None,
        row: int | None = None,
        max_values: int = 1,
    ) -> None:
        self.game_id, self.version, self.kind = game_id, version, kind
        choices = list(options) or [discord.SelectOption(label="-")]
        super().__init__(
            ui.Select(
                custom_id=custom_id("orcs", game_id, version, kind),
                options=choices,
                placeholder=placeholder,
                row=row,
                max_values=min(max_values, len(choices)),
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: ui.Item[Any], match: re.Match[str]
    ) -> GameSelect:
        return cls(int(match["game"]), int(match["version"]), match["kind"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        value = select_value(interaction)
        await dispatch(interaction, self.game_id, self.version, self.kind, value)


def select_value(interaction: discord.Interaction[Any]) -> str:
    """A select's choice as an action argument; several die positions join in order: "024"."""
    values = [str(v) for v in data_of(interaction).get("values") or [""]]
    return ("".join(sorted(values)) if len(values) > 1 else values[0])[:100]


def component_arg(interaction: discord.Interaction[Any], match: re.Match[str]) -> str:
    """The action argument of a click: the button's own, or the select's chosen value."""
    return select_value(interaction) if "values" in data_of(interaction) else match["arg"]


def shown_as(message: discord.Message | None, custom: str) -> int | None:
    """The component type ``custom`` has on ``message``, or None when it is not there.

    discord.py runs a dynamic item only when a component of the clicked type and id is on the
    message, so a click that fails this test is ours to answer.
    """
    if message is None:
        return None
    for row in message.components:
        for child in getattr(row, "children", [row]):
            if getattr(child, "custom_id", None) == custom:
                return int(child.type.value)
    return None


Draw = Callable[[], list[discord.File]]


@dataclass
class Rendered:
    """A game message: what to send the first time and what to edit in later."""

    embed: discord.Embed
    view: ui.View | None = None
    content: str | None = None
    files: list[discord.File] = field(default_factory=list)
    draw: Draw | None = None  # slow files, made off the event loop by render()

    def send_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"content": self.content, "embed": self.embed, "files": self.files}
        if self.view is not None:
            kwargs["view"] = self.view
        return kwargs

    def edit_kwargs(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "embed": self.embed,
            "view": self.view,
            "attachments": self.files,
        }


class GameUI(Protocol):
    """What a game's cog provides to the shared machinery."""

    kind: ClassVar[str]
    title: ClassVar[str]
    blurb: ClassVar[str]

    def render(self, live: Live) -> Rendered: ...

    async def on_ui(
        self, interaction: discord.Interaction[Any], live: Live, kind: str, arg: str
    ) -> None:
        """A button that only shows something (e.g. "My tiles") and is not a game move."""
        ...


def names(live: Live) -> list[str]:
    return [p.name for p in live.row.players]


def view_of(*items: ui.Item[Any]) -> ui.View:
    view = ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


def lobby_render(live: Live, title: str, blurb: str) -> Rendered:
    """The shared lobby message, and what is left of it once cancelled or expired."""
    row = live.row
    seats = "\n".join(
        f"{p.seat + 1}. {p.name}" + (" (host)" if p.user_id == row.host_id else "")
        for p in row.players
    )
    if row.status != "lobby":
        embed = discord.Embed(title=f"{title}: lobby closed", description=seats)
        return Rendered(embed=embed, view=ui.View(timeout=None))
    embed = discord.Embed(title=f"{title}: who is playing?", description=blurb)
    embed.add_field(name=f"Players ({len(row.players)})", value=seats or "nobody yet")
    embed.set_footer(
        text="The host presses Start when everyone is in. "
        "An unstarted lobby closes 15 minutes after the last join."
    )
    buttons: list[ui.Item[Any]] = [
        GameButton(row.id, 0, "lobby_join", label="Join", style=discord.ButtonStyle.primary),
        GameButton(row.id, 0, "lobby_leave", label="Leave"),
        GameButton(row.id, 0, "lobby_start", label="Start", style=discord.ButtonStyle.success),
        GameButton(row.id, 0, "lobby_cancel", label="Cancel", style=discord.ButtonStyle.danger),
    ]
    if row.kind in STRATEGIES:
        levels = [discord.SelectOption(label=f"Orchard ({lv})", value=lv) for lv in LEVELS]
        buttons.append(
            GameSelect(row.id, 0, "lobby_addbot", levels, placeholder="Add Orchard…", row=1)
        )
    return Rendered(embed=embed, view=view_of(*buttons))


async def render(bot: OrchardBot, live: Live) -> Rendered:
    """A game's message; a picture is drawn in a thread so other games keep moving meanwhile."""
    ui_ = bot.uis[live.row.kind]
    payload = lobby_render(live, ui_.title, ui_.blurb) if live.state is None else ui_.render(live)
    if payload.draw is not None:
        payload.files += await asyncio.to_thread(payload.draw)
        payload.draw = None
    return payload


def responder(interaction: discord.Interaction[Any]) -> Show:
    """Show a committed game by editing the clicked message in the interaction's reply.

    A click on any other message (an old board, since posted again) must not turn that
    message into this game: the game's own message is edited and the click answered privately.
    """

    async def present(live: Live) -> None:
        bot: OrchardBot = interaction.client
        if interaction.response.is_done():
            raise RuntimeError("interaction already answered")
        message = interaction.message
        if message is None or message.id != live.row.message_id:
            await bot.publish(live)
            await interaction.response.send_message(
                "Done: the game's message is updated.", ephemeral=True
            )
            return
        await interaction.response.edit_message(**(await render(bot, live)).edit_kwargs())

    return present


async def refuse(interaction: discord.Interaction[Any], message: str) -> None:
    """Answer privately; refusals are routine, so they are logged at debug level only.

    Clamped to Discord's 2,000 characters: a longer reply is refused outright (400), and
    the user would see no answer at all.
    """
    if len(message) > 2000:
        message = message[:1999] + "…"
    log.debug("refused %s for user %s: %s", _cid(interaction), interaction.user.id, message)
    if interaction.response.is_done():
        await interaction.followup.send(message, ephemeral=True)
    else:
        await interaction.response.send_message(message, ephemeral=True)


async def apologise(interaction: discord.Interaction[Any], game_id: int | None) -> None:
    error_id = secrets.token_hex(4)
    log.exception("error %s in game %s (%s)", error_id, game_id, _cid(interaction))
    text = f"Sorry, something went wrong on our side (error {error_id}). Nothing was lost."
    try:
        await refuse(interaction, text)
    except discord.HTTPException:
        log.warning("error %s: could not tell the user", error_id)


@asynccontextmanager
async def answering(
    interaction: discord.Interaction[Any], game_id: int | None
) -> AsyncIterator[None]:
    """Every click and form ends with an answer: a refusal is said privately, anything
    unexpected gets an apology with an error id (never "This interaction failed")."""
    try:
        yield
    except Refusal as err:
        await refuse(interaction, str(err))
    except Exception:
        await apologise(interaction, game_id)


async def dispatch(
    interaction: discord.Interaction[Any], game_id: int, version: int, kind: str, arg: str
) -> None:
    """The single entry for every click: lobby, display-only buttons, or a game move."""
    bot: OrchardBot = interaction.client
    async with answering(interaction, game_id):
        if kind in LOBBY_ACTIONS or kind in ("rematch", "repost") or kind.startswith("ui_"):
            await _not_a_move(bot, interaction, game_id, kind, arg)
            return
        try:  # the hot path: the runner loads the game once and checks everything
            await bot.runner.act(
                game_id,
                interaction.user.id,
                kind,
                arg,
                version=version,
                guild_id=interaction.guild_id or 0,
                present=responder(interaction),
            )
        except Stale as err:
            await refuse(interaction, str(err))
            await _heal(bot, interaction, game_id)


async def _heal(bot: OrchardBot, interaction: discord.Interaction[Any], game_id: int) -> None:
    """A stale control still on the game's own message means an edit never reached Discord
    (a 503, lost permissions, a crash between commit and edit): show the game as it is."""
    custom = str(data_of(interaction).get("custom_id", ""))
    message = interaction.message
    if message is None or shown_as(message, custom) is None:
        return  # the message was already redrawn; the player's client had an older copy
    async with bot.runner.lock(game_id):
        live = await bot.runner.load(game_id)
        if live.row.message_id == message.id:
            await bot.runner.show(live)


async def _not_a_move(
    bot: OrchardBot, interaction: discord.Interaction[Any], game_id: int, kind: str, arg: str
) -> None:
    live = await bot.runner.load(game_id)
    if interaction.guild_id != live.row.guild_id:
        raise Refusal("This game belongs to another server.")
    if kind in LOBBY_ACTIONS:
        await _lobby_action(bot, interaction, game_id, kind, arg)
    elif kind == "rematch":
        await bot.rematch(interaction, live)
    elif kind == "repost":
        await _repost(bot, interaction, live)
    else:
        await bot.uis[live.row.kind].on_ui(interaction, live, kind, arg)


async def _lobby_action(
    bot: OrchardBot, interaction: discord.Interaction[Any], game_id: int, kind: str, arg: str
) -> None:
    user = interaction.user
    present = responder(interaction)
    if kind == "lobby_join":
        await bot.lobby.join(game_id, Player(0, user.id, user.display_name), present)
    elif kind == "lobby_leave":
        await bot.lobby.leave(game_id, user.id, present)
    elif kind == "lobby_start":
        await bot.lobby.start(game_id, user.id, present)
    elif kind == "lobby_addbot":
        if arg not in LEVELS:
            raise Refusal("Choose Easy, Normal or Hard.")
        await bot.lobby.add_seat(game_id, user.id, bot.orchard_seat(arg), present)
    else:
        await bot.lobby.cancel(game_id, user.id, present)


async def _repost(bot: OrchardBot, interaction: discord.Interaction[Any], live: Live) -> None:
    """Post a game's board again (its message was deleted or lost) and point there."""
    if live.row.seat_of(interaction.user.id) is None:
        raise Refusal("Only this game's players can post it again.")
    if live.row.status not in ("lobby", "active"):
        raise Refusal("This game is over.")
    async with bot.runner.lock(live.id):
        message = await bot.post(await bot.runner.load(live.id))
    await interaction.response.send_message(f"Posted again: {message.jump_url}", ephemeral=True)


def data_of(interaction: discord.Interaction[Any]) -> dict[str, Any]:
    """The interaction's raw data as a plain dict (discord.py types it as a union)."""
    return dict(interaction.data or {})


def _cid(interaction: discord.Interaction[Any]) -> str:
    data = data_of(interaction)
    return str(data.get("custom_id") or data.get("name") or "?")
