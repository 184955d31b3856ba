"""Discord's 3 seconds: every interaction is acknowledged in time whatever the work costs.

The slowness is injected in the bot's own work (tables that take 4 s to load, a word check
that takes 4 s, a snake that takes 4 s to draw, a slow database read); the fake refuses any
answer later than 3 s after the interaction's creation, and any second answer. Interactions
that reach the bot already too old (a gateway backlog) still move their games, shown through
the channel, and leave no task exception behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

import bot.ai.dice_optimal as dice_optimal
import bot.games.appletters as appletters
from bot.model import Player
from bot.orchard import Orchard
from bot.runner import no_display
from tests.botharness import (
    ALICE,
    BOB,
    CHANNEL,
    GUILD,
    answered,
    new_game,
    no_errors,
    orchard_bot,
    press,
    server,
)
from tests.fakediscord import EPHEMERAL, FakeDiscord, InteractionRecord, text_of
from tests.test_discord_appletters import SEED, WORDS, add_word, appletters_bot, state_of

CALLBACK = r"/interactions/\d+/[^/]+/callback$"
SLOW = 4.0  # seconds: past Discord's 3


@pytest.fixture(autouse=True)
def fixed_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    appletters.register_words(WORDS, ["zz"])
    monkeypatch.setattr("bot.lobby.secrets.randbits", lambda bits: SEED)


@pytest.fixture
async def task_errors() -> AsyncIterator[list[dict[str, Any]]]:
    """What the event loop reports of tasks whose exception nobody retrieved."""
    loop = asyncio.get_running_loop()
    seen: list[dict[str, Any]] = []
    before = loop.get_exception_handler()
    loop.set_exception_handler(lambda _, context: seen.append(context))
    yield seen
    loop.set_exception_handler(before)


def no_task_errors(seen: list[dict[str, Any]]) -> None:
    gc.collect()  # a task's unretrieved exception is reported when the task is collected
    assert not seen, [c.get("message") for c in seen]


def slowly(real: Callable[..., Any], armed: list[bool]) -> Callable[..., Any]:
    """``real``, taking :data:`SLOW` seconds longer (holding its thread) while ``armed``."""

    def slow(*args: Any, **kwargs: Any) -> Any:
        if armed and armed.pop():
            time.sleep(SLOW)
        return real(*args, **kwargs)

    return slow


def in_time(fake: FakeDiscord, record: InteractionRecord) -> None:
    """Discord took the interaction's first answer: none came late, none came twice."""
    calls = [r for r in fake.requests_matching("POST", CALLBACK) if record.token in r.path]
    assert [c.status in (200, 204) for c in calls] == [True], record.describe()


async def recorded(bot: Any, game_id: int) -> int | None:
    """The game's message id once stored (it is written just after Discord has the message)."""
    for _ in range(500):
        row = (await bot.orchard.runner.load(game_id)).row
        if row.message_id is not None:
            return int(row.message_id)
        await asyncio.sleep(0.01)
    return None


def roll_button(fake: FakeDiscord, board: int) -> Any:
    return fake.find_button(board, lambda c: ":roll:" in (c.custom_id or ""))


COLD_GAMES = 60


async def test_a_cold_start_keeps_every_answer_in_time(
    fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Restarted with 60 games against Orchard (Hard) in play and its tables forgotten, the
    bot is hit at once with a hint and a move in every game: none is answered late, and
    Orchard moves in every game, with tables read from the package (nothing is built)."""
    fake = fake_discord
    users = list(range(8000, 8000 + COLD_GAMES))
    channels = list(range(9000, 9000 + COLD_GAMES))
    fake.add_guild(GUILD, channels, users)
    path = tmp_path / "o.db"
    monkeypatch.setenv("ORCHARD_CACHE", str(tmp_path / "cache"))

    async def against_orchard(user: int, channel: int) -> None:
        options = {"opponent": "orchard", "level": "hard"}
        await answered(await fake.slash(user, GUILD, channel, "cheerio new", options))

    async with orchard_bot(fake, path) as bot:
        await asyncio.gather(*map(against_orchard, users, channels))
        await all_on_seat_0(bot)
    boards = {int(m["channel_id"]): int(m["id"]) for m in fake.messages.values() if m["components"]}
    dice_optimal.install("cheerio", None)  # as after a restart: nothing loaded yet
    async with orchard_bot(fake, path) as bot:

        async def hint_then_move(user: int, channel: int) -> list[InteractionRecord]:
            hint = await (await fake.slash(user, GUILD, channel, "cheerio hint")).wait(10.0)
            board = boards[channel]
            select = next(c for c in fake.components(board) if c.is_select)
            move = await fake.select(user, board, select, [select.options[0]])
            return [hint, await move.wait(10.0)]

        done = await asyncio.gather(*map(hint_then_move, users, channels))
        for hint, move in done:
            in_time(fake, hint)
            in_time(fake, move)
            assert "expected final score" in hint.content, hint.describe()
        await orchard_moved_in_all(bot)
        assert not (tmp_path / "cache").exists()
        no_errors(fake)


async def all_on_seat_0(bot: Any) -> None:
    """Wait (bounded) until every open game waits for its person again, not for Orchard."""
    for _ in range(1000):
        rows = await bot.orchard.store.open_games(GUILD)
        turns = [(await bot.orchard.runner.load(r.id)).state.turn for r in rows]
        if turns.count(0) == len(rows):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"Orchard is still playing: turns {turns}")


async def orchard_moved_in_all(bot: Any) -> None:
    """Wait (bounded) until Orchard has made a move in every open game since its person's."""
    for _ in range(1000):
        rows = await bot.orchard.store.open_games(GUILD)
        logs = [await bot.orchard.store.moves(r.id) for r in rows]
        if all(log and log[-1].source == "bot" for log in logs):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("Orchard has not moved in every game")


async def test_a_slow_hint_is_deferred_in_time_then_given(
    fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tables that take 4 s to load: the hint is deferred privately before 3 s, then given."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, tmp_path / "o.db"):
        await new_game(fake, "cheerio", ALICE, [BOB])
        monkeypatch.setattr(dice_optimal, "load", slowly(dice_optimal.load, [True]))
        dice_optimal.install("cheerio", None)  # forgotten: the hint loads them again
        hint = await fake.slash(ALICE, GUILD, CHANNEL, "cheerio hint")
        await hint.wait(timeout=SLOW + 3)
        in_time(fake, hint)
        assert hint.type == 5 and hint.ephemeral, hint.describe()
        assert hint.content.count("expected final score") == 3, hint.content
        no_errors(fake)


async def test_an_interaction_that_came_late_is_deferred_by_its_own_3_s(
    fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 3 s run from the moment the player acted, not from when the bot heard of it: a
    hint that reaches the bot 1.5 s late (a gateway backlog) is deferred within the 1.5 s
    left, not 2 s after its arrival."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, tmp_path / "o.db"):
        await new_game(fake, "cheerio", ALICE, [BOB])
        monkeypatch.setattr(dice_optimal, "load", slowly(dice_optimal.load, [True]))
        dice_optimal.install("cheerio", None)
        fake.interaction_age = 1.5
        hint = await fake.slash(ALICE, GUILD, CHANNEL, "cheerio hint")
        await hint.wait(timeout=SLOW + 3)
        fake.interaction_age = 0.0
        in_time(fake, hint)
        assert hint.type == 5 and hint.ephemeral, hint.describe()
        assert hint.content.count("expected final score") == 3, hint.content
        no_errors(fake)


async def test_a_word_play_is_acknowledged_first_even_if_its_check_takes_4_s(
    fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A word check holds the event loop, so no deferral could be sent while it runs: a word
    play is acknowledged first, then the board (from the form) or a private line (from
    /appletters play) completes it."""
    fake = fake_discord
    server(fake)
    armed: list[bool] = []
    monkeypatch.setattr(appletters, "word_set", slowly(appletters.word_set, armed))
    async with appletters_bot(fake, tmp_path / "o.db") as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB])
        state = await state_of(bot)
        mover = (ALICE, BOB)[state.turn]
        word = add_word(state.hands[state.turn][:2])
        opened = await press(fake, mover, board, "Play a word")
        assert opened.modal is not None
        armed.append(True)
        laid = await fake.submit_modal(mover, CHANNEL, opened.modal["custom_id"], {"word": word})
        await laid.wait(timeout=SLOW + 3)
        in_time(fake, laid)
        assert laid.type == 6 and laid.updated, laid.describe()
        assert word in text_of(fake.message(board))

        state = await state_of(bot)
        mover = (ALICE, BOB)[state.turn]
        end = state.snake[-1].text[-1]
        second = add_word(end + state.hands[state.turn][0])
        armed.append(True)
        played = await fake.slash(mover, GUILD, CHANNEL, "appletters play", {"word": second})
        await played.wait(timeout=SLOW + 3)
        in_time(fake, played)
        assert played.type == 5 and played.ephemeral and f"Played {second}" in played.content
        assert [w.text for w in (await state_of(bot)).snake] == [word, second]
        no_errors(fake)


async def test_a_slow_click_is_deferred_then_completed_by_an_edit(
    fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snake that takes 4 s to draw (in its thread): the click is deferred at 2 s, and the
    board is edited through the interaction once drawn."""
    fake = fake_discord
    server(fake)
    async with appletters_bot(fake, tmp_path / "o.db") as bot:
        board = await new_game(fake, "appletters", ALICE, [BOB])
        state = await state_of(bot)
        mover = (ALICE, BOB)[state.turn]
        opened = await press(fake, mover, board, "Play a word")
        assert opened.modal is not None
        word = add_word(state.hands[state.turn][:2])
        custom = opened.modal["custom_id"]
        laid = await answered(await fake.submit_modal(mover, CHANNEL, custom, {"word": word}))
        assert laid.updated, laid.content
        cog = sys.modules[type(bot.get_cog("AppLettersCog")).__module__]  # loaded as extension
        monkeypatch.setattr(cog, "draw_snake", slowly(cog.draw_snake, [True]))
        state = await state_of(bot)
        picked = await fake.click(
            (ALICE, BOB)[state.turn], board, fake.find_button(board, "Pick 3 tiles and pass")
        )
        await picked.wait(timeout=SLOW + 3)
        in_time(fake, picked)
        assert picked.type == 6 and picked.updated, picked.describe()
        after = await state_of(bot)
        assert after.turn != state.turn
        no_errors(fake)


async def test_a_click_that_arrives_too_late_still_moves_the_board(
    fake_discord: FakeDiscord, tmp_path: Path, task_errors: list[dict[str, Any]]
) -> None:
    """Created 3.5 s before the bot hears of it (a backlog after a restart), the click can no
    longer be answered: the move stands, the board is edited through the channel, nothing
    is logged as an error and no task is left with an exception; the next click is answered."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, tmp_path / "o.db") as bot:
        board = await new_game(fake, "cheerio", ALICE, [])
        (row,) = await bot.orchard.store.open_games(GUILD)
        fake.interaction_age = 3.5
        late = await fake.click(ALICE, board, roll_button(fake, board))
        await fake.wait_for(
            lambda: "1 roll left" in text_of(fake.message(board)),
            what="the board to move through the channel",
        )
        assert late.callback is None
        refused = [r for r in fake.requests_matching("POST", CALLBACK) if late.token in r.path]
        assert refused and {r.status for r in refused} == {404}
        late_hint = await fake.slash(BOB, GUILD, CHANNEL, "cheerio hint")  # refused, too late
        await fake.wait_for(
            lambda: any(late_hint.token in r.path for r in fake.requests), what="its answer"
        )
        fake.interaction_age = 0.0
        again = await answered(await fake.click(ALICE, board, roll_button(fake, board)))
        assert again.type == 7 and (await bot.orchard.runner.load(row.id)).state.rolls == 3
        no_errors(fake)
    no_task_errors(task_errors)


async def test_a_slow_refusal_of_a_public_command_stays_private(
    fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/cheerio new answers in the channel, so its deferral is public; a refusal after it
    replaces that placeholder with a private answer, never a public one."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, tmp_path / "o.db") as bot:
        await answered(await fake.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        store = bot.orchard.store
        real, slow = store.open_games, [2.5]

        async def slow_open_games(*args: Any, **kwargs: Any) -> Any:
            await asyncio.sleep(slow.pop() if slow else 0)  # the first read only
            return await real(*args, **kwargs)

        monkeypatch.setattr(store, "open_games", slow_open_games)
        again = await fake.slash(ALICE, GUILD, CHANNEL, "cheerio new")
        await again.wait(timeout=8.0)
        in_time(fake, again)
        assert again.type == 5 and again.ephemeral, again.describe()
        assert "You already have an open" in again.content
        public = [m for m in fake.channel_messages(CHANNEL) if "already" in m["content"]]
        assert public == []
        no_errors(fake)


SLOW_PUBLIC = {  # a public command, what reads slowly before it answers, and its answer's word
    "leaderboard": (lambda bot: bot.orchard.store, "leaderboard_with_records", "Cheerio"),
    "daily-board": (lambda bot: bot.get_cog("DailyCog").dailies, "board", "Orchard Daily"),
    "appletters new": (lambda bot: bot.get_cog("AppLettersCog"), "options_for", "Appletters"),
}


@pytest.mark.parametrize("command", SLOW_PUBLIC)
async def test_a_slow_public_command_is_deferred_in_public_then_completed(
    fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """A command that answers in the channel: deferred publicly by the watchdog (a slow
    database read before it answers), then completed with the answer itself, all in time;
    not a private "thinking" turned into a pointer to a message of its own."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, tmp_path / "o.db") as bot:
        owner, name, word = SLOW_PUBLIC[command]
        real = getattr(owner(bot), name)

        async def slow(*args: Any, **kwargs: Any) -> Any:
            await asyncio.sleep(2.5)
            return await real(*args, **kwargs)

        monkeypatch.setattr(owner(bot), name, slow)
        options = {"game": "cheerio"} if command == "leaderboard" else {}
        answer = await fake.slash(ALICE, GUILD, CHANNEL, command, options)
        await answer.wait(timeout=8.0)
        in_time(fake, answer)
        assert answer.type == 5 and not answer.ephemeral, answer.describe()
        assert word in answer.text, answer.describe()
        no_errors(fake)


async def test_new_after_a_lost_first_message_shows_the_lobby_again(
    fake_discord: FakeDiscord, tmp_path: Path, task_errors: list[dict[str, Any]]
) -> None:
    """A late /new posts its lobby through the channel; a lobby whose message was lost
    altogether (late, and the bot may not post there) is shown again by the next /new, as its
    answer, instead of being refused."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, tmp_path / "o.db") as bot:
        fake.interaction_age = 3.5
        late = await fake.slash(ALICE, GUILD, CHANNEL, "cheerio new")
        lobby = await fake.wait_for_message(CHANNEL, lambda m: bool(m["components"]))
        assert late.callback is None and "who is playing" in text_of(lobby)
        (row,) = await bot.orchard.store.open_games(GUILD)
        assert await recorded(bot, row.id) == int(lobby["id"])
        fake.interaction_age = 0.0

        fake.interaction_age = 3.5  # late again, and the bot may not post in the channel
        fake.fail("POST", rf"^/channels/{CHANNEL}/messages$", 403)
        lost = await fake.slash(BOB, GUILD, CHANNEL, "hotscore new")
        await fake.wait_for(lambda: fake.pending_faults == 0, what="the post to be refused")
        await fake.wait_for(lambda: bool(fake.errors), what="the failure to be logged")
        assert lost.callback is None
        fake.errors.clear()  # seen: the lobby could be shown nowhere
        fake.interaction_age = 0.0
        (lost_row,) = [r for r in await bot.orchard.store.open_games(GUILD) if r.id != row.id]
        assert lost_row.message_id is None

        shown = await answered(await fake.slash(BOB, GUILD, CHANNEL, "hotscore new"))
        assert shown.type == 4 and not shown.ephemeral, shown.describe()
        assert "who is playing" in shown.text
        assert shown.original is not None and not shown.original["flags"] & EPHEMERAL
        assert await recorded(bot, lost_row.id) == shown.original_id
        joined = await press(fake, ALICE, int(shown.original["id"]), "Join")
        assert joined.type == 7 and "Alice" in str(joined.data)
        again = await answered(await fake.slash(BOB, GUILD, CHANNEL, "hotscore new"))
        assert again.ephemeral and "You already have an open" in again.content
        no_errors(fake)
    no_task_errors(task_errors)


async def test_the_same_new_sent_twice_at_once_posts_one_lobby(
    fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob sends /hotscore new twice, the second while the first's lobby is committed but
    not yet announced (its read back is slow). The second is told he has that game already:
    it must not take the lobby for one whose message was lost and post it a second time, a
    copy no click would ever update."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, tmp_path / "o.db") as bot:
        runner = bot.orchard.runner
        read_back, go_on = asyncio.Event(), asyncio.Event()
        load = runner.load

        async def slow_first_load(game_id: int) -> Any:
            monkeypatch.setattr(runner, "load", load)  # only the lobby's own read back
            read_back.set()
            await go_on.wait()
            return await load(game_id)

        monkeypatch.setattr(runner, "load", slow_first_load)
        first = await fake.slash(BOB, GUILD, CHANNEL, "hotscore new")
        await asyncio.wait_for(read_back.wait(), 2)  # committed, on its way
        second = await fake.slash(BOB, GUILD, CHANNEL, "hotscore new")
        with contextlib.suppress(TimeoutError):  # answered by now, unless it waits its turn
            await asyncio.wait_for(asyncio.shield(second.wait()), 0.5)
        go_on.set()
        await first.wait()
        await second.wait()
        assert second.ephemeral and "You already have an open" in second.content, second.describe()
        lobbies = [m for m in fake.channel_messages(CHANNEL) if "who is playing" in text_of(m)]
        assert [int(m["id"]) for m in lobbies] == [first.original_id]
        no_errors(fake)


async def test_a_lobby_shown_again_holds_up_none_of_its_game_while_discord_takes_the_answer(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Showing a lost lobby again waits for Discord (the answer, maybe a post) among the
    game's displays, never inside its lock: its deadline falling due meanwhile is written at
    once, and its display follows, onto the message the answer just made."""
    from bot.model import GameChange, GameStatus, Player

    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, tmp_path / "o.db") as bot:
        # A lobby of Bob's whose first message was lost: never announced, never posted.
        lost = await bot.orchard.lobby.open("hotscore", GUILD, CHANNEL, Player(0, BOB, "Bob"))
        released = fake.hold("POST", CALLBACK)  # a slow Discord: the answer hangs
        shown = await fake.slash(BOB, GUILD, CHANNEL, "hotscore new")
        while not fake.requests_matching("POST", CALLBACK):  # held: recorded, no waiter told
            await asyncio.sleep(0.01)
        # The lobby's time is up meanwhile: the bot's own loop fires its deadline.
        await bot.orchard.store.write(GameChange(lost.id, deadline=time.time()))
        bot.orchard.scheduler.wake()

        async def closed() -> None:
            while (await bot.orchard.runner.load(lost.id)).row.status is GameStatus.LOBBY:
                await asyncio.sleep(0.01)

        try:
            await asyncio.wait_for(closed(), 1.5)  # within Discord's 3 s for the answer
        finally:
            released.set()
        await shown.wait()
        in_time(fake, shown)
        assert shown.type == 4 and "who is playing" in shown.text, shown.describe()
        board = await recorded(bot, lost.id)
        assert board == shown.original_id
        await fake.wait_for(
            lambda: "lobby closed" in str(text_of(fake.message(board))), what="the lobby closed"
        )
        no_errors(fake)


async def overdue_solo_games(path: Path, games: list[tuple[int, int, int]]) -> None:
    """Solo Cheerio games (server, channel, player) whose turn ran out about an hour ago,
    their deadlines in this order; turn pings off."""
    moment = [time.time() - 3600]
    o = await Orchard.open(path, clock=lambda: moment[0])
    try:
        for guild, channel, user in games:
            moment[0] += 1
            host = Player(0, user, f"player{user}")
            lobby = await o.runner.create(
                "cheerio", guild, channel, host, seed=1, options=None, variant="", deadline=None
            )
            await o.lobby.start(lobby.id, user, no_display)
            await o.store.set_guild_settings(guild, {"turn_pings": "off"})
    finally:
        await o.close()


async def test_a_busy_channels_overdue_boards_hold_up_no_other_servers(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """After downtime 24 games in one channel fall due, then one in another server. Discord
    takes 5 posts in 5 s a channel: were the display workers all to wait on the first
    channel, the other server's board would come some 30 s later (its ping too)."""
    busy, other = CHANNEL, CHANNEL + 100
    crowd = list(range(7001, 7025))
    for user in [*crowd, 8001]:
        fake_discord.add_user(user, f"player{user}")
    fake_discord.add_guild(GUILD, [busy], crowd)
    fake_discord.add_guild(GUILD + 1, [other], [8001])
    database = tmp_path / "orchard.db"
    await overdue_solo_games(
        database, [(GUILD, busy, user) for user in crowd] + [(GUILD + 1, other, 8001)]
    )
    posted = f"/channels/{other}/messages"
    async with orchard_bot(fake_discord, database):
        await fake_discord.wait_for(
            lambda: any(r.status == 200 and r.path == posted for r in fake_discord.requests),
            timeout=4.0,
            what="the other server's board",
        )
        assert sum(r.path == f"/channels/{busy}/messages" for r in fake_discord.requests) < 24
