"""How Orchard answers Discord: every click on a game, the lobby's buttons, and lobbies opened.

Every control reports here (:func:`dispatch`); a move goes to the runner, which displays it
by editing the clicked message in the interaction's reply (:func:`reply_display`). Anything
refused is said privately; anything unexpected gets an apology, never "This interaction failed".
Answers go through :mod:`bot.answers`, in time: an interaction Discord has forgotten (answered
too late) still has its game shown, through the channel.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, Protocol, cast

import discord

from bot.answers import MESSAGE_LIMIT, answer_publicly, describe, send, update
from bot.boards import LOBBY_VERBS, THREAD_ARCHIVED, UNKNOWN_CHANNEL, Boards, GameUI
from bot.components import CUSTOM_ARG, MAX_BUTTONS, DrawnRows, GameButton, data_of, shown_as
from bot.daily import is_daily
from bot.lobby import SeatShown, already_yours
from bot.model import FORFEIT_VERB, NOBODY, GameRow, GameStatus, Player
from bot.orchard import Orchard
from bot.posting import check_playable, missing_permissions, needs_for
from bot.reviews import REVIEW_VERB, answer_review
from bot.runner import Choose, Display, Refusal, Snapshot, Stale, check_server
from bot.specs import SPEC_OF, orchard_name, title
from bot.wording import joined, link, literal, shortened

log = logging.getLogger(__name__)

NOT_MOVES = ("rematch", "repost", REVIEW_VERB)
"""Buttons on a game that are no move of it (the lobby's and ``ui_…`` ones aside)."""


class Host(Protocol):
    """What the interface needs of the Discord client (``bot.app.OrchardBot``)."""

    @property
    def orchard(self) -> Orchard: ...

    @property
    def boards(self) -> Boards: ...

    @property
    def uis(self) -> Mapping[str, GameUI]: ...

    @property
    def user(self) -> discord.ClientUser | None: ...


def host(interaction: discord.Interaction[Any]) -> Host:
    return cast(Host, interaction.client)


def reply_display(interaction: discord.Interaction[Any]) -> Display:
    """Display a written game by editing the clicked message in the interaction's reply.

    A click on any other message (an old board, since posted again) must not turn that
    message into this game: the game's own message is edited and the click answered privately.
    A game whose message id is not recorded yet is being announced on the clicked message.
    An interaction Discord has forgotten never loses the edit: it goes through the channel.
    """

    async def display(snapshot: Snapshot) -> None:
        boards = host(interaction).boards
        message = interaction.message
        private = is_daily(snapshot.row.options)  # its player's own replies show it, only
        if not private and (message is None or snapshot.row.message_id not in (None, message.id)):
            await boards.display(snapshot)
            await send(interaction, "Done: the game's message is updated.")
            return
        payload = await boards.render(snapshot)
        if payload.files and not interaction.app_permissions.attach_files:
            payload = payload.without_pictures()  # Discord's word for this channel, now
        edited = await update(interaction, **payload.edit_kwargs())
        if not edited and not private:
            await boards.display(snapshot)

    return display


async def refuse(interaction: discord.Interaction[Any], why: str | Refusal) -> None:
    """Answer privately; refusals are routine, so they are logged at debug level only, and a
    :class:`Refusal` as :attr:`Refusal.logged` says (a game's own may show hidden tiles).

    Clamped to Discord's 2,000 characters: a longer reply is refused outright (400), and
    the user would see no answer at all.
    """
    message = shortened(str(why), MESSAGE_LIMIT)
    logged = why.logged if isinstance(why, Refusal) else message
    log.debug("refused %s for user %s: %s", describe(interaction), interaction.user.id, logged)
    await send(interaction, message)


async def apologise(interaction: discord.Interaction[Any], game_id: int | None) -> None:
    error_id = secrets.token_hex(4)
    log.exception("error %s in game %s (%s)", error_id, game_id, describe(interaction))
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
        await deliver_refusal(interaction, err)
    except Exception:
        await apologise(interaction, game_id)


async def deliver_refusal(interaction: discord.Interaction[Any], err: Refusal) -> None:
    """:func:`answer_refusal`, never raising. A reply Discord refused (or a connection lost)
    is logged by its kind only: its traceback would chain to the refusal, and a game's own
    may show hidden tiles (the letters a word tried lacks). The player then has no answer,
    as no other way to give one is left."""
    try:
        await answer_refusal(interaction, err)
    except Exception as failed:
        kind = type(failed).__name__
        if isinstance(failed, discord.HTTPException):
            kind += f" {failed.status} (code {failed.code})"
        log.warning("refused %s: not delivered (%s)", describe(interaction), kind)


async def answer_refusal(interaction: discord.Interaction[Any], err: Refusal) -> None:
    """Say privately why nothing changed; a move that fits several ways offers one button
    per way, each a move of its own at the version the player saw."""
    options = err.options if isinstance(err, Choose) else ()
    if not options or any(not CUSTOM_ARG.fullmatch(o.arg) for o in options):
        await refuse(interaction, err)
        return
    assert isinstance(err, Choose)
    buttons = [
        GameButton(err.game_id, err.version, o.verb, o.arg, label=o.label[:80])
        for o in options[:MAX_BUTTONS]
    ]
    await send(interaction, str(err), view=DrawnRows(buttons))


async def dispatch(
    interaction: discord.Interaction[Any], game_id: int, version: int, verb: str, arg: str
) -> None:
    """The single entry for every click: lobby, display-only buttons, or a game move."""
    orchard = host(interaction).orchard
    async with answering(interaction, game_id):
        try:
            if verb in LOBBY_VERBS or verb in NOT_MOVES or verb.startswith("ui_"):
                await _not_a_move(interaction, game_id, verb, arg)
                return
            # the hot path: the runner loads the game once and checks everything
            await orchard.runner.act(
                game_id,
                interaction.user.id,
                verb,
                arg,
                version=version,
                guild_id=interaction.guild_id or 0,
                display=reply_display(interaction),
            )
        except Stale as err:
            try:
                await _heal(interaction, game_id)
            except Exception:  # the refusal still goes: a redraw is a courtesy
                log.warning("game %s: could not redraw its stale board", game_id, exc_info=True)
            await refuse(interaction, err)


async def _heal(interaction: discord.Interaction[Any], game_id: int) -> None:
    """A stale control still on the game's own message means an edit never reached Discord
    (a 503, lost permissions, a crash between commit and edit): show the game as it is, as the
    click's answer (the refusal follows privately). That answer edits the message even where
    Discord refuses Orchard's own edits, in a channel closed to it since. Not while an edit is
    on its way (queued on the channel's limit, say): the refusal is not kept waiting for it,
    and it draws the game (or fails, and the next stale click redraws it). Nor once it has
    drawn it: clicking the stale board again and again redraws nothing more."""
    message = interaction.message
    if message is None or shown_as(data_of(interaction)) is None:
        return  # the message was already redrawn; the player's client had an older copy
    runner = host(interaction).orchard.runner
    showing = runner.showing(game_id)
    if showing.locked():
        return
    async with showing:  # a display may have begun meanwhile: after it
        snapshot = await runner.load(game_id)
        if snapshot.row.message_id == message.id and not runner.drawn(snapshot):
            await runner.display(snapshot, reply_display(interaction))


async def _not_a_move(
    interaction: discord.Interaction[Any], game_id: int, verb: str, arg: str
) -> None:
    snapshot = await host(interaction).orchard.runner.load(game_id)
    check_server(snapshot.row, interaction.guild_id or 0)
    if verb in ("rematch", "repost") and is_daily(snapshot.row.options):
        raise Refusal("A daily game is played privately, once a day: use /daily.")
    if verb in LOBBY_VERBS:
        if interaction.channel_id != snapshot.row.channel_id:  # a forged press, from elsewhere
            raise Refusal("Use the buttons on the lobby's own message.")
        await _lobby_action(interaction, game_id, verb, arg)
    elif verb == "rematch":
        await rematch(interaction, snapshot)
    elif verb == "repost":
        await _repost(interaction, snapshot)
    elif verb == REVIEW_VERB:
        await answer_review(interaction, snapshot, host(interaction).orchard.store)
    else:
        await host(interaction).uis[snapshot.row.kind].on_ui(interaction, snapshot, verb, arg)


async def _lobby_action(
    interaction: discord.Interaction[Any], game_id: int, verb: str, arg: str
) -> None:
    lobby = host(interaction).orchard.lobby
    user = interaction.user
    display = reply_display(interaction)
    if verb == "lobby_join":
        await lobby.join(game_id, Player(0, user.id, user.display_name), display)
    elif verb == "lobby_leave":
        await lobby.leave(game_id, user.id, display)
    elif verb == "lobby_start":
        await lobby.start(game_id, user.id, display)
    elif verb == "lobby_addbot":
        snapshot = await host(interaction).orchard.runner.load(game_id)
        if arg not in SPEC_OF[snapshot.row.kind].levels:
            raise Refusal("Choose Easy, Normal or Hard.")
        await lobby.add_seat(game_id, user.id, orchard_seat(interaction, arg), display)
    elif verb == "lobby_removebot":
        shown = SeatShown.read(arg)
        if shown is None:
            raise Refusal("Choose one of Orchard's seats in the lobby.")
        await lobby.remove_seat(game_id, user.id, shown, display)
    else:
        await lobby.cancel(game_id, user.id, display)


async def _repost(interaction: discord.Interaction[Any], snapshot: Snapshot) -> None:
    """Post a game's board again (its message was deleted, lost or scrolled far up) and point
    there; the board before it goes, so pressing it over and over leaves one board, not a
    channel of copies."""
    if snapshot.row.seat_of(interaction.user.id) is None:
        raise Refusal("Only this game's players can post it again.")
    if not snapshot.row.status.is_open:
        raise Refusal("This game is over.")
    runner = host(interaction).orchard.runner
    if snapshot.row.status is GameStatus.ACTIVE and not runner.plays(snapshot, interaction.user.id):
        raise Refusal("You have left this game.")
    try:
        async with runner.showing(snapshot.id):  # between two displays
            current = await runner.load(snapshot.id)
            message = await host(interaction).boards.post(current)
    except discord.HTTPException as err:
        raise await _not_posted(interaction, snapshot.row, err) from err
    before = current.row.message_id
    if before is not None and before != message.id:
        channel = interaction.client.get_partial_messageable(current.row.channel_id)
        with contextlib.suppress(discord.HTTPException):  # deleted already, say
            await channel.get_partial_message(before).delete()
    await send(interaction, f"Posted again: {link('go to the game', message.jump_url)}")


async def _not_posted(
    interaction: discord.Interaction[Any], row: GameRow, err: discord.HTTPException
) -> Refusal:
    """Why a board could not be posted again: its channel was deleted while Orchard did not
    hear of it (the game ends, as a deletion heard ends it), its thread is locked, or it is
    closed to Orchard now. Any other failure is raised as it came."""
    where = f"<#{row.channel_id}>"
    if isinstance(err, discord.NotFound) and err.code == UNKNOWN_CHANNEL:
        await host(interaction).orchard.channels_deleted(row.guild_id, {row.channel_id})
        return Refusal("This game's channel was deleted, so the game has ended, without results.")
    if err.code == THREAD_ARCHIVED:  # a post reopens an archived thread, unless it is locked
        return Refusal(f"{where} is locked: someone who can must unlock it first.")
    if not isinstance(err, discord.Forbidden):
        raise err
    guild = interaction.guild
    needs = needs_for(guild.get_channel_or_thread(row.channel_id) if guild else None)
    missing = missing_permissions(interaction, row.channel_id, needs)
    grant = (
        f"give me {joined(missing)} there"
        if missing
        else "let me see it and post there (a private thread: add me to it)"
    )
    return Refusal(
        f"I may not post in {where} any more, so I cannot show this game there: ask someone "
        f"who can to {grant}."
    )


def orchard_seat(interaction: discord.Interaction[Any], level: str) -> Player:
    """A seat for Orchard itself at ``level`` (easy, normal or hard)."""
    me = host(interaction).user
    return Player(0, me.id if me else 0, orchard_name(level), is_bot=True, level=level)


async def open_lobby(
    interaction: discord.Interaction[Any],
    kind: str,
    options: dict[str, Any] | None = None,
    variant: str = "",
    players: tuple[Player, ...] = (),
    *,
    start: bool = False,
    rematch_of: int | None = None,
) -> Snapshot:
    """Post a new lobby for ``kind`` in the interaction's channel (the caller hosts), with
    ``players`` seated: Orchard's seats, and people only if they have no other open game of
    ``kind`` here (:meth:`Lobby.opened`; the caller is told privately who was left out).

    A lobby or game of the caller's here whose first message was lost (its answer came too
    late) is shown again instead: the lobby would refuse a second one, and nobody could see it.
    """
    if interaction.guild_id is None or interaction.channel_id is None:
        raise Refusal("Games are played in a server channel, not in direct messages.")
    check_playable(interaction)
    answer_publicly(interaction)
    lobby = host(interaction).orchard.lobby
    user = interaction.user
    here = (interaction.guild_id, interaction.channel_id)
    unshown = await lobby.unshown(kind, *here, user.id)
    if unshown is not None:
        return await _show_again(interaction, unshown)
    host_seat = Player(0, user.id, user.display_name)
    thread = interaction.channel if isinstance(interaction.channel, discord.Thread) else None
    place = (*here, thread.parent_id if thread else None)
    async with lobby.opened(
        kind, place, host_seat, options, variant, players, rematch_of
    ) as opened:
        snapshot, left_out = opened.snapshot, opened.left_out  # seated before its message
        announce = _announcer(interaction)
        if start:  # announced as the start's display: Orchard's first move edits this message
            snapshot = await lobby.start(snapshot.id, user.id, announce)
        else:
            await announce(snapshot)
    if left_out:
        await send(interaction, not_seated(left_out, kind))
    return snapshot


def not_seated(players: Sequence[Player], kind: str) -> str:
    """Why people a rematch would have seated are not in its lobby, and what they can do."""
    names = joined([literal(p.name) for p in players])
    were = "was" if len(players) == 1 else "were"
    return (
        f"{names} {were} not seated: they already have an open {title(kind)} game here."
        " They can still press Join."
    )


def _announcer(interaction: discord.Interaction[Any]) -> Display:
    """Show a lobby or game first as the command's public answer and record its message; if
    Discord has forgotten the interaction, post it through the channel instead."""
    bot = host(interaction)

    async def announce(fresh: Snapshot) -> None:
        payload = await bot.boards.render(fresh)
        message_id = await send(interaction, ephemeral=False, **payload.send_kwargs())
        if message_id is None:
            await bot.boards.display(fresh)  # no message yet: posted, and recorded
            return
        await bot.orchard.runner.record_message(fresh.id, message_id)

    return announce


async def _show_again(interaction: discord.Interaction[Any], game_id: int) -> Snapshot:
    """Answer with a game whose first message was lost, among its displays (a display that
    posts it meanwhile has recorded its id by then), never inside its lock: Discord may be
    slow, and the game's moves and deadline do not wait for it."""
    runner = host(interaction).orchard.runner
    async with runner.showing(game_id):
        snapshot = await runner.load(game_id)
        row = snapshot.row
        if not row.status.is_open:
            raise Refusal(f"Your {title(row.kind)} game {row.id} here has just ended: try again.")
        if row.message_id is not None:
            hosting = row.host_id == interaction.user.id
            raise Refusal(already_yours(row.kind, row.id, row.status, hosting))
        await _announcer(interaction)(snapshot)
        return snapshot


async def rematch(interaction: discord.Interaction[Any], snapshot: Snapshot) -> None:
    """A finished game's player opens a new lobby with the same seats already joined.

    The presser opens it as with ``/new``, so the channel's limit of open games and their
    own one game of a kind here are checked for them. The others are seated without being
    asked, so each only if they could have opened it too: one who already has another open
    game of this kind here (a lobby they sit in, or a game they have not left) is left out
    rather than the rematch refused, and the presser is told. One who left the game (gave up,
    timed out too often) is not seated by another's press: a rematch is no way to drag them
    back, DMs and pings included, round after round. They may still press Join, as anyone
    may join a lobby by their own choice (:meth:`Lobby.opened`). It plays the rules and the
    server's settings of now, as a new game would.
    """
    row = snapshot.row
    if row.status not in (GameStatus.FINISHED, GameStatus.ABANDONED):
        raise Refusal("This game is still being played.")
    if row.seat_of(interaction.user.id) is None:
        raise Refusal("Only the players of this game can start a rematch.")
    moves = await host(interaction).orchard.store.moves(row.id)
    left = {m.seat for m in moves if m.verb == FORFEIT_VERB}
    others = tuple(
        p
        for p in row.players
        if p.is_bot or (p.user_id not in (interaction.user.id, NOBODY) and p.seat not in left)
    )
    kept = {k: v for k, v in row.options.items() if k != "edition"}  # today's rules
    settings = await host(interaction).uis[row.kind].options_for(row.guild_id)  # today's too
    await open_lobby(
        interaction, row.kind, {**kept, **settings}, row.variant, others, rematch_of=row.id
    )
