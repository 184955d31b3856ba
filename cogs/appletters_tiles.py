"""Appletters' private tiles by DM: each player is sent their hand whenever it changes.

A service of its own beside the cog: it listens to every write the runner makes, and keeps in
the store which hand each player was last sent and whose DMs are closed, so a restart sends
nothing twice and repeats no closed-DMs note. Hands only ever travel in DMs and in replies
only their owner sees.
"""

from __future__ import annotations

import asyncio
import logging

import discord

from bot.background import drain, spawn
from bot.boards import message_link
from bot.games.appletters import AppState
from bot.locks import KeyedLocks
from bot.model import GameStatus
from bot.orchard import Orchard
from bot.pings import send_dm
from bot.runner import Refusal, Snapshot
from bot.specs import title

log = logging.getLogger(__name__)


def tiles_text(hand: str) -> str:
    """How a hand is shown to its owner (only ever in a DM or an ephemeral reply)."""
    return " ".join(f"`{letter}`" for letter in hand) or "none left"


def tiles_message(snapshot: Snapshot, hand: str) -> str:
    """A player's hand with the game it belongs to and a link back to the board."""
    row = snapshot.row
    where = message_link("Go to the game", row.guild_id, row.channel_id, row.message_id)
    return (
        f"**{title(row.kind)} · game {row.id}** in <#{row.channel_id}>\n"
        f"Your tiles ({len(hand)}): {tiles_text(hand)}\n{where}"
    )


class TileDMs:
    """Sends each player of the word games their hand by DM after every change to it."""

    def __init__(self, client: discord.Client, orchard: Orchard, kinds: tuple[str, ...]) -> None:
        self.client = client
        self.orchard = orchard
        self.kinds = kinds
        self._versions: dict[int, int] = {}  # per game in play: the newest version DMed for
        self._locks: KeyedLocks[int] = KeyedLocks()
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        """DM every change of hand from now on, and the ones a restart interrupted."""
        self.orchard.runner.on_commit.append(self._on_commit)
        self.orchard.runner.on_forget.append(self._forget)
        spawn(self._tasks, self._resume())

    async def stop(self) -> None:
        """Let DMs in flight finish and be recorded while the store is still open
        (:func:`bot.background.drain`)."""
        self.orchard.runner.on_commit.remove(self._on_commit)
        self.orchard.runner.on_forget.remove(self._forget)
        await drain(self._tasks)

    def _forget(self, game_id: int) -> None:
        """Runner hook: the game is over and shown, here or by another process."""
        self._versions.pop(game_id, None)

    def _on_commit(self, snapshot: Snapshot) -> None:
        """Runner hook (sync): DM the tiles of anyone whose hand changed, in the background."""
        if snapshot.row.kind not in self.kinds or snapshot.state is None:
            return
        spawn(self._tasks, self._send_tiles(snapshot))

    async def _resume(self) -> None:
        """After a restart: the hands a crash or a shutdown kept from their players (the store
        says which each was last sent, so none goes twice)."""
        for kind in self.kinds:
            games = await self.orchard.store.open_games(kind=kind)
            playing = [game.id for game in games if game.status is GameStatus.ACTIVE]
            for snapshot in await self.orchard.runner.load_many(playing):
                await self._send_tiles(snapshot)

    async def _send_tiles(self, snapshot: Snapshot) -> None:
        """DM each player whose hand differs from the one they were last sent, in version
        order; a finished game's notes go."""
        store = self.orchard.store
        async with self._locks[snapshot.id]:
            if snapshot.id not in self._versions:  # its first here: maybe read before its end
                snapshot = await self._latest(snapshot)
            if snapshot.row.version < self._versions.get(snapshot.id, -1):
                return  # a newer version was handled already
            self._versions[snapshot.id] = snapshot.row.version
            if snapshot.row.status is not GameStatus.ACTIVE:
                del self._versions[snapshot.id]
                await store.forget_tile_dms(snapshot.id)
                return
            state: AppState = snapshot.state
            sent = await store.tile_dms(snapshot.id)
            for player in snapshot.row.players:
                hand = state.hands[player.seat]
                last, closed = sent.get(player.user_id, (None, False))
                if player.is_bot or not state.active[player.seat] or closed or last == hand:
                    continue
                outcome = await self._dm(snapshot, player.user_id, hand)
                if outcome == "failed":
                    continue  # tried again at the next change
                closed = outcome == "closed"
                await store.note_tile_dm(snapshot.id, player.user_id, hand, closed=closed)
                if closed:  # recorded first: a crash now loses the note, never repeats it
                    await self._tell_dms_closed(snapshot, player.user_id)

    async def _latest(self, snapshot: Snapshot) -> Snapshot:
        """``snapshot``, or the game as stored if it changed since: a restart reads its games
        before it listens, and one that ended meanwhile, its notes gone with its end, would
        have every hand it had DMed again."""
        try:
            stored = await self.orchard.runner.load(snapshot.id)
        except Refusal:  # gone (its server's purge): as it was
            return snapshot
        return stored if stored.row.revision > snapshot.row.revision else snapshot

    async def _dm(self, snapshot: Snapshot, user_id: int, hand: str) -> str:
        """Send ``hand``: "sent", "closed" (the player allows no DMs) or "failed"."""
        sent = await send_dm(self.client, user_id, tiles_message(snapshot, hand))
        if sent == "failed":
            log.warning("game %s: could not DM user %s their tiles", snapshot.id, user_id)
        return sent

    async def _tell_dms_closed(self, snapshot: Snapshot, user_id: int) -> None:
        """Once per game: say so in the channel, naming no tile."""
        row = snapshot.row
        channel = self.client.get_partial_messageable(row.channel_id, guild_id=row.guild_id)
        try:
            await channel.send(
                f"<@{user_id}>, I can't send you direct messages, so press **My tiles** on the "
                "game whenever you want to see your letters.",
                allowed_mentions=discord.AllowedMentions(users=True, everyone=False, roles=False),
            )
        except discord.HTTPException:
            log.warning("game %s: could not post the closed-DMs note", snapshot.id)
