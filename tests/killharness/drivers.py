"""Players pressing buttons through the fake as people would, and a solo Cheerio player.

Every answered move is counted in the :class:`Report` as acknowledged: after all the kills it
must be in the game's move log.
"""

from __future__ import annotations

import asyncio
import random
import re
from typing import ClassVar

from tests.fakediscord import Component, FakeDiscord, InteractionRecord, components_of
from tests.killharness.controls import find, is_move, parts
from tests.killharness.report import Ack, Report

GUILD = 5001
STRANGER = 7999  # a member of the server who plays in no game: every control must answer him
ANSWER_SECONDS = 3.0
POSTED = re.compile(r"/(\d+)\)?$")  # "Posted again: [go to the game](…/id)"
MOVED_ELSEWHERE = "Done:"  # a move made from an older copy of the board: applied, said privately


class Driver:
    """Players of one channel's games, pressing buttons through the fake like people would."""

    kind = ""
    guild = GUILD  # the server the channel is in
    options: ClassVar[dict[str, object]] = {}  # the new game's options

    def __init__(self, fake: FakeDiscord, report: Report, users: list[int], channel: int) -> None:
        self.fake, self.report, self.users, self.channel = fake, report, users, channel
        self.host = users[0]
        self.board: int | None = None
        self.rng = random.Random(self.host)

    async def run(self, stop: asyncio.Event) -> None:
        raise NotImplementedError

    async def step(self, user: int) -> None:
        raise NotImplementedError

    async def loop(self, user: int, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.step(user)
            except (TimeoutError, LookupError, KeyError, AssertionError, RuntimeError):
                self.board = None
                await asyncio.sleep(0.05)
            await asyncio.sleep(self.rng.uniform(0.0, 0.02))

    async def answer(self, record: InteractionRecord) -> InteractionRecord | None:
        try:
            return await record.wait(ANSWER_SECONDS)
        except TimeoutError:
            self.report.unanswered += 1
            return None

    async def press(
        self, user: int, board: int, component: Component, value: str | None
    ) -> InteractionRecord | None:
        """Click a button or choose ``value`` in a select; a move answered is acknowledged."""
        if value is None:
            record = await self.fake.click(user, board, component)
        else:
            record = await self.fake.select(user, board, component, [value])
        answered = await self.answer(record)
        if answered is not None and is_move(component):
            applied = answered.type == 7 or (
                answered.type == 4
                and answered.ephemeral
                and answered.content.startswith(MOVED_ELSEWHERE)
            )
            if applied:
                game, version, kind, arg = parts(component)
                self.report.acked.append(Ack(game, version, kind, value or arg, user))
        return answered

    async def move(self, user: int, component: Component, value: str | None) -> bool:
        """A move from the board in play; False (and the board forgotten) unless it was made."""
        assert self.board is not None
        answered = await self.press(user, self.board, component, value)
        if answered is None:
            self.board = None
            return False
        if answered.type != 7:  # refused, or made from an older copy and answered privately
            self.report.refused += not answered.content.startswith(MOVED_ELSEWHERE)
            return False
        return True

    async def recover(self) -> int | None:
        """The host finds the game with /games and posts it again, or opens a new one."""
        fake, user = self.fake, self.host
        listed = await self.answer(await fake.slash(user, self.guild, self.channel, "games"))
        if listed is None:
            return None
        shown = listed.original
        again = [c for c in components_of(shown or {}) if ":repost:" in (c.custom_id or "")]
        if shown is not None and again:
            posted = await self.answer(await fake.click(user, int(shown["id"]), again[0]))
            found = POSTED.search(posted.content) if posted is not None else None
            return int(found[1]) if found else None
        new = f"{self.kind} new"
        opened = await self.answer(
            await fake.slash(user, self.guild, self.channel, new, dict(self.options))
        )
        if opened is None or opened.original is None or opened.ephemeral:
            return None
        return int(opened.original["id"])


class Player(Driver):
    """One person with one channel, playing Cheerio game after game through interactions."""

    kind = "cheerio"

    async def run(self, stop: asyncio.Event) -> None:
        await self.loop(self.host, stop)

    async def step(self, user: int) -> None:
        if self.board is None or self.board not in self.fake.messages:
            self.board = await self.recover()
            return
        message = self.fake.messages[self.board]
        start = find(message, "lobby_start")
        roll = find(message, "roll")
        score = find(message, "score")
        if start is not None:
            started = await self.answer(await self.fake.click(user, self.board, start))
            if started is None or started.type != 7:
                self.board = None
        elif roll is not None and (score is None or self.rng.random() < 0.7):
            if not await self.move(user, roll, None):
                self.board = None
        elif score is not None:
            if not await self.move(user, score, self.rng.choice(score.options)):
                self.board = None
        else:  # finished (Rematch only) or closed: start another game
            self.board = None
