"""The one path every change to a game takes: lock, load, check, apply, commit, then display.

Moves, timeouts, forfeits, a lobby's seats and start, closing and abandoning a game all end
in :meth:`Runner._write`: one guarded store write, then its hooks once it is committed (still
inside the game's lock), then, after the lock, the display. A hint's mark is written directly.
The runner knows engines and the store, never ``discord``: displaying a game is a callback,
so the Discord layer decides how a message is drawn and the benchmarks can record instead.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from bot.daily import closes, is_daily
from bot.games.base import Ambiguous, Engine, MoveError, NotYourTurn, Option, SeatResult
from bot.locks import KeyedLocks
from bot.model import (
    FORFEIT_VERB,
    FORMER_PLAYER,
    KEEP,
    NOBODY,
    Due,
    GameChange,
    GameRow,
    GameStatus,
    Move,
    MoveSource,
    Player,
    RatingPool,
    RatingUpdate,
    Result,
)
from bot.ratings import rate
from bot.recent import Recent
from bot.settings import Settings
from bot.specs import DEFAULT_LEVEL, SPEC_OF
from bot.wording import not_your_turn
from db.session import GameSession
from db.store import Store

log = logging.getLogger(__name__)

TIMEOUTS_TO_FORFEIT = 3
REMEMBERED_GAMES = 2048  # as last committed, for their next move: a game night plays 250
PLANS_BETWEEN_TURNS = 10  # due games planned before the loop lets others run (about 2 ms)
ALREADY_PLAYED = "That was already played: the board has moved on."
"""Said for a click from before the clicker's own move (a double click, a stale board)."""
TIMED_OUT = (
    "Your time ran out: the turn this was shown for was played for you. "
    "Choose again from the game's board."
)
"""Said for a click from before the clock played the clicker's turn (its deadline passed)."""
REMOVED = "Your time ran out three times in a row, so you have left this game: nothing was played."
"""Said for a click from before the clock removed the clicker (:data:`TIMEOUTS_TO_FORFEIT`)."""
LEFT = "You have left this game: nothing was played."
"""Said for a click from before the clicker gave up their seat."""
CHANGED = (
    "Another player has changed the game since this was shown, so nothing was played: "
    "choose again from the game's board."
)
"""Said for a click from before other seats' moves (another player's move, a challenge, a
player leaving): the clicker played nothing, so "already played" would be untrue."""


class Claim(Enum):
    """What :meth:`Runner.fire_claimed` found."""

    NOTHING = "nothing due"
    BUSY = "held by another process"
    IDLE = "claimed, nothing to do"
    FIRED = "fired"


class FireFailed(Exception):
    """Firing a claimed game failed (its transaction rolled back)."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"game {game_id}")
        self.game_id = game_id


class Refusal(Exception):
    """An action the runner turns away; ``str(err)`` is shown to the user, privately."""

    @property
    def logged(self) -> str:
        """What a log may say of it: Orchard's own sentence, but only the kind of a game's
        (an Appletters word's names the word tried, or the letters missing: hidden tiles)."""
        cause = self.__cause__
        return type(cause).__name__ if isinstance(cause, MoveError) else str(self)


class Stale(Refusal):
    """The button belonged to an older version of the game: someone already moved, or the
    game or lobby has ended since (a board still showing it was never redrawn)."""


class Choose(Refusal):
    """The move fits several ways: each of ``options`` picks one, on the board at ``version``."""

    def __init__(self, message: str, game_id: int, version: int, options: tuple[Option, ...]):
        super().__init__(message)
        self.game_id, self.version, self.options = game_id, version, options


class Gone(Exception):
    """Raised by a :data:`Display` whose game can no longer be shown anywhere (its channel
    was deleted, or its thread closed where Orchard may not reopen it): nobody can see or
    play it, so the runner abandons it."""


@dataclass(frozen=True)
class Snapshot:
    """A game as loaded (or as just written): its row and decoded state (None in a lobby)."""

    row: GameRow
    state: Any
    moves: tuple[Move, ...] = ()  # what the write that produced this version added
    written: int = 0  # which of this process's writes to the game it is: displays go in order
    overtaken: bool = False  # found older than the stored revision (another process wrote)
    before: Any = None  # the state the write that produced this version was made on

    @property
    def id(self) -> int:
        return self.row.id


@dataclass
class Held:
    """A game inside its lock: as loaded, its store session, and what was written meanwhile
    (announced to the hooks once committed)."""

    snapshot: Snapshot
    session: GameSession
    written: list[Snapshot] = field(default_factory=list)


Act = Callable[[Held], Awaitable[Snapshot | None]]
"""What firing a claimed game does to it, inside its claim: the Snapshot written, or None."""

Display = Callable[[Snapshot], Awaitable[None]]
"""Draws a written game where people see it (a Discord message, or a test's recorder)."""


async def no_display(snapshot: Snapshot) -> None:
    """Display nothing: the caller is about to post the game's first message itself."""


Plan = Callable[[Snapshot], Awaitable[GameChange]]
"""Decides, on the game as it is inside the lock, what a change writes (or raises Refusal)."""


class Runner:
    def __init__(
        self,
        store: Store,
        engines: Mapping[str, Engine[Any, Any]],
        settings: Settings,
        *,
        board: Display | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.engines = engines
        self.settings = settings
        self.board: Display | None = board  # the game's own message; used when no other is
        self.clock = clock
        # A deadline that passed before this is one Orchard was down for (see _expiry).
        self.started = clock()
        self.on_commit: list[Callable[[Snapshot], None]] = []
        # Told of a game over whose displays are done: what others keep of it goes too.
        self.on_forget: list[Callable[[int], None]] = []
        # Loops started on this runner (the schedulers), stopped before its store closes.
        self.stoppers: list[Callable[[], Awaitable[None]]] = []
        # Weak: a game's lock lives while someone holds or awaits it, so 10,000 games touched
        # once leave no 10,000 locks behind.
        self._locks: KeyedLocks[int] = KeyedLocks()
        # Displays of one game go one at a time, in the order of its writes, but apart from its
        # lock: a slow or rate-limited channel delays its own messages, never a move.
        self._showing: KeyedLocks[int] = KeyedLocks()
        # Per game, for the displays still to come; a game's go once it is over and its last
        # version shown (:meth:`_forget_over`), or every game ever played would keep them.
        self._writes: dict[int, int] = {}  # per game: how many writes this process committed
        self._messages: dict[int, int] = {}  # per game: the message id this process recorded
        self._drawn: dict[int, int] = {}  # per game: the last revision this process drew
        self._drawing: dict[int, asyncio.Event] = {}  # per game: set at its next draw or write
        # Games whose last write this process committed is not drawn yet (a display to come,
        # or one that failed): a stop queues their boards to be drawn anew (see undrawn).
        self._undrawn: set[int] = set()
        # Per game, as this process last committed it (a store only it writes): its row and
        # decoded state, where the next move starts (see :meth:`held`). States are immutable.
        self._committed: Recent[int, tuple[GameRow, Any]] = Recent(REMEMBERED_GAMES)

    def lock(self, game_id: int) -> asyncio.Lock:
        return self._locks[game_id]

    def showing(self, game_id: int) -> asyncio.Lock:
        """The lock of a game's displays (never held with :meth:`lock` held)."""
        return self._showing[game_id]

    def outdated(self, snapshot: Snapshot) -> bool:
        """A newer version of the game was committed since ``snapshot`` (here, or by another
        process sharing the store): no need to draw it, the newer one's display draws it.

        A game with no count here but a version this process wrote is one over and shown
        (:meth:`_forget_over`): that version came before its end."""
        if snapshot.overtaken:
            return True
        committed = self._writes.get(snapshot.id)
        if committed is None:
            return snapshot.written > 0
        return snapshot.written < committed

    def drawn(self, snapshot: Snapshot) -> bool:
        """This revision of the game was drawn where people see it (by this process), in a
        game still open: one over and shown is forgotten (:meth:`_forget_over`). Revision, not
        version: a lobby's seats or an end keep the version, and those are drawn too."""
        return self._drawn.get(snapshot.id) == snapshot.row.revision

    def engine(self, kind: str) -> Engine[Any, Any]:
        return self.engines[kind]

    async def load(self, game_id: int) -> Snapshot:
        return self._snapshot(_found(await self.store.get_game(game_id)))

    async def load_many(self, game_ids: Sequence[int]) -> list[Snapshot]:
        """Many games in a few reads (after a restart, a load each took seconds a thousand)."""
        return [self._snapshot(row) for row in await self.store.get_games(game_ids)]

    def _snapshot(self, row: GameRow) -> Snapshot:
        state = None if row.state is None else self.engine(row.kind).load(row.state)
        return Snapshot(row, state, written=self._writes.get(row.id, 0))

    @asynccontextmanager
    async def held(self, game_id: int) -> AsyncIterator[Held]:
        """The game loaded inside its lock, in-process and (on a shared database) in the store
        across processes: load, apply, write, commit. Hooks hear each write once committed."""
        async with self.lock(game_id):
            async with self.store.game(game_id) as session:
                held = Held(await self._held_snapshot(session), session)
                try:
                    yield held
                finally:
                    self._remember(held)
            self._announce(held.written)

    async def _held_snapshot(self, session: GameSession) -> Snapshot:
        """The game as this process last committed it (a store only it writes), else read."""
        kept = None if self.store.shared else self._committed.take(session.game_id)
        if kept is None:
            return self._snapshot(_found(await session.get()))
        row, state = kept
        posted = self._messages.get(row.id, row.message_id)  # posted anew meanwhile, unlocked
        if posted != row.message_id:
            row = replace(row, message_id=posted)
        return Snapshot(row, state, written=self._writes.get(row.id, 0))

    def _remember(self, held: Held) -> None:
        """Keep the held game as it now stands, if every write made to it is known: none, or
        each one the runner's own (a guard that failed, or a write that is not a move, leaves
        it out: the next load reads the store)."""
        if self.store.shared or held.session.writes != len(held.written):
            return
        latest = held.written[-1] if held.written else held.snapshot
        self._committed.keep(latest.id, (latest.row, latest.state))

    def forget_committed(self) -> None:
        """Rows were written behind the runner's back (``/forget-me``, a purge): read afresh."""
        self._committed.clear()

    def _announce(self, written: list[Snapshot]) -> None:
        """Committed writes: each now overtakes the versions before it (a write whose COMMIT
        failed never does, so the last committed version is still drawn), and the hooks hear
        of it."""
        for fresh in written:
            self._writes[fresh.id] = fresh.written
            self._undrawn.add(fresh.id)
            self._wake_drawing(fresh.id)  # an older version waited for is outdated now
        for fresh in written:
            for hook in self.on_commit:
                hook(fresh)

    async def until_drawn(self, snapshot: Snapshot, most: float) -> None:
        """Wait, ``most`` s at most, until this process has drawn ``snapshot``'s revision of
        the game or a later one, or never will (it is outdated): a turn ping then links to a
        board that shows the turn, even when the scheduler's display workers draw it later.
        At once for a version drawn already (a click's, a move of Orchard's)."""
        deadline = asyncio.get_running_loop().time() + most
        while self._drawn.get(snapshot.id, -1) < snapshot.row.revision:
            if self.outdated(snapshot):
                return
            event = self._drawing.setdefault(snapshot.id, asyncio.Event())
            try:
                async with asyncio.timeout_at(deadline):
                    await event.wait()
            except TimeoutError:
                if self._drawing.get(snapshot.id) is event:
                    del self._drawing[snapshot.id]
                return

    def _wake_drawing(self, game_id: int) -> None:
        event = self._drawing.pop(game_id, None)
        if event is not None:
            event.set()

    async def fire_claimed(
        self, due: Due, upto: float, act: Act, skip: set[int]
    ) -> tuple[Claim, Snapshot | None]:
        """Claim one game due by ``upto`` (not in ``skip``) that no process holds, and ``act``
        on it inside the claim (shared stores only): what was found, and the game written
        (to be shown by the caller). A game another process holds is added to ``skip``. A
        claim lasts only as long as the transaction that fires it, so a process killed
        mid-way returns its claims at once."""
        busy = len(skip)
        async with self.store.claim(due, upto, skip) as session:
            if session is None:
                return (Claim.BUSY if len(skip) > busy else Claim.NOTHING), None
            held = Held(self._snapshot(_found(await session.get())), session)
            try:
                fresh = await act(held)
            except Exception as err:
                raise FireFailed(session.game_id) from err
            if fresh is None and not held.written:  # nothing to do: not claimed again
                await session.write(_due_at(session.game_id, due, None))
        self._announce(held.written)
        return (Claim.IDLE if fresh is None else Claim.FIRED), fresh

    # Games and lobbies are created and changed here, and only here.

    async def create(
        self,
        kind: str,
        guild_id: int,
        channel_id: int,
        host: Player,
        *,
        seed: int,
        options: dict[str, Any] | None,
        variant: str,
        deadline: float | None,
    ) -> Snapshot:
        """A new lobby with ``host`` in seat 0 (the lobby checks first that it may exist)."""
        game_id = await self.store.create_game(
            kind,
            guild_id,
            channel_id,
            host,
            seed=seed,
            options=options,
            variant=variant,
            deadline=deadline,
        )
        return await self.load(game_id)

    async def change(self, game_id: int, plan: Plan, display: Display | None = None) -> Snapshot:
        """A change that is not a move (a lobby's seats, its start, closing a game), planned
        by the caller on the game as it is inside the lock."""
        return await self.display_in_order(await self.changed(game_id, plan), display)

    async def changed(self, game_id: int, plan: Plan) -> Snapshot:
        """:meth:`change`, written but not yet shown (the caller shows it with
        :meth:`display_in_order`, after any lock of its own: a slow channel's board would hold
        it meanwhile)."""
        async with self.held(game_id) as held:
            snapshot = held.snapshot
            change = await plan(snapshot)
            state = snapshot.state
            if change.state is not None:
                state = self.engine(snapshot.row.kind).load(change.state)
            return await self._write(held, change, state)

    async def abandon(self, game_id: int, display: Display | None = None) -> Snapshot:
        """End an open game or lobby without results (a moderator's /end): nobody loses."""

        async def plan(snapshot: Snapshot) -> GameChange:
            if not snapshot.row.status.is_open:
                raise Refusal(f"Game {game_id} is already over.")
            return _closing(snapshot, GameStatus.ABANDONED)

        return await self.change(game_id, plan, display)

    async def mark_hinted(self, game_id: int) -> None:
        """Someone asked for a hint: the game and its results say so."""
        async with self.held(game_id) as held:
            await held.session.write(GameChange(game_id, hinted=True))

    async def record_message(self, game_id: int, message_id: int) -> None:
        """The game's message now has this id (posted anew). Written without the game's lock:
        displays hold only :meth:`showing`, and the message id is nobody else's to change."""
        await self.store.write(GameChange(game_id, message_id=message_id))
        self._messages[game_id] = message_id

    async def postpone(self, game_id: int, when: float, due: Due = Due.DEADLINE) -> None:
        """Move a due time that could not be handled, so it is retried rather than spun on."""
        async with self.held(game_id) as held:
            await held.session.write(_due_at(game_id, due, when))

    # Moves.

    async def act(
        self,
        game_id: int,
        user_id: int,
        verb: str,
        arg: str = "",
        *,
        version: int | None = None,
        guild_id: int | None = None,
        display: Display | None = None,
    ) -> Snapshot:
        """Apply one player's action; raises :class:`Refusal` (nothing changed) if it can't.

        ``guild_id``, when given, is the server the click came from (:func:`check_server`).
        """
        async with self.held(game_id) as held:
            snapshot = held.snapshot
            if guild_id is not None:
                check_server(snapshot.row, guild_id)
            seat = self._check_actor(snapshot, user_id)
            if version is not None and version != snapshot.row.version:
                await self._check_side_by_side(held, seat, version, verb, arg)
            action, state = self._apply(snapshot, seat, verb, arg)
            fresh = await self._own_move(held, seat, action, state, user_id)
        return await self.display_in_order(fresh, display)

    async def act_for_seat(
        self, game_id: int, seat: int, version: int, decide: Callable[[Snapshot], Any]
    ) -> Snapshot | None:
        """Play an Orchard seat's move, decided on the state inside the lock, written but not
        yet shown (the caller shows it with :meth:`display_in_order`).

        Returns None, changing nothing, if the game moved on since the move was scheduled.
        """
        async with self.held(game_id) as held:
            if held.snapshot.row.version != version:
                return None
            return await self._seat_move(held, seat, decide)

    async def play_orchard(
        self, held: Held, decider: Callable[[int], Callable[[Snapshot], Any]]
    ) -> Snapshot | None:
        """Play the first Orchard seat the held game awaits (claimed as due for Orchard)."""
        row = held.snapshot.row
        seats = self._orchard_awaited(row.kind, row.players, held.snapshot.state)
        return await self._seat_move(held, seats[0], decider(seats[0])) if seats else None

    async def _seat_move(
        self, held: Held, seat: int, decide: Callable[[Snapshot], Any]
    ) -> Snapshot | None:
        """Orchard's move for ``seat``, decided on the held game; None if it is not its turn."""
        snapshot = held.snapshot
        row = snapshot.row
        engine = self.engine(row.kind)
        if row.status is not GameStatus.ACTIVE or not row.players[seat].is_bot:
            return None
        if seat not in engine.to_act(snapshot.state):
            return None
        action = await asyncio.to_thread(decide, snapshot)  # a word search can take 50 ms
        try:
            state = engine.apply(snapshot.state, action)
        except MoveError as err:  # neither the move nor why: either can show Orchard's tiles
            verb = getattr(action, "verb", type(action).__name__)
            log.error("game %s: Orchard chose an illegal %s (%s)", row.id, verb, type(err).__name__)
            return None
        return await self._own_move(held, seat, action, state)

    async def _own_move(
        self, held: Held, seat: int, action: Any, state: Any, user_id: int | None = None
    ) -> Snapshot:
        """Write ``seat``'s own move (a person's, or Orchard's for its seat). One that makes
        the seat's decision clears its timeouts, which count only in a row
        (:data:`TIMEOUTS_TO_FORFEIT`)."""
        player = held.snapshot.row.players[seat]
        engine = self.engine(held.snapshot.row.kind)
        source = MoveSource.BOT if player.is_bot else MoveSource.PLAYER
        who = None if player.is_bot else user_id
        moves = [Move(seat, *engine.format(action), who, source)]
        decided = player.timeouts and _decides(engine, held.snapshot.state, state, seat)
        return await self._play(held, state, moves, {seat: 0} if decided else {})

    def _orchard_awaited(self, kind: str, players: tuple[Player, ...], state: Any) -> list[int]:
        """The Orchard seats ``state`` awaits, in seat order."""
        if state is None:
            return []
        return [s for s in sorted(self.engine(kind).to_act(state)) if players[s].is_bot]

    async def forfeit(
        self, game_id: int, user_id: int, *, display: Display | None = None
    ) -> Snapshot:
        """A player gives up their seat; the others play on (or win)."""
        async with self.held(game_id) as held:
            snapshot = held.snapshot
            seat = self._check_actor(snapshot, user_id)
            state = self.engine(snapshot.row.kind).forfeit(snapshot.state, seat)
            if state == snapshot.state:
                raise Refusal("You have already left this game.")
            moves = [Move(seat, FORFEIT_VERB, "", user_id, MoveSource.FORFEIT)]
            fresh = await self._play(held, state, moves, {})
        return await self.display_in_order(fresh, display)

    def plays(self, snapshot: Snapshot, user_id: int) -> bool:
        """Whether a person plays this game still: seated in it, and not gone from it (given
        up, or timed out three turns in a row), so that leaving it would change it."""
        seat = snapshot.row.seat_of(user_id)
        if seat is None or snapshot.state is None:
            return False
        left: Any = self.engine(snapshot.row.kind).forfeit(snapshot.state, seat)
        return bool(left != snapshot.state)

    async def forget_player(self, game_id: int, user_id: int) -> Snapshot | None:
        """Take a person out of an open game before /forget-me erases them: they leave a
        lobby (closing it, if they host it); a game in play goes on without them. Either
        way their seat, moves and hosting there become a former player's."""
        async with self.held(game_id) as held:
            snapshot = held.snapshot
            row = snapshot.row
            seat = row.seat_of(user_id)
            if not row.status.is_open or (seat is None and row.host_id != user_id):
                return None
            if row.status is GameStatus.LOBBY:
                change = replace(_closing(snapshot, GameStatus.CANCELLED), host_left=True)
                if row.host_id != user_id:
                    rest = tuple(p for p in row.players if p.is_bot or p.user_id != user_id)
                    change = GameChange(row.id, from_status=GameStatus.LOBBY, players=rest)
                fresh = await self._write(held, replace(change, forgotten=user_id), None)
            elif seat is None:
                return None  # a game in play always seats its host
            else:
                state = self.engine(row.kind).forfeit(snapshot.state, seat)
                moves = [Move(seat, FORFEIT_VERB, "", None, MoveSource.FORFEIT)]
                fresh = await self._play(held, state, moves, {}, forgotten=user_id)
        return await self.display_in_order(fresh)

    async def fire_deadline(self, game_id: int) -> Snapshot | None:
        """What the clock does to a game whose deadline passed, written and then shown."""
        fresh = await self.expire(game_id)
        return None if fresh is None else await self.display_in_order(fresh)

    async def expire(self, game_id: int) -> Snapshot | None:
        """What the clock does to a game whose deadline passed (idempotent), written but not
        yet shown. None if nothing was due."""
        async with self.held(game_id) as held:
            return await self.fire_held_deadline(held)

    async def fire_held_deadline(self, held: Held) -> Snapshot | None:
        """The clock's move on a held game (see :meth:`_expiry`)."""
        planned = await self._expiry(held.snapshot)
        return None if planned is None else await self._write(held, *planned)

    async def expire_many(self, game_ids: Sequence[int]) -> tuple[list[Snapshot], list[int]]:
        """:meth:`expire` for many games at once, in one read and one transaction: after
        downtime, thousands of games are due and a transaction each would take minutes
        (one process only: on a shared store due games are claimed one by one).

        Games whose lock is taken (someone is moving) are left out, as are all of them if a
        guard fails; returns what was written and the ids left for :meth:`expire`.
        """
        locks = {game_id: self.lock(game_id) for game_id in game_ids}
        free = [game_id for game_id, lock in locks.items() if not lock.locked()]
        for game_id in free:
            await locks[game_id].acquire()  # free, so taken at once
            self._committed.take(game_id)  # written here in bulk: the next move reads it
        try:
            plans: list[tuple[Snapshot, GameChange, Any]] = []
            for n, snapshot in enumerate(await self.load_many(free), 1):
                if n % PLANS_BETWEEN_TURNS == 0:
                    await asyncio.sleep(0)  # clicks waiting meanwhile go first
                planned = await self._expiry(snapshot)
                if planned is not None:
                    change, state = planned
                    plans.append((snapshot, self._stamped(snapshot.row, change, state), state))
            if not await self.store.write_many([change for _, change, _ in plans]):
                return [], list(game_ids)
            fresh = [self._numbered(*plan) for plan in plans]
            self._announce(fresh)
        finally:
            for game_id in free:
                locks[game_id].release()
        taken = set(free)
        return fresh, [game_id for game_id in game_ids if game_id not in taken]

    async def _expiry(self, snapshot: Snapshot) -> tuple[GameChange, Any] | None:
        """The change a passed deadline makes, and the state it leaves; None if not due: a
        lobby nobody started closes; a daily game unfinished the day after its own closes
        without a result; in a game, the awaited seats' timeout moves are played.

        Not for a deadline that passed while Orchard was down, though: nobody could click
        meanwhile, so the turn starts afresh, with a fresh deadline. Orchard's seats play
        their own move now (:class:`bot.opponents.Opponents`)."""
        row = snapshot.row
        if row.deadline is None or row.deadline > self.clock() or not row.status.is_open:
            return None
        if row.status is GameStatus.LOBBY:
            return _closing(snapshot, GameStatus.CANCELLED, expired=True), None
        if is_daily(row.options):
            return _closing(snapshot, GameStatus.ABANDONED, expired=True), snapshot.state
        if row.deadline < self.started:  # Orchard was down: nobody was late
            return await self._afresh(row), snapshot.state
        state, moves, counts, deserted = self._timeout_moves(snapshot)
        if not moves:
            return await self._afresh(row), state
        change = await self._played(
            snapshot, state, moves, counts, deserted=deserted, timed_out=True
        )
        return change, state

    async def _afresh(self, row: GameRow) -> GameChange:
        """The turn's clock started again, nothing played."""
        deadline = self.clock() + await self.settings.turn_seconds(row.guild_id)
        return GameChange(row.id, expected_version=row.version, deadline=deadline)

    async def replay(self, game_id: int) -> Any:
        """The state rebuilt from the seed and the move log: it must equal the stored one."""
        snapshot = await self.load(game_id)
        return self._replayed(snapshot.row, await self.store.moves(game_id))

    def _replayed(self, row: GameRow, moves: list[Move]) -> Any:
        engine = self.engine(row.kind)
        state = engine.new(row.seed, len(row.players), row.options)
        for move in moves:
            if move.verb == FORFEIT_VERB:
                state = engine.forfeit(state, move.seat)
            else:
                state = engine.apply(state, engine.parse(move.seat, move.verb, move.arg))
        return state

    async def display_in_order(
        self, snapshot: Snapshot, display: Display | None = None
    ) -> Snapshot:
        """Display a written game after its lock, in write order with its other displays."""
        async with self.showing(snapshot.id):
            recorded = self.message_of(snapshot.row)
            if recorded != snapshot.row.message_id:
                snapshot = replace(snapshot, row=replace(snapshot.row, message_id=recorded))
            return await self.display(snapshot, display)

    def undrawn(self) -> list[int]:
        """The games whose last write here is not drawn: at a stop, the boards its time cut
        off, or whose drawing failed (a restart draws them anew, see
        :meth:`bot.orchard.Orchard.stop`)."""
        return sorted(self._undrawn)

    def message_of(self, row: GameRow) -> int | None:
        """The game's own message: as this process last recorded it, if a display posted it
        (announced, or again) since ``row`` was written; else as ``row`` has it."""
        return self._messages.get(row.id, row.message_id)

    async def display(self, snapshot: Snapshot, display: Display | None = None) -> Snapshot:
        """Display a written game; a failure here is logged, never undoes the write.

        Returns the game as it now is: abandoned, if its display found it :class:`Gone`.
        """
        now = await self._display(snapshot, display)
        if display is not no_display:  # else its caller shows it, maybe through here after
            self._forget_over(now)
        return now

    def _forget_over(self, snapshot: Snapshot) -> None:
        """A game over, its latest version shown: nothing is written to it again, so what this
        process keeps for its displays goes. A version written before its end stays outdated
        (:meth:`outdated`); a click on an old board reads the store, and is told it is over."""
        if snapshot.row.status.is_open or self.outdated(snapshot):
            return
        self._forget(snapshot.id)

    def _forget(self, game_id: int) -> None:
        for kept in (self._writes, self._messages, self._drawn):
            kept.pop(game_id, None)
        self._committed.take(game_id)
        for hook in self.on_forget:
            hook(game_id)

    def forget(self, game_id: int) -> None:
        """A game over that nobody here will show (its server removed Orchard): what this
        process keeps for its displays goes, as for one over and shown."""
        self._undrawn.discard(game_id)
        self._forget(game_id)

    async def forget_ended(self) -> int:
        """Forget the games another process ended (a shared store: the clock or Orchard's
        seats of another process often end a game this one moved, and this one never hears
        of it, so what it kept for the game stayed until a restart). A game whose last write
        here waits to be drawn is left for its display. Returns how many were forgotten."""
        kept = set(self._writes) | set(self._drawn) | set(self._messages)
        ended = kept - await self.store.open_among(sorted(kept)) - self._undrawn
        for game_id in ended:
            self._forget(game_id)
        return len(ended)

    async def _display(self, snapshot: Snapshot, display: Display | None) -> Snapshot:
        private = is_daily(snapshot.row.options)  # shown only in its player's own replies
        for draw in (display, None if private else self.board):
            if draw is None:
                continue
            try:
                sent = await self._draw(draw, snapshot)
            except Gone as gone:
                log.warning(
                    "game %s: its board can never be shown (%s); abandoned", snapshot.id, gone
                )
                return await self._abandon_gone(snapshot)
            except Exception:
                log.warning(
                    "game %s: could not display version %s",
                    snapshot.id,
                    snapshot.row.version,
                    exc_info=True,
                )
                continue
            if sent:
                await self.catch_up(snapshot)
            return snapshot
        return snapshot

    async def _draw(self, draw: Display, snapshot: Snapshot) -> bool:
        """Draw ``snapshot``; False if it was the board, which skips an outdated version."""
        edit = await self._against_store(snapshot) if draw is self.board else snapshot
        await draw(edit)
        if draw is self.board and self.outdated(edit):
            return False  # the board skipped it: not drawn
        self._drawn[snapshot.id] = snapshot.row.revision
        if not self.outdated(snapshot):
            self._undrawn.discard(snapshot.id)
        self._wake_drawing(snapshot.id)
        return True

    async def _against_store(self, snapshot: Snapshot) -> Snapshot:
        """``snapshot``, marked overtaken if another process has stored a newer revision (shared
        stores only): a board edit of it could land after that revision's own edit. Revisions,
        not versions: an end or a lobby's seats keep the version, yet change the board."""
        if not self.store.shared or self.outdated(snapshot):
            return snapshot
        stored = await self.store.revision(snapshot.id)
        return replace(snapshot, overtaken=stored is not None and stored > snapshot.row.revision)

    async def catch_up(self, drawn: Snapshot) -> None:
        """After an edit of ``drawn`` (shared stores only): if another process stored a newer
        revision meanwhile, its edit may have landed first, so draw the newest on the board.
        Then whichever process edits last leaves the latest revision up."""
        if not self.store.shared or self.board is None or is_daily(drawn.row.options):
            return
        try:
            stored = await self.store.revision(drawn.id)
            newer = stored is not None and stored > drawn.row.revision
            latest = await self.load(drawn.id) if newer else None
        except Exception:  # the write stands; the next change draws the board
            log.warning("game %s: could not look for a newer revision", drawn.id, exc_info=True)
            return
        if latest is not None:
            await self.display(latest)

    # Inside the lock.

    def _check_actor(self, snapshot: Snapshot, user_id: int) -> int:
        """The seat ``user_id`` plays in the open game (Orchard's, for Orchard's user id). A
        daily game past its close is as good as over: the clock closes it in a moment."""
        row = snapshot.row
        if row.status is GameStatus.LOBBY:
            raise Refusal("This game has not started yet.")
        if row.status is not GameStatus.ACTIVE:
            raise Stale("This game is over.")
        if is_daily(row.options) and row.deadline is not None and row.deadline <= self.clock():
            raise Refusal("This daily game closed unfinished: it has no result.")
        seat = row.seat_of(user_id)
        if seat is None:
            bot_seats = [p.seat for p in row.players if p.is_bot and p.user_id == user_id]
            if not bot_seats:
                raise Refusal("You are not playing in this game.")
            seat = bot_seats[0]
        return seat

    def _apply(self, snapshot: Snapshot, seat: int, verb: str, arg: str) -> tuple[Any, Any]:
        """The typed action and the state it leads to. Bad input and illegal moves are
        refused; an ambiguous one goes back to the player with its options."""
        engine = self.engine(snapshot.row.kind)
        try:
            action = engine.parse(seat, verb, arg)
            return action, engine.apply(snapshot.state, action)
        except Ambiguous as err:
            raise Choose(str(err), snapshot.id, snapshot.row.version, err.options) from err
        except NotYourTurn as err:
            raise self._not_your_turn(snapshot, err) from err
        except MoveError as err:
            raise Refusal(str(err)) from err

    def _not_your_turn(self, snapshot: Snapshot, err: NotYourTurn) -> Refusal:
        """The one "not your turn", naming whom the game waits for now, then what the player
        may do instead or why it waits (the engine's ``more``), if anything."""
        waiting = sorted(self.engine(snapshot.row.kind).to_act(snapshot.state))
        said = not_your_turn([snapshot.row.players[s].name for s in waiting])
        return Refusal(f"{said} {err.more}" if err.more else said)

    def _check_out_of_turn(self, snapshot: Snapshot, seat: int, verb: str, arg: str) -> None:
        """Refuse as "not your turn" a click the game would refuse so now: told the game
        changed, its player would choose again, only to be told that. A move anyone may make
        (a challenge) is not refused here: what it meant may have changed."""
        engine = self.engine(snapshot.row.kind)
        try:
            engine.apply(snapshot.state, engine.parse(seat, verb, arg))
        except NotYourTurn as err:
            raise self._not_your_turn(snapshot, err) from err
        except MoveError:
            return

    async def _check_side_by_side(
        self, held: Held, seat: int, version: int, verb: str, arg: str
    ) -> None:
        """A click drawn at an older version stands if the clicker has not moved since, was
        awaited then and is now, and the moves in between were other seats' that leave its
        options as they were: seats awaited at once (each on its own dice: Apple Jack's last
        turn, Hot Score's challenge throw) never touch each other's, and the engine says when
        others' moves left a lone seat's meaning the same (:meth:`Engine.same_moves`). A click
        after the clicker's own move is a double click or a stale board
        (:data:`ALREADY_PLAYED`), unless it toggles a die their own toggles since left
        alone (:meth:`_toggled_apart`); one after the clock played its turn is late
        (:data:`TIMED_OUT`). A clicker awaited neither then nor now could not have acted on
        either board: told it is not their turn (:meth:`_check_out_of_turn`), not that the
        game changed. Any other is refused as :data:`CHANGED`.
        """
        snapshot = held.snapshot
        if version > snapshot.row.version:
            raise Stale(ALREADY_PLAYED)
        moves = await held.session.moves()
        engine = self.engine(snapshot.row.kind)
        own = [move for move in moves[version:] if move.seat == seat]
        if own and _toggled_apart(engine, moves[version:], seat, verb, arg):
            return
        if own:
            raise Stale(_since_shown(own[0]))
        before = self._replayed(snapshot.row, moves[:version])
        awaited = engine.to_act(before)
        now = engine.to_act(snapshot.state)
        if seat not in awaited and seat not in now:
            self._check_out_of_turn(snapshot, seat, verb, arg)
        if seat not in awaited or seat not in now:
            raise Stale(CHANGED)
        if len(awaited) < 2 and not engine.same_moves(before, snapshot.state, seat):
            raise Stale(CHANGED)

    def _timeout_moves(self, snapshot: Snapshot) -> tuple[Any, list[Move], dict[int, int], bool]:
        """The clock's moves for every awaited seat, their timeout counts,
        and whether the game is :meth:`_deserted` (then nobody is removed: it ends with no
        winner).

        A seat's :data:`TIMEOUTS_TO_FORFEIT`-th timeout removes it before any move is played
        for the late: seats awaited side by side (Apple Jack's last turn, Hot Score's
        challenge throw) then all leave at the same point, whatever their order, and the
        clock never plays a move for a seat on its way out (one that could win it the game)."""
        engine = self.engine(snapshot.row.kind)
        state = snapshot.state
        players = snapshot.row.players
        late = engine.timeout_actions(state)
        out = self._timed_out(players, {a.seat for a in late})
        deserted = self._deserted(snapshot, out)
        if deserted:
            out = []
        moves = [Move(seat, FORFEIT_VERB, "", None, MoveSource.FORFEIT) for seat in out]
        for seat in out:
            state = engine.forfeit(state, seat)
        for action in late:
            if action.seat in out or action.seat not in engine.to_act(state):
                continue  # removed, or an earlier move in this batch ended the game or turn
            state = engine.apply(state, action)
            verb, arg = engine.format(action)
            moves.append(Move(action.seat, verb, arg, None, MoveSource.TIMEOUT))
        counts = {m.seat: players[m.seat].timeouts + 1 for m in moves}
        return state, moves, counts, deserted

    @staticmethod
    def _timed_out(players: Sequence[Player], late: set[int]) -> list[int]:
        """The ``late`` seats whose timeout now is their :data:`TIMEOUTS_TO_FORFEIT`-th."""
        return sorted(s for s in late if players[s].timeouts + 1 >= TIMEOUTS_TO_FORFEIT)

    def _deserted(self, snapshot: Snapshot, out: list[int]) -> bool:
        """Whether this deadline brings every seat still in (two or more, awaited side by
        side) to :data:`TIMEOUTS_TO_FORFEIT` (``out``): removing them would hand the game to
        none of them, or to the last, who was just as late."""
        engine = self.engine(snapshot.row.kind)
        state, players = snapshot.state, snapshot.row.players
        if len(out) < 2:
            return False  # most deadlines: no need to ask who is still in
        still_in = {p.seat for p in players if engine.forfeit(state, p.seat) != state}
        return len(still_in) > 1 and still_in <= set(out)

    async def _play(
        self,
        held: Held,
        state: Any,
        moves: list[Move],
        timeouts: dict[int, int],
        *,
        forgotten: int | None = None,
    ) -> Snapshot:
        """Write a state that moves reached: with the version check, its end and results."""
        change = await self._played(held.snapshot, state, moves, timeouts, forgotten=forgotten)
        return await self._write(held, change, state)

    async def _played(
        self,
        snapshot: Snapshot,
        state: Any,
        moves: list[Move],
        timeouts: dict[int, int],
        *,
        forgotten: int | None = None,
        deserted: bool = False,
        timed_out: bool = False,
    ) -> GameChange:
        """The change that writes a state moves reached: version check, end and results. A
        game ``deserted`` (everyone still in timed out too often at once) ends unwon; moves
        the clock made (``timed_out``) always start a fresh deadline."""
        row = snapshot.row
        if forgotten is not None:
            row = _written(row, GameChange(row.id, forgotten=forgotten))
        engine = self.engine(row.kind)
        status, deadline = GameStatus.ACTIVE, None
        results: tuple[Result, ...] = ()
        rating = None
        daily_closes = closes(row.options)
        if deserted:
            status = GameStatus.ABANDONED
        elif engine.is_over(state) or self._orchard_alone(row, state, moves):
            ranked = engine.results(state)
            status = GameStatus.FINISHED if any(r.won for r in ranked) else GameStatus.ABANDONED
            if status is GameStatus.FINISHED and daily_closes is None:
                results = _results(row, ranked)
                rating = _rating(row, ranked)
        elif daily_closes is not None:  # no turn clock: it waits until it closes, unfinished
            deadline = daily_closes
        elif not timed_out and self._same_decision(snapshot, state):
            deadline = row.deadline
        elif engine.to_act(state):
            deadline = self.clock() + await self.settings.turn_seconds(row.guild_id)
        change = GameChange(
            row.id,
            from_status=GameStatus.ACTIVE,
            expected_version=row.version,
            status=status,
            state=engine.dump(state),
            version=row.version + len(moves),
            deadline=deadline,
            timeouts=timeouts,
            moves=tuple(moves),
            results=results,
            rating=rating,
            forgotten=forgotten,
            expired=deserted,
            orchard_since=self._orchard_since(row.kind, status, row.players, state),
            revise=True,
        )
        return change

    def _orchard_alone(self, row: GameRow, state: Any, moves: list[Move]) -> bool:
        """Whether a seat just left and only Orchard's are still in: they would play on
        against each other, seen by nobody, a move a second, as often as someone seats them
        and leaves. The game ends as it stands instead, the leavers last."""
        if not any(m.verb == FORFEIT_VERB for m in moves) or not any(p.is_bot for p in row.players):
            return False
        engine = self.engine(row.kind)
        people = [p.seat for p in row.players if not p.is_bot]
        return not any(engine.forfeit(state, seat) != state for seat in people)

    def _same_decision(self, snapshot: Snapshot, state: Any) -> bool:
        """Whether ``state`` awaits the decision the game's turn clock was already timing
        (:meth:`Engine.clock_mark`), so the moves keep its deadline: a player pressing a
        die's toggle over and over must not hold everyone up for ever. A decision only
        Orchard's seats await restarts at each move, as before: they never stall, and a
        whole turn of theirs, a move a second, is not timed as one."""
        row = snapshot.row
        if row.deadline is None:
            return False
        engine = self.engine(row.kind)
        mark = engine.clock_mark(state)
        if mark is None or mark != engine.clock_mark(snapshot.state):
            return False
        return any(not row.players[s].is_bot for s in engine.to_act(state))

    async def _write(self, held: Held, change: GameChange, state: Any) -> Snapshot:
        """The one write (inside the game's lock): guarded and numbered; its number counts,
        and the hooks hear of it, once it is committed (:meth:`_announce`). Displaying it is
        the caller's, after the lock (:meth:`display_in_order`)."""
        snapshot = held.snapshot
        change = self._stamped(snapshot.row, change, state)
        if not await held.session.write(change):
            raise Stale(ALREADY_PLAYED)
        fresh = self._numbered(snapshot, change, state, held.written)
        held.written.append(fresh)
        return fresh

    def _stamped(self, row: GameRow, change: GameChange, state: Any) -> GameChange:
        """``change`` as the runner writes it: counting the revision up (its display draws it),
        and with when the game began awaiting Orchard, if it writes a state or status and does
        not say already (a move's says both: one copy of the change less a move)."""
        if change.orchard_since is not KEEP or (change.state is None and change.status is None):
            return change if change.revise else replace(change, revise=True)
        players = row.players if change.players is None else change.players
        since = self._orchard_since(row.kind, change.status or row.status, players, state)
        return replace(change, orchard_since=since, revise=True)

    def _numbered(
        self,
        snapshot: Snapshot,
        change: GameChange,
        state: Any,
        earlier: Sequence[Snapshot] = (),
    ) -> Snapshot:
        """The game as a write left it, numbered after ``snapshot`` (as loaded in the lock) and
        the ``earlier`` writes of its transaction: displays go in write order."""
        written = snapshot.written + len(earlier) + 1
        before = earlier[-1].state if earlier else snapshot.state
        row = _written(snapshot.row, change)
        return Snapshot(row, state, change.moves, written, before=before)

    def _orchard_since(
        self, kind: str, status: GameStatus, players: tuple[Player, ...], state: Any
    ) -> float | None:
        """When a game written so began awaiting an Orchard seat (now), or None: stored, so
        whichever process is alive plays it (see :class:`bot.model.Due`)."""
        if status is not GameStatus.ACTIVE:
            return None
        return self.clock() if self._orchard_awaited(kind, players, state) else None

    async def _abandon_gone(self, snapshot: Snapshot) -> Snapshot:
        """A game nobody can see any more ends without results (and without a display)."""
        async with self.held(snapshot.id) as held:
            now = held.snapshot
            if not now.row.status.is_open:
                return now
            return await self._write(held, _closing(now, GameStatus.ABANDONED), now.state)


def check_server(row: GameRow, guild_id: int) -> None:
    """A game is played only from its own server. A daily game, played in its one player's
    private replies, may be played from any server they meet Orchard in: it counts on the
    daily board of the server it was started in."""
    if guild_id != row.guild_id and not is_daily(row.options):
        raise Refusal("This game belongs to another server.")


def _found(row: GameRow | None) -> GameRow:
    if row is None:
        raise Refusal("That game no longer exists.")
    return row


def _due_at(game_id: int, due: Due, when: float | None) -> GameChange:
    """A change of only the game's time of ``due``."""
    if due is Due.DEADLINE:
        return GameChange(game_id, deadline=when)
    return GameChange(game_id, orchard_since=when)


def _closing(snapshot: Snapshot, status: GameStatus, *, expired: bool = False) -> GameChange:
    """End a lobby or game without results (cancelled, abandoned); ``expired``: by the clock."""
    row = snapshot.row
    return GameChange(row.id, from_status=row.status, status=status, deadline=None, expired=expired)


def _written(row: GameRow, change: GameChange) -> GameRow:
    """The row as :meth:`Store.write` has just written it: no reload on the hot path."""
    players = row.players
    if change.players is not None:
        players = tuple(replace(p, seat=i, timeouts=0) for i, p in enumerate(change.players))
    if change.timeouts:
        counts = change.timeouts
        players = tuple(replace(p, timeouts=counts.get(p.seat, p.timeouts)) for p in players)
    host = row.host_id
    if change.forgotten is not None:
        players = tuple(
            replace(p, user_id=NOBODY, name=FORMER_PLAYER)
            if p.user_id == change.forgotten and not p.is_bot
            else p
            for p in players
        )
        host = NOBODY if host == change.forgotten else host
    return replace(
        row,
        state=row.state if change.state is None else change.state,
        version=row.version if change.version is None else change.version,
        status=change.status or row.status,
        deadline=row.deadline if change.deadline is KEEP else change.deadline,
        updated_at=time.time(),
        players=players,
        hinted=row.hinted or change.hinted,
        expired=row.expired or change.expired,
        host_left=row.host_left or change.host_left,
        message_id=change.message_id or row.message_id,
        host_id=host,
        revision=row.revision + 1 if change.revise else row.revision,
    )


def rating_key(player: Player, kind: str) -> int:
    """Who a seat is for ratings: the person, or Orchard at its level (-1 weakest, -2 …)."""
    if not player.is_bot:
        return player.user_id
    levels = SPEC_OF[kind].levels
    level = player.level if player.level in levels else DEFAULT_LEVEL
    return -(levels.index(level) + 1)


def _rating(row: GameRow, ranked: list[SeatResult]) -> RatingUpdate | None:
    """Games of two or more seats are rated; with Orchard at the table, in a pool of its own."""
    if len(row.players) < 2:
        return None
    bots = any(p.is_bot for p in row.players)
    pool = RatingPool.ORCHARD if bots else RatingPool.PEOPLE
    places: dict[int, int] = {}
    for r in sorted(ranked, key=lambda r: r.placement):
        if _forgotten(row.players[r.seat]):
            continue  # nobody's rating: the person asked to be forgotten
        # Orchard twice at one level is one player: it is rated by its better seat.
        places.setdefault(rating_key(row.players[r.seat], row.kind), r.placement)
    if len(places) < 2:
        return None
    return RatingUpdate(pool, list(places.items()), rate)


def _results(row: GameRow, ranked: list[SeatResult]) -> tuple[Result, ...]:
    """The stored standings; a solo game is stored unwon: it counts for high scores only."""
    players = row.players
    contest = len(ranked) > 1
    return tuple(
        Result(
            r.seat,
            players[r.seat].user_id,
            players[r.seat].is_bot,
            r.score,
            r.placement,
            r.won and contest,
        )
        for r in ranked
    )


def _forgotten(player: Player) -> bool:
    """A seat whose person asked to be forgotten: it keeps its place and a nameless result,
    but is rated as nobody."""
    return not player.is_bot and player.user_id == NOBODY


def _decides(engine: Engine[Any, Any], before: Any, after: Any, seat: int) -> bool:
    """Whether ``seat``'s move made the decision the clock awaited of it: the seat is no
    longer awaited, or the clock times another decision. A move that decides nothing (a
    die's toggle, a roll within a turn) does not, so a player who only toggles a die before
    each deadline still times out three decisions in a row; a move out of turn (a
    challenge) is no decision of the seat's either."""
    if seat not in engine.to_act(before):
        return False
    mark = engine.clock_mark(before)
    return seat not in engine.to_act(after) or mark is None or engine.clock_mark(after) != mark


def _toggled_apart(
    engine: Engine[Any, Any], since: Sequence[Move], seat: int, verb: str, arg: str
) -> bool:
    """Whether a toggle of ``seat``'s (:attr:`Engine.toggles`) drawn before ``since`` still
    means what it meant: every move since was that seat's own toggle of something else."""
    return verb in engine.toggles and all(
        move.seat == seat
        and move.verb == verb
        and move.arg != arg
        and move.source is MoveSource.PLAYER
        for move in since
    )


def _since_shown(move: Move) -> str:
    """Why a click is stale, told by the clicker's first move since its board was drawn."""
    if move.source is MoveSource.TIMEOUT:
        return TIMED_OUT
    if move.source is MoveSource.FORFEIT:
        return REMOVED if move.user_id is None else LEFT  # the clock's, or their own
    return ALREADY_PLAYED
