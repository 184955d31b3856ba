"""After the kills: every open game plays on, and (bot stopped) the database is checked against
what was acknowledged."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from bot.games.base import Action
from bot.games.registry import ENGINES
from bot.model import GameRow
from bot.runner import Runner
from bot.settings import Settings
from db.store import Store
from tests.bot_process import BotProcess
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


async def verify(bot: BotProcess, report: Report, drivers: list[Driver]) -> None:
    """Play every open game on and press its controls, then (bot stopped) compare the
    acknowledged moves with the log and replay every game."""
    store = await Store.open(bot.db)
    try:
        open_rows = await store.open_games(GUILD)
        report.open_games = len(open_rows)
        by_host = {d.host: d for d in drivers}
        for row in open_rows:
            await play_on(by_host[row.host_id], store, row, report)
    finally:
        await store.close()
    await bot.stop()  # nothing may move while the log is compared with the state
    store = await Store.open(bot.db)
    runner = Runner(store, ENGINES, Settings(store))
    try:
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
        rows = await store._fetchall("SELECT id, status, kind FROM games WHERE state IS NOT NULL")
        report.games = len(rows)
        report.finished = sum(status == "finished" for _, status, _ in rows)
        hands: set[str] = set()
        for game_id, _, kind in rows:
            report.kinds[kind] = report.kinds.get(kind, 0) + 1
            live = await runner.load(game_id)
            if await runner.replay(game_id) != live.state:
                report.mismatched.append(game_id)
            if kind in WORD_KINDS:
                hands |= await every_hand(runner, live.row, await store.moves(game_id))
    finally:
        await store.close()
    check_hands_private(bot.fake, hands, report)


async def every_hand(runner: Runner, row: GameRow, moves: list[Any]) -> set[str]:
    """Every hand any seat held in a word game, replaying its log move by move."""
    engine = runner.engine(row.kind)
    state = engine.new(row.seed, len(row.players), row.options)
    held = set(state.hands)
    for move in moves:
        if move.verb == "forfeit":
            state = engine.forfeit(state, move.seat)
        else:
            state = engine.apply(state, Action(move.seat, move.verb, move.arg))
        held |= set(state.hands)
    return held
