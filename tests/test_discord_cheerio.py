"""Cheerio through discord.py itself, against the fake Discord: what players actually see."""

import re
import time

import pytest

from bot.app import OrchardBot
from bot.games.cheerio import open_categories, score
from bot.model import GameChange, Player
from db.connection import Target
from tests.botharness import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    answered,
    choose,
    new_game,
    no_errors,
    orchard_bot,
    press,
    private,
    select_of,
    server,
    unpaced,
)
from tests.databases import query
from tests.fakediscord import (
    COMPONENTS_V2,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    FakeDiscord,
    text_of,
)

USERS = {0: ALICE, 1: BOB}


async def game_of(bot: OrchardBot, kind: str = "cheerio"):
    (row,) = [g for g in await bot.orchard.store.open_games(GUILD) if g.kind == kind]
    return await bot.orchard.runner.load(row.id)


async def test_a_whole_two_player_game(fake_discord: FakeDiscord, database: Target) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        live = await game_of(bot)
        game_id = live.id
        while live.row.status == "active":
            user = USERS[live.state.turn]
            if live.state.rolls == 1:
                held = await press(fake_discord, user, board, f"Keep {live.state.dice[0]}")
                assert held.type == 7 and not held.ephemeral
                rolled = await press(fake_discord, user, board, "Roll 4 dice")
                assert rolled.type == 7
            live = await bot.orchard.runner.load(game_id)
            category = open_categories(live.state.cards[live.state.turn])[0]
            scored = await choose(fake_discord, user, board, "score", [category])
            assert scored.type == 7, scored.describe()
            live = await bot.orchard.runner.load(game_id)
        final = fake_discord.message(board)
        text = text_of(final)
        assert final["flags"] & COMPONENTS_V2 and not final["content"] and not final["embeds"]
        assert "Game over" in text and ("Alice" in text and "Bob" in text)
        assert fake_discord.find_button(board, "Rematch (same players)")
        board_reply = await answered(
            await fake_discord.slash(BOB, GUILD, CHANNEL, "cheerio leaderboard")
        )
        assert f"<@{ALICE}>" in board_reply.embeds[0]["description"]
        assert await bot.orchard.runner.replay(game_id) == live.state


async def test_a_hint_names_categories_as_the_board_does(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """On Alice's last roll every hint is a category to score in, named as the board's menu
    names it ("Cheerio", "Sixes"), not by its stored id ("cheerio")."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        live = await game_of(bot)
        for _ in range(2):
            live = await bot.orchard.runner.act(live.id, ALICE, "roll", version=live.row.version)
        hint = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio hint"))
        assert "its final board and /history will show 💡 hinted" in hint.content.splitlines()[0]
        shown = hint.content.splitlines()[1:]
        menu = [o["label"] for o in select_of(fake_discord, board, "score").raw["options"]]
        assert len(shown) == 3, hint.content
        for line in shown:
            named = re.fullmatch(r"\d\. score (\w+) now \(\d+ points?\): .*", line)
            assert named is not None, line
            assert any(label.endswith(f" in {named[1]}") for label in menu), (line, menu)
        no_errors(fake_discord)


async def test_outsiders_and_wrong_turns_are_refused_privately(
    fake_discord: FakeDiscord, database: Target
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        before = (await game_of(bot)).row.version
        stranger = await press(fake_discord, CAROL, board, "Roll all 5 dice")
        assert stranger.ephemeral and "not playing" in stranger.content
        early = await press(fake_discord, BOB, board, "Roll all 5 dice")
        assert early.ephemeral and "not your turn" in early.content
        assert (await game_of(bot)).row.version == before


async def test_stale_and_forged_buttons(fake_discord: FakeDiscord, database: Target) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        old_roll = fake_discord.find_button(board, "Roll all 5 dice").custom_id
        await press(fake_discord, ALICE, board, "Roll all 5 dice")
        replay = await answered(await fake_discord.forge(ALICE, board, old_roll))
        assert replay.ephemeral and "already played" in replay.content
        live = await game_of(bot)
        ghost = await answered(await fake_discord.forge(ALICE, board, "orc:99999:0:roll:"))
        assert ghost.ephemeral and "no longer exists" in ghost.content
        junk = await answered(await fake_discord.forge(ALICE, board, "'; DROP TABLE games;--"))
        assert junk.ephemeral and "not one Orchard knows" in junk.content
        bad_category = await answered(
            await fake_discord.forge(
                ALICE, board, f"orcs:{live.id}:{live.row.version}:score:", values=["chance"]
            )
        )
        assert bad_category.ephemeral and "no category" in bad_category.content
        assert (await game_of(bot)).row.version == live.row.version


async def test_lobby_host_rules_and_dm_commands(
    fake_discord: FakeDiscord, database: Target
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database):
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        lobby = int(opened.original["id"])
        assert not opened.ephemeral
        await press(fake_discord, BOB, lobby, "Join")
        not_host = await press(fake_discord, BOB, lobby, "Start")
        assert not_host.ephemeral and "Only the host" in not_host.content
        second = await answered(await fake_discord.slash(CAROL, GUILD, CHANNEL, "cheerio new"))
        assert second.ephemeral and second.content == (
            "This channel already has 1 open Cheerio game, as many as this server allows here."
            " Join game 1 (still in its lobby), or play in another channel."
        ), second.content
        in_dm = await answered(
            await fake_discord.slash(ALICE, None, None, "cheerio new", unoffered=True)
        )
        assert in_dm.ephemeral and "server channel" in in_dm.content
        cancelled = await press(fake_discord, ALICE, lobby, "Cancel")
        closed = text_of(cancelled.original)
        assert "lobby closed" in closed and "The host cancelled it." in closed, closed
        assert "in time" not in closed


async def test_leave_is_refused_to_the_host_and_to_someone_not_in_the_lobby(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Leave on a lobby: the host is told to Cancel instead (a lobby without its host has
    nobody who may start it), and Carol, not in it, is told she is not; the seats stay as
    they were. Bob's own Leave takes him out."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        lobby = int(opened.original["id"])
        await press(fake_discord, BOB, lobby, "Join")
        (game,) = await bot.orchard.store.open_games(GUILD)
        before = await bot.orchard.store.get_game(game.id)
        host = await press(fake_discord, ALICE, lobby, "Leave")
        private(host)
        assert host.content == "You are hosting this game: use Cancel to close it."
        outsider = await press(fake_discord, CAROL, lobby, "Leave")
        private(outsider)
        assert outsider.content == "You are not in this game."
        assert await bot.orchard.store.get_game(game.id) == before, "refused: nothing changed"
        left = await press(fake_discord, BOB, lobby, "Leave")
        assert left.type == 7, left.describe()
        after = await bot.orchard.store.get_game(game.id)
        assert [p.user_id for p in after.players] == [ALICE] and after.host_id == ALICE
        no_errors(fake_discord)


async def test_the_rules_examples_score_as_the_game_does(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """/cheerio rules, read as a first-time player reads it: each worked example ("1,1,1,2,3
    is 8 in twos") scores that in the game, and the double for five of a face is said to
    need no *wild* ones, not no ones at all (five ones, its own example, are all ones)."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database):
        rules = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio rules"))
        private(rules)
        examples = re.findall(r"(\d(?:,\d){4}) is (\d+) in (\w+)", rules.content)
        assert len(examples) >= 2, rules.content
        for dice, points, category in examples:
            faces = tuple(int(d) for d in dice.split(","))
            assert score(category, faces) == int(points), (dice, points, category)
        (double,) = [line for line in rules.content.splitlines() if "double" in line]
        assert "without wild ones" in double and "no ones" not in double, double
        assert score("ones", (1,) * 5) == 10 and "five ones: 10" in double
        no_errors(fake_discord)


async def test_a_lobby_the_clock_closes_says_nobody_started_it_in_time(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Nobody pressed Start before the lobby's time ran out: its message says the clock closed
    it and nothing was recorded, not that the host cancelled it; a redraw from the store
    says so too."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        lobby = int(opened.original["id"])
        live = await game_of(bot, "cheerio")
        await bot.orchard.store.write(GameChange(live.id, deadline=time.time()))
        bot.orchard.scheduler.wake()
        await fake_discord.wait_for(
            lambda: "lobby closed" in text_of(fake_discord.message(lobby)), what="the lobby closed"
        )
        closed = text_of(fake_discord.message(lobby))
        assert "Nobody started it in time, so it closed. Nothing was recorded." in closed, closed
        assert "cancelled" not in closed
        stored = await bot.orchard.runner.load(live.id)
        redrawn = (await bot.boards.render(stored)).board.status
        assert "Nobody started it in time" in redrawn, "read back from the store, not remembered"
        no_errors(fake_discord)


async def test_restart_resumes_and_old_buttons_still_work(
    fake_discord: FakeDiscord, database: Target
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        await press(fake_discord, ALICE, board, "Roll all 5 dice")
        before = (await game_of(bot)).state
    async with orchard_bot(fake_discord, database) as bot:
        assert (await game_of(bot)).state == before
        rolled = await press(fake_discord, ALICE, board, "Roll all 5 dice")
        assert rolled.type == 7 and not rolled.ephemeral
        assert (await game_of(bot)).state.rolls == 3


async def test_games_lists_and_reposts_a_lost_board(
    fake_discord: FakeDiscord, database: Target
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        none = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "games"))
        assert none.ephemeral and none.content.startswith("No games are open here. Start one:")
        assert none.content.count(" new:") == 4, "every game's /new, clickable"
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        listed = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "games"))
        assert listed.ephemeral and str(board) in listed.embeds[0]["description"]
        live = await game_of(bot)
        fake_discord.fail("PATCH", rf"/channels/{CHANNEL}/messages/{board}", 404)
        await press(fake_discord, ALICE, board, "Roll all 5 dice")  # answered by the interaction
        again = await press(fake_discord, BOB, int(listed.original["id"]), f"Show #{live.id} again")
        assert again.ephemeral and "Posted again" in again.content
        fresh = (await game_of(bot)).row.message_id
        assert fresh != board and "Cheerio" in text_of(fake_discord.message(fresh))


async def test_show_again_on_a_game_over_since_it_was_listed_is_refused(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Bob's /games list is older than the game's end (a moderator ended it): its "Show #N
    again" is refused privately, and no copy of the finished board is posted at the
    channel's foot, nor its final board deleted."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        listed = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "games"))
        live = await game_of(bot)
        await bot.orchard.runner.abandon(live.id)
        shown = int(listed.original["id"])
        again = await press(fake_discord, BOB, shown, f"Show #{live.id} again")
        private(again)
        assert again.content == "This game is over.", again.describe()
        boards = [m for m in fake_discord.channel_messages(CHANNEL) if "### Cheerio" in text_of(m)]
        assert [int(m["id"]) for m in boards] == [board], "no copy posted, the board kept"
        assert "Game abandoned" in text_of(fake_discord.message(board))
        assert (await bot.orchard.store.get_game(live.id)).message_id == board
        no_errors(fake_discord)


async def test_show_again_pressed_over_and_over_leaves_one_board(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """ "Show #N again" posts the board anew at the channel's foot: the copy before it goes,
    so six presses leave one board, not seven copies in the channel."""
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        listed = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "games"))
        live = await game_of(bot)
        for _ in range(6):
            shown = int(listed.original["id"])
            await press(fake_discord, BOB, shown, f"Show #{live.id} again")
        boards = [m for m in fake_discord.channel_messages(CHANNEL) if "### Cheerio" in text_of(m)]
        assert [int(m["id"]) for m in boards] == [(await game_of(bot)).row.message_id]
        assert board not in {int(m["id"]) for m in boards}
        no_errors(fake_discord)


async def test_games_on_a_busy_server_lists_what_fits_and_counts_the_rest(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Forty open games of three long names each are about 7,000 characters, over the
    4,096 an embed's description may hold (the fake refuses more, as Discord does)."""
    server(fake_discord)
    channels = [CHANNEL + 1 + n for n in range(40)]  # one game of a kind a channel each
    fake_discord.add_guild(GUILD, [CHANNEL, *channels], [ALICE, BOB, CAROL])
    names = {ALICE: "Alice " + "A" * 26, BOB: "Bob " + "B" * 28, CAROL: "Carol " + "C" * 26}
    async with orchard_bot(fake_discord, database) as bot:
        lobby = bot.orchard.lobby
        for n, channel in enumerate(channels):
            snap = await lobby.open("cheerio", GUILD, channel, Player(0, ALICE, names[ALICE]))
            for user in (BOB, CAROL):
                await lobby.join(snap.id, Player(0, user, names[user]))
            await bot.orchard.runner.record_message(snap.id, 9_000_000 + n)
        listed = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "games"))
    text = listed.embeds[0]["description"]
    shown = text.count("**Cheerio**")
    assert 10 < shown < 40 and len(text) <= 4096
    assert text.endswith(f"… and {40 - shown} more games")


async def test_games_leaves_out_channels_the_asker_cannot_see(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """A private channel (hidden from @everyone, shown to Bob) holds Alice's lobby, and a
    thread of it another: Carol, who cannot see that channel, is not told of either (its
    name, the games, who plays them), though the answer is hers alone; Bob, who can, is told
    of the channel's. A thread Orchard has not cached goes only to those who play in it."""
    secret = CHANNEL + 1
    server(fake_discord)
    fake_discord.add_guild(GUILD, [CHANNEL, secret], [ALICE, BOB, CAROL])  # Alice owns it
    seen = [  # by @everyone (the server's id), no; by Bob and Orchard, yes
        {"id": str(user), "type": 1, "allow": str(VIEW_CHANNEL), "deny": "0"}
        for user in (BOB, fake_discord.bot_id)
    ]
    hidden = {"id": str(GUILD), "type": 0, "allow": "0", "deny": str(VIEW_CHANNEL)}
    fake_discord.channels[secret]["permission_overwrites"] = [hidden, *seen]
    thread = secret + 100
    fake_discord.add_thread(thread, secret)
    async with orchard_bot(fake_discord, database) as bot:
        for channel, host in ((CHANNEL, CAROL), (secret, ALICE), (thread, ALICE)):
            opened = await answered(await fake_discord.slash(host, GUILD, channel, "cheerio new"))
            assert not opened.ephemeral, opened.describe()
        ids = {r.channel_id: r.id for r in await bot.orchard.store.open_games(GUILD)}

        async def listed(user: int) -> str:
            answer = await answered(await fake_discord.slash(user, GUILD, CHANNEL, "games"))
            assert answer.ephemeral, answer.describe()
            return str(answer.embeds[0]["description"])

        carol = await listed(CAROL)
        assert f"#{ids[CHANNEL]} " in carol, carol
        assert f"#{ids[secret]} " not in carol and str(secret) not in carol, carol
        assert f"#{ids[thread]} " not in carol and str(thread) not in carol, carol
        bob = await listed(BOB)
        assert f"#{ids[CHANNEL]} " in bob and f"#{ids[secret]} " in bob, bob
        alice = await listed(ALICE)
        assert all(f"#{game} " in alice for game in ids.values()), alice
        no_errors(fake_discord)


async def test_a_deleted_board_is_posted_again_on_the_next_move(
    fake_discord: FakeDiscord, database: Target
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        await new_game(fake_discord, "cheerio", ALICE, [])
        live = await game_of(bot)
        fake_discord.fail("PATCH", rf"/channels/{CHANNEL}/messages/\d+", 404)
        await bot.boards.display(live)
        assert (await game_of(bot)).row.message_id != live.row.message_id


async def test_a_rejected_token_is_one_clear_line(
    fake_discord: FakeDiscord, database: Target, capsys
) -> None:
    from bot.cli import REJECTED, serve
    from tests.botharness import config

    fake_discord.fail("GET", r"/users/@me$", 401, code=0, message="401: Unauthorized")
    status = await serve(OrchardBot(config(database)), "not-a-token")
    assert status == 1
    err = capsys.readouterr().err
    assert err.strip() == REJECTED and "Traceback" not in err


@pytest.mark.parametrize("edit", [200, 503])
async def test_a_turn_deadline_plays_and_says_so(
    fake_discord: FakeDiscord, database: Target, edit: int
) -> None:
    """The notice is posted even when Discord failed the board's edit (503, which discord.py
    does not retry): the board is redrawn a moment later, and the notice said once."""
    import time

    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        if edit != 200:
            fake_discord.fail("PATCH", rf"/channels/{CHANNEL}/messages/{board}", edit, times=1)
        bot.orchard.runner.clock = lambda: time.time() + 301
        bot.orchard.scheduler.wake()
        notice = await fake_discord.wait_for_message(
            CHANNEL, lambda m: "ran out of time" in (m.get("content") or "")
        )
        assert "Alice" in notice["content"]
        live = await game_of(bot)
        assert live.state.turn == 1 and live.row.players[0].timeouts == 1
        await fake_discord.wait_for(
            lambda: "Alice scored" in text_of(fake_discord.message(board)), what="the board"
        )
        said = [m for m in fake_discord.channel_messages(CHANNEL) if "ran out" in m["content"]]
        assert len(said) == 1, said


async def test_a_timeout_s_notice_is_posted_though_the_board_s_edit_waits_at_shutdown(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """The board's edit waits on Discord when the bot is stopped (SIGTERM's close), which
    cuts it off: nothing after the restart says the turn ran out, so the notice goes first
    (the board is redrawn at the next click)."""
    server(fake_discord)
    held = fake_discord.hold("PATCH", rf"/channels/{CHANNEL}/messages/\d+$")
    try:
        async with orchard_bot(fake_discord, database) as bot:
            await new_game(fake_discord, "cheerio", ALICE, [BOB])
            bot.orchard.runner.clock = lambda: time.time() + 301
            bot.orchard.scheduler.wake()
            await fake_discord.wait_for(
                lambda: any(r.status == 0 for r in fake_discord.requests_matching("PATCH", "")),
                what="the board's edit to wait",
            )
            await bot.close()
        said = [m for m in fake_discord.channel_messages(CHANNEL) if "ran out" in m["content"]]
        assert len(said) == 1 and "Alice" in said[0]["content"], said
    finally:
        held.set()


async def test_a_second_quick_tap_on_another_die_is_not_lost(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Alice taps two dice in a row, the second before the first one's edit reached her
    screen: both come from the same board, and both are kept."""
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        first = fake_discord.find_button(board, lambda c: (c.custom_id or "").endswith(":hold:0"))
        second = fake_discord.find_button(board, lambda c: (c.custom_id or "").endswith(":hold:1"))
        taps = [await fake_discord.click(ALICE, board, first)]
        taps.append(await fake_discord.forge(ALICE, board, second.custom_id or ""))
        for tap in taps:
            assert (await answered(tap)).type in (6, 7), tap.describe()
        assert (await game_of(bot)).state.held[:2] == (True, True), taps[1].content
        no_errors(fake_discord)


async def stopped_while_a_board_waits(
    fake: FakeDiscord, database: Target, retry_after: float
) -> int:
    """Stop the bot while the board of a turn the clock ended (Alice's) waits ``retry_after``
    s on Discord (a 429); returns the board."""
    server(fake)
    async with orchard_bot(fake, database) as bot:
        board = await new_game(fake, "cheerio", ALICE, [BOB])
        fake.fail("PATCH", rf"/channels/{CHANNEL}/messages/{board}$", 429, retry_after=retry_after)
        bot.orchard.runner.clock = lambda: time.time() + 301
        bot.orchard.scheduler.wake()
        await fake.wait_for(lambda: fake.pending_faults == 0, what="the 429")
        await bot.close()
    return board


async def test_a_board_the_clock_moved_is_drawn_before_a_stop_if_it_can_be(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """A 429 of 1 s: the stop gives the board time to be drawn, rather than leave Alice's
    turn up until someone clicks after the restart."""
    board = await stopped_while_a_board_waits(fake_discord, database, 1.0)
    assert "Alice scored" in text_of(fake_discord.message(board))


async def test_a_board_a_stop_cut_off_is_drawn_at_the_restart(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """A 429 of 5 s, longer than the stop's 2 s: the stop queues the board in the store, and
    the restart draws it anew, rather than leave Alice's turn up until someone clicks."""
    board = await stopped_while_a_board_waits(fake_discord, database, 5.0)
    assert "Alice scored" not in text_of(fake_discord.message(board))
    async with orchard_bot(fake_discord, database) as bot:
        await fake_discord.wait_for(
            lambda: "Alice scored" in text_of(fake_discord.message(board)), what="drawn anew"
        )
        assert bot.orchard.runner.undrawn() == []
    assert await query(database, "SELECT COUNT(*) FROM boards_to_draw") == [(0,)]
    no_errors(fake_discord)


async def test_commands_are_synced_only_when_they_change(
    fake_discord: FakeDiscord, database: Target
) -> None:
    server(fake_discord)
    for _ in range(2):
        async with orchard_bot(fake_discord, database):
            pass
    syncs = fake_discord.requests_matching("PUT", r"/applications/\d+/commands")
    assert len(syncs) == 1
    names = {c["name"] for c in fake_discord.commands}
    assert {"cheerio", "games", "stats"} <= names


async def test_stats_after_a_solo_game(fake_discord: FakeDiscord, database: Target) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [])
        live = await game_of(bot)
        while live.row.status == "active":
            category = open_categories(live.state.cards[0])[0]
            await choose(fake_discord, ALICE, board, "score", [category])
            live = await bot.orchard.runner.load(live.id)
        stats = await answered(
            await fake_discord.slash(BOB, GUILD, CHANNEL, "stats", {"user": ALICE})
        )
        (field,) = stats.embeds[0]["fields"]
        assert field["name"] == "Cheerio" and field["value"].startswith("1 game\nbest ")
        assert stats.embeds[0]["description"] == "1 game", "a solo game is not a defeat"


async def test_an_unexpected_error_apologises_with_an_id(
    fake_discord: FakeDiscord, database: Target, caplog
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [])
        live = await game_of(bot)
        engine = bot.orchard.runner.engines["cheerio"]

        class Broken:
            def __getattr__(self, name):
                return getattr(engine, name)

            def apply(self, state, action):
                raise RuntimeError("a bug")

        bot.orchard.runner.engines = {"cheerio": Broken()}
        sorry = await press(fake_discord, ALICE, board, "Roll all 5 dice")
        bot.orchard.runner.engines = {"cheerio": engine}
        assert sorry.ephemeral and "error" in sorry.content and "Sorry" in sorry.content
        error_id = sorry.content.split("error ")[1][:8]
        logged = [r for r in caplog.records if error_id in r.getMessage()]
        assert logged and f"game {live.id}" in logged[0].getMessage()
        assert (await game_of(bot)).row.version == live.row.version


async def test_a_game_is_not_opened_where_orchard_cannot_post(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Discord lets a command be answered where Orchard may not post, so a lobby opened there
    would start a game whose turn pings, and whose timeouts and Orchard's own moves, could
    never be shown: the player is told at once what Orchard lacks there, and nothing opens."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        for deny, named in ((SEND_MESSAGES, "Send Messages"), (VIEW_CHANNEL, "View Channel")):
            mute = {"id": str(fake_discord.bot_id), "type": 1, "allow": "0", "deny": str(deny)}
            await fake_discord.update_channel(CHANNEL, permission_overwrites=[mute])
            for options in ({}, {"opponent": "orchard"}):
                said = await answered(
                    await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new", options)
                )
                private(said)
                assert said.content == (
                    f"I cannot post in <#{CHANNEL}>, so a game here could not go on: ask someone"
                    f" who can to give me {named} there, or play in another channel."
                ), said.content
        assert await bot.orchard.store.open_games(GUILD) == []
        assert fake_discord.channel_messages(CHANNEL) == []
        await fake_discord.update_channel(CHANNEL, permission_overwrites=[])
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        assert not opened.ephemeral and opened.original is not None
        no_errors(fake_discord)


async def test_in_a_thread_orchard_needs_send_messages_in_threads(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """A thread takes its channel's permissions, but a post there needs Send Messages in
    Threads instead of Send Messages: a channel only talked in through its threads still
    hosts games in them, and a thread Orchard may not post in is refused, naming that."""
    thread = CHANNEL + 100
    server(fake_discord)
    fake_discord.add_thread(thread, CHANNEL)
    async with orchard_bot(fake_discord, database) as bot:
        for deny in (SEND_MESSAGES, SEND_MESSAGES_IN_THREADS):
            mute = {"id": str(fake_discord.bot_id), "type": 1, "allow": "0", "deny": str(deny)}
            await fake_discord.update_channel(CHANNEL, permission_overwrites=[mute])
            opened = await answered(await fake_discord.slash(ALICE, GUILD, thread, "cheerio new"))
            if deny == SEND_MESSAGES:
                assert not opened.ephemeral and opened.original is not None, opened.describe()
                await press(fake_discord, ALICE, int(opened.original["id"]), "Cancel")
            else:
                private(opened)
                assert "give me Send Messages in Threads there" in opened.content, opened.content
        assert await bot.orchard.store.open_games(GUILD) == []
        no_errors(fake_discord)


async def test_a_player_who_left_is_told_so_and_the_board_says_they_left(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Bob gives up a game of three. His row stays on the card, so the board says he has left
    (while it plays on and at the end, where he is placed below Carol's lower total); a click
    of his is answered as one from a player no longer in the game, not as "not your turn", and
    his /cheerio hint finds no game of his, rather than telling him to wait for his turn."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB, CAROL])
        await choose(fake_discord, ALICE, board, "score", ["sixes"])
        await press(fake_discord, BOB, board, "Roll all 5 dice")
        await choose(fake_discord, BOB, board, "score", ["sixes"])
        gave_up = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "forfeit"))
        assert gave_up.ephemeral, gave_up.describe()
        said = "Bob has left the game and cannot win; their scores stay on the card."
        assert said in text_of(fake_discord.message(board))
        before = (await game_of(bot)).row.version
        late = await press(fake_discord, BOB, board, "Roll all 5 dice")
        assert late.ephemeral and late.content == "You are no longer playing in this game."
        live = await game_of(bot)
        assert live.row.version == before
        hint = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "cheerio hint"))
        none = "You have no Cheerio game in play in this channel."
        assert hint.ephemeral and hint.content == none, hint.describe()
        runner, users = bot.orchard.runner, {0: ALICE, 2: CAROL}
        while live.row.status == "active":
            seat = live.state.turn
            category = open_categories(live.state.cards[seat])[0]
            live = await runner.act(live.id, users[seat], "score", category)
        await fake_discord.wait_for(
            lambda: "Game over" in text_of(fake_discord.message(board)), what="the final board"
        )
        assert said in text_of(fake_discord.message(board))
        no_errors(fake_discord)


async def test_a_thread_of_a_game_channel_hosts_games_as_the_channel_does(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """/settings add_channel allows games in a channel, and its picker offers no thread: a
    server that keeps its games to #games plays them in that channel's threads too, rather
    than be told, there, that games can only be started in #games. A thread of another
    channel is still refused."""
    thread, elsewhere = CHANNEL + 100, CHANNEL + 200
    server(fake_discord)
    fake_discord.add_guild(GUILD, [CHANNEL, CHANNEL + 1], [ALICE, BOB])
    fake_discord.add_thread(thread, CHANNEL)
    fake_discord.add_thread(elsewhere, CHANNEL + 1)
    async with orchard_bot(fake_discord, database) as bot:
        await bot.orchard.settings.update(GUILD, add_channels=[CHANNEL])
        opened = await answered(await fake_discord.slash(ALICE, GUILD, thread, "cheerio new"))
        assert not opened.ephemeral and opened.original is not None, opened.describe()
        refused = await answered(await fake_discord.slash(BOB, GUILD, elsewhere, "cheerio new"))
        private(refused)
        assert refused.content == f"Games can only be started in <#{CHANNEL}> on this server."
        (row,) = await bot.orchard.store.open_games(GUILD)
        assert row.channel_id == thread
        no_errors(fake_discord)
