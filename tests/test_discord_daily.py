"""The Daily Orchard through discord.py and the fake Discord: private boards that keep
working, the same dice for everyone, once a day, the boards and the share line."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.app import OrchardBot
from bot.daily import NO_GAME, date_of, day_of, end_of
from bot.games.applejack import CATEGORIES as APPLEJACK_CATEGORIES
from bot.games.cheerio import CATEGORIES
from bot.model import Player
from bot.pacing import Pacer, traced
from bot.wording import date_text
from cogs.cheerio import NO_DAILY_HINTS
from cogs.daily import BOARD_SIZE, GAMES
from db.connection import Target
from tests.botharness import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    answered,
    choose,
    no_errors,
    orchard_bot,
    press,
    private,
    server,
)
from tests.databases import query, table_columns, written
from tests.fakediscord import (
    SEND_MESSAGES,
    FakeDiscord,
    InteractionRecord,
    components_of,
    text_of,
)
from tests.test_turn_pings import Halting

MANAGE_MESSAGES = 1 << 13
ORDER = ("sixes", "fives", "cheerio", "fours", "threes", "twos", "ones")


async def daily(fake: FakeDiscord, user: int, **options: Any) -> int:
    """/daily as ``user``: the private board's message id."""
    reply = await answered(await fake.slash(user, GUILD, CHANNEL, "daily", options))
    assert reply.ephemeral and reply.original is not None, reply.describe()
    return int(reply.original["id"])


def dice_shown(fake: FakeDiscord, board: int) -> str:
    """The board's dice (its Keep / Release buttons) and rolls left, not whose turn it is."""
    message = fake.message(board)
    dice = [c.label or "" for c in components_of(message) if ":hold:" in (c.custom_id or "")]
    left = re.search(r"(\d+|No) rolls? left", text_of(message))
    return " ".join(dice) + (f" · {left[0]}" if left else "")


def scored_text(fake: FakeDiscord, board: int) -> str:
    """The board after a score, as alike for two players as their games: no game number, and
    columns not padded to the name's length."""
    text = re.sub(r"\n-# .* · game \d+$", "", text_of(fake.message(board)))
    return re.sub(r" +", " ", text)


def roll_label(fake: FakeDiscord, board: int) -> str:
    button = fake.find_button(board, lambda c: ":roll:" in (c.custom_id or ""))
    return str(button.label)


async def play_cheerio(fake: FakeDiscord, user: int, board: int) -> list[str]:
    """Hold the first die and roll once each turn, then score in ORDER: what was seen."""
    seen = [dice_shown(fake, board)]
    for category in ORDER:
        held = await press(fake, user, board, dice_label(fake, board, 0))
        assert held.type == 7 and secret(fake, board), held.describe()
        rolled = await press(fake, user, board, roll_label(fake, board))
        assert rolled.type == 7, rolled.describe()
        seen.append(dice_shown(fake, board))
        scored = await choose(fake, user, board, "score", [category])
        assert scored.type == 7 and secret(fake, board), scored.describe()
        seen.append(scored_text(fake, board))
    return seen


def secret(fake: FakeDiscord, board: int) -> bool:
    """The board is an ephemeral message (only its player sees it)."""
    return bool(int(fake.message(board)["flags"]) & 64)


def dice_label(fake: FakeDiscord, board: int, index: int) -> str:
    button = fake.find_button(board, lambda c: (c.custom_id or "").endswith(f":hold:{index}"))
    return str(button.custom_id)


def hold(fake: FakeDiscord, board: int) -> str:
    """Apple Jack's hold button ("I'll hold", or in a round's last turn "… (done)")."""
    return str(fake.find_button(board, lambda c: (c.custom_id or "").endswith(":hold:")).custom_id)


async def game_of(bot: OrchardBot, user: int, kind: str = "cheerio") -> Any:
    play = await bot.orchard.store.db.fetchall(
        "SELECT game_id FROM daily_plays WHERE user_id = ? AND kind = ?", (user, kind)
    )
    return await bot.orchard.runner.load(int(play[0][0]))


async def test_two_players_same_choices_same_dice_and_score_privately(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        alice_board = await daily(fake_discord, ALICE)
        bob_board = await daily(fake_discord, BOB)
        assert dice_shown(fake_discord, alice_board) == dice_shown(fake_discord, bob_board)
        alice = await play_cheerio(fake_discord, ALICE, alice_board)
        bob = await play_cheerio(fake_discord, BOB, bob_board)
        assert [s.replace("Alice", "Bob") for s in alice] == bob
        games = [await game_of(bot, user) for user in (ALICE, BOB)]
        assert games[0].row.status == games[1].row.status == "finished"
        assert games[0].state.cards == games[1].state.cards
        assert games[0].row.seed != games[1].row.seed
        for game in games:
            assert await bot.orchard.runner.replay(game.id) == game.state
        # Nothing was posted in the channel: no board, no turn ping, no end announcement.
        assert fake_discord.channel_messages(CHANNEL) == []

        again = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "daily"))
        assert again.ephemeral and again.original is not None
        said = text_of(again.original)
        assert "You have played today's Cheerio" in said
        score = sum(p for p in games[0].state.cards[0] if p is not None)
        assert f"Orchard Daily #{day_of(time.time())} · Cheerio {score} · accuracy" in said
        assert len(fake_discord.channel_messages(CHANNEL)) == 0

        review = await press(fake_discord, ALICE, alice_board, "Review")
        private(review)
        assert "accuracy" in review.content
        shared = await press(fake_discord, ALICE, alice_board, "Share my result")
        assert not shared.ephemeral
        assert shared.data["allowed_mentions"] == {"parse": []}, "a name pings nobody"
        (posted,) = fake_discord.channel_messages(CHANNEL)
        day = day_of(time.time())
        assert posted["content"].startswith(f"Alice: Orchard Daily #{day} · Cheerio "), "whose"
        assert "⚀" not in posted["content"] and "dice" not in posted["content"]
        refused = await press(fake_discord, BOB, alice_board, "Share my result")
        assert refused.ephemeral and "Only the player" in refused.content

        board = await answered(await fake_discord.slash(CAROL, GUILD, CHANNEL, "daily-board"))
        text = board.embeds[0]["description"]
        assert "Alice" in text and "Bob" in text and f"**{score}**" in text
        no_errors(fake_discord)


async def test_a_daily_game_survives_the_token_and_a_restart(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """The /daily answer's token may expire and the bot restart: each click on the private
    board answers by updating the message it came from, so the game goes on."""
    server(fake_discord)
    fake_discord.token_lifetime = 0.2
    async with orchard_bot(fake_discord, tmp_path / "o.db"):
        board = await daily(fake_discord, ALICE)
        await press(fake_discord, ALICE, board, dice_label(fake_discord, board, 0))
    time.sleep(0.3)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        rolled = await press(fake_discord, ALICE, board, roll_label(fake_discord, board))
        assert rolled.type == 7 and secret(fake_discord, board), rolled.describe()
        scored = await choose(fake_discord, ALICE, board, "score", ["ones"])
        assert scored.type == 7
        live = await game_of(bot, ALICE)
        assert live.state.cards[0][CATEGORIES.index("ones")] is not None
        # no turn clock: a daily game waits, until the day after its own is over
        assert live.row.deadline == end_of(day_of(time.time()) + 1)
        assert "time runs out" not in text_of(fake_discord.message(board))
        resumed = await daily(fake_discord, ALICE)  # a dismissed board is shown again
        assert "1 roll" not in dice_shown(fake_discord, resumed)
        assert (await game_of(bot, ALICE)).id == live.id
        no_errors(fake_discord)


async def test_todays_game_goes_on_from_another_server_and_counts_where_it_began(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Alice's daily game, begun here, goes on from Pippin Club, and counts here: finished
    there, it sends her to this server's board by name, not to "everyone here"."""
    other_guild, other_channel = GUILD + 1, CHANNEL + 1
    server(fake_discord)
    fake_discord.add_guild(other_guild, [other_channel], [ALICE], name="Pippin Club")
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await daily(fake_discord, ALICE)
        elsewhere = await answered(
            await fake_discord.slash(ALICE, other_guild, other_channel, "daily")
        )
        assert elsewhere.ephemeral and elsewhere.original is not None
        assert "counts on that server's board" in text_of(elsewhere.original)
        there = int(elsewhere.original["id"])
        rolled = await press(fake_discord, ALICE, there, roll_label(fake_discord, there))
        assert rolled.type == 7 and "another server" not in rolled.content, rolled.describe()
        scored = await choose(fake_discord, ALICE, there, "score", ["ones"])
        assert scored.type == 7, scored.describe()
        live = await game_of(bot, ALICE)
        assert live.state.cards[0][CATEGORIES.index("ones")] is not None
        assert live.row.guild_id == GUILD and board != there
        here = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "daily"))
        assert "counts on that server" not in text_of(here.original)
        for category in ORDER[:-1]:  # finished in Pippin Club: its end names the board's server
            await choose(fake_discord, ALICE, there, "score", [category])
        over = text_of(fake_discord.message(there))
        assert "Your daily game is over" in over, over
        assert f"/daily-board in guild-{GUILD} shows how everyone there did." in over, over
        no_errors(fake_discord)


async def test_daily_applejack_solo_once_a_day(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await daily(fake_discord, ALICE, game="applejack")
        for category in APPLEJACK_CATEGORIES[:-1]:
            await press(fake_discord, ALICE, board, hold(fake_discord, board))
            await choose(fake_discord, ALICE, board, "call", [category])
        await press(fake_discord, ALICE, board, hold(fake_discord, board))
        game = await game_of(bot, ALICE, "applejack")
        assert game.row.status == "finished" and len(game.row.players) == 1
        again = await answered(
            await fake_discord.slash(ALICE, GUILD, CHANNEL, "daily", {"game": "applejack"})
        )
        assert again.original is not None
        assert "You have played today's Apple Jack" in text_of(again.original)
        rows = await bot.orchard.store.db.fetchall("SELECT COUNT(*) FROM games")
        assert rows[0][0] == 1
        no_errors(fake_discord)


async def daily_channel(fake: FakeDiscord, channel: int = CHANNEL) -> InteractionRecord:
    """The server's admin chooses ``channel`` for the daily board (/daily-channel)."""
    return await answered(
        await fake.slash(
            ALICE, GUILD, CHANNEL, "daily-channel", {"channel": channel}, permissions=32
        )
    )


async def posting_by_hand(bot: OrchardBot) -> Any:
    """The daily cog with its own loop stopped, before a channel is chosen: a pass of the loop
    after that (its first runs once the bot is ready, whenever that falls) would claim
    yesterday's board before the test posts it."""
    cog: Any = bot.get_cog("DailyCog")
    cog.post_yesterday.cancel()
    while cog.post_yesterday.is_running():
        await asyncio.sleep(0.01)
    return cog


async def test_yesterdays_board_is_posted_once_in_the_chosen_channel(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        cog = await posting_by_hand(bot)
        chosen = await daily_channel(fake_discord)
        assert chosen.ephemeral, chosen.describe()
        now = time.time()
        await played_yesterday(fake_discord, cog, now, ALICE, ORDER)
        cog.dailies.clock = lambda: now
        before = len(fake_discord.channel_messages(CHANNEL))
        assert await cog.post_boards() == 1
        assert await cog.post_boards() == 0  # once a day
        (posted,) = fake_discord.channel_messages(CHANNEL)[before:]
        titles = [embed["title"] for embed in posted["embeds"]]
        assert f"Orchard Daily #{day_of(now) - 1} · Cheerio · this server" in titles
        assert "Alice" in posted["embeds"][0]["description"]
        no_errors(fake_discord)


async def test_a_board_whose_post_a_shutdown_cut_off_is_posted_after_the_restart(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """The bot stops while yesterday's board waits on Discord (a 429): its claim is given
    back, and the restart posts it. Kept, the claim would have lost that day's board."""
    server(fake_discord)
    database, now = tmp_path / "o.db", time.time()
    async with orchard_bot(fake_discord, database) as bot:
        cog = await posting_by_hand(bot)
        await daily_channel(fake_discord)
        await played_yesterday(fake_discord, cog, now, ALICE, ORDER)
        cog.dailies.clock = lambda: now
        before = len(fake_discord.channel_messages(CHANNEL))
        post = rf"^/channels/{CHANNEL}/messages$"
        fake_discord.fail("POST", post, 429, times=5, retry_after=30)
        cog.post_yesterday.start()
        await fake_discord.wait_for(lambda: fake_discord.pending_faults < 5, 5.0, "the post")
    fake_discord._faults.clear()
    async with orchard_bot(fake_discord, database):  # its loop's first pass posts it
        await fake_discord.wait_for(
            lambda: len(fake_discord.channel_messages(CHANNEL)) > before, 5.0, "the board"
        )
        (posted,) = fake_discord.channel_messages(CHANNEL)[before:]
        assert "Alice" in posted["embeds"][0]["description"]


async def test_a_posted_board_is_made_final_once_its_day_has_closed(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Yesterday's board goes out just after midnight, while yesterday's games may still be
    finished today, as Bob then finishes his. At the next midnight, when that day has
    closed, the same message is edited to its final results, with Bob and without the line
    saying they may change, and the next day's board goes out as a message of its own. A
    board a moderator deleted is left deleted: the next day's goes out as ever."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        cog = await posting_by_hand(bot)
        await daily_channel(fake_discord)
        now = time.time()
        await played_yesterday(fake_discord, cog, now, ALICE, ORDER)  # she finishes
        bob = await played_yesterday(fake_discord, cog, now, BOB, ORDER[:1])  # he begins
        cog.dailies.clock = lambda: now
        assert await cog.post_boards() == 1
        (first,) = fake_discord.channel_messages(CHANNEL)
        cheerio = first["embeds"][0]["description"]
        assert "Alice" in cheerio and "Bob" not in cheerio and "can still be finished" in cheerio
        for category in ORDER[1:]:  # today, Bob finishes yesterday's game
            await choose(fake_discord, BOB, bob, "score", [category])

        cog.dailies.clock = lambda: now + 86400  # yesterday's day has closed
        edits = len(fake_discord.versions[int(first["id"])])
        assert await cog.post_boards() == 1
        final = fake_discord.message(int(first["id"]))
        assert len(fake_discord.versions[int(first["id"])]) == edits + 1
        cheerio = final["embeds"][0]["description"]
        assert "Alice" in cheerio and "Bob" in cheerio and "can still be finished" not in cheerio
        assert final["embeds"][0]["title"] == first["embeds"][0]["title"]
        first_again, second = fake_discord.channel_messages(CHANNEL)
        assert first_again["id"] == first["id"]
        assert second["embeds"][0]["title"].startswith(f"Orchard Daily #{day_of(now)} ·")

        fake_discord._delete_message(int(second["id"]))  # by a moderator
        cog.dailies.clock = lambda: now + 2 * 86400
        assert await cog.post_boards() == 1
        assert [m["id"] for m in fake_discord.channel_messages(CHANNEL)][:1] == [first["id"]]
        assert len(fake_discord.channel_messages(CHANNEL)) == 2, "the deleted one not posted"
        no_errors(fake_discord)


async def test_a_board_is_made_final_though_its_edit_failed_once_and_its_channel_was_cleared(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """The server clears /daily-channel the day after a board went out: nothing more is
    posted, but that board is still made final once its day has closed. Discord refuses
    the first final edit (503): the board is tried again at the loop's next pass."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        cog = await posting_by_hand(bot)
        await daily_channel(fake_discord)
        now = time.time()
        bob = await played_yesterday(fake_discord, cog, now, BOB, ORDER[:1])  # he begins
        cog.dailies.clock = lambda: now
        assert await cog.post_boards() == 1
        (board,) = fake_discord.channel_messages(CHANNEL)
        for category in ORDER[1:]:  # today, Bob finishes yesterday's game
            await choose(fake_discord, BOB, bob, "score", [category])
        await answered(
            await fake_discord.slash(ALICE, GUILD, CHANNEL, "daily-channel", permissions=32)
        )

        def cheerio() -> str:
            return str(fake_discord.message(int(board["id"]))["embeds"][0]["description"])

        cog.dailies.clock = lambda: now + 86400  # yesterday's day has closed
        fake_discord.fail("PATCH", rf"^/channels/{CHANNEL}/messages/{board['id']}$", 503)
        assert await cog.post_boards() == 0, "no channel chosen: nothing posted"
        assert fake_discord.pending_faults == 0 and "Bob" not in cheerio()
        assert await cog.post_boards() == 0
        assert "Bob" in cheerio() and "can still be finished" not in cheerio()
        edits = len(fake_discord.versions[int(board["id"])])
        assert await cog.post_boards() == 0
        assert len(fake_discord.versions[int(board["id"])]) == edits, "made final once"
        assert len(fake_discord.channel_messages(CHANNEL)) == 1
        no_errors(fake_discord)


def board_drawn(fake: FakeDiscord, message_id: int) -> tuple[int, str]:
    """A posted board's versions so far, and its Cheerio board as it reads now."""
    shown = fake.message(message_id)["embeds"][0]["description"]
    return len(fake.versions[message_id]), str(shown)


async def both_on_yesterdays_board(fake: FakeDiscord, bot: OrchardBot) -> tuple[Any, float, int]:
    """Alice and Bob finish yesterday's daily game, and its board is posted: the daily cog
    (its clock now), now, and the board's message."""
    cog = await posting_by_hand(bot)
    await daily_channel(fake)
    now = time.time()
    await played_yesterday(fake, cog, now, ALICE, ORDER)
    await played_yesterday(fake, cog, now, BOB, ORDER)
    cog.dailies.clock = lambda: now
    assert await cog.post_boards() == 1
    (board,) = fake.channel_messages(CHANNEL)
    return cog, now, int(board["id"])


async def forget_me_here(fake: FakeDiscord, user: int) -> None:
    """``user``'s /forget-me in the server, confirmed."""
    asked = await answered(await fake.slash(user, GUILD, CHANNEL, "forget-me"))
    assert asked.original is not None
    done = await press(fake, user, int(asked.original["id"]), "Forget me here")
    assert done.content.startswith("Done: "), done.describe()


async def test_forget_me_draws_the_daily_boards_that_showed_them_again(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Alice and Bob played yesterday's daily here, and its board, posted, was made final
    the day after. Alice's /forget-me here takes her off it: at the loop's next pass the
    message is drawn again, once, with Bob and without her."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        cog, now, board = await both_on_yesterdays_board(fake_discord, bot)
        cog.dailies.clock = lambda: now + 86400  # made final
        assert await cog.post_boards() == 1

        def drawn() -> tuple[int, str]:
            return board_drawn(fake_discord, board)

        edits, cheerio = drawn()
        assert "Alice" in cheerio and "Bob" in cheerio and "can still be finished" not in cheerio
        assert await cog.post_boards() == 0 and drawn() == (edits, cheerio), "final: left"
        await forget_me_here(fake_discord, ALICE)
        assert await cog.post_boards() == 0
        again, cheerio = drawn()
        assert again == edits + 1 and "Alice" not in cheerio and "Bob" in cheerio
        assert await cog.post_boards() == 0 and drawn()[0] == again, "drawn once"
        no_errors(fake_discord)


async def test_a_board_is_posted_once_though_the_channel_is_cleared_and_chosen_again(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Yesterday's board went out; the server then clears /daily-channel and chooses a
    channel again the same day: yesterday's board is not posted a second time."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        cog = await posting_by_hand(bot)
        await daily_channel(fake_discord)
        now = time.time()
        await played_yesterday(fake_discord, cog, now, ALICE, ORDER)
        cog.dailies.clock = lambda: now
        assert await cog.post_boards() == 1
        await answered(
            await fake_discord.slash(ALICE, GUILD, CHANNEL, "daily-channel", permissions=32)
        )
        await daily_channel(fake_discord)
        assert await cog.post_boards() == 0
        assert len(fake_discord.channel_messages(CHANNEL)) == 1
        no_errors(fake_discord)


async def test_forget_me_takes_them_off_a_board_whose_day_is_still_open_at_once(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """This morning's board (yesterday's games, which may still be finished today) shows
    Alice and Bob. Alice's /forget-me: at the loop's next pass it is drawn without her,
    still saying the day's games may be finished; once the day has closed, it is drawn once
    more, final."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        cog, now, board = await both_on_yesterdays_board(fake_discord, bot)

        def drawn() -> tuple[int, str]:
            return board_drawn(fake_discord, board)

        await forget_me_here(fake_discord, ALICE)
        assert await cog.post_boards() == 0
        edits, cheerio = drawn()
        assert "Alice" not in cheerio and "Bob" in cheerio and "can still be finished" in cheerio
        assert await cog.post_boards() == 0 and drawn()[0] == edits, "drawn once"
        cog.dailies.clock = lambda: now + 86400
        assert await cog.post_boards() == 1
        again, cheerio = drawn()
        assert again == edits + 1 and "can still be finished" not in cheerio
        no_errors(fake_discord)


async def until_waiting(pacer: Pacer, requests: int) -> None:
    """Until ``requests`` wait for a slot of the global limit."""
    for _ in range(500):
        if pacer.waiting >= requests:
            return
        await asyncio.sleep(0.01)
    raise TimeoutError(f"{pacer.waiting} requests waiting, not {requests}")


async def test_the_midnight_boards_wait_for_the_games_being_played(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """At midnight every server's board goes out at once. They are the backlog of Discord's
    global limit: with it used up, a game's message in another channel, asked for after them,
    still goes first."""
    elsewhere = CHANNEL + 1
    server(fake_discord)
    fake_discord.add_guild(GUILD, [CHANNEL, elsewhere], [ALICE, BOB, CAROL])
    clock = Halting()
    pacer = Pacer(clock=clock)
    async with orchard_bot(fake_discord, tmp_path / "o.db", http_trace=traced(pacer)) as bot:
        cog = await posting_by_hand(bot)
        await daily_channel(fake_discord)
        await clock.use_up(pacer)
        before = pacer.waiting  # use_up's own waits, given up
        cog.post_yesterday.start()  # the loop's pass, as at midnight
        await until_waiting(pacer, before + 1)  # its board waits for a slot
        game = bot.get_partial_messageable(elsewhere).send("a game's move")
        moved = asyncio.create_task(game)
        await until_waiting(pacer, before + 2)
        clock.held_at = None
        await moved
        await fake_discord.wait_for(lambda: len(fake_discord.channel_messages(CHANNEL)) == 1)
        posts = fake_discord.requests_matching("POST", r"^/channels/\d+/messages$")
        assert [r.path for r in posts] == [
            f"/channels/{elsewhere}/messages",
            f"/channels/{CHANNEL}/messages",
        ], "the game's message went first"
        no_errors(fake_discord)


async def test_two_posters_at_once_post_each_board_once(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Every process runs the posting loop over every server (on a shared store, two at
    once when their five minutes meet, as at midnight): both read the board as due before
    either has posted it. A server's board is claimed before it is posted, so one posts it."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        cog = await posting_by_hand(bot)
        await daily_channel(fake_discord)
        before = len(fake_discord.channel_messages(CHANNEL))
        done = await asyncio.gather(cog.post_boards(), cog.post_boards())
        assert sorted(done) == [0, 1]
        (posted,) = fake_discord.channel_messages(CHANNEL)[before:]
        assert len(posted["embeds"]) == len(GAMES), "one message, a board for each game"
        said = {embed["description"] for embed in posted["embeds"]}
        # yesterday's games may still be finished today: no result yet, not none for good
        assert all(d.startswith("Nobody has finished this day's game yet.") for d in said), said
        today = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "daily-board"))
        assert today.embeds[0]["description"] == "Nobody has finished today's game yet."
        no_errors(fake_discord)


async def test_daily_channel_with_none_says_whether_anything_changed(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """/daily-channel with no channel stops the posting: said so only when a channel was
    chosen; with none chosen, it says the board is not posted here, not "no longer"."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database):
        said = []
        for options in ({}, {"channel": CHANNEL}, {}):
            reply = await answered(
                await fake_discord.slash(
                    ALICE, GUILD, CHANNEL, "daily-channel", options, permissions=32
                )
            )
            said.append(reply.content)
        assert said == [
            "Yesterday's daily board is not posted in this server.",
            f"Each day just after midnight (UTC), yesterday's daily boards are posted in"
            f" <#{CHANNEL}>, and made final the day after, once that day's games can no longer"
            " be finished.",
            "Yesterday's daily board is no longer posted in this server.",
        ]
        no_errors(fake_discord)


ATTACH_FILES = 1 << 15


async def test_the_daily_channel_must_be_one_orchard_can_post_in(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Posting there would fail each day, unseen, so /daily-channel refuses a channel where
    Orchard may not send messages, saying what to grant, as /settings does for games; it
    takes one without Attach Files, which the daily board (an embed) does not need."""
    mute, no_files = CHANNEL + 1, CHANNEL + 2
    server(fake_discord)
    fake_discord.add_guild(GUILD, [CHANNEL, mute, no_files], [ALICE, BOB, CAROL])
    for channel, denied in ((mute, SEND_MESSAGES), (no_files, ATTACH_FILES)):
        fake_discord.channels[channel]["permission_overwrites"] = [
            {"id": str(fake_discord.bot_id), "type": 1, "allow": "0", "deny": str(denied)}
        ]
    async with orchard_bot(fake_discord, database) as bot:
        cog: Any = bot.get_cog("DailyCog")
        yesterday = cog.dailies.today() - 1

        async def choose(channel: int) -> str:
            said = await daily_channel(fake_discord, channel)
            assert said.ephemeral, said.describe()
            return said.content

        refused = await choose(mute)  # without Send Messages, Discord counts no Embed Links
        assert refused.startswith(f"I cannot post in <#{mute}>: give me Send Messages"), refused
        assert await cog.dailies.boards_due(yesterday) == []
        assert f"posted in <#{no_files}>, and made final" in await choose(no_files)
        assert await cog.dailies.boards_due(yesterday) == [(GUILD, no_files)]
        no_errors(fake_discord)


async def finish_daily(bot: OrchardBot, user: int, name: str, guild: int = GUILD) -> None:
    """``user`` plays the cog's today's Cheerio in ``guild`` through the runner, scoring in
    ORDER."""
    cog: Any = bot.get_cog("DailyCog")
    snapshot, _ = await cog.dailies.game_of_the_day("cheerio", guild, Player(0, user, name))
    for category in ORDER:
        await bot.orchard.runner.act(snapshot.id, user, "score", category)


async def played_yesterday(
    fake: FakeDiscord, cog: Any, now: float, user: int, categories: Sequence[str]
) -> int:
    """``user`` opens yesterday's daily game, the cog's clock set a day before ``now`` (and
    left there), and scores ``categories`` in it; its board."""
    cog.dailies.clock = lambda: now - 86400
    board = await daily(fake, user)
    for category in categories:
        await choose(fake, user, board, "score", [category])
    return board


async def said_today(fake: FakeDiscord) -> tuple[str, str]:
    """Alice's /daily (once played) and the server's /daily-board, as text."""
    daily = await answered(await fake.slash(ALICE, GUILD, CHANNEL, "daily"))
    board = await answered(await fake.slash(CAROL, GUILD, CHANNEL, "daily-board"))
    assert daily.original is not None
    return text_of(daily.original), board.embeds[0]["description"]


async def test_streaks_on_the_board_and_in_daily(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    """Alice plays three days in a row, Bob only the third: the board marks Alice 🔥 3 and
    Bob with nothing (a streak of one is no streak), and her /daily says "Days in a row: 3."
    She misses the next day; the day after, she is back to 1 and her 🔥 is gone."""
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        cog: Any = bot.get_cog("DailyCog")
        now = time.time()
        for offset in (-3, -2, -1):
            moment = now + offset * 86400
            # the runner's clock too: by now, a game of three days ago would close unfinished
            cog.dailies.clock = bot.orchard.runner.clock = lambda moment=moment: moment
            await finish_daily(bot, ALICE, "Alice")
        await finish_daily(bot, BOB, "Bob")
        daily, board = await said_today(fake_discord)
        assert "Days in a row: 3." in daily
        alice, bob = board.splitlines()
        assert "Alice" in alice and alice.endswith(" · 🔥 3") and "🔥" not in bob
        cog.dailies.clock = bot.orchard.runner.clock = lambda: now + 86400  # offset 0 missed
        await finish_daily(bot, ALICE, "Alice")
        daily, board = await said_today(fake_discord)
        assert "Days in a row: 1." in daily and "Alice" in board and "🔥" not in board
        no_errors(fake_discord)


async def test_equal_results_share_a_place_on_the_board(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Alice and Bob make the same choices on the same dice: the same score and accuracy, so
    the same place (a game's equal scores share a place too), not a place apart by their
    names' alphabetical order. Carol, who scores otherwise, is placed apart. The day is
    fixed: on some days' dice Carol's order scores less than theirs, on others more."""
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        cog: Any = bot.get_cog("DailyCog")
        noon = 1795867200.0  # 28 November 2026, 12:00 UTC: Carol's order scores more
        cog.dailies.clock = bot.orchard.runner.clock = lambda: noon
        for user, name in ((BOB, "Bob"), (ALICE, "Alice")):
            await finish_daily(bot, user, name)
        snapshot, _ = await cog.dailies.game_of_the_day("cheerio", GUILD, Player(0, CAROL, "Carol"))
        for category in CATEGORIES:  # ones first, not ORDER's sixes first: another score
            await bot.orchard.runner.act(snapshot.id, CAROL, "score", category)
        _, board = await said_today(fake_discord)
        plays = await cog.dailies.board(cog.dailies.today(), "cheerio", GUILD)
        assert [p.name for p in plays] == ["Carol", "Alice", "Bob"]
        assert (plays[0].score, plays[0].accuracy) != (plays[1].score, plays[1].accuracy)
        assert (plays[1].score, plays[1].accuracy) == (plays[2].score, plays[2].accuracy)
        places = [line.split(" ", 1)[0] for line in board.splitlines()]
        assert places == ["1.", "2.", "2."], board
        no_errors(fake_discord)


async def test_a_hint_asked_during_a_daily_game_says_the_daily_gives_none(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """/cheerio hint in the middle of Alice's daily game once said she had no Cheerio game in
    play in this channel, though she had one on her screen: it says the daily gives no hints.
    Bob, with no game at all, is told so as before."""
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db"):
        await daily(fake_discord, ALICE)
        for user, said in (ALICE, NO_DAILY_HINTS), (BOB, "You have no Cheerio game in play"):
            hint = await answered(await fake_discord.slash(user, GUILD, CHANNEL, "cheerio hint"))
            assert hint.ephemeral and hint.content.startswith(said), hint.describe()
        no_errors(fake_discord)


async def test_yesterdays_board_says_its_games_can_still_be_finished(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """A game of yesterday may be finished until today ends, so yesterday's board (the one
    posted each morning too) is not final: it says until when, and an empty one says nobody
    has finished yet, not that nobody finished. Alice, who finishes hers today, then shows."""
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        cog: Any = bot.get_cog("DailyCog")
        now = time.time()
        today = day_of(now)
        alice = await played_yesterday(fake_discord, cog, now, ALICE, ORDER[:1])
        cog.dailies.clock = lambda: now
        until = f"until 24:00 UTC on {date_text(date_of(today))}"

        empty = await cog.board(today - 1, "cheerio", GUILD)
        assert empty.description.startswith("Nobody has finished this day's game yet."), empty
        assert until in empty.description, empty.description
        for category in ORDER[1:]:
            await choose(fake_discord, ALICE, alice, "score", [category])
        board = await answered(
            await fake_discord.slash(CAROL, GUILD, CHANNEL, "daily-board", {"day": "yesterday"})
        )
        shown = board.embeds[0]["description"]
        assert shown.startswith("1. Alice: ") and until in shown, shown
        gone = await cog.board(today - 2, "cheerio", GUILD)  # its games closed: final
        assert gone.description == "Nobody finished this day's game.", gone.description
        no_errors(fake_discord)


async def test_yesterdays_game_finished_today_points_to_yesterdays_board(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Alice finishes yesterday's game today: its end points her to yesterday's board, where
    her result is, not to /daily-board alone, which shows today's (without her)."""
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        cog: Any = bot.get_cog("DailyCog")
        now = time.time()
        alice = await played_yesterday(fake_discord, cog, now, ALICE, ORDER[:1])
        cog.dailies.clock = lambda: now
        for category in ORDER[1:]:
            await choose(fake_discord, ALICE, alice, "score", [category])
        over = text_of(fake_discord.message(alice))
        assert "Your daily game is over" in over and "/daily-board day:yesterday" in over, over
        board = await answered(
            await fake_discord.slash(CAROL, GUILD, CHANNEL, "daily-board", {"day": "yesterday"})
        )
        assert "Alice" in board.embeds[0]["description"]
        no_errors(fake_discord)


async def test_a_board_longer_than_it_shows_says_how_many_more(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Seventeen players finished today here; the board lists fifteen and says that two more
    finished, rather than leaving the last two to think their result was lost."""
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        for n in range(BOARD_SIZE + 2):
            await finish_daily(bot, 10_000 + n, f"Player {n}")
        _, board = await said_today(fake_discord)
        lines = board.splitlines()
        assert len(lines) == BOARD_SIZE + 1, board
        assert lines[-1] == "… and 2 more players", board
        no_errors(fake_discord)


async def test_the_world_board_shows_no_servers_nickname(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Alice's nickname in the server where she plays is that server's own: its board shows
    it, but the board across servers, asked for from another server, shows her name as
    Discord shows it everywhere (her display name; Bob, who has none, by his username).
    Before, that board carried her nickname in the one server into every other."""
    other_guild, other_channel = GUILD + 1, CHANNEL + 1
    server(fake_discord)
    fake_discord.users[BOB] |= {"username": "bob", "global_name": None}
    fake_discord.add_guild(other_guild, [other_channel], [ALICE, BOB, CAROL])
    fake_discord.set_nick(GUILD, ALICE, "Cider Queen")
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        for user in (ALICE, BOB):
            await daily(fake_discord, user)
            joined = {"join": True}
            await answered(await fake_discord.slash(user, GUILD, CHANNEL, "daily-world", joined))
            game = await game_of(bot, user)
            for category in ORDER:
                await bot.orchard.runner.act(game.id, user, "score", category)
        here = await answered(await fake_discord.slash(CAROL, GUILD, CHANNEL, "daily-board"))
        world = await answered(
            await fake_discord.slash(
                CAROL, other_guild, other_channel, "daily-board", {"scope": "world"}
            )
        )
        shown_here = here.embeds[0]["description"]
        assert "Cider Queen" in shown_here and "bob" in shown_here, shown_here
        shown_everywhere = world.embeds[0]["description"]
        assert "Cider Queen" not in shown_everywhere, shown_everywhere
        assert "Alice" in shown_everywhere and "bob" in shown_everywhere, shown_everywhere
        no_errors(fake_discord)


async def test_leaving_the_world_board_takes_ones_results_off_it(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Alice joins the board across servers, plays, then asks to leave it (`join:False`):
    the board across servers, asked for from another server, no longer names her, while
    her own server's board still does. What she chose to stop sharing must not stay shown."""
    other_guild, other_channel = GUILD + 1, CHANNEL + 1
    server(fake_discord)
    fake_discord.add_guild(other_guild, [other_channel], [ALICE, BOB, CAROL])

    async def world() -> str:
        shown = await answered(
            await fake_discord.slash(
                CAROL, other_guild, other_channel, "daily-board", {"scope": "world"}
            )
        )
        return str(shown.embeds[0]["description"])

    async def world_join(join: bool) -> InteractionRecord:
        said = await fake_discord.slash(ALICE, GUILD, CHANNEL, "daily-world", {"join": join})
        return await answered(said)

    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        await daily(fake_discord, ALICE)
        await world_join(True)
        game = await game_of(bot, ALICE)
        for category in ORDER:
            await bot.orchard.runner.act(game.id, ALICE, "score", category)
        assert "Alice" in await world()
        left = await world_join(False)
        private(left)
        assert left.content == (
            "You are off the board across servers; your results show only where you play."
        )
        assert "Alice" not in await world()
        _, here = await said_today(fake_discord)
        assert "Alice" in here, here
        no_errors(fake_discord)


def files_hold(path: Path, text: str) -> int:
    """How often ``text`` is in the database and its -wal file (as UTF-8)."""
    wal = path.with_name(path.name + "-wal")
    found = path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    return found.count(text.encode())


async def rows_naming(path: Path, user: int) -> dict[str, list[tuple[Any, ...]]]:
    """Per table, the rows holding ``user``'s id in any column (compared as text)."""
    found = {}
    for table, columns in (await table_columns(path)).items():
        hit = " OR ".join(f"CAST({c} AS TEXT) = ?" for c in columns)
        rows = await query(path, f"SELECT * FROM {table} WHERE {hit}", *[str(user)] * len(columns))
        if rows:
            found[table] = rows
    return found


async def test_forget_me_keeps_only_that_todays_daily_was_played(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Everyone's dice of a day are the same, so a /forget-me that deleted today's play would
    let Alice play the day again knowing them. Her name, score and game go at once; what is
    left until the day ends is one bare row (day, game, server, her id: the test_forget rule
    that her id is gone from the files holds for every other row), and /daily refuses her.
    The next day she plays again, and the purge deletes the marker."""
    path = tmp_path / "o.db"
    server(fake_discord)
    async with orchard_bot(fake_discord, path) as bot:
        today = day_of(time.time())
        board = await daily(fake_discord, ALICE)
        for category in ORDER:
            await choose(fake_discord, ALICE, board, "score", [category])
        assert (await game_of(bot, ALICE)).row.status == "finished"
        asked = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "forget-me"))
        assert "until the day ends, that you have played today's daily" in asked.content
        assert asked.original is not None
        done = await press(fake_discord, ALICE, int(asked.original["id"]), "Forget me here")
        assert done.content.startswith("Done: "), done.describe()

        again = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "daily"))
        private(again)
        assert "You have played today's Cheerio: come back tomorrow" in again.content
        assert (await query(path, "SELECT COUNT(*) FROM games")) == [(1,)]
        shown = await answered(await fake_discord.slash(CAROL, GUILD, CHANNEL, "daily-board"))
        assert "Alice" not in shown.embeds[0]["description"]
        assert files_hold(path, "Alice") == 0
        marker = (today, "cheerio", ALICE, GUILD, 0, "", None, None, None, None)
        assert await rows_naming(path, ALICE) == {"daily_plays": [marker]}

        cog: Any = bot.get_cog("DailyCog")
        cog.dailies.clock = lambda: time.time() + 86400
        tomorrow = await daily(fake_discord, ALICE)
        assert tomorrow != board and (await query(path, "SELECT COUNT(*) FROM games")) == [(2,)]
        await bot.orchard.store.purge_departed(0, today=today + 1)
        plays = await query(path, "SELECT day FROM daily_plays WHERE user_id = ?", ALICE)
        assert plays == [(today + 1,)]
        no_errors(fake_discord)


async def test_forget_me_in_a_dm_keeps_only_that_todays_daily_was_played(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """/forget-me in a DM with Orchard keeps the in-server rule in every server: Alice's play
    of today loses her name, score and game but stays, so /daily still refuses her today;
    yesterday's play in a server she left goes, and so does a marker of yesterday that an
    earlier /forget-me kept in a server where she holds nothing else. Bob's plays stay.
    Asked again that day, it says nothing was left, not "0 records removed in 1 server"."""
    left, erased = GUILD + 1, GUILD + 2
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        now = time.time()
        today = day_of(now)
        cog: Any = bot.get_cog("DailyCog")
        cog.dailies.clock = lambda: now - 86400
        for user, name in ((ALICE, "Alice"), (BOB, "Bob")):
            await finish_daily(bot, user, name, left)
        cog.dailies.clock = lambda: now
        for user, name in ((ALICE, "Alice"), (BOB, "Bob")):
            await finish_daily(bot, user, name)
        async with written(database) as tx:
            await tx.execute(
                "INSERT INTO daily_plays (day, kind, user_id, guild_id, game_id, name)"
                " VALUES (?, 'applejack', ?, ?, ?, '')",
                (today - 1, ALICE, erased, NO_GAME),
            )
        bobs = "SELECT * FROM daily_plays WHERE user_id = ? ORDER BY day"
        kept = await query(database, bobs, BOB)

        asked = await answered(await fake_discord.slash(ALICE, None, None, "forget-me"))
        assert "daily plays" in asked.content and "today's daily" in asked.content
        assert asked.original is not None
        done = await press(fake_discord, ALICE, int(asked.original["id"]), "Forget me everywhere")
        assert " removed in 3 servers," in done.content, done.describe()

        plays = (
            "SELECT day, kind, guild_id, game_id, name, score FROM daily_plays WHERE user_id = ?"
        )
        assert await query(database, plays, ALICE) == [(today, "cheerio", GUILD, NO_GAME, "", None)]
        again = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "daily"))
        assert "You have played today's Cheerio: come back tomorrow" in again.content
        seats = "SELECT COUNT(*) FROM game_players WHERE user_id = ?"
        assert await query(database, seats, ALICE) == [(0,)]
        assert await query(database, bobs, BOB) == kept
        asked = await answered(await fake_discord.slash(ALICE, None, None, "forget-me"))
        assert asked.original is not None
        done = await press(fake_discord, ALICE, int(asked.original["id"]), "Forget me everywhere")
        assert done.content == "Done: nothing of yours was left to delete.", "asked again"
        no_errors(fake_discord)


async def test_a_moderator_cannot_end_a_daily_game(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """A daily game is its player's own, private and without a turn clock: /end (by a
    moderator of the server it began in) would leave them an abandoned game for the whole
    day. It is refused privately, saying why, and the game plays on."""
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await daily(fake_discord, ALICE)
        game = await game_of(bot, ALICE)
        fake_discord.permissions[CAROL] = MANAGE_MESSAGES
        refused = await answered(
            await fake_discord.slash(CAROL, GUILD, CHANNEL, "end", {"game_id": game.id})
        )
        private(refused)
        assert f"Game {game.id} is someone's Daily Orchard" in refused.content
        assert "cannot be ended" in refused.content
        assert (await game_of(bot, ALICE)).row.status == "active"
        assert fake_discord.channel_messages(CHANNEL) == []
        scored = await choose(fake_discord, ALICE, board, "score", ["ones"])
        assert scored.type == 7, scored.describe()
        no_errors(fake_discord)


async def test_a_deleted_daily_channel_is_cleared_a_forbidden_one_kept(
    fake_discord: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The server's admins took Send Messages from Orchard in the chosen channel after they
    chose it, so Discord refuses the board (403, 50013): the setting stays, as access may come
    back, and that day's boards are not tried again (nor the second game's after the first
    was refused); /settings tells the admins what to grant (what Orchard lacks there now,
    and once granted, that the next board goes there), and choosing that channel again
    is refused at once, saying so, until they grant it and a board goes through. The
    channel deleted (404, 10003 Unknown Channel): the setting is cleared, said once in the
    log, and /settings shows none, instead of a warning every day."""
    server(fake_discord)
    posts = rf"^/channels/{CHANNEL}/messages$"
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        cog = await posting_by_hand(bot)
        await daily_channel(fake_discord)
        mute = {"id": str(fake_discord.bot_id), "type": 1, "allow": "0", "deny": str(SEND_MESSAGES)}
        await fake_discord.update_channel(CHANNEL, permission_overwrites=[mute])
        assert await cog.post_boards() == 1 and await cog.post_boards() == 0
        assert len(fake_discord.requests_matching("POST", posts)) == 1
        assert fake_discord.channel_messages(CHANNEL) == []
        yesterday = date_of(cog.dailies.today() - 1)
        day = f"{yesterday.day} {yesterday:%B}"  # never "05 January"
        warning = (
            f"posted in: <#{CHANNEL}> ⚠️ the board of {day} was not posted: Orchard"
            " may not post there. Give it Send Messages in that channel, or choose another"
        )
        assert warning in await settings_shown(fake_discord), "the admins are told"
        again = await daily_channel(fake_discord)
        private(again)
        assert again.content.startswith(f"I cannot post in <#{CHANNEL}>: give me Send Messages")
        assert warning in await settings_shown(fake_discord), "still, until a board goes through"
        await fake_discord.update_channel(CHANNEL, permission_overwrites=[])
        granted = f"{day} was not posted; Orchard may post there now, so the next"
        assert granted in await settings_shown(fake_discord), "granted, not yet posted"

        cog.dailies.clock = lambda: time.time() + 86400  # the next day: tried again, and posted
        assert await cog.post_boards() == 1
        assert len(fake_discord.channel_messages(CHANNEL)) == 1
        assert f"posted in: <#{CHANNEL}> (/daily-channel)" in await settings_shown(fake_discord), (
            "cleared"
        )

        cog.dailies.clock = lambda: time.time() + 2 * 86400  # the day after: deleted
        fake_discord.fail("POST", posts, 404, code=10003, message="Unknown Channel")
        with caplog.at_level(logging.INFO, logger="cogs.daily"):
            assert await cog.post_boards() == 1
        tried = 1 + 1 + 1  # refused, the next day's, then gone
        assert len(fake_discord.requests_matching("POST", posts)) == tried
        gone = [r for r in caplog.records if "was deleted" in r.getMessage()]
        assert len(gone) == 1 and gone[0].levelno == logging.WARNING
        assert "posted in: none" in await settings_shown(fake_discord)
        cog.dailies.clock = lambda: time.time() + 3 * 86400
        assert await cog.post_boards() == 0
        assert len(fake_discord.requests_matching("POST", posts)) == tried
        no_errors(fake_discord)


async def test_a_daily_channel_deleted_is_cleared_at_once_or_at_start_up(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """The channel chosen for the daily board is deleted: /settings says none at once, not
    only once the next board fails to post there. Deleted while Orchard was down (no
    CHANNEL_DELETE reaches it), from its start-up on; a channel still there stays chosen."""
    first, second = CHANNEL + 1, CHANNEL + 2
    server(fake_discord)
    fake_discord.add_guild(GUILD, [CHANNEL, first, second], [ALICE, BOB, CAROL])
    path = tmp_path / "o.db"

    async def chosen(channel: int) -> None:
        said = await daily_channel(fake_discord, channel)
        assert f"posted in <#{channel}>, and made final" in said.content, said.describe()

    async def cleared(bot: OrchardBot) -> None:
        deadline = time.monotonic() + 5
        while await bot.orchard.store.daily_channel(GUILD) is not None:
            assert time.monotonic() < deadline, "the deleted channel is still chosen"
            await asyncio.sleep(0.02)

    async with orchard_bot(fake_discord, path) as bot:
        cog = await posting_by_hand(bot)  # no board posted: no 404 to learn it from
        await chosen(first)
        await fake_discord.delete_channel(first)
        await cleared(bot)
        assert "posted in: none" in await settings_shown(fake_discord)
        await chosen(second)
        assert await cog.dailies.claim_board(GUILD, cog.dailies.today() - 1), "not due again"
    async with orchard_bot(fake_discord, path):  # a restart: the chosen one is still there
        assert f"posted in: <#{second}>" in await settings_shown(fake_discord)
    await fake_discord.delete_channel(second, heard=False)
    async with orchard_bot(fake_discord, path) as bot:
        await cleared(bot)
        assert "posted in: none" in await settings_shown(fake_discord)
    assert fake_discord.requests_matching("POST", r"^/channels/\d+/messages$") == []
    no_errors(fake_discord)


async def settings_shown(fake: FakeDiscord) -> str:
    """/settings as the server's admin sees it."""
    shown = await answered(await fake.slash(ALICE, GUILD, CHANNEL, "settings", permissions=32))
    private(shown)
    return shown.content


async def test_yesterdays_game_left_unfinished_is_offered_by_daily_until_it_closes(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Alice leaves yesterday's game after one category, its board dismissed. Today, /daily
    gives today's game and says yesterday's is not finished, with a button that shows its
    board again in a private reply of its own: she finishes it there, and it counts for its
    own day. Bob leaves his too: when today ends the clock closes it, without a result and
    without a word in any channel, and /daily no longer offers it. Before, /daily offered
    only today's game, and yesterday's stayed open for good, seen by nobody."""
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        cog: Any = bot.get_cog("DailyCog")
        now = time.time()
        today = day_of(now)
        left = {
            user: await played_yesterday(fake_discord, cog, now, user, ORDER[:1])
            for user in (ALICE, BOB)
        }
        cog.dailies.clock = lambda: now

        board = await daily(fake_discord, ALICE)
        said = text_of(fake_discord.message(board))
        assert f"Orchard Daily #{today} · Cheerio" in said
        assert f"Your Orchard Daily #{today - 1} of " in said and "is not finished" in said
        label = f"Finish Orchard Daily #{today - 1}"
        refused = await press(fake_discord, BOB, board, label)
        assert refused.ephemeral and "Only the player" in refused.content, refused.describe()
        resumed = await press(fake_discord, ALICE, board, label)
        assert resumed.type == 4 and resumed.ephemeral, resumed.describe()
        assert resumed.original_id is not None
        yesterdays = resumed.original_id
        shown = text_of(fake_discord.message(yesterdays))
        assert f"Orchard Daily #{today - 1} · Cheerio" in shown
        assert "Not finished on its day" in shown and "time runs out" not in shown
        for category in ORDER[1:]:
            scored = await choose(fake_discord, ALICE, yesterdays, "score", [category])
            assert scored.type == 7, scored.describe()
        assert "Your daily game is over" in text_of(fake_discord.message(yesterdays))
        stale = await press(fake_discord, ALICE, board, label)  # today's board, as it was
        assert stale.ephemeral and stale.content == "That daily game is over: /daily shows today's."
        again = text_of(fake_discord.message(await daily(fake_discord, ALICE)))
        assert "is not finished" not in again and "Finish Orchard" not in again
        cog.dailies.clock = lambda: now - 86400
        _, day_board = await said_today(fake_discord)
        assert "Alice" in day_board and "Bob" not in day_board

        bob = await game_of(bot, BOB)
        posted = len(fake_discord.channel_messages(CHANNEL))  # the board just asked for
        bot.orchard.runner.clock = lambda: end_of(today)
        assert await bot.orchard.scheduler.run_due() == 1
        closed = await bot.orchard.runner.load(bob.id)
        assert closed.row.status == "abandoned" and closed.row.deadline is None
        assert len(fake_discord.channel_messages(CHANNEL)) == posted
        late = await choose(fake_discord, BOB, left[BOB], "score", [ORDER[1]])
        assert late.ephemeral and "over" in late.content, late.describe()
        cog.dailies.clock = lambda: end_of(today)
        later = text_of(fake_discord.message(await daily(fake_discord, BOB)))
        assert "is not finished" not in later and "Finish Orchard" not in later
        no_errors(fake_discord)
