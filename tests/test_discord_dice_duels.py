"""Apple Jack and Hot Score through discord.py against the fake Discord."""

import asyncio
from typing import Any

import pytest

from bot.app import OrchardBot
from bot.games.applejack import CATEGORIES, ApplejackState, open_categories
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
    server,
    unpaced,
)
from tests.fakediscord import EPHEMERAL, FakeDiscord, text_of

USERS = {0: ALICE, 1: BOB}


async def live_game(bot: OrchardBot, kind: str):
    (row,) = await bot.orchard.store.open_games(GUILD, kind=kind)
    return await bot.orchard.runner.load(row.id)


def assert_round_card(message: dict[str, Any], state: ApplejackState) -> None:
    """The board's card for this round: a row per player (full name), each category's points
    or "-", in card order."""
    text = text_of(message)
    card = text.split(f"**Round {state.round + 1} card**\n")[1].split("```")[1]
    rows = card.strip("\n").splitlines()
    assert rows[0].split() == ["1", "2", "3", "4", "5", "6", "Ch", "Sum"]
    assert len(CATEGORIES) == 8
    for name, row, cards in zip(["Alice", "Bob"], rows[1:], state.cards, strict=True):
        cells = ["-" if p is None else str(p) for p in cards[state.round]]
        assert row.split() == [name, *cells]


async def test_a_two_player_apple_jack_game(fake_discord: FakeDiscord, database: Target) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "applejack", ALICE, [BOB])
        live = await live_game(bot, "applejack")
        engine = bot.orchard.runner.engine("applejack")
        wrong = None
        while live.row.status == "active":
            state = live.state
            waiting = sorted(engine.to_act(state))
            seat = waiting[0]
            if wrong is None and state.phase == "reroll":
                wrong = await press(fake_discord, USERS[1 - seat], board, "Hold: keep all five")
                name = live.row.players[seat].name
                assert wrong.ephemeral and wrong.content == (
                    f"It is not your turn: it is {name}'s."
                    " The caller decides first, then each player in order."
                ), "the game's first reroll: the other player pressed before its caller"
            if state.phase == "call":
                done = await choose(
                    fake_discord, USERS[seat], board, "call", [open_categories(state)[0]]
                )
            elif state.phase == "solo":
                done = await press(fake_discord, USERS[seat], board, "Hold: keep all five")
            elif state.step == 1 and seat == state.caller:
                die = state.dice[seat][0]
                await press(fake_discord, USERS[seat], board, f"Reroll {die}")
                assert fake_discord.find_button(board, f"Don't reroll {die}")
                done = await press(fake_discord, USERS[seat], board, "Reroll 1 die")
            else:
                done = await press(fake_discord, USERS[seat], board, "Hold: keep all five")
            assert done.type == 7, done.describe()
            live = await bot.orchard.runner.load(live.id)
            if state.phase == "call" and live.row.status == "active":
                assert_round_card(fake_discord.message(board), live.state)
        assert live.row.status == "finished"
        assert "Game over" in text_of(fake_discord.message(board))
        assert await bot.orchard.runner.replay(live.id) == live.state


async def last_turn_of_round_one(bot: OrchardBot) -> Any:
    """Play an Apple Jack game to its first round's last turn: everyone holds, the caller
    calls the first open category."""
    live = await live_game(bot, "applejack")
    runner, engine = bot.orchard.runner, bot.orchard.runner.engine("applejack")
    while live.state.phase != "solo":
        state = live.state
        seat = sorted(engine.to_act(state))[0]
        if state.phase == "call":
            live = await runner.act(live.id, USERS[seat], "call", open_categories(state)[0])
        else:
            live = await runner.act(live.id, USERS[seat], "hold")
    return live


async def test_apple_jacks_last_turn_shows_a_player_out_of_rerolls_as_done(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """On a round's last turn a player who has used both rerolls is done: the board does not
    say they held. Each player not yet done has their rerolls left beside their dice."""
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "applejack", ALICE, [BOB])
        await last_turn_of_round_one(bot)
        for left in ("1 reroll left", "done"):
            done = await choose(fake_discord, ALICE, board, "reroll", ["0"])
            assert done.type == 7, done.describe()
            lines = text_of(fake_discord.message(board)).splitlines()
            alice = next(line for line in lines if line.startswith("**Alice**"))
            bob = next(line for line in lines if line.startswith("**Bob**"))
            assert f"· {left} " in alice and "holds" not in alice, alice
            assert "· 2 rerolls left " in bob and "holds" not in bob, bob


async def test_apple_jacks_last_category_is_not_said_to_be_called(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """A round's last category is scored for everyone once all are done: nobody called it.
    The next round's board keeps each player's first-round total beside their total."""
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "applejack", ALICE, [BOB])
        await last_turn_of_round_one(bot)
        for user in (ALICE, BOB):
            done = await press(fake_discord, user, board, "Hold: keep all five")
            assert done.type == 7, done.describe()
        live = await live_game(bot, "applejack")
        assert live.state.round == 1 and live.state.last_call[1] == "sum"
        alice, bob = live.state.last_call[2]
        status = text_of(fake_discord.message(board)).splitlines()[1:3]
        assert not any("called" in line for line in status), status
        scored = f"Sum scored for everyone on the round's last turn: Alice {alice}, Bob {bob}."
        assert scored in status, status
        lines = text_of(fake_discord.message(board)).splitlines()
        for seat, user in enumerate(("Alice", "Bob")):  # the first round's card is gone
            first = sum(p for p in live.state.cards[seat][0] if p is not None)
            line = next(line for line in lines if line.startswith(f"**{user}**"))
            assert line.endswith(f" · {first} (rounds {first}, 0)"), line


async def test_a_hot_score_duel(fake_discord: FakeDiscord, database: Target) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "hotscore", ALICE, [BOB])
        live = await live_game(bot, "hotscore")
        engine = bot.orchard.runner.engine("hotscore")
        stranger = await press(fake_discord, CAROL, board, "Throw 2 dice")
        assert stranger.ephemeral and "not playing" in stranger.content
        title = "### Hot Score · round "
        assert text_of(fake_discord.message(board)).startswith(title + "1\n")
        for _ in range(400):
            if live.row.status != "active":
                break
            shown = text_of(fake_discord.message(board))
            assert shown.startswith(f"{title}{live.state.round}\n")
            assert f"Hot Score · game {live.id}" in shown
            seat = sorted(engine.to_act(live.state))[0]
            phase = live.state.phase
            if phase == "choose":
                label = next(
                    b.label
                    for b in fake_discord.components(board)
                    if b.is_button and (b.label or "").startswith("Stick on ")
                )
            elif phase == "sign":
                label = next(
                    b.label
                    for b in fake_discord.components(board)
                    if b.is_button and (b.label or "").startswith("+")
                )
            else:
                label = next(b.label for b in fake_discord.components(board) if b.is_button)
            done = await press(fake_discord, USERS[seat], board, label)
            assert done.type == 7, done.describe()
            live = await bot.orchard.runner.load(live.id)
        assert live.row.status == "finished", "a sticking duel reaches 100 within 400 clicks"
        assert 100 in live.state.scores
        assert "Game over" in text_of(fake_discord.message(board))
        assert await bot.orchard.runner.replay(live.id) == live.state


async def test_hot_score_lobby_takes_exactly_two(
    fake_discord: FakeDiscord, database: Target
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database):
        opened = await fake_discord.slash(ALICE, GUILD, 6001, "hotscore new")
        lobby = int((await opened.wait()).original["id"])
        alone = await press(fake_discord, ALICE, lobby, "Start")
        assert alone.ephemeral and "at least 2" in alone.content
        await press(fake_discord, BOB, lobby, "Join")
        full = await press(fake_discord, CAROL, lobby, "Join")
        assert full.ephemeral and "full" in full.content


async def ended_by_a_moderator(bot: OrchardBot) -> None:
    """The one open game here ends as /end ends it (nobody left it, nobody lost)."""
    (game,) = await bot.orchard.store.open_games(GUILD)
    await bot.orchard.runner.abandon(game.id)


async def test_a_rematch_seats_no_one_who_left_the_game(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Bob gave up. Alice's Rematch opens a lobby without him: pressed round after round,
    it would seat him each time, and DM and ping him, though he left. Bob's own press
    seats them both."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, database) as bot:
        board = await new_game(fake, "hotscore", ALICE, [BOB])
        await (await fake.slash(BOB, GUILD, CHANNEL, "forfeit")).wait()
        await press(fake, ALICE, board, "Rematch (same players)")
        (rematch,) = await bot.orchard.store.open_games(GUILD)
        assert [p.user_id for p in rematch.players] == [ALICE]
        await bot.orchard.runner.abandon(rematch.id)
        await press(fake, BOB, board, "Rematch (same players)")
        (again,) = await bot.orchard.store.open_games(GUILD)
        assert {p.user_id for p in again.players} == {ALICE, BOB}
        no_errors(fake)


async def test_a_rematch_is_refused_to_someone_who_did_not_play(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Carol watched Alice and Bob's game. Its Rematch button is on the board for all to see,
    but her press would seat both of them in a game they never asked for, and ping them:
    it is refused privately, and no lobby opens (Apple Jack has room for all three, so
    nothing else would refuse it)."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, database) as bot:
        board = await new_game(fake, "applejack", ALICE, [BOB])
        await ended_by_a_moderator(bot)
        refused = await press(fake, CAROL, board, "Rematch (same players)")
        assert refused.ephemeral and refused.content == (
            "Only the players of this game can start a rematch."
        ), refused.describe()
        assert await bot.orchard.store.open_games(GUILD) == []
        no_errors(fake)


async def test_apple_jacks_board_strikes_out_a_player_who_left(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Carol gives up a game of three. Alice and Bob play on, and the board keeps her line,
    struck out and marked as left, with no dice or total: she is not still in it."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, database) as bot:
        board = await new_game(fake, "applejack", ALICE, [BOB, CAROL])
        await (await fake.slash(CAROL, GUILD, CHANNEL, "forfeit")).wait()
        live = await live_game(bot, "applejack")
        assert live.row.status == "active" and live.state.active == (True, True, False)
        await fake.wait_for(lambda: "(left)" in text_of(fake.message(board)), what="the board")
        lines = text_of(fake.message(board)).splitlines()
        assert "~~Carol~~ (left)" in lines, lines
        assert not [line for line in lines if line.startswith("**Carol**")], lines
        assert len([line for line in lines if line.startswith(("**Alice**", "**Bob**"))]) == 2
        no_errors(fake)


async def test_two_players_pressing_rematch_together_get_one_lobby_message(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Both players press Rematch as the game ends: Bob's lobby (Alice seated) is made
    while its message is still on its way. Alice is told she has that game already; her
    press does not post the same lobby a second time, a copy no click would ever update."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, database) as bot:
        board = await new_game(fake, "hotscore", ALICE, [BOB])
        await (await fake.slash(BOB, GUILD, CHANNEL, "forfeit")).wait()
        bob = await fake.click(BOB, board, fake.find_button(board, "Rematch (same players)"))
        callback = rf"/interactions/{bob.id}/[^/]+/callback$"
        released = fake.hold("POST", callback)  # Bob's lobby is on its way
        while not fake.requests_matching("POST", callback):
            await asyncio.sleep(0.01)
        alice = await press(fake, ALICE, board, "Rematch (same players)")
        released.set()
        await bob.wait()
        assert alice.ephemeral and "You already have an open" in alice.content, alice.describe()
        lobbies = [m for m in fake.channel_messages(CHANNEL) if "who is playing" in text_of(m)]
        assert [int(m["id"]) for m in lobbies] == [bob.original_id]
        (lobby,) = await bot.orchard.store.open_games(GUILD)
        assert {p.user_id for p in lobby.players} == {ALICE, BOB}


async def test_a_rematch_plays_the_servers_settings_of_now(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """A Hot Score game played with the floor at 0; an admin then turns the floor off. The
    Rematch plays the setting of now, as a new game would, not the finished game's."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, database) as bot:
        board = await new_game(fake, "hotscore", ALICE, [BOB])
        (played,) = await bot.orchard.store.open_games(GUILD)
        assert (await bot.orchard.runner.load(played.id)).row.options == {"floor_zero": True}
        await (await fake.slash(BOB, GUILD, CHANNEL, "forfeit")).wait()
        await bot.orchard.settings.update(GUILD, hotscore_floor=False)
        await press(fake, ALICE, board, "Rematch (same players)")
        (rematch,) = await bot.orchard.store.open_games(GUILD)
        assert (await bot.orchard.runner.load(rematch.id)).row.options == {"floor_zero": False}
        no_errors(fake)


@pytest.mark.parametrize("limit", [1, 2])
async def test_two_players_pressing_rematch_at_once_end_in_one_lobby(
    fake_discord: FakeDiscord, database: Target, limit: int
) -> None:
    """Alice and Bob press Rematch at the same moment, with reads slowed down (a busy
    store), the channel allowing one Hot Score game or two: one lobby seats them both, and
    the second press is told its presser already has that game here, not that the channel
    is full, nor that the other could not be seated."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, database) as bot:
        await bot.orchard.settings.update(GUILD, open_games_per_channel=limit)
        board = await new_game(fake, "hotscore", ALICE, [BOB])
        await ended_by_a_moderator(bot)  # both still in: a Rematch seats both
        load = bot.orchard.runner.load

        async def slow_load(game_id: int) -> Any:
            await asyncio.sleep(0.3)
            return await load(game_id)

        bot.orchard.runner.load = slow_load  # type: ignore[method-assign]
        button = fake.find_button(board, "Rematch (same players)")
        presses = [await fake.click(ALICE, board, button), await fake.click(BOB, board, button)]
        for pressed in presses:
            await pressed.wait()
        refused = [p for p in presses if p.ephemeral]
        assert len(refused) == 1, [p.describe() for p in presses]
        assert "You already have an open Hot Score game here" in refused[0].content
        (lobby,) = await bot.orchard.store.open_games(GUILD)
        assert {p.user_id for p in lobby.players} == {ALICE, BOB}
        await asyncio.sleep(0.2)  # a note of someone left out would be on its way
        assert not any(p.followups for p in presses)
        no_errors(fake)


async def test_a_rematch_leaves_out_a_player_with_another_game_of_its_kind_here(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Two Hot Score games allowed per channel. A moderator ends Alice's game with Bob, and
    Bob then joins Carol's new lobby. Alice's Rematch opens a lobby without him: seating him
    would put him in a second open game of this kind here, which only he may choose, by
    pressing Join (as joining any lobby is). Alice is told privately who was left out, and
    why."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, database) as bot:
        await bot.orchard.settings.update(GUILD, open_games_per_channel=2)
        board = await new_game(fake, "hotscore", ALICE, [BOB])
        await ended_by_a_moderator(bot)
        carols = await (await fake.slash(CAROL, GUILD, CHANNEL, "hotscore new")).wait()
        assert (await press(fake, BOB, carols.original_id, "Join")).type == 7
        again = await press(fake, ALICE, board, "Rematch (same players)")
        (rematch,) = [g for g in await bot.orchard.store.open_games(GUILD) if g.host_id == ALICE]
        assert [p.user_id for p in rematch.players] == [ALICE]
        await fake.wait_for(lambda: bool(again.followups), what="the note to Alice")
        (note,) = again.followups
        assert note["flags"] & EPHEMERAL and note["content"] == (
            "Bob was not seated: they already have an open Hot Score game here."
            " They can still press Join."
        ), note
        assert (await press(fake, BOB, again.original_id, "Join")).type == 7
        seats = (await bot.orchard.runner.load(rematch.id)).row.players
        assert [p.user_id for p in seats] == [ALICE, BOB]
        no_errors(fake)


async def test_hot_score_rules_match_the_engine(
    fake_discord: FakeDiscord, database: Target
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database):
        rules = await (await fake_discord.slash(ALICE, GUILD, 6001, "hotscore rules")).wait()
        assert rules.ephemeral
        text = rules.content
        assert "doubles the stakes" not in text
        assert "10 × n" in text and "±10, then ±20, ±30" in text
        assert "Three of a kind against a HOT or another three of a kind: a **double" in text


async def test_apple_jacks_final_board_says_who_left(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Alice gives up a game of two: Bob wins at once, whatever the scores. The final board
    keeps her row on the card and places her last, so it says she left."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database):
        board = await new_game(fake_discord, "applejack", ALICE, [BOB])
        gave_up = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "forfeit"))
        assert gave_up.ephemeral, gave_up.describe()
        shown = text_of(fake_discord.message(board))
        assert "Game over" in shown and "1. Bob: 0 🏆" in shown, shown
        said = "Alice has left the game and cannot win; their scores stay on the card."
        assert said in shown, shown
        no_errors(fake_discord)


async def test_three_timeouts_in_one_apple_jack_turn_are_not_called_three_turns(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Each reroll decision and the call has its own deadline: Alice, the caller, runs out of
    time in both steps and on the call of one turn, and leaves (the clock plays nothing for
    a seat on its way out). The channel is told she timed out three times in a row, not
    three turns."""
    import time

    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "applejack", ALICE, [BOB])
        live = await live_game(bot, "applejack")
        runner, late = bot.orchard.runner, 0.0

        async def deadline() -> None:
            nonlocal late
            late += 301
            runner.clock = lambda late=late: time.time() + late
            await runner.fire_deadline(live.id)

        await deadline()  # Alice holds in step 1; Bob rerolls a die, so step 2 comes
        bob = (await runner.load(live.id)).state.dice[1]
        await press(fake_discord, BOB, board, f"Reroll {bob[0]}")
        await press(fake_discord, BOB, board, "Reroll 1 die")
        await deadline()  # Alice holds in step 2; Bob holds
        await press(fake_discord, BOB, board, "Hold: keep all five")
        await deadline()  # her third timeout, on the call: she leaves, and no call is made
        done = await runner.load(live.id)
        assert done.row.status == "finished" and done.state.round == 0
        assert done.state.called == (), "all three in the game's first turn"
        texts = [str(m.get("content") or "") for m in fake_discord.channel_messages(CHANNEL)]
        left = [text for text in texts if "has left" in text]
        game = f"**Apple Jack · game {live.id}**"
        assert left == [f"👋 Alice timed out three times in a row and has left {game}."], left
        no_errors(fake_discord)


async def test_apple_jacks_final_board_gives_each_rounds_share_of_the_totals(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """The last board shows only the last round's card, so each total in the standings keeps
    each round's share beside it, as the board did during play: the totals add up there."""
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "applejack", ALICE, [BOB])
        live = await live_game(bot, "applejack")
        runner, engine = bot.orchard.runner, bot.orchard.runner.engine("applejack")
        while live.row.status == "active":
            state = live.state
            seat = min(engine.to_act(state))
            if state.phase == "call":
                live = await runner.act(live.id, USERS[seat], "call", open_categories(state)[0])
            else:
                live = await runner.act(live.id, USERS[seat], "hold")
        shown = text_of(fake_discord.message(board))
        assert "Game over" in shown, shown
        for seat, name in enumerate(("Alice", "Bob")):
            first, second = (sum(card) for card in live.state.cards[seat])
            said = f"{name}: {first + second} (rounds {first}, {second})"
            assert said in shown, shown
        no_errors(fake_discord)
