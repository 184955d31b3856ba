"""Orchard at the table: plays its seats' turns after a short pause, one task per move.

Moves go through :meth:`Runner.act_for_seat`, so they are validated, logged and committed
exactly like a person's. The pause is a plain sleep in its own task: no game waits for
another, and a move scheduled for an older version is dropped by the version check.

On a database several processes share, a task in one process would die with it: there the
pending move is the game's stored ``orchard_since`` (see :class:`bot.model.Due`), claimed and
played by whichever process's loop finds it due first (:class:`bot.scheduler.Scheduler`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from bot.model import Due, GameStatus
from bot.runner import Held, Refusal, Runner, Snapshot
from bot.scheduler import RETRY_SECONDS, Scheduler
from bot.specs import DEFAULT_LEVEL, SPEC_OF, GameAction

log = logging.getLogger(__name__)

MOVING_AT_ONCE = 4


class Opponents:
    def __init__(self, runner: Runner, delay: float = 1.0) -> None:
        self.runner = runner
        self.delay = delay
        self._pending: set[tuple[int, int, int]] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        # Moves decided and written at once: after a restart, a thousand seats would otherwise
        # all move in the same instant, and every click wait behind them. Shown outside it.
        self._moving = asyncio.Semaphore(MOVING_AT_ONCE)
        self.claims: Scheduler | None = None
        if runner.store.shared:
            self.claims = Scheduler(runner, Due.ORCHARD, act=self._play_due, lag=self._delay)
        runner.on_commit.append(self.schedule)

    def schedule(self, snapshot: Snapshot) -> None:
        """After any commit: start a move for each Orchard seat the game now waits for."""
        if snapshot.row.status is not GameStatus.ACTIVE or snapshot.state is None:
            return
        engine = self.runner.engine(snapshot.row.kind)
        if self.claims is not None:
            if any(snapshot.row.players[s].is_bot for s in engine.to_act(snapshot.state)):
                self.claims.start()
                self.claims.due_by(self.runner.clock() + self.delay)
            return
        for seat in sorted(engine.to_act(snapshot.state)):
            key = (snapshot.id, snapshot.row.version, seat)
            if snapshot.row.players[seat].is_bot and key not in self._pending:
                self._pending.add(key)
                task = asyncio.create_task(self._play(*key), name=f"orchard-move-{key}")
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def resume(self) -> None:
        """After a restart: pick up every game that is waiting for Orchard."""
        if self.claims is not None:
            self.claims.start()
            return
        for snapshot in await self.runner.load_many(
            await self.runner.store.games_waiting_on_bots()
        ):
            self.schedule(snapshot)

    async def stop(self) -> None:
        """No more moves: a commit after this (a click that outlasted the shutdown's wait)
        starts none while the store closes; those under way are cancelled."""
        if self.schedule in self.runner.on_commit:
            self.runner.on_commit.remove(self.schedule)
        if self.claims is not None:
            await self.claims.stop()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _play(self, game_id: int, version: int, seat: int) -> None:
        """The seat's move after the pause; one that failed is tried again every
        :data:`RETRY_SECONDS` (as a claimed one is on a shared store), until it is played or
        the game moves on (its turn deadline plays it then)."""
        try:
            await asyncio.sleep(self.delay)
            while True:
                try:
                    async with self._moving:
                        decide = self._decider(seat)
                        fresh = await self.runner.act_for_seat(game_id, seat, version, decide)
                    break
                except Refusal as err:  # the game is gone: nothing to play, ever
                    log.info("game %s: Orchard's move refused: %s", game_id, err.logged)
                    return
                except Exception:
                    log.exception("game %s: Orchard's move failed; retrying in a minute", game_id)
                    await asyncio.sleep(RETRY_SECONDS)
            if fresh is not None:
                await self.runner.display_in_order(fresh)
        except Exception:
            log.exception("game %s: Orchard's move could not be shown", game_id)
        finally:
            self._pending.discard((game_id, version, seat))

    def _delay(self) -> float:
        return self.delay

    async def _play_due(self, held: Held) -> Snapshot | None:
        return await self.runner.play_orchard(held, self._decider)

    def _decider(self, seat: int) -> Callable[[Snapshot], GameAction]:
        def decide(snapshot: Snapshot) -> GameAction:
            seen = self.runner.engine(snapshot.row.kind).view_for(snapshot.state, seat)
            level = snapshot.row.players[seat].level or DEFAULT_LEVEL
            choose = SPEC_OF[snapshot.row.kind].strategy
            assert choose is not None, "only games Orchard plays seat it"
            return choose(seen, seat, level, snapshot.row.seed + snapshot.row.version)

        return decide
