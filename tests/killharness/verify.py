"""After the kills: every open game plays on, and (bot stopped) the store is checked against
what was acknowledged, through the project's ``Store`` and ``Runner``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, cast

from bot.games.base import Engine
from bot.model import GameRow
from bot.runner import Runner
from bot.settings import Settings
from bot.specs import ENGINES
from db.store import Store
from tests.bot_process import BotProcess
from tests.killharness.controls import games_shown
from tests.killharness.drivers import GUILD, Driver
from tests.killharness.leaks import check_hands_private
from tests.killharness.press import press_all
from tests.killharness.report import Report
from tests.killharness.words import WORD_KINDS


async def drive(
    driver: Driver, store: Store, game_id: int, moved: Callable[[GameRow], bool], rounds: int = 4
) -> bool:
    """Let the table's players take their turns until ``moved(row)`` holds."""
    for _ in range(rounds):
        for user in driver.users:
            await driver.step(user)
            row = await store.get_game(game_id)
            if row is not None and moved(row):
                return True
    return False


async def find_board(driver: Driver) -> int | None:
    for _ in range(3):
        try:
            board = await driver.recover()
        except (TimeoutError, LookupError, KeyError):
            board = None
        if board is not None:
            return board
        await asyncio.sleep(0.5)
    return None


async def play_on(driver: Driver, store: Store, row: GameRow, report: Report) -> None:
    """A game open after the last restart: post it again, press every control, play on."""
    driver.board = await find_board(driver)
    if driver.board is None:
        report.dead.append(f"game {row.id}: its board could not be posted again")
        return
    if row.status == "lobby":
        await press_all(driver, driver.board, report, lobby=True)
        await drive(driver, store, row.id, lambda now: now.status != "lobby")
    now = await store.get_game(row.id)
    if now is not None and now.status == "active" and driver.board is not None:
        await press_all(driver, driver.board, report)
        now = await store.get_game(row.id)
        if now is not None and (now.status, now.version) == ("active", row.version):
            await drive(driver, store, row.id, lambda later: later.version > row.version)
    now = await store.get_game(row.id)
    if now is not None and (now.status, now.version) != (row.status, row.version):
        report.continued += 1


class Witness:
    """A game's engine as the runner uses it, keeping every state it returns: the runner's own
    replay of a log then shows every hand held on the way, with no copy of its rules here."""

    def __init__(self, engine: Engine[Any], seen: list[Any]) -> None:
        self.engine, self.seen = engine, seen

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def _keep(self, state: Any) -> Any:
        self.seen.append(state)
        return state

    def new(self, seed: int, players: int, options: Any) -> Any:
        return self._keep(self.engine.new(seed, players, options))

    def apply(self, state: Any, action: Any) -> Any:
        return self._keep(self.engine.apply(state, action))

    def forfeit(self, state: Any, seat: int) -> Any:
        return self._keep(self.engine.forfeit(state, seat))


async def started_games(store: Store, shown: set[int]) -> list[GameRow]:
    """Every game that was started, by id. The store lists open games only, so ids are walked:
    SQLite numbers a new game after the highest and nothing here deletes one; the walk goes at
    least as far as the highest id any board showed."""
    rows: list[GameRow] = []
    game_id, last = 1, max(shown, default=0)
    while (row := await store.get_game(game_id)) is not None or game_id <= last:
        if row is not None and row.state is not None:
            rows.append(row)
        game_id += 1
    return rows


async def verify(bot: BotProcess, store: Store, report: Report, drivers: list[Driver]) -> None:
    """Play every open game on and press its controls, then (bot stopped) compare the
    acknowledged moves with the log and replay every game."""
    open_rows = await store.open_games(GUILD)
    report.open_games = len(open_rows)
    by_host = {d.host: d for d in drivers}
    for row in open_rows:
        await play_on(by_host[row.host_id], store, row, report)
    await bot.stop()  # nothing may move while the log is compared with the state
    logs: dict[int, list[Any]] = {}
    for ack in report.acked:
        if ack.game_id not in logs:
            logs[ack.game_id] = await store.moves(ack.game_id)
        # Usually move number version + 1; where seats act side by side (Hot Score's
        # challenge throw) the runner also takes a click drawn before another seat moved,
        # so it is this player's first move from there on.
        later = logs[ack.game_id][ack.version :]
        move = next((m for m in later if m.user_id == ack.user_id), None)
        if move is None or (move.verb, move.arg, move.user_id) != (
            ack.kind,
            ack.arg,
            ack.user_id,
        ):
            report.lost.append(ack)
    held: list[Any] = []  # every Appletters state the replays pass through
    witnesses = {kind: cast(Engine[Any, Any], Witness(ENGINES[kind], held)) for kind in WORD_KINDS}
    runner = Runner(store, {**ENGINES, **witnesses}, Settings(store))
    rows = await started_games(store, games_shown(bot.fake))
    report.games = len(rows)
    report.finished = sum(row.status == "finished" for row in rows)
    for row in rows:
        report.kinds[row.kind] = report.kinds.get(row.kind, 0) + 1
        live = await runner.load(row.id)
        if await runner.replay(row.id) != live.state:
            report.mismatched.append(row.id)
    hands = {hand for state in held for hand in state.hands}
    check_hands_private(bot.fake, hands, report)
