"""The lobby every game shares: who may open, join, leave, seat Orchard (and unseat it),
start or cancel.

This module holds the rules; every write is a plan run by :meth:`Runner.change`, so lobby
clicks are serialised with each other and with the game's start by the runner's lock. Seats
live in the store from the first click, so a restart keeps every lobby. An unstarted lobby
closes when its deadline fires (the scheduler's :meth:`Runner.expire_many`).
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

from bot.locks import KeyedLocks
from bot.model import GameChange, GameRow, GameStatus, GameSummary, Player
from bot.runner import Display, Plan, Refusal, Runner, Snapshot, Stale, no_display
from bot.specs import orchard_plays, title
from bot.wording import lines_within, plural

LOBBY_SECONDS = 15 * 60
_SEAT_SHOWN = re.compile(r"([0-9]{1,2})-([0-9]{1,9})")


@dataclass(frozen=True)
class Opened:
    """A lobby just opened, and the people it was to seat but could not (see
    :meth:`Lobby._seat`)."""

    snapshot: Snapshot
    left_out: tuple[Player, ...]


@dataclass(frozen=True)
class SeatShown:
    """An Orchard seat as a lobby board offered it for removal: its seat, at the lobby's
    revision then. Seats are renumbered whenever one goes, so a seat number alone from an
    older board (a double click, a client not yet redrawn) could name another seat."""

    seat: int
    revision: int

    @property
    def value(self) -> str:
        """As a select's value carries it: ``seat-revision``."""
        return f"{self.seat}-{self.revision}"

    @classmethod
    def read(cls, value: str) -> SeatShown | None:
        match = _SEAT_SHOWN.fullmatch(value)
        return None if match is None else cls(int(match[1]), int(match[2]))


class Lobby:
    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.store = runner.store
        self._opening: KeyedLocks[tuple[int, int, str]] = KeyedLocks()
        # Per person: held by /forget-me while it erases them, and by a rematch seating them.
        self._people: KeyedLocks[int] = KeyedLocks()
        # Lobbies being seated and announced by the command that opened them: their first
        # message is on its way, not lost (see :func:`bot.interface.open_lobby`).
        self.announcing: set[int] = set()

    async def open(
        self,
        kind: str,
        guild_id: int,
        channel_id: int,
        host: Player,
        options: dict[str, Any] | None = None,
        variant: str = "",
        *,
        parent_id: int | None = None,
    ) -> Snapshot:
        """A new lobby with the host in seat 0, if this channel may have another game.

        The limits are checked and the lobby created under one lock per channel and game, so
        two `/new` at the same moment cannot both pass a one-open-game limit.
        ``parent_id``: the channel a thread is in, which games there may start as in it.
        """
        place = (guild_id, channel_id, parent_id)
        opened = await self._open(kind, place, host, options, variant, ())
        return opened.snapshot

    async def _open(
        self,
        kind: str,
        place: tuple[int, int, int | None],
        host: Player,
        options: dict[str, Any] | None,
        variant: str,
        seats: tuple[Player, ...],
        *,
        announcing: bool = False,
        rematch_of: int | None = None,
    ) -> Opened:
        """:meth:`open`, with ``seats`` seated in order under the same lock (see
        :meth:`_seat`), and marked :attr:`announcing` before that lock is let go. A rematch's
        player /forget-me erased from ``rematch_of`` since its seats were read is left out,
        unnamed."""
        guild_id, channel_id, parent_id = place
        async with self._opening[(guild_id, channel_id, kind)]:
            here = await self._check_room(kind, guild_id, (channel_id, parent_id), host)
            snapshot = await self.runner.create(
                kind,
                guild_id,
                channel_id,
                host,
                seed=secrets.randbits(62),
                options=options,
                variant=variant,
                deadline=self.runner.clock() + LOBBY_SECONDS,
            )
            left_out: list[Player] = []
            for seat in seats:
                async with self.person(seat.user_id):  # never while /forget-me erases them
                    if await self._erased(rematch_of, seat):
                        continue
                    seated = await self._seat(snapshot, seat, here)
                if seated is None:
                    left_out.append(seat)
                else:
                    snapshot = seated
            if announcing:
                self.announcing.add(snapshot.id)
            return Opened(snapshot, tuple(left_out))

    def person(self, user_id: int) -> asyncio.Lock:
        """Held by /forget-me while it erases the person, and by a rematch seating them: a
        rematch pressed on a game of theirs before the erasure, seating them after it, would
        put their name and id back with /forget-me done (:meth:`_erased`)."""
        return self._people[user_id]

    async def _erased(self, rematch_of: int | None, seat: Player) -> bool:
        """Whether /forget-me took ``seat``'s person out of the game rematched since its seats
        were read (its seat there is a former player's now)."""
        if rematch_of is None or seat.is_bot:
            return False
        return (await self.runner.load(rematch_of)).row.seat_of(seat.user_id) is None

    async def _seat(
        self, snapshot: Snapshot, seat: Player, here: list[GameSummary]
    ) -> Snapshot | None:
        """Seat a rematch's player (or Orchard) in its lobby, unless they already have another
        open game of its kind in this channel, among ``here`` (None then).

        Opening a lobby is refused to someone who has one such game here, while joining one
        is not: joining is that player's own choice. A rematch joins the other players
        without asking them, so it seats only those whom ``/new`` would let open such a
        lobby here themselves; anyone left out may still press Join. The channel's own limit
        (``open_games_per_channel``) is not at stake: the rematch's lobby was opened within
        it, and seating players adds no game. Seated under the channel's opening lock it was
        opened in, so neither a lobby the player opens meanwhile, nor the same rematch
        pressed by another of its players, can slip in between.
        """
        if seat.is_bot:
            return await self.add_seat(snapshot.id, snapshot.row.host_id, seat, no_display)
        if self._has_one(here, seat.user_id):
            return None
        return await self.runner.change(snapshot.id, self._joining(seat), no_display)

    @asynccontextmanager
    async def opened(
        self,
        kind: str,
        place: tuple[int, int, int | None],
        host: Player,
        options: dict[str, Any] | None = None,
        variant: str = "",
        seats: tuple[Player, ...] = (),
        rematch_of: int | None = None,
    ) -> AsyncIterator[Opened]:
        """:meth:`open` for a command that seats ``seats`` (Orchard's, a rematch's players)
        and posts the lobby: marked :attr:`announcing` meanwhile, inside the opening lock,
        so :meth:`unshown` (under the same lock) never takes it for a lobby whose message was
        lost. ``place``: the server, the channel, and the channel a thread is in (or None);
        ``rematch_of``: the game whose seats ``seats`` are (see :meth:`_open`)."""
        opened = await self._open(
            kind, place, host, options, variant, seats, announcing=True, rematch_of=rematch_of
        )
        try:
            yield opened
        finally:
            self.announcing.discard(opened.snapshot.id)

    async def unshown(self, kind: str, guild_id: int, channel_id: int, user_id: int) -> int | None:
        """The player's open game of ``kind`` in this channel that has no message, if any: not
        one whose first message is still on its way (a rematch another player pressed, or
        their own ``/new`` sent a moment before), which would be posted twice. Read under the
        channel's opening lock: a lobby just committed is marked by then (:meth:`opened`)."""
        async with self._opening[(guild_id, channel_id, kind)]:
            rows = await self.store.open_games(guild_id, channel_id, kind)
        lost = (r for r in rows if r.message_id is None and r.id not in self.announcing)
        return next((r.id for r in lost if r.seat_of(user_id) is not None), None)

    async def _check_room(
        self, kind: str, guild_id: int, place: tuple[int, int | None], host: Player
    ) -> list[GameSummary]:
        """Refuse a new lobby where games may not start or the channel is full; else the
        channel's open games of ``kind``. ``place`` is the channel and, for a thread, the
        channel it is in: /settings lists channels only (its picker offers no thread), so a
        game channel's threads are game channels too."""
        channel_id, parent_id = place
        settings = await self.runner.settings.get(guild_id)
        listed = settings.game_channels
        if listed and channel_id not in listed and parent_id not in listed:
            mentions = [f"<#{c}>" for c in settings.game_channels]
            channels = lines_within(mentions, 1800, "channel", sep=", ")  # a reply holds 2,000
            raise Refusal(f"Games can only be started in {channels} on this server.")
        here = await self.store.open_games(guild_id, channel_id, kind)
        if self._has_one(here, host.user_id):
            mine = next(g for g in here if g.plays(host.user_id))
            raise Refusal(already_yours(kind, mine.id, mine.status, mine.host_id == host.user_id))
        if len(here) >= settings.open_games_per_channel:
            raise Refusal(channel_full(here, self.runner.engine(kind).max_players))
        return here

    @staticmethod
    def _has_one(here: list[GameSummary], user_id: int) -> bool:
        """Whether a person has one of these open games: a lobby they sit in, or a game they
        have not left (a seat they gave up is no game of theirs: the summaries say, from its
        logged forfeit, without loading the game)."""
        return any(row.plays(user_id) for row in here)

    async def join(self, game_id: int, player: Player, display: Display | None = None) -> Snapshot:
        """A player's own Join, written under its channel's opening lock (a rematch being
        opened there seats only those with no other open game of its kind here, and must see
        this one), and shown after it: a slow channel holds up no other Join or lobby."""
        row = (await self.runner.load(game_id)).row
        async with self._opening[(row.guild_id, row.channel_id, row.kind)]:
            joined = await self.runner.changed(game_id, self._joining(player))
        return await self.runner.display_in_order(joined, display)

    def _joining(self, player: Player) -> Plan:
        """The change that seats ``player`` in a lobby (its 15 minutes start again)."""

        async def plan(snapshot: Snapshot) -> GameChange:
            row = _open_lobby(snapshot)
            engine = self.runner.engine(row.kind)
            if row.seat_of(player.user_id) is not None:
                raise Refusal("You are already in this game.")
            if len(row.players) >= engine.max_players:
                raise Refusal(f"This game is full ({engine.max_players} players).")
            # Someone joined: the lobby is wanted, so its 15 minutes start again.
            deadline = self.runner.clock() + LOBBY_SECONDS
            return _seats(snapshot, (*row.players, player), deadline=deadline)

        return plan

    async def leave(self, game_id: int, user_id: int, display: Display | None = None) -> Snapshot:
        async def plan(snapshot: Snapshot) -> GameChange:
            row = _open_lobby(snapshot)
            if row.seat_of(user_id) is None:
                raise Refusal("You are not in this game.")
            if user_id == row.host_id:
                raise Refusal("You are hosting this game: use Cancel to close it.")
            rest = tuple(p for p in row.players if p.is_bot or p.user_id != user_id)
            return _seats(snapshot, rest)

        return await self.runner.change(game_id, plan, display)

    async def add_seat(
        self, game_id: int, user_id: int, seat: Player, display: Display | None = None
    ) -> Snapshot:
        """The host adds a non-human seat (an Orchard opponent)."""

        async def plan(snapshot: Snapshot) -> GameChange:
            row = _open_lobby(snapshot)
            _host_only(row.host_id, user_id, "add Orchard")
            if len(row.players) >= self.runner.engine(row.kind).max_players:
                raise Refusal("This game is full.")
            return _seats(snapshot, (*row.players, seat))

        return await self.runner.change(game_id, plan, display)

    async def remove_seat(
        self, game_id: int, user_id: int, shown: SeatShown, display: Display | None = None
    ) -> Snapshot:
        """The host takes an Orchard seat out again, as the latest board showed it."""

        async def plan(snapshot: Snapshot) -> GameChange:
            row = _open_lobby(snapshot)
            _host_only(row.host_id, user_id, "remove Orchard")
            if shown.revision != row.revision:
                raise Refusal(
                    "The lobby has changed since you chose, so nothing was removed:"
                    " choose again from the lobby as it is now."
                )
            if not (0 <= shown.seat < len(row.players) and row.players[shown.seat].is_bot):
                raise Refusal("That seat is not one of Orchard's: nothing was removed.")
            rest = row.players[: shown.seat] + row.players[shown.seat + 1 :]
            return _seats(snapshot, rest)

        return await self.runner.change(game_id, plan, display)

    async def start(self, game_id: int, user_id: int, display: Display | None = None) -> Snapshot:
        async def plan(snapshot: Snapshot) -> GameChange:
            row = _open_lobby(snapshot)
            _host_only(row.host_id, user_id, "start it")
            engine = self.runner.engine(row.kind)
            count = len(row.players)
            if count < engine.min_players:
                raise Refusal(too_few(row.kind, engine.min_players))
            state = engine.new(row.seed, count, row.options)
            deadline = None
            if engine.to_act(state):
                seconds = await self.runner.settings.turn_seconds(row.guild_id)
                deadline = self.runner.clock() + seconds
            return GameChange(
                row.id,
                from_status=GameStatus.LOBBY,
                status=GameStatus.ACTIVE,
                state=engine.dump(state),
                version=0,
                deadline=deadline,
            )

        return await self.runner.change(game_id, plan, display)

    async def cancel(self, game_id: int, user_id: int, display: Display | None = None) -> Snapshot:
        async def plan(snapshot: Snapshot) -> GameChange:
            row = _open_lobby(snapshot)
            _host_only(row.host_id, user_id, "cancel it")
            return GameChange(
                row.id, from_status=GameStatus.LOBBY, status=GameStatus.CANCELLED, deadline=None
            )

        return await self.runner.change(game_id, plan, display)


def _open_lobby(snapshot: Snapshot) -> GameRow:
    row = snapshot.row
    if row.status is GameStatus.ACTIVE:
        raise Stale("This game has already started.")
    if row.status is not GameStatus.LOBBY:
        raise Stale("This lobby is closed.")
    return row


def _host_only(host_id: int, user_id: int, what: str) -> None:
    if user_id != host_id:
        raise Refusal(f"Only the host, <@{host_id}>, can {what}.")


def _seats(
    snapshot: Snapshot, players: tuple[Player, ...], *, deadline: float | None = None
) -> GameChange:
    """The lobby's seats anew (and, for a join, its closing time pushed back)."""
    change = GameChange(snapshot.id, from_status=GameStatus.LOBBY, players=players)
    return change if deadline is None else replace(change, deadline=deadline)


def already_yours(kind: str, game_id: int, status: GameStatus, hosting: bool) -> str:
    """A new game refused because the person has one of this kind here already, and the way
    out that is theirs: a lobby's host cancels it (Leave is not for the host)."""
    head = f"You already have an open {title(kind)} game here, game {game_id}"
    if status is not GameStatus.LOBBY:
        way = "finish it, or give it up with /forfeit"
    elif hosting:
        way = "press Cancel on its lobby"
    else:
        way = "press Leave on its lobby"
    return f"{head}: {way}, to start another. /games lists the games here."


def channel_full(here: list[GameSummary], seats: int) -> str:
    """A new game refused because the channel has as many of this kind as its server allows;
    a lobby there with a seat free (of ``seats``) is offered instead."""
    games = plural(len(here), f"open {title(here[0].kind)} game")
    head = f"This channel already has {games}, as many as this server allows here."
    lobbies = [g.id for g in here if g.status is GameStatus.LOBBY and len(g.players) < seats]
    if lobbies:
        return f"{head} Join game {lobbies[0]} (still in its lobby), or play in another channel."
    return f"{head} Play in another channel, or wait for one to end: /games lists them."


def too_few(kind: str, least: int) -> str:
    """A start refused for want of players, and how to get them."""
    orchard = ", or add Orchard from the menu" if orchard_plays(kind) else ""
    return f"This game needs at least {least} players: wait for someone to press Join{orchard}."
