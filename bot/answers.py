"""Answering Discord in time: every interaction is acknowledged within its 3 seconds.

Discord forgets an interaction not acknowledged within 3 s of its creation, and refuses a
second acknowledgement. Quick work is answered at once; slow work is acknowledged first
(:func:`acknowledge`); and :func:`watch` defers whatever is still unanswered
:data:`ACK_AFTER` after the interaction's creation. Every answer goes through :func:`send`,
:func:`update` or :func:`send_form`, which complete a deferred interaction by follow-up or
edit, and say when Discord has forgotten it (then the caller shows its game another way).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import discord
from discord.webhook.async_ import async_context, interaction_message_response_params

from bot.components import data_of, logged_id

log = logging.getLogger(__name__)
T = TypeVar("T")

MESSAGE_LIMIT = 2000  # characters of a message's content, Discord's limit
EMBED_TEXT_LIMIT = 4096  # characters of an embed's description, Discord's limit

ACK_AFTER = 2.0
"""Seconds after an interaction's creation (its id's time) when an answer still being worked
on is deferred: Discord forgets an interaction not acknowledged within 3 s."""

FORGOTTEN = frozenset({10062, 10015, 50027})
"""Discord's codes for an interaction it no longer knows: unknown interaction (answered after
3 s), unknown webhook (never acknowledged) and invalid webhook token (past 15 minutes)."""

ALREADY_ACKNOWLEDGED = 40060
MIN_FIRST_TRY = 0.3  # seconds a click's answer has at least, even one that came in late
_WATCHED = frozenset(
    {
        discord.InteractionType.application_command,
        discord.InteractionType.component,
        discord.InteractionType.modal_submit,
    }
)
_KEY = "orchard.answer"
_DEFERRALS: set[asyncio.Task[None]] = set()


@dataclass
class Answer:
    """Where one interaction's answer stands. Its lock keeps a deferral and the answer from
    both reaching Discord, which refuses the second (40060)."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    public: bool = False  # a slash command answered in the channel: so is its deferral
    placeholder: bool = False  # a deferred reply ("thinking…") its first follow-up replaces
    ephemeral: bool = True  # ... and whether that placeholder is private
    given: bool = False  # the answer itself was sent, not only an acknowledgement
    forgotten: bool = False  # Discord no longer knows the interaction
    timer: asyncio.TimerHandle | None = None
    deferring: bool = False  # the watchdog went off: a deferral may still be on its way


def answer_of(interaction: discord.Interaction[Any]) -> Answer:
    found = interaction.extras.get(_KEY)
    if not isinstance(found, Answer):
        found = interaction.extras[_KEY] = Answer()
    return found


def forgotten(err: discord.HTTPException) -> bool:
    return err.code in FORGOTTEN


def answered(interaction: discord.Interaction[Any]) -> bool:
    """Whether the interaction has its answer (an acknowledgement alone is not one)."""
    return answer_of(interaction).given


def answer_publicly(interaction: discord.Interaction[Any]) -> None:
    """This slash command answers in the channel, so a deferral of it must be public too."""
    answer_of(interaction).public = True


def watch(interaction: discord.Interaction[Any]) -> None:
    """Defer the interaction :data:`ACK_AFTER` after its creation if it is unanswered then.

    Called as it arrives, before any handler runs. Timed from the interaction's snowflake, not
    from now: one that waited in a backlog has less time left (never more than ACK_AFTER).
    """
    if interaction.type not in _WATCHED:
        return
    delay = min(max(_left_before(interaction), 0.0), ACK_AFTER)
    loop = asyncio.get_running_loop()
    answer_of(interaction).timer = loop.call_later(delay, _start_deferral, interaction)


def _start_deferral(interaction: discord.Interaction[Any]) -> None:
    answer_of(interaction).deferring = True
    task = asyncio.create_task(acknowledge(interaction), name=f"defer-{interaction.id}")
    _DEFERRALS.add(task)
    task.add_done_callback(_DEFERRALS.discard)


async def acknowledge(interaction: discord.Interaction[Any]) -> None:
    """Defer the answer now unless it was given: a click (or a form sent from a message)
    defers an update of its message, anything else a reply, public or private as the answer
    will be. Never raises: a deferral that fails leaves the answer to try on its own."""
    answer = answer_of(interaction)
    async with answer.lock:
        if interaction.response.is_done() or answer.forgotten:
            return
        try:
            if interaction.type is discord.InteractionType.component or (
                interaction.type is discord.InteractionType.modal_submit
                and interaction.message is not None
            ):
                await interaction.response.defer()
                return
            answer.ephemeral = not answer.public
            await interaction.response.defer(ephemeral=answer.ephemeral, thinking=True)
            answer.placeholder = True
        except discord.HTTPException as err:
            answer.forgotten = forgotten(err)
            log.info("could not defer %s: %s", describe(interaction), err)
        except Exception:  # e.g. a dropped connection: the answer still tries on its own
            log.warning("could not defer %s", describe(interaction), exc_info=True)


async def send(
    interaction: discord.Interaction[Any],
    content: str | None = None,
    *,
    ephemeral: bool = True,
    **kwargs: Any,
) -> int | None:
    """Answer with a message (private unless ``ephemeral`` is False), or complete a deferred
    answer with it. Returns its id, or None if Discord has forgotten the interaction."""
    answer = answer_of(interaction)
    if content is not None:
        kwargs["content"] = content
    async with answer.lock:
        if answer.forgotten:
            return None
        return await _unless_forgotten(interaction, _send(interaction, answer, ephemeral, kwargs))


async def _unless_forgotten(
    interaction: discord.Interaction[Any], attempt: Awaitable[T]
) -> T | None:
    """Await ``attempt``, the interaction's answer: None (and noted) if Discord forgot it."""
    answer = answer_of(interaction)
    try:
        result = await attempt
    except discord.HTTPException as err:
        if not forgotten(err):
            raise
        answer.forgotten = True
        log.info("too late to answer %s: %s", describe(interaction), err)
        return None
    answer.given = True
    if answer.timer is not None:
        answer.timer.cancel()
    return result


async def _send(
    interaction: discord.Interaction[Any],
    answer: Answer,
    ephemeral: bool,
    kwargs: dict[str, Any],
) -> int:
    if not interaction.response.is_done():
        try:
            async with asyncio.timeout(max(_left_before(interaction), MIN_FIRST_TRY)):
                sent = await interaction.response.send_message(ephemeral=ephemeral, **kwargs)
            return sent.message_id or (await interaction.original_response()).id
        except (TimeoutError, discord.DiscordServerError) as err:  # as in _edit
            log.info("answering %s failed (%r); deferred instead", describe(interaction), err)
            if not await _thinking(interaction, answer, ephemeral):
                return (await interaction.original_response()).id  # it got there after all
        except discord.HTTPException as err:
            if err.code != ALREADY_ACKNOWLEDGED:  # acknowledged elsewhere: follow up instead
                raise
    if answer.placeholder and answer.ephemeral != ephemeral:
        await _resolve_placeholder(interaction, ephemeral)
    answer.placeholder = False  # a follow-up now replaces it, or is a message of its own
    message = await interaction.followup.send(ephemeral=ephemeral, wait=True, **kwargs)
    return message.id


async def _thinking(interaction: discord.Interaction[Any], answer: Answer, ephemeral: bool) -> bool:
    """Defer a reply given up on, as private as it: its follow-up replaces the placeholder.
    False if the reply given up on reached Discord after all (40060): nothing to follow."""
    try:
        await interaction.response.defer(ephemeral=ephemeral, thinking=True)
    except discord.HTTPException as err:
        if err.code != ALREADY_ACKNOWLEDGED:
            raise
        return False
    answer.placeholder, answer.ephemeral = True, ephemeral
    return True


async def _resolve_placeholder(interaction: discord.Interaction[Any], ephemeral: bool) -> None:
    """A deferred reply's first follow-up takes the deferral's privacy; an answer of the other
    kind first removes the public placeholder, or turns the private one into a pointer."""
    if ephemeral:
        await interaction.delete_original_response()
    else:
        await interaction.edit_original_response(content="Posted in the channel.")


async def update(interaction: discord.Interaction[Any], **kwargs: Any) -> bool:
    """Edit the clicked message as the interaction's answer (after a deferral, through the
    interaction's webhook). False if that cannot be the answer any more: Discord forgot the
    interaction, or it was answered otherwise; the caller then edits through the channel."""
    answer = answer_of(interaction)
    async with answer.lock:
        if answer.forgotten or answer.given or answer.placeholder:
            return False
        return await _unless_forgotten(interaction, _edit(interaction, kwargs)) is not None


async def _edit(interaction: discord.Interaction[Any], kwargs: dict[str, Any]) -> bool:
    """The edit as the click's answer. One Discord fails with a 5xx (discord.py retries some
    after 1 s, then 3 s, holding the answer's lock the watchdog waits on) is given up by
    :data:`ACK_AFTER` after the click: the click is acknowledged in time instead, and its
    message edited through the interaction's webhook."""
    if not interaction.response.is_done():
        try:
            async with asyncio.timeout(max(_left_before(interaction), MIN_FIRST_TRY)):
                await _edit_in_callback(interaction, kwargs)
            return True
        except (TimeoutError, discord.DiscordServerError) as err:
            log.info("answering %s failed (%r); acknowledged instead", describe(interaction), err)
            await _acknowledged(interaction)
    await interaction.edit_original_response(**kwargs)
    return True


def _left_before(interaction: discord.Interaction[Any]) -> float:
    """Seconds until :data:`ACK_AFTER` after the interaction's creation."""
    return ACK_AFTER - (discord.utils.utcnow() - interaction.created_at).total_seconds()


async def _acknowledged(interaction: discord.Interaction[Any]) -> None:
    """Defer the click's update; one an answer given up on reached Discord after all
    (40060) is acknowledged as well."""
    try:
        await interaction.response.defer()
    except discord.HTTPException as err:
        if err.code != ALREADY_ACKNOWLEDGED:
            raise


async def _edit_in_callback(interaction: discord.Interaction[Any], kwargs: dict[str, Any]) -> None:
    """``interaction.response.edit_message`` without the edited message sent back.

    discord.py always asks for it (``with_response``) and parses it: a whole board, read by
    nobody, on every click. Asked without, Discord answers 204 No Content. Sent the way
    discord.py sends it, through its webhook adapter (a lock per interaction, dropped with it;
    the client's HTTP would keep a rate-limit bucket per interaction for five minutes and, past
    256, scan them all on every request); discord.py is then told the interaction is answered,
    as its own method would have.
    """
    update_type = discord.InteractionResponseType.message_update
    params = interaction_message_response_params(
        type=update_type.value,
        previous_allowed_mentions=interaction.client.allowed_mentions,
        **kwargs,
    )
    route = discord.http.Route(
        "POST",
        "/interactions/{webhook_id}/{webhook_token}/callback",
        webhook_id=interaction.id,
        webhook_token=interaction.token,
    )
    http = interaction.client.http
    await async_context.get().request(
        route,
        session=interaction._session,
        proxy=http.proxy,
        proxy_auth=http.proxy_auth,
        payload=None if params.files else params.payload,
        multipart=params.multipart if params.files else None,
        files=params.files,
    )
    interaction.response._response_type = update_type  # what edit_message sets


def release(interaction: discord.Interaction[Any]) -> None:
    """A click handled to its end, and answered: drop discord.py's response object, which
    points back to its interaction, so that reference counting frees the click (with its
    message's whole parsed board) at once rather than the collector, whose passes over a game
    night's clicks paused every click in flight. Left alone while a deferral may still come
    (it reads the response), and for anything discord.py also handles (a slash command)."""
    answer = interaction.extras.get(_KEY)
    if isinstance(answer, Answer) and answer.given and not answer.deferring:
        with contextlib.suppress(AttributeError):  # never made
            delattr(interaction, "_cs_response")  # discord.py's cache of ``response``


async def send_form(interaction: discord.Interaction[Any], modal: discord.ui.Modal) -> None:
    """Open a form; a form cannot follow a deferral, so a late one asks for another press."""
    answer = answer_of(interaction)
    async with answer.lock:
        if not interaction.response.is_done():
            await _unless_forgotten(interaction, interaction.response.send_modal(modal))
            return
    await send(interaction, "That took too long to open: press the button again, please.")


def describe(interaction: discord.Interaction[Any]) -> str:
    """The interaction's command name or, without its argument, custom id, for the logs
    (:func:`logged_id`: an argument can show a player's hidden tiles)."""
    data = data_of(interaction)
    custom = data.get("custom_id")
    return logged_id(str(custom)) if custom else str(data.get("name") or "?")
