"""The lobby every game shares: open, join, leave, start, cancel, expire.

Seats live in the store from the first click, so a restart keeps every lobby; the per-game
lock from the runner serialises lobby clicks with each other and with the game's start.
"""

from __future__ import annotations

import asyncio
import secrets
import weakref
from typing import Any

from bot.model import Player
from bot.runner import Live, Refusal, Runner, Show

LOBBY_SECONDS = 15 * 60


class Lobby:
    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.store = runner.store
        self._opening: weakref.WeakValueDictionary[tuple[int, int, str], asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    async def open(
        self,
        kind: str,
        guild_id: int,
        channel_id: int,
        host: Player,
        options: dict[str, Any] | None = None,
        variant: str = "",
    ) -> Live:
        """A new lobby with the host in seat 0, if this channel may have another game.

        The limits are checked and the lobby created under one lock per channel and game, so
        two `/new` at the same moment cannot both pass a one-open-game limit.
        """
        key = (guild_id, channel_id, kind)
        async with self._opening.setdefault(key, asyncio.Lock()):
            await self._check_room(kind, guild_id, channel_id, host)
            game_id = await self.store.create_game(
                kind,
                guild_id,
                channel_id,
                host,
                seed=secrets.randbits(62),
                options=options,
                variant=variant,
                deadline=self.runner.clock() + LOBBY_SECONDS,
            )
        return await self.runner.load(game_id)

    async def _check_room(self, kind: str, guild_id: int, channel_id: int, host: Player) -> None:
        """Refuse a new lobby where games may not start or the channel is full."""
        settings = await self.runner.settings.get(guild_id)
        if settings.game_channels and channel_id not in settings.game_channels:
            channels = ", ".join(f"<#{c}>" for c in settings.game_channels)
            raise Refusal(f"Games can only be started in {channels} on this server.")
        for row in await self.store.open_games(guild_id, None, None):
            if any(p.user_id == host.user_id and not p.is_bot for p in row.players) and (
                row.kind == kind and row.channel_id == channel_id
            ):
                raise Refusal("You already have a game of this kind open in this channel.")
        here = await self.store.open_games(guild_id, channel_id, kind)
        if len(here) >= settings.open_games_per_channel:
            raise Refusal(
                "This channel already has an open game of this kind: finish it, or use /games."
            )

    async def join(self, game_id: int, player: Player, present: Show | None = None) -> Live:
        async with self.runner.lock(game_id):
            live = await self._lobby(game_id)
            engine = self.runner.engine(live.row.kind)
            if live.row.seat_of(player.user_id) is not None:
                raise Refusal("You are already in this game.")
            if len(live.row.players) >= engine.max_players:
                raise Refusal(f"This game is full ({engine.max_players} players).")
            await self.store.set_players(game_id, [*live.row.players, player])
            # Someone joined: the lobby is wanted, so its 15 minutes start again.
            await self.store.postpone(game_id, self.runner.clock() + LOBBY_SECONDS)
            return await self._show(game_id, present)

    async def leave(self, game_id: int, user_id: int, present: Show | None = None) -> Live:
        async with self.runner.lock(game_id):
            live = await self._lobby(game_id)
            if live.row.seat_of(user_id) is None:
                raise Refusal("You are not in this game.")
            if user_id == live.row.host_id:
                raise Refusal("You are hosting this game: use Cancel to close it.")
            rest = [p for p in live.row.players if p.is_bot or p.user_id != user_id]
            await self.store.set_players(game_id, rest)
            return await self._show(game_id, present)

    async def add_seat(
        self, game_id: int, user_id: int, seat: Player, present: Show | None = None
    ) -> Live:
        """The host adds a non-human seat (an Orchard opponent)."""
        async with self.runner.lock(game_id):
            live = await self._lobby(game_id)
            self._host_only(live, user_id, "add a seat")
            if len(live.row.players) >= self.runner.engine(live.row.kind).max_players:
                raise Refusal("This game is full.")
            await self.store.set_players(game_id, [*live.row.players, seat])
            return await self._show(game_id, present)

    async def start(self, game_id: int, user_id: int, present: Show | None = None) -> Live:
        async with self.runner.lock(game_id):
            live = await self._lobby(game_id)
            self._host_only(live, user_id, "start it")
            engine = self.runner.engine(live.row.kind)
            count = len(live.row.players)
            if count < engine.min_players:
                raise Refusal(f"This game needs at least {engine.min_players} players.")
            state = engine.new(live.row.seed, count, live.row.options)
            deadline = None
            if engine.to_act(state):
                seconds = await self.runner.settings.turn_seconds(live.row.guild_id)
                deadline = self.runner.clock() + seconds
            if not await self.store.start_game(game_id, engine.dump(state), deadline):
                raise Refusal("This game has already started.")
            fresh = await self._show(game_id, present)
            for hook in self.runner.on_commit:
                hook(fresh)
            return fresh

    async def cancel(self, game_id: int, user_id: int, present: Show | None = None) -> Live:
        async with self.runner.lock(game_id):
            live = await self._lobby(game_id)
            self._host_only(live, user_id, "cancel it")
            await self.store.close_game(game_id, "cancelled", from_status="lobby")
            return await self._show(game_id, present)

    async def expire(self, game_id: int) -> Live | None:
        """Close a lobby nobody started in time (run by the deadline scheduler)."""
        async with self.runner.lock(game_id):
            live = await self.runner.load(game_id)
            row = live.row
            if row.status != "lobby" or row.deadline is None or row.deadline > self.runner.clock():
                return None
            await self.store.close_game(game_id, "cancelled", from_status="lobby")
            return await self._show(game_id, None)

    async def _lobby(self, game_id: int) -> Live:
        live = await self.runner.load(game_id)
        if live.row.status == "active":
            raise Refusal("This game has already started.")
        if live.row.status != "lobby":
            raise Refusal("This lobby is closed.")
        return live

    def _host_only(self, live: Live, user_id: int, what: str) -> None:
        if user_id != live.row.host_id:
            raise Refusal(f"Only the host, <@{live.row.host_id}>, can {what}.")

    async def _show(self, game_id: int, present: Show | None) -> Live:
        fresh = await self.runner.load(game_id)
        await self.runner.show(fresh, present)
        return fresh
