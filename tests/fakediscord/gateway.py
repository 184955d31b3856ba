"""The gateway websocket: identify, resume, heartbeats, and the events tests dispatch.

Enough of it that discord.py connects, sees its guilds, and resumes after a drop.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from aiohttp import WSMsgType, web

from tests.fakediscord.protocol import JSON
from tests.fakediscord.waiting import Waiting
from tests.fakediscord.world import World


@dataclass
class Session:
    """One gateway connection (one shard)."""

    ws: web.WebSocketResponse
    shard_id: int = 0
    session_id: str = ""
    seq: int = 0
    live: bool = False


class Gateway(World, Waiting):
    """Serves ``/gw/`` and sends events to the shard that owns a guild."""

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self._sockets.add(ws)
        session = Session(ws)
        try:
            await ws.send_json({"op": 10, "d": {"heartbeat_interval": 41_250}})
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                await self._on_frame(session, frame["op"], frame.get("d"))
        finally:
            self.close_codes.append(ws.close_code)
            self._sockets.discard(ws)
            session.live = False
            self._notify()
        return ws

    async def _on_frame(self, session: Session, op: int, data: Any) -> None:
        if op == 1:
            await session.ws.send_json({"op": 11})
        elif op == 2:
            await self._identify(session, data)
        elif op == 6:
            await self._resume(session, data)
        elif op == 8:
            guild_id = int(data["guild_id"])
            members = list(self.guild_members.get(guild_id, {}).values())
            chunk = {"guild_id": str(guild_id), "members": members, "chunk_index": 0}
            chunk |= {"chunk_count": 1, "nonce": data.get("nonce")}
            await self._send(session, "GUILD_MEMBERS_CHUNK", chunk)

    async def _send(self, session: Session, event: str, data: JSON) -> None:
        session.seq += 1
        await session.ws.send_json({"op": 0, "t": event, "s": session.seq, "d": data})

    def shard_of(self, guild_id: int | None) -> int:
        """The shard Discord sends a server's events to."""
        return 0 if guild_id is None else (guild_id >> 22) % self.shard_count

    async def _identify(self, session: Session, data: JSON) -> None:
        shard_id, count = (int(n) for n in (data.get("shard") or [0, 1]))
        if count != self.shard_count or not 0 <= shard_id < count:
            await session.ws.close(code=4010)  # Invalid shard
            return
        if self._identify_too_soon(shard_id):
            self.identifies_refused.append(data)
            await session.ws.send_json({"op": 9, "d": False})
            return
        self.identifies.append(data)
        session.shard_id = shard_id
        session.session_id = f"session-{self.next_id()}"
        self._known_sessions[session.session_id] = session
        guild_ids = [
            g for g in self.guilds if self.shard_of(g) == shard_id and g not in self.removed
        ]
        ready = {
            "v": 10,
            "user": self.users[self.bot_id],
            "guilds": [{"id": str(g), "unavailable": True} for g in guild_ids],
            "session_id": session.session_id,
            "resume_gateway_url": self.gateway_url,
            "shard": [shard_id, self.shard_count],
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
        }
        await self._send(session, "READY", ready)
        for guild_id in guild_ids:
            if guild_id not in self.outages:
                await self._send(session, "GUILD_CREATE", self._guild_create(guild_id))
        session.live = True
        self._sessions[shard_id] = session
        self._notify()

    def _identify_too_soon(self, shard_id: int) -> bool:
        """An IDENTIFY within ``identify_interval`` of the last in its bucket (and records
        this one's time when it is not)."""
        now = time.monotonic()
        bucket = shard_id % self.max_concurrency
        last = self._last_identify.get(bucket)
        interval = self.identify_interval
        if interval is not None and last is not None and now - last < interval:
            return True
        self._last_identify[bucket] = now
        return False

    async def _resume(self, session: Session, data: JSON) -> None:
        old = self._known_sessions.get(data.get("session_id", ""))
        if old is None or not self.resume_ok:
            await session.ws.send_json({"op": 9, "d": False})
            return
        session.shard_id, session.session_id, session.seq = old.shard_id, old.session_id, old.seq
        self._known_sessions[session.session_id] = session
        self.resumes += 1
        await self._send(session, "RESUMED", {})
        session.live = True
        self._sessions[session.shard_id] = session
        self._notify()

    def connected(self, shard_id: int = 0) -> bool:
        session = self._sessions.get(shard_id)
        return session is not None and session.live and not session.ws.closed

    async def dispatch(
        self, event: str, data: JSON, *, guild_id: int | None = None, timeout: float = 5.0
    ) -> None:
        """Send a gateway event to the shard owning ``guild_id`` (waits for it to be connected)."""
        shard_id = self.shard_of(guild_id)
        await self.wait_for(lambda: self.connected(shard_id), timeout, f"shard {shard_id} online")
        await self._send(self._sessions[shard_id], event, data)

    async def update_channel(self, channel_id: int, **changes: object) -> None:
        """Change a guild channel as its server's admins would (``permission_overwrites``,
        say) and tell the bot, as Discord does (CHANNEL_UPDATE)."""
        channel = self.channels[channel_id]
        channel.update(changes)
        await self.dispatch("CHANNEL_UPDATE", channel, guild_id=int(channel["guild_id"]))

    async def delete_channel(self, channel_id: int, *, heard: bool = True) -> None:
        """Delete a guild channel as its server's admins would, and tell the bot, as Discord
        does (CHANNEL_DELETE): a post there is refused 404 from now on, and the server's
        channels no longer list it. ``heard=False``: while the bot is down, so no event
        reaches it; it sees the channel gone only in the server's channels when it connects.
        Nor does one reach it while the server is in an outage: it sees the channel gone only
        in the channels the server's GUILD_CREATE brings when the outage ends. A thread
        goes with THREAD_DELETE, whose payload is the thread's ids and type alone."""
        channel = self.channels.pop(channel_id)
        guild_id = int(channel["guild_id"])
        if "thread_metadata" in channel:
            if heard and guild_id not in self.outages and guild_id not in self.removed:
                ids = {key: channel[key] for key in ("id", "guild_id", "parent_id", "type")}
                await self.dispatch("THREAD_DELETE", ids, guild_id=guild_id)
            return
        for thread_id in [
            t for t, c in self.channels.items() if c.get("parent_id") == str(channel_id)
        ]:
            del self.channels[thread_id]  # a channel's threads go with it
        self.guilds[guild_id]["channel_ids"].remove(channel_id)
        if heard and guild_id not in self.outages and guild_id not in self.removed:
            await self.dispatch("CHANNEL_DELETE", channel, guild_id=guild_id)

    async def archive_thread(
        self, thread_id: int, *, archived: bool = True, locked: bool = False
    ) -> None:
        """Archive a thread (or reopen it) as Discord does after a quiet spell, or a
        moderator's "Close" (``locked``: "Lock"), and tell the bot (THREAD_UPDATE). An edit
        in an archived thread is refused until someone posts there (see ``_reopened``)."""
        thread = self.channels[thread_id]
        thread["thread_metadata"].update(archived=archived, locked=locked and archived)
        await self.dispatch("THREAD_UPDATE", thread, guild_id=int(thread["guild_id"]))

    async def remove_bot(self, guild_id: int) -> None:
        """The server's admins remove the bot while it runs: Discord sends GUILD_DELETE with
        no ``unavailable``, and nothing more of the server until :meth:`add_bot`."""
        self.removed.add(guild_id)
        await self.dispatch("GUILD_DELETE", {"id": str(guild_id)}, guild_id=guild_id)

    async def add_bot(self, guild_id: int) -> None:
        """The bot is invited back to a server that removed it: Discord sends the server's
        GUILD_CREATE with no ``unavailable`` (a join, not an outage's end), with every channel
        it has now."""
        self.removed.discard(guild_id)
        joined = self._guild_create(guild_id)
        del joined["unavailable"]
        await self.dispatch("GUILD_CREATE", joined, guild_id=guild_id)

    async def begin_outage(self, guild_id: int) -> None:
        """A server goes unavailable while the bot runs (a Discord outage): Discord sends
        GUILD_DELETE marked ``unavailable``, and nothing more of it until :meth:`end_outage`
        (a bot that connects meanwhile sees it unavailable, as in :attr:`outages`)."""
        self.outages.add(guild_id)
        gone = {"id": str(guild_id), "unavailable": True}
        await self.dispatch("GUILD_DELETE", gone, guild_id=guild_id)

    async def end_outage(self, guild_id: int) -> None:
        """A server in :attr:`outages` (listed unavailable in READY, or gone unavailable
        since, its channels unsent) becomes available: Discord sends its GUILD_CREATE,
        ``unavailable: false``, with every channel it has now."""
        self.outages.discard(guild_id)
        await self.dispatch("GUILD_CREATE", self._guild_create(guild_id), guild_id=guild_id)

    async def drop_gateway(
        self, *, code: int = 4000, wait: bool = True, timeout: float = 5.0
    ) -> None:
        """Close the gateway connection(s) as Discord might; by default wait until back online.

        discord.py resumes at once after a 4000 close; if ``resume_ok`` is False it
        re-identifies instead, after its 5 s ``before_identify_hook`` sleep.
        """
        resumes, identifies = self.resumes, len(self.identifies)
        sessions = list(self._sessions.values())
        for session in sessions:
            session.live = False
            await session.ws.close(code=code)
        if wait:
            await self.wait_for(
                lambda: (
                    (self.resumes + len(self.identifies) >= resumes + identifies + len(sessions))
                    and all(self.connected(s.shard_id) for s in sessions)
                ),
                timeout,
                "the bot to reconnect",
            )
