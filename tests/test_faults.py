"""Discord misbehaving mid-game: rate limits, server errors, lost permissions and messages,
a dropped gateway, a late answer. Whatever happens, a move is applied once, the stored
game equals the replay of its move log, and the game plays on.

The fake serves each fault once (``fake.fail``); discord.py retries 429 (after retry-after)
and 500/502 (after 1 s, so 500 is injected once only) and raises at once on 403/404/503.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from bot.app import OrchardBot
from bot.games.cheerio import ROLLS_PER_TURN, open_categories
from bot.model import GameRow
from bot.runner import CHANGED, Snapshot
from tests.botharness import (
    ALICE,
    BOB,
    CHANNEL,
    GUILD,
    answered,
    new_game,
    orchard_bot,
    press,
    server,
    unpaced,
)
from tests.fakediscord import FakeDiscord, InteractionRecord

PATIENCE = 2.0  # seconds a player waits for a stale board to catch up before clicking it
CALLBACK = r"/interactions/\d+/[^/]+/callback$"
EDIT = rf"/channels/{CHANNEL}/messages/\d+$"


@dataclass
class Game:
    """One Cheerio game in play, and how many of its player's actions were accepted."""

    fake: FakeDiscord
    bot: OrchardBot
    id: int
    accepted: int = 0

    async def live(self) -> Snapshot:
        return await self.bot.orchard.runner.load(self.id)

    _message: int | None = None

    @property
    def board(self) -> int:
        """The game's message (it changes when the board is posted again)."""
        assert self._message is not None
        return self._message

    async def refresh(self) -> None:
        self._message = (await self.live()).row.message_id

    async def act(self, user: int = ALICE, *, answered: bool = True) -> InteractionRecord:
        """Press whatever moves the game on for ``user``: Roll, else score the first category.

        Waits for the bot's answer, or with ``answered=False`` for Discord to refuse it.
        """
        await self.refresh()
        live = await self.live()
        # Like a person, give the board a moment to show the game as it is: clicking a stale
        # board over and over only queues redraws behind the channel's rate limit.
        with contextlib.suppress(TimeoutError):
            await self.fake.wait_for(lambda: self._shows(live), PATIENCE, "the board")
        state = live.state
        before = live.row.version
        if state.rolls < ROLLS_PER_TURN:
            button = self.fake.find_button(self.board, lambda c: ":roll:" in (c.custom_id or ""))
            record = await self.fake.click(user, self.board, button)
        else:
            select = next(c for c in self.fake.components(self.board) if c.is_select)
            category = open_categories(state.cards[state.turn])[0]
            record = await self.fake.select(user, self.board, select, [category])
        await self.fake.wait_for(lambda: self._settled(record, answered), 5.0, "an answer")
        if (await self.live()).row.version != before:
            self.accepted += 1
        return record

    def _settled(self, record: InteractionRecord, answered: bool) -> bool:
        if answered:
            return record.callback is not None
        return any(record.token in r.path and r.status >= 400 for r in self.fake.requests)

    async def check(self, *, shown: bool = True) -> None:
        """Applied once, replayable, and (if ``shown``) the board shows the latest version."""
        live = await self.live()
        moves = await self.bot.orchard.store.moves(self.id)
        people = [m for m in moves if m.source == "player"]
        assert len(people) == self.accepted
        assert live.row.version == len(moves)
        assert await self.bot.orchard.runner.replay(self.id) == live.state
        if shown and live.row.status == "active":
            await self.fake.wait_for(lambda: self._shows(live), 5.0, "the board to catch up")

    def _shows(self, live: Snapshot) -> bool:
        message = self.fake.messages.get(live.row.message_id or 0)
        ids = (
            [c.custom_id or "" for c in self.fake.components(int(message["id"]))] if message else []
        )
        return any(i.startswith(f"orc:{live.id}:{live.row.version}:") for i in ids)


@pytest.fixture
async def game(fake_discord: FakeDiscord, tmp_path: Path) -> AsyncIterator[Game]:
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        board = int(opened.original["id"]) if opened.original else 0
        started = await answered(
            await fake_discord.click(ALICE, board, fake_discord.find_button(board, "Start"))
        )
        assert started.type == 7
        (row,) = await bot.orchard.store.open_games(GUILD)
        g = Game(fake_discord, bot, row.id)
        await g.refresh()
        yield g


@pytest.fixture
async def versus(fake_discord: FakeDiscord, tmp_path: Path) -> AsyncIterator[Game]:
    """Alice against Orchard: Orchard's moves reach Discord as message edits (PATCH). Orchard
    plays here without its 1 s pause, faster than Discord's limits allow (see unpaced)."""
    server(fake_discord)
    unpaced(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        yield await against_orchard(fake_discord, bot, "easy")


async def against_orchard(fake: FakeDiscord, bot: OrchardBot, level: str) -> Game:
    """Alice's new Cheerio game against Orchard at ``level``, once its message is recorded."""
    options = {"opponent": "orchard", "level": level}
    await answered(await fake.slash(ALICE, GUILD, CHANNEL, "cheerio new", options))
    (row,) = await bot.orchard.store.open_games(GUILD)
    g = Game(fake, bot, row.id)
    for _ in range(500):  # the message id is stored just after Discord has the reply
        await g.refresh()
        if g._message is not None:
            break
        await asyncio.sleep(0.01)
    return g


async def orchard_moves_unseen(g: Game, status: int) -> None:
    """Every board edit fails with ``status`` while Orchard plays its turn; then Discord heals."""
    g.fake.fail("PATCH", EDIT, status, times=50)
    await my_turn_again(g)
    live = await g.live()
    latest = f"orc:{g.id}:{live.row.version}:"
    showing = g.bot.orchard.runner.showing(g.id)  # held while a version is being shown

    def settled() -> bool:  # the latest version's edit failed, and none is still being tried
        failed = [r for r in g.fake.requests_matching("PATCH", EDIT) if r.status == status]
        return any(latest in json.dumps(r.json) for r in failed) and not showing.locked()

    # Polled: the display's lock is let go with no request after it, which wait_for would need
    # to look again (the bot's own redraw, 0.5 s on, must find Discord healed).
    for _ in range(500):
        if settled():
            break
        await asyncio.sleep(0.01)
    assert settled(), "the failed edits"
    g.fake._faults.clear()
    await g.check(shown=False)


async def click_stale_move(g: Game) -> InteractionRecord:
    """Alice presses Roll on the board as Discord still shows it, or, where that version of
    the board has no roll left (which one is shown depends on how far Orchard's queued
    edits got), picks a category: either is a move on an outdated version."""
    controls = g.fake.components(g.board)
    roll = next((c for c in controls if ":roll:" in str(c.custom_id) and not c.disabled), None)
    if roll is not None:
        return await answered(await g.fake.click(ALICE, g.board, roll))
    score = next(c for c in controls if c.is_select and not c.disabled)
    return await answered(await g.fake.select(ALICE, g.board, score, score.options[:1]))


async def redrawn_and_told(record: InteractionRecord) -> InteractionRecord:
    """A click on a board left stale: its answer redraws the board (whatever Discord lets
    Orchard edit in the channel), and its refusal follows privately."""
    assert record.updated, record.describe()
    await record.fake.wait_for(lambda: bool(record.followup_ids), 5.0, "the refusal")
    assert record.ephemeral, record.describe()
    return record


async def my_turn_again(g: Game) -> None:
    """Finish Alice's turn and wait until Orchard has played its own."""
    while (await g.live()).state.turn == 0:
        await g.act()
    for _ in range(1000):
        live = await g.live()
        if live.row.status != "active" or live.state.turn == 0:
            return
        await asyncio.sleep(0.01)
    raise TimeoutError("Orchard did not play its turn")


async def test_429_on_the_answer_is_retried_and_applied_once(game: Game) -> None:
    game.fake.fail("POST", CALLBACK, 429, times=2, retry_after=0.05)
    for _ in range(4):
        record = await game.act()
        assert record.type == 7, record.describe()
    assert game.fake.pending_faults == 0
    await game.check()


async def test_429_on_message_edits_is_retried(versus: Game) -> None:
    versus.fake.fail("PATCH", EDIT, 429, times=3, retry_after=0.05)
    await my_turn_again(versus)
    # Orchard's board edits are shown after its moves commit: wait for them to be retried
    await versus.fake.wait_for(lambda: versus.fake.pending_faults == 0, 5.0, "the retried edits")
    await versus.check()
    assert not versus.fake.errors


async def test_a_rate_limited_channel_still_ends_with_the_board_right(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Discord's own pacing (5 edits per window per channel, the window shortened here) and
    429s on top: Orchard, with no pause, edits faster than allowed; its edits wait their
    turn, Alice's moves are answered in time, and the board ends on the last version."""
    fake = fake_discord
    server(fake)
    fake.route_limits = tuple(replace(r, per=1.0) for r in fake.route_limits)
    fake.fail("PATCH", EDIT, 429, times=3, retry_after=0.3)
    async with orchard_bot(fake, tmp_path / "o.db") as bot:
        g = await against_orchard(fake, bot, "hard")
        for _ in range(2):
            await my_turn_again(g)
        showing = bot.orchard.runner.showing(g.id)  # held while a version is being shown
        await fake.wait_for(lambda: fake.pending_faults == 0 and not showing.locked(), 10.0)
        await g.check()
        paced = [r for r in fake.requests_matching("PATCH", EDIT) if r.status == 200]
        assert len(paced) >= 2  # edits went through (overtaken versions are not drawn)
        late = [r for r in fake.requests_matching("POST", CALLBACK) if r.status not in (200, 204)]
        assert late == [] and not fake.errors


@contextlib.asynccontextmanager
async def after_orchard_on_a_slow_channel(
    fake: FakeDiscord, path: Path, per: float
) -> AsyncIterator[tuple[OrchardBot, Game]]:
    """Alice against Orchard where every route allows one request per ``per`` seconds (a
    channel's board edits included), once Orchard has played its turn."""
    server(fake)
    fake.route_limits = tuple(replace(r, limit=1, per=per) for r in fake.route_limits)
    async with orchard_bot(fake, path) as bot:
        g = await against_orchard(fake, bot, "easy")
        await my_turn_again(g)
        yield bot, g


async def test_stale_clicks_while_the_edit_waits_its_turn_redraw_nothing_more(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Orchard's board edits queue on a slow channel's limit (one edit per 2 s); Alice presses
    Roll on the board Discord still shows, again and again. Each is refused, and once the
    queued edit lands the latest version has been drawn once: a stale click redraws only what
    was never drawn."""
    fake = fake_discord
    async with after_orchard_on_a_slow_channel(fake, tmp_path / "o.db", 2.0) as (bot, g):
        live = await g.live()
        stale: list[InteractionRecord] = []
        while len(stale) < 4 and not g._shows(live):  # until the queued edit lands
            stale.append(await click_stale_move(g))
        assert stale and all(record.content == CHANGED for record in stale)
        showing = bot.orchard.runner.showing(g.id)  # held while a version is being shown
        await fake.wait_for(lambda: not showing.locked(), 20.0, "the queued edits")
        await g.check()
        live = await g.live()
        latest = f"orc:{g.id}:{live.row.version}:"
        drawn = [r for r in fake.requests_matching("PATCH", EDIT) if latest in str(r.json)]
        assert len(drawn) == 1, len(drawn)


async def test_an_edit_that_used_up_the_channel_limit_holds_up_no_click(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """discord.py sleeps out a route's window inside the request that used its last token,
    after Discord has answered it. Orchard's moves here use up the channel's one edit per
    5 s; once its last move is on the board, Alice's click is answered at once, not after
    the window (its answer waits for the display before it, which used to include that
    sleep)."""
    fake = fake_discord
    async with after_orchard_on_a_slow_channel(fake, tmp_path / "o.db", 5.0) as (bot, g):
        live = await g.live()
        await fake.wait_for(lambda: g._shows(live), 30.0, "Orchard's last move on the board")
        showing = bot.orchard.runner.showing(g.id)
        began = time.monotonic()
        await fake.wait_for(lambda: not showing.locked(), 5.0, "the display to be over")
        assert time.monotonic() - began < 2.5, "the display waited out the channel's window"
        record = await g.act()
        assert record.type == 7, record.describe()
        await g.check()


async def solo_cheerio(fake: FakeDiscord, bot: OrchardBot) -> GameRow:
    """Alice's solo Cheerio, opened and started by her clicks."""
    opened = await answered(await fake.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
    board = int(opened.original["id"]) if opened.original else 0
    await answered(await fake.click(ALICE, board, fake.find_button(board, "Start")))
    (row,) = await bot.orchard.store.open_games(GUILD)
    return row


def edits_sent(fake: FakeDiscord, game_id: int, since: int) -> list[tuple[int, int]]:
    """Each board edit after the first ``since``: its answer's status, and the version it drew."""
    shown = re.compile(rf"orc:{game_id}:(\d+):")
    return [
        (r.status, max(int(v) for v in shown.findall(json.dumps(r.json))))
        for r in fake.requests_matching("PATCH", EDIT)[since:]
    ]


async def test_an_edit_overtaken_while_it_waits_for_the_channel_is_never_sent(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """The channel lets one edit through every 5 s; three versions of a game are written one
    after another, each shown on its board. The first one's edit goes through; the second one's
    still waits for the channel when the third is written: it is dropped, never sent, and the
    third is drawn once the channel lets it. The edits of one game coalesce: the latest wins,
    nothing outdated is sent."""
    fake = fake_discord
    server(fake)
    fake.route_limits = tuple(replace(r, limit=1, per=5.0) for r in fake.route_limits)
    async with orchard_bot(fake, tmp_path / "o.db") as bot:
        row = await solo_cheerio(fake, bot)
        edits = len(fake.requests_matching("PATCH", EDIT))
        runner = bot.orchard.runner  # its moves are shown on the board by channel edits
        first = await runner.act(row.id, ALICE, "hold", "0")  # returns once Discord has it
        second = asyncio.create_task(runner.act(row.id, ALICE, "hold", "1"))
        deadline = time.monotonic() + 10
        while not (
            (await runner.load(row.id)).row.version > first.row.version
            and runner.showing(row.id).locked()
        ):
            assert time.monotonic() < deadline, "the second move was never being shown"
            await asyncio.sleep(0.01)
        third = await runner.act(row.id, ALICE, "hold", "2")
        written = [first.row.version, (await second).row.version, third.row.version]
        sent = [version for _, version in edits_sent(fake, row.id, edits)]
        assert sent == [written[0], written[2]], (written, sent)


async def test_500_once_is_retried_after_a_second(game: Game) -> None:
    game.fake.fail("POST", CALLBACK, 500, times=1)
    record = await game.act()
    assert record.type == 7, record.describe()
    await game.check()


async def test_a_failed_answer_still_shows_the_move_once(game: Game) -> None:
    """403 is final: the move stands, the board is edited instead."""
    game.fake.fail("POST", CALLBACK, 403, times=1)
    record = await game.act(answered=False)
    assert record.callback is None  # Discord shows "interaction failed" to this click only
    await game.check()  # ... but the channel message was edited to the new version
    again = await game.act()
    assert again.type == 7
    await game.check()


@pytest.mark.parametrize("failures", [(500, 500), (503, 502)])
async def test_a_click_whose_answer_discord_fails_twice_is_still_acknowledged_in_time(
    game: Game, failures: tuple[int, ...]
) -> None:
    """Discord fails the click's answer with a 5xx twice: discord.py tries again after 1 s,
    then after 3 s more, past the 3 s Discord gives ("This interaction failed"). The click is
    acknowledged in time instead, and its board edited through the interaction, once."""
    for status in failures:
        game.fake.fail("POST", CALLBACK, status, times=1)
    record = await game.act()
    assert record.type == 6, record.describe()
    statuses = [r.status for r in game.fake.requests_matching("POST", CALLBACK)]
    assert statuses[-3:-1] == [*failures] and statuses[-1] < 300, statuses
    await game.check()


async def test_a_refusal_whose_answer_discord_fails_twice_still_reaches_its_player(
    game: Game,
) -> None:
    """Bob, who does not play, presses Roll: his refusal's answer fails twice with a 500
    (discord.py's second try comes 4 s on, too late). It is deferred in time instead, and
    the refusal follows, privately."""
    game.fake.fail("POST", CALLBACK, 500, times=2)
    roll = game.fake.find_button(game.board, lambda c: ":roll:" in (c.custom_id or ""))
    record = await game.fake.click(BOB, game.board, roll)
    (said,) = await record.wait_followups(1, timeout=8.0)
    assert record.type == 5 and record.ephemeral, record.describe()
    assert "not playing" in said["content"], said
    await game.check()


async def test_403_on_message_edits_loses_nothing(versus: Game) -> None:
    """Orchard's moves cannot be shown; a click on its stale board redraws it as the click's
    answer, which Discord takes even while it refuses Orchard's own edits there, and says
    why nothing was played. /games posts it again."""
    fake = versus.fake
    await orchard_moves_unseen(versus, 403)
    fake.fail("PATCH", EDIT, 403, times=50)  # still closed to Orchard
    stale = await redrawn_and_told(await click_stale_move(versus))
    assert stale.content == CHANGED  # Orchard moved since, not Alice
    await versus.check()
    assert fake.pending_faults == 50, "no edit of Orchard's own was tried"
    fake._faults.clear()  # permissions given back
    listed = await answered(await fake.slash(ALICE, GUILD, CHANNEL, "games"))
    assert listed.original is not None
    shown = int(listed.original["id"])
    again = await answered(
        await fake.click(ALICE, shown, fake.find_button(shown, f"Show #{versus.id} again"))
    )
    assert again.ephemeral and "Posted again" in again.content
    await versus.check()
    assert (await versus.act()).type == 7
    await versus.check()


async def test_500_on_a_message_edit_is_retried(versus: Game) -> None:
    versus.fake.fail("PATCH", EDIT, 500, times=1)
    await my_turn_again(versus)
    # as with 429s above: the board edits go after the commits my_turn_again waits for
    await versus.fake.wait_for(lambda: versus.fake.pending_faults == 0, 5.0, "the failed edit")
    await versus.check()


async def test_a_board_discord_failed_to_show_is_tried_again_shortly(versus: Game) -> None:
    """discord.py does not retry a 503: the bot redraws the board itself a moment later."""
    versus.bot.boards.redraw_delay = 0.5
    await orchard_moves_unseen(versus, 503)  # the last failed edit's retry comes after this
    await versus.check()  # shown, with no click
    assert (await versus.act()).type == 7
    await versus.check()


async def test_a_lost_edit_is_healed_by_the_next_click_on_the_stale_board(versus: Game) -> None:
    """Orchard's moves stay unseen until a stale click redraws the board (here before the
    bot's own retry)."""
    versus.bot.boards.redraw_delay = 60.0
    await orchard_moves_unseen(versus, 503)  # ... until Discord is back
    assert not versus._shows(await versus.live())
    stale = await redrawn_and_told(await click_stale_move(versus))
    assert stale.ephemeral and stale.content == CHANGED  # Orchard moved since, not Alice
    await versus.check()  # the board shows the current version again
    assert (await versus.act()).type == 7
    await versus.check()


async def test_a_stale_click_is_refused_even_when_its_redraw_fails(
    versus: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The redraw comes first now, and the store failing under it must not take the refusal
    with it (the player would be told only "something went wrong")."""
    await orchard_moves_unseen(versus, 403)

    async def store_down(game_id: int) -> None:
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(versus.bot.orchard.runner, "load", store_down)
    stale = await click_stale_move(versus)
    assert stale.type == 4 and stale.content == CHANGED, stale.describe()


async def test_a_stale_click_is_told_at_once_while_an_edit_is_on_its_way(versus: Game) -> None:
    """Orchard's edits wait on Discord (held here): Alice's click on the board it still shows
    is refused at once, not kept waiting for them, and is not drawn twice."""
    released = versus.fake.hold("PATCH", EDIT)
    await my_turn_again(versus)
    showing = versus.bot.orchard.runner.showing(versus.id)
    await versus.fake.wait_for(showing.locked, 5.0, "an edit on its way")
    stale = await click_stale_move(versus)
    assert stale.type == 4 and stale.content == CHANGED, stale.describe()
    released.set()
    await versus.check()


async def test_a_lobby_or_game_the_clock_closed_unseen_is_redrawn_by_a_click_on_it(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """A lobby that expired, then a solo game its player timed out of, each with its closing
    edit refused by Discord: their boards still offer Join and Roll. A click there is told
    why nothing happened and redraws the board as it is now, as any stale click does."""
    server(fake_discord)
    late = 0.0

    async def clock_passes(
        bot: OrchardBot, game_id: int, status: str, seconds: float, *, refused: bool = False
    ) -> None:
        """Time passes until the game's deadline fires, and its board is drawn (or its edit
        ``refused``)."""
        nonlocal late
        late += seconds
        bot.orchard.runner.clock = lambda late=late: time.time() + late
        version = (await bot.orchard.runner.load(game_id)).row.version
        bot.orchard.scheduler.wake()
        for _ in range(500):
            now = await bot.orchard.runner.load(game_id)
            if now.row.status == status and (status != "active" or now.row.version > version):
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError(f"game {game_id} is not {status}")
        await fake_discord.wait_for(
            lambda: fake_discord.pending_faults == 0 if refused else bot.orchard.runner.drawn(now),
            5.0,
            "the edit refused" if refused else "the board drawn",
        )

    def offers(message: int, label: str) -> bool:
        buttons = [b for b in fake_discord.components(message) if b.is_button]
        return any((b.label or "").startswith(label) for b in buttons)

    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        lobby = int(opened.original["id"])
        fake_discord.fail("PATCH", rf"/messages/{lobby}$", 403)
        await clock_passes(bot, 1, "cancelled", 901, refused=True)  # the lobby expires, unseen
        joined = await redrawn_and_told(await press(fake_discord, BOB, lobby, "Join"))
        assert joined.content == "This lobby is closed.", joined.describe()
        assert not offers(lobby, "Join")

        board = await new_game(fake_discord, "cheerio", BOB, [])
        await clock_passes(bot, 2, "active", 301)  # Bob times out twice...
        await clock_passes(bot, 2, "active", 301)
        fake_discord.fail("PATCH", rf"/messages/{board}$", 403)
        await clock_passes(
            bot, 2, "abandoned", 301, refused=True
        )  # ... and a third time, unseen: he is out
        roll = fake_discord.find_button(board, lambda b: (b.label or "").startswith("Roll"))
        late_click = await answered(await fake_discord.click(BOB, board, roll))
        assert (await redrawn_and_told(late_click)).content == "This game is over."
        assert not offers(board, "Roll")


async def test_a_deleted_channel_abandons_its_game(versus: Game) -> None:
    """Nobody can see or play it: it ends without results instead of ticking on unseen."""
    channel_gone = {"code": 10003, "message": "Unknown Channel"}
    versus.fake.fail("PATCH", EDIT, 404, times=50, **channel_gone)
    versus.fake.fail("POST", rf"/channels/{CHANNEL}/messages$", 404, times=50, **channel_gone)
    while (await versus.live()).state.turn == 0:
        await versus.act()
    for _ in range(500):
        if (await versus.live()).row.status != "active":
            break
        await asyncio.sleep(0.01)
    live = await versus.live()
    assert live.row.status == "abandoned" and live.row.deadline is None
    assert await versus.bot.orchard.store.open_games(GUILD) == []
    assert await versus.bot.orchard.runner.replay(versus.id) == live.state
    assert not versus.fake.errors


async def test_404_unknown_message_posts_the_board_again(versus: Game) -> None:
    old = versus.board
    versus.fake.fail("PATCH", EDIT, 404, times=1)
    await my_turn_again(versus)
    for _ in range(500):  # the new message is posted just after Orchard's move is committed
        await versus.refresh()
        if versus.board != old:
            break
        await asyncio.sleep(0.01)
    assert versus.board != old
    await versus.check()
    record = await versus.act()
    assert record.type == 7
    await versus.check()


async def test_a_dropped_gateway_resumes_and_play_goes_on(game: Game) -> None:
    await game.act()
    await game.fake.drop_gateway()
    assert game.fake.resumes == 1
    for _ in range(3):
        record = await game.act()
        assert record.type == 7
    await game.check()


async def test_an_answer_too_late_for_discord_still_moves_the_board(game: Game) -> None:
    """After 3 s Discord forgets the interaction (10062); the move stands and is shown."""
    game.fake.fail("POST", CALLBACK, 404, times=1, code=10062, message="Unknown interaction")
    record = await game.act(answered=False)
    assert record.callback is None
    await game.check()
    assert (await game.act()).type == 7
    await game.check()


async def test_a_tiles_dm_discord_fails_is_sent_again_at_the_next_move(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Appletters: a 503 on Bob's tiles DM loses nothing; the next move, anyone's, resends it."""
    from bot.games.appletters import register_words
    from tests.test_discord_appletters import WORDS, appletters_bot, game_of, got_tiles, state_of

    register_words(WORDS, ["zz"])
    fake = fake_discord
    server(fake)
    bob_dm = int(fake.dm_channel(BOB)["id"])
    fake.fail("POST", rf"/channels/{bob_dm}/messages$", 503, times=1)
    async with appletters_bot(fake, tmp_path / "o.db") as bot:
        await new_game(fake, "appletters", ALICE, [BOB])
        state = await state_of(bot)
        await got_tiles(fake, ALICE, state.hands[0])
        await fake.wait_for(lambda: fake.pending_faults == 0, 5.0, "Bob's DM to fail")
        assert fake.dms(BOB) == []
        live = await game_of(bot)
        mover = (ALICE, BOB)[live.state.turn]
        await bot.orchard.runner.act(live.id, mover, "pick", version=live.row.version)
        state = await state_of(bot)
        await got_tiles(fake, BOB, state.hands[1])
        assert len(fake.dms(BOB)) == 1
        assert await bot.orchard.runner.replay(live.id) == state


async def test_an_edit_its_channel_refused_is_dropped_once_a_newer_version_is_written(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """The channel refuses an edit (429, retry after 3 s): it was not applied, and
    discord.py would send it again then, every later display of the game (a click's answer
    among them) waiting behind it. A newer version is written meanwhile: the refused edit is
    dropped, and the newer one drawn at once."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, tmp_path / "o.db") as bot:
        row = await solo_cheerio(fake, bot)
        edits = len(fake.requests_matching("PATCH", EDIT))
        fake.fail("PATCH", EDIT, 429, times=1, retry_after=3.0)
        runner = bot.orchard.runner
        first = asyncio.create_task(runner.act(row.id, ALICE, "hold", "0"))
        await fake.wait_for(lambda: fake.pending_faults == 0, what="the refusal")
        began = time.monotonic()
        second = await runner.act(row.id, ALICE, "hold", "1")
        took = time.monotonic() - began
        await first
        sent = edits_sent(fake, row.id, edits)
        assert sent == [(429, second.row.version - 1), (200, second.row.version)], sent
        assert took < 1.5, f"the newer version waited {took:.1f} s behind the refused edit"


async def test_an_edit_refused_by_the_global_limit_is_never_dropped(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """A global 429 makes discord.py hold every request until its pause is over; a request
    cancelled inside that pause would hold them for good. So that edit is sent again, and
    the bot's requests go on."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, tmp_path / "o.db") as bot:
        row = await solo_cheerio(fake, bot)
        edits = len(fake.requests_matching("PATCH", EDIT))
        fake.fail("PATCH", EDIT, 429, times=1, retry_after=0.5, is_global=True)
        runner = bot.orchard.runner
        first = asyncio.create_task(runner.act(row.id, ALICE, "hold", "0"))
        await fake.wait_for(lambda: fake.pending_faults == 0, what="the refusal")
        second = await asyncio.wait_for(runner.act(row.id, ALICE, "hold", "1"), 10.0)
        await asyncio.wait_for(first, 10.0)
        statuses = [status for status, _ in edits_sent(fake, row.id, edits)]
        assert statuses == [429, 200, 200], statuses
        sent = await asyncio.wait_for(bot.get_partial_messageable(CHANNEL).send("after"), 5.0)
        assert sent.content == "after"
        assert second.row.version == row.version + 2
