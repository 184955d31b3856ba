"""After the last restart: press every control of an open game's board, as every kind of user.

A control that answers nothing (no edit, no private reply, no form) is a dead button.
"""

from __future__ import annotations

from typing import Any

from cogs.appletters import MODAL
from tests.fakediscord import Component
from tests.killharness.controls import DONE, Key, action_of, controls, is_move, key_of, named
from tests.killharness.drivers import STRANGER, Driver
from tests.killharness.report import Report
from tests.killharness.tables import WordTable


async def press_all(
    driver: Driver, board: int, report: Report, *, lobby: bool = False, idle: int = 4
) -> None:
    """Press every enabled control on ``board``: first as everyone not to act (each option of
    a select), then as the player to act. Every press must be answered with an edit, a
    private reply or a form (Play word, for the player to act), never with silence.

    A move redraws the board, so it is read again before every press and only controls still
    on it are pressed; controls that appear later are pressed the same way, and while none is
    new the player to act moves on (at most ``idle`` times in a row) to bring up more. In a
    lobby nobody joins who is not of the game, and the host does not start, cancel or add
    seats: :func:`drive` starts it.
    """
    fake = driver.fake

    def current(key: Key) -> Component | None:
        for c in controls(fake.messages.get(board) or {}):
            if key_of(c) == key:
                return c
        return None

    async def check(user: int, component: Component, value: str | None) -> None:
        report.pressed += 1
        try:
            answered = await driver.press(user, board, component, value)
        except (TimeoutError, LookupError, AssertionError) as err:
            answered, problem = None, f"{type(err).__name__}: {str(err).splitlines()[0]}"
        else:
            problem = "no answer" if answered is None else answered.describe()
        if answered is None or not (
            answered.type == 7
            or (answered.type == 4 and answered.ephemeral)
            or MODAL.fullmatch(str((answered.modal or {}).get("custom_id") or "")) is not None
        ):
            report.dead.append(f"{component.custom_id}={value} by {user}: {problem}")

    tried: set[Key] = set()
    quiet = 0
    while quiet <= idle:
        message = fake.messages.get(board) or {}
        waiting = [u for u in named(fake, message) if u in driver.users]
        actor = waiting[0] if waiting else driver.host
        shown = [c for c in controls(message) if action_of(c) not in DONE]
        key = next((key_of(c) for c in shown if key_of(c) not in tried), None)
        if key is None:  # nothing new: the player to act moves on, to bring up other controls
            moves = [c for c in shown if is_move(c)]
            if lobby or not moves:
                return
            quiet += 1
            if isinstance(driver, WordTable) and actor in named(fake, message):
                await word_turn(driver, board, actor, message, moves)
                continue
            step = driver.rng.choice(moves)
            await check(actor, step, driver.rng.choice(step.options) if step.is_select else None)
            continue
        quiet = 0
        tried.add(key)
        kind = key[1]
        for user in [*(u for u in driver.users if u != actor), STRANGER]:
            if lobby and user == STRANGER and kind == "lobby_join":
                continue
            first = current(key)
            values: list[str | None] = [None]
            if first is not None and first.is_select:
                values = list(first.options)
            for value in values if first is not None else []:
                component = current(key)  # a move by the other player redraws the board
                if component is not None and (value is None or value in component.options):
                    await check(user, component, value)
        component = current(key)
        if component is None or (lobby and kind not in ("lobby_join", "lobby_leave")):
            continue
        await check(
            actor, component, driver.rng.choice(component.options) if component.is_select else None
        )


async def word_turn(
    driver: WordTable, board: int, actor: int, message: dict[str, Any], moves: list[Component]
) -> None:
    """The player to act takes an Appletters turn as in play (a word through the form when
    the hand has one): every click and form on the way must be answered."""
    report = driver.report
    before, pressed = report.unanswered, len(report.acked)
    driver.board = board
    await driver.turn(actor, message, moves)
    report.pressed += 1
    if report.unanswered > before:
        report.dead.append(f"game board {board}: {actor}'s turn went unanswered")
    elif len(report.acked) == pressed:
        report.dead.append(f"game board {board}: {actor}'s turn was refused")
