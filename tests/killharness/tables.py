"""Two-player tables: Hot Score (both throw, one is sometimes a moment late) and Appletters
(words typed in the Play word form)."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.games import appletters
from bot.games.appletters import Placement
from cogs.appletters import MODAL
from db.store import Store
from tests.fakediscord import Component, FakeDiscord
from tests.killharness.controls import controls, find, is_move, named, parts, seated, version_of
from tests.killharness.drivers import Driver
from tests.killharness.report import Ack, Report
from tests.killharness.words import word_to_play

WORD_CHANCE = 0.85  # how often a player who can lay a word does (else picks and passes)
PLAYED_ELSEWHERE = "Played "  # a word typed in a form opened on an older copy of the board


class Table(Driver):
    """Two people at one channel playing Hot Score: the guest joins, the host starts, and
    whoever the board mentions throws, sticks or picks the Bonus Die's sign. Both press at
    once, so in a challenge (both throw) one of them is sometimes a moment too late."""

    kind = "hotscore"

    def __init__(self, fake: FakeDiscord, report: Report, users: list[int], channel: int) -> None:
        super().__init__(fake, report, users, channel)
        self.guest = users[1]
        self.misses = 0
        self.finding = asyncio.Lock()

    async def run(self, stop: asyncio.Event) -> None:
        await asyncio.gather(*(self.loop(user, stop) for user in self.users))

    async def step(self, user: int) -> None:
        board = self.board
        if board is None or board not in self.fake.messages:
            if user == self.host:  # the host finds the table's game; the guest waits for it
                async with self.finding:
                    self.board, self.misses = await self.recover(), 0
            else:
                await asyncio.sleep(0.05)
            return
        message = self.fake.messages[board]
        join, start = find(message, "lobby_join"), find(message, "lobby_start")
        if start is not None:
            if user == self.guest and join is not None and seated(message) < 2:
                await self.lobby(user, board, join)
            elif user == self.host and seated(message) >= 2:
                await self.lobby(user, board, start)
            else:
                await asyncio.sleep(0.02)
            return
        moves = [c for c in controls(message) if is_move(c)]
        if not moves:  # finished (Rematch only) or closed: the host opens the next game
            if user == self.host:
                self.board = None
            else:
                await asyncio.sleep(0.05)
        elif user in named(self.fake, message):
            if await self.turn(user, message, moves):
                self.misses = 0
            else:
                self.miss()
        else:
            await asyncio.sleep(0.02)

    async def turn(self, user: int, message: dict[str, Any], moves: list[Component]) -> bool:
        """The player the board waits for moves; True if the board in play shows the move."""
        return await self.move(user, self.rng.choice(moves), None)

    async def lobby(self, user: int, board: int, button: Component) -> None:
        answered = await self.answer(await self.fake.click(user, board, button))
        if answered is None:
            self.board = None
        elif answered.type != 7:
            self.miss()

    def miss(self) -> None:
        """A refused click: usually the other player was quicker and the board follows;
        three in a row mean the board is stale, so the host posts the game again."""
        self.misses += 1
        if self.misses >= 3:
            self.board, self.misses = None, 0


class WordTable(Table):
    """Two people at one channel playing Appletters, the guest joining and the host starting
    as at a Hot Score table. On their turn a player reads the game from the bot's store
    (as Discord would never show it: the hand is secret) and, if the hand can lay a listed
    word, usually types it in the Play word form, naming the end when the word fits both;
    otherwise presses Pick and pass (and always on the table's first turn, so a short run,
    with few turns between kills, still picks)."""

    kind = "appletters"

    def __init__(
        self, fake: FakeDiscord, report: Report, users: list[int], channel: int, store: Store
    ) -> None:
        super().__init__(fake, report, users, channel)
        self.store = store
        self.picked = False

    async def turn(self, user: int, message: dict[str, Any], moves: list[Component]) -> bool:
        play = find(message, "ui_play")
        found = None
        if play is not None and self.picked and self.rng.random() < WORD_CHANCE:
            game, version, _, _ = parts(play)
            found = await word_to_play(self.store, game, version, user, self.rng)
        if play is None or found is None:
            pick = find(message, "pick")
            moved = await self.move(user, pick or self.rng.choice(moves), None)
            self.picked = self.picked or (moved and pick is not None)
            return moved
        return await self.type_word(user, play, found)

    async def type_word(self, user: int, button: Component, way: Placement) -> bool:
        """Open the form from the board and submit ``way``'s word; a word the bot answered
        is acknowledged as the move ``play`` as the engine logs the word and end the cog
        passes the runner (the end given leaves exactly this one way)."""
        assert self.board is not None
        game, version, _, _ = parts(button)
        opened = await self.answer(await self.fake.click(user, self.board, button))
        if opened is None:
            self.board = None
            return False
        form = MODAL.fullmatch(str((opened.modal or {}).get("custom_id") or ""))
        if form is None or int(form["version"]) != version:
            self.report.refused += 1  # not this player's turn after all, or the board moved
            return False
        fields = {"word": way.word.lower(), "end": way.end or ""}
        logged = appletters.ENGINE.format(
            appletters.ENGINE.parse(0, "play", f"{way.word}:{way.end}" if way.end else way.word)
        )[1]
        sent = await self.fake.submit_modal(user, self.channel, form[0], dict(fields))
        answered = await self.answer(sent)
        if answered is None:
            self.board = None
            return False
        if answered.updated:  # the board edited to the version the word made
            made = version_of(answered.edits[-1] if answered.edits else answered.data)
            at = version if made is None else made - 1
            self.report.acked.append(Ack(game, at, "play", logged, user))
            self.report.words += 1
            return True
        if answered.ephemeral and answered.content.startswith(PLAYED_ELSEWHERE):
            # made from an older copy of the board: no version in the answer, but the form
            # was drawn at ``version`` on this player's turn, and only they can move then
            self.report.acked.append(Ack(game, version, "play", logged, user))
            self.report.words += 1
            return False
        self.report.refused += 1
        return False
