"""Turn pings: whoever the game newly waits for is told in a new message that mentions them.

Discord notifies a mentioned user only when a message is *created* with the mention, never
when one is edited; every move edits the board, so the board only names whose turn it is and
these messages do the telling. They are sent after each commit, once the board of that version
is shown, in version order per game: from a runner hook rather than from
:meth:`~bot.boards.Boards.display` (a click's board is drawn in the interaction's reply, but
every write ends in the hooks). They never touch the game: a failure is logged and play goes
on.

A game keeps one live turn message in its channel: the previous one is deleted when the next
is posted (editing it could carry no new ping), and once nobody it pinged is still awaited.
A game's pings are brought up to its latest version only: versions committed while an earlier
one's pings were still on their way (its channel rate-limited, say) are never told, since
their turns are already over; whoever is awaited again after them is pinged anew.
Deleting is tidying, so it goes in the background as the backlog of the global limit
(:data:`bot.pacing.BACKLOG`): pings and boards go first, and a restart in between leaves the
old message behind. The live message's id and the seats awaited are stored
(:class:`~bot.model.TurnPing`), so only the newly awaited are pinged and a restart catches up
and still deletes it. On a store several processes share, each handles the versions it
committed; a record never goes back to an older version, so when an older version's pings
finish last there, its message (for a turn already over) is deleted and the newer record stands.
And when an older version's record is written after a newer handler read the record it meant
to replace, the newer one's write learns which message it replaced and deletes that too.
A game over refuses an older version's record (its message goes), and its end drops the
record with whatever message it then held.
On one process a game's pings are handled one version at a time, so none of this can happen
there.
A finished game is announced in a message of its own that pings nobody.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, replace

import aiohttp
import discord

from bot.background import drain, spawn
from bot.daily import is_daily
from bot.model import NOBODY, GameRow, GameStatus, Player, TurnPing
from bot.pacing import BACKLOG
from bot.runner import Refusal, Runner, Snapshot
from bot.specs import title
from bot.wording import joined, link, literal

log = logging.getLogger(__name__)

BACKLOG_WORKERS = 4  # ping the backlog's commits: more only queue on Discord's limit
BOARD_WAIT = 5.0  # seconds a ping waits for its board to show its version, at most
TIDIERS = 4  # turn messages deleted side by side: more only queue on Discord's limit
MOST_UNTIDY = 20_000  # turn messages waiting to be deleted, at most: past it the oldest stay


def pingable(player: Player) -> bool:
    """A person still at the table: never Orchard's seats or a forgotten one."""
    return not player.is_bot and player.user_id != NOBODY


def game_name(row: GameRow) -> str:
    return f"**{title(row.kind)} · game {row.id}**"


def turn_text(row: GameRow, users: Iterable[int], link: str) -> str:
    """The channel ping: the mentions first, so a phone's notification shows them."""
    mentions = " ".join(f"<@{user}>" for user in users)
    return f"{mentions}, your turn in {game_name(row)}: {link}"


def dm_text(row: GameRow, link: str) -> str:
    return f"Your turn in {game_name(row)} in <#{row.channel_id}>: {link}"


def end_text(snapshot: Snapshot, winners: list[int], link: str) -> str:
    """Who won, by name (the message pings nobody)."""
    players = snapshot.row.players
    names = [literal(players[seat].name) for seat in winners]
    if len(players) == 1:
        outcome = f"{names[0]} played it solo" if names else "nobody won"
    else:
        outcome = f"{joined(names)} won" if names else "nobody won"
    return f"🏁 {game_name(snapshot.row)} is over: {outcome}. {link}"


def only(users: Iterable[int]) -> discord.AllowedMentions:
    """Mentions that notify exactly these users and nobody else."""
    objects = [discord.Object(id=user) for user in users]
    return discord.AllowedMentions(everyone=False, users=objects, roles=False, replied_user=False)


async def send_dm(client: discord.Client, user_id: int, text: str) -> str:
    """DM ``text``: "sent", "closed" (the person takes no DMs from Orchard) or "failed"."""
    try:
        channel = await client.create_dm(discord.Object(id=user_id))
        await channel.send(text)
        return "sent"
    except discord.Forbidden:
        return "closed"
    except discord.HTTPException:
        return "failed"


@dataclass(frozen=True)
class Pending:
    """A game's latest version whose pings are still to be handled, and what the versions
    passed over since the last one handled leave to tell."""

    snapshot: Snapshot
    recorded_only: bool = False  # caught up at a restart: only if the game has a record
    breaks: frozenset[int] = frozenset()  # seats that some version passed over did not await
    # The seats awaited (reachable by a ping) on the version its first write was made on; None
    # if unknown (a game loaded, not written).
    before: frozenset[int] | None = None


class TurnPings:
    """Tells people it is their turn, by channel message or DM, after every commit."""

    def __init__(self, client: discord.Client, runner: Runner) -> None:
        self.client = client
        self.runner = runner
        self._pings: dict[int, TurnPing] = {}  # per game in play: where its pings stand
        # Per game: its latest version not yet taken up, and the games whose pings one task
        # is bringing up to date.
        self._latest: dict[int, Pending] = {}
        self._busy: set[int] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._backlog: asyncio.Queue[int] = asyncio.Queue()  # games, for the workers
        self._workers: list[asyncio.Task[None]] = []
        # Turn messages to delete, oldest first: (game, server, channel, message) each, and
        # a few tidiers working through them (see _tidy).
        self._untidy: deque[tuple[int, int, int, int]] = deque()
        self._tidiers: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        """Ping after every commit from now on, and catch up on games a restart interrupted."""
        self.runner.on_commit.append(self._on_commit)
        self.runner.on_forget.append(self._forget)
        spawn(self._tasks, self._resume())

    async def stop(self) -> None:
        """Let pings in flight finish and be recorded while the store is still open, and the
        deletes they start (:func:`bot.background.drain`; a ping cut short is tried again at
        the next move, as any failed ping is; a delete cut short leaves its message)."""
        if self._on_commit in self.runner.on_commit:
            self.runner.on_commit.remove(self._on_commit)
            self.runner.on_forget.remove(self._forget)
        for worker in self._workers:  # the backlog's pings left are caught up at the restart
            worker.cancel()
        await drain(self._tasks)

    def _forget(self, game_id: int) -> None:
        """Runner hook: the game is over and shown, here or by another process."""
        self._pings.pop(game_id, None)

    def _on_commit(self, snapshot: Snapshot) -> None:
        """Runner hook (sync): ping in the background, after the board is shown. A daily
        game is played privately: nobody is pinged, nor its end announced. A commit of the
        backlog (deadlines the scheduler fired) is pinged by a few workers as the limit
        lets them, not by a task each: after downtime there are thousands."""
        if snapshot.state is None or is_daily(snapshot.row.options):
            return
        if not BACKLOG.get() and self._nothing_to_tell(snapshot):
            return
        self._queue(snapshot)

    def _queue(self, snapshot: Snapshot, recorded_only: bool = False) -> None:
        """Bring the game's pings up to ``snapshot``: by the task already doing so for the
        game, which takes the latest version when it is done with its own; else by a task of
        its own, or, for the backlog, by a worker."""
        game_id = snapshot.id
        waiting = self._latest.get(game_id)
        before = snapshot.before
        awaited = None if before is None else self._awaited(replace(snapshot, state=before))
        pending = Pending(snapshot, recorded_only, before=awaited)
        if waiting is not None:
            pending = self._passing_over(waiting, pending)
        self._latest[game_id] = pending
        if game_id in self._busy:
            return
        if not BACKLOG.get():
            self._busy.add(game_id)  # at once: a second commit before the task starts joins it
            spawn(self._tasks, self._catch_up(game_id))
        elif waiting is None:  # else a worker will come to it already
            if not self._workers:
                self._workers = [spawn(self._tasks, self._work()) for _ in range(BACKLOG_WORKERS)]
            self._backlog.put_nowait(game_id)

    def _passing_over(self, waiting: Pending, latest: Pending) -> Pending:
        """``latest`` in place of ``waiting``, never to be told: the seats it did not await
        had their turn broken, as had those broken by versions either one passed over
        (``latest`` gathers its own while ``waiting`` waits for its board); a version to be
        told in full stays so."""
        passed = waiting.snapshot
        seats = range(len(passed.row.players))
        awaited = self._awaited(passed) if passed.row.status is GameStatus.ACTIVE else frozenset()
        return replace(
            latest,
            recorded_only=latest.recorded_only and waiting.recorded_only,
            breaks=waiting.breaks | latest.breaks | (frozenset(seats) - awaited),
            before=waiting.before,
        )

    def _nothing_to_tell(self, snapshot: Snapshot) -> bool:
        """A move that changes nobody's turn (most of them: a roll, a hold, a solo player's
        every move) is noted at once, with no task: the same seats awaited as last handled,
        told already, and the live message still pinging one of them. Only when this process
        alone writes the record and no earlier version of the game is still to be handled."""
        ping = self._pings.get(snapshot.id)
        row = snapshot.row
        if (
            ping is None
            or row.id in self._latest
            or row.id in self._busy
            or self.runner.store.shared
            or row.status is not GameStatus.ACTIVE
            or row.version <= ping.version
        ):
            return False
        if self._awaited(snapshot) != ping.awaited:
            return False
        if ping.message_id is not None and not ping.mentioned & ping.awaited:
            return False
        self._pings[row.id] = replace(ping, version=row.version)
        return True

    def _awaited(self, snapshot: Snapshot) -> frozenset[int]:
        """The seats the game waits for that a ping can reach."""
        players = snapshot.row.players
        engine = self.runner.engine(snapshot.row.kind)
        return frozenset(s for s in engine.to_act(snapshot.state) if pingable(players[s]))

    async def _work(self) -> None:
        """A backlog worker: one game's pings at a time, unless a task has them in hand."""
        while True:
            game_id = await self._backlog.get()
            if game_id in self._latest and game_id not in self._busy:
                self._busy.add(game_id)
                await self._catch_up(game_id)

    async def _resume(self) -> None:
        """Games whose pings fell behind while Orchard was down: moved on, or over, or never
        pinged (a crash or a shutdown cut off their first ping).

        Each is read inside the runner's lock, so it is the game's latest version until its
        next commit, which would take its place; a game whose record the live pings have
        dropped meanwhile (it ended) is left alone.
        """
        for game_id, recorded in await self.runner.store.turn_pings_behind():
            async with self.runner.lock(game_id):
                try:
                    snapshot = await self.runner.load(game_id)
                except Refusal:
                    continue  # the game is gone, and its record with it
                self._queue(snapshot, recorded_only=recorded)

    async def _catch_up(self, game_id: int) -> None:
        """(The game marked busy.) Its pings brought up to its latest version, and again
        while newer ones come in meanwhile; the versions in between are passed over."""
        try:
            while (pending := self._latest.pop(game_id, None)) is not None:
                await self._handled(await self._shown(pending))
        finally:
            self._busy.discard(game_id)

    async def _shown(self, pending: Pending) -> Pending:
        """Once the board of ``pending``'s version is shown (and its message id known): that
        version, or one committed while the board was being shown, in its place."""
        game_id = pending.snapshot.id
        while True:
            async with self.runner.showing(game_id):
                pass  # displays go in write order: those queued before this one are done
            # One the scheduler's display workers draw has not begun yet (a timeout's).
            await self.runner.until_drawn(pending.snapshot, BOARD_WAIT)
            newer = self._latest.pop(game_id, None)
            if newer is None:
                return pending
            pending = self._passing_over(pending, newer)

    async def _handled(self, pending: Pending) -> None:
        snapshot = pending.snapshot
        try:
            ping = await self._stored(snapshot.id)
            if pending.recorded_only and ping.version < 0:
                # Its record went (the game ended) since the restart read it: nothing to tell,
                # and nothing to keep of it either.
                self._pings.pop(snapshot.id, None)
                return
            if snapshot.row.status is GameStatus.ACTIVE:
                if snapshot.row.version > ping.version:
                    await self._turn(snapshot, ping, self._breaks(pending))
            elif ping.version >= 0 or snapshot.row.status is GameStatus.FINISHED:
                await self._end(snapshot, ping)
            else:  # closed before its first ping: no message to tidy, but _stored kept it
                self._pings.pop(snapshot.id, None)
        except Exception:
            log.exception("game %s: turn pings failed; the game goes on", snapshot.id)

    async def _stored(self, game_id: int) -> TurnPing:
        """Where the game's pings stand: remembered here, or read afresh on a shared store,
        where another process may have pinged for the game since (it took a click, fired a
        deadline or played Orchard's move)."""
        if game_id not in self._pings or self.runner.store.shared:
            self._pings[game_id] = await self.runner.store.turn_ping(game_id) or TurnPing(game_id)
        return self._pings[game_id]

    @staticmethod
    def _breaks(pending: Pending) -> frozenset[int]:
        """The seats whose turn broke since the record's version: at versions ``pending``
        passed over, and any not awaited on the version its first write was made on. The
        record may be older than that version: on a shared store another process may be
        telling that version still (or never will, having found this record newer), and a
        seat awaited at the record's version but not at that one had its turn break."""
        if pending.before is None:
            return pending.breaks
        seats = range(len(pending.snapshot.row.players))
        return pending.breaks | (frozenset(seats) - pending.before)

    async def _turn(self, snapshot: Snapshot, ping: TurnPing, breaks: frozenset[int]) -> None:
        """Ping the seats newly awaited (since the version last handled, or awaited again
        after ``breaks``); keep the one live turn message right."""
        row = snapshot.row
        awaited = self._awaited(snapshot)
        still = ping.awaited - breaks  # awaited at every version since the last one handled
        told, in_channel = await self._direct(row, sorted(awaited - still))
        message_id, mentioned = ping.message_id, ping.mentioned
        replaced = None
        if in_channel or (message_id is not None and not mentioned & awaited):
            replaced, message_id, mentioned = message_id, None, frozenset()
        posted = None
        if in_channel:
            users = [row.players[seat].user_id for seat in in_channel]
            posted = await self._send(row, turn_text(row, users, await self._link(row)), users)
            if posted is not None:
                message_id, mentioned = posted, frozenset(in_channel)
                told |= mentioned
        told |= awaited & still  # pinged before, and still awaited
        fresh = TurnPing(row.id, row.version, told, message_id, mentioned)
        self._pings[row.id] = fresh
        if ping.version >= 0 and replace(ping, version=fresh.version) == fresh:
            return  # a roll that changed no turn: nothing to record
        written, held = await self.runner.store.set_turn_ping(fresh)
        if not written:
            self._outdated(row, posted)
            return
        self._tidy(row, replaced)
        if held not in (replaced, message_id):
            self._tidy(row, held)  # an older version's, recorded after ``ping`` was read

    def _outdated(self, row: GameRow, posted: int | None) -> None:
        """Another process recorded a newer version's pings while these were sent (it handled
        the next commit of the game, and finished first): its record stands, and the message
        posted here for a turn already over goes. The record is read afresh next time."""
        self._pings.pop(row.id, None)
        self._tidy(row, posted)

    async def _direct(self, row: GameRow, seats: list[int]) -> tuple[frozenset[int], list[int]]:
        """DM those whose pings go by DM; returns the seats told (or, pings off, never to be)
        and those to ping in the channel. A failed DM is tried again at the next turn."""
        told: set[int] = set()
        in_channel: list[int] = []
        for seat in seats:
            user = row.players[seat].user_id
            mode = await self.runner.settings.ping_mode(row.guild_id, user)
            if mode == "dm":
                mode = await self._dm(row, user)
            if mode == "channel":
                in_channel.append(seat)
            elif mode in ("off", "told"):
                told.add(seat)
        return frozenset(told), in_channel

    async def _dm(self, row: GameRow, user_id: int) -> str:
        """By DM: "told"; "channel" for a person who takes no DMs from Orchard; or "failed"."""
        sent = await send_dm(self.client, user_id, dm_text(row, await self._link(row)))
        if sent == "closed":
            return "channel"
        if sent == "failed":
            log.warning("game %s: could not DM user %s their turn", row.id, user_id)
        return "told" if sent == "sent" else "failed"

    async def _end(self, snapshot: Snapshot, ping: TurnPing) -> None:
        """The last turn message goes; a finished game is announced, pinging nobody."""
        row = snapshot.row
        self._tidy(row, ping.message_id)
        self._pings.pop(row.id, None)
        dropped = await self.runner.store.drop_turn_ping(row.id)
        if dropped != ping.message_id:
            self._tidy(row, dropped)  # another process's, recorded after ``ping`` was read
        if row.status is GameStatus.FINISHED:
            results = self.runner.engine(row.kind).results(snapshot.state)
            winners = [r.seat for r in sorted(results, key=lambda r: r.placement) if r.won]
            await self._send(
                row, end_text(snapshot, winners, await self._link(row, "See the final board")), []
            )

    async def _send(self, row: GameRow, text: str, users: list[int]) -> int | None:
        """Post in the game's channel, notifying exactly ``users``; the message id, or None."""
        channel = self.client.get_partial_messageable(row.channel_id, guild_id=row.guild_id)
        try:
            return (await channel.send(text, allowed_mentions=only(users))).id
        except discord.HTTPException:
            log.warning("game %s: could not post in channel %s", row.id, row.channel_id)
            return None

    def _tidy(self, row: GameRow, message_id: int | None) -> None:
        """Delete a turn message in the background, as the backlog: it waits for every request
        of a game being played now, and a ping never waits for it.

        Under Discord's global limit a busy night may post turn messages faster than the
        backlog's share of it deletes them. Each waits here as four numbers, not as a request
        in flight (a task, its coroutines, futures and timers: about a hundred objects, and
        thousands of them made every pass of the collector a tenth of a second long); a few
        tidiers delete them in order. Past :data:`MOST_UNTIDY` the oldest are left standing."""
        if message_id is None:
            return
        if len(self._untidy) >= MOST_UNTIDY:
            game_id, _, channel_id, left = self._untidy.popleft()
            log.warning(
                "game %s: turn message %s left in %s: too many to delete", game_id, left, channel_id
            )
        self._untidy.append((row.id, row.guild_id, row.channel_id, message_id))
        # A tidier done has left its loop, though its callback has not yet left the set.
        if sum(not tidier.done() for tidier in self._tidiers) < TIDIERS:
            tidier = spawn(self._tasks, self._tidying())
            self._tidiers.add(tidier)
            tidier.add_done_callback(self._tidiers.discard)

    async def _tidying(self) -> None:
        """A tidier: deletes turn messages until none is left to delete."""
        BACKLOG.set(True)  # this task's own context: nothing else it sends
        while self._untidy:
            await self._delete(*self._untidy.popleft())

    async def _delete(self, game_id: int, guild_id: int, channel_id: int, message_id: int) -> None:
        channel = self.client.get_partial_messageable(channel_id, guild_id=guild_id)
        try:
            await channel.get_partial_message(message_id).delete()
        except discord.NotFound:
            pass  # someone deleted it already
        except (discord.HTTPException, aiohttp.ClientError):
            log.warning("game %s: could not delete turn message %s", game_id, message_id)
        except RuntimeError:  # aiohttp's "Session is closed": Orchard is stopping
            log.info("game %s: turn message %s left: Orchard is stopping", game_id, message_id)

    async def _link(self, row: GameRow, text: str = "go to the board") -> str:
        """A masked link to the board (as last posted: a display may have posted it anew
        since this write, or read back when this write did not carry it), or the channel's
        mention while the board has no message."""
        message_id = self.runner.message_of(row)
        if message_id is None:
            stored = await self.runner.store.get_game(row.id)
            message_id = stored.message_id if stored else None
        channel = self.client.get_partial_messageable(row.channel_id, guild_id=row.guild_id)
        if message_id is None:
            return f"<#{row.channel_id}>"
        return link(text, channel.get_partial_message(message_id).jump_url)
