"""The runner and lobby on a real SQLite file: races, stale buttons, restarts, deadlines."""

import asyncio
import contextlib
import itertools
import logging
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot import scheduler
from bot.boards import timeout_notice
from bot.games.applejack import open_categories as open_to_call
from bot.games.appletters import AppState, placements_for, word_set
from bot.games.cheerio import open_categories
from bot.lobby import SeatShown
from bot.model import GameChange, GameRow, GameStatus, Move, Player
from bot.runner import REMOVED, Refusal, Snapshot, Stale
from bot.settings import SHARED_KEPT_SECONDS
from bot.specs import ENGINES, SPEC_OF
from db import games
from db.connection import Target
from tests.support import CHANNEL, GUILD, Clock, Recorder, Table, orchard, player, started


async def test_two_racing_clicks_apply_exactly_once(database: Target) -> None:
    o = await orchard(database)
    live = await started(o, "cheerio", [1, 2])
    clicks = [o.runner.act(live.id, 1, "roll", version=0) for _ in range(2)]
    outcomes = await asyncio.gather(*clicks, return_exceptions=True)
    assert sum(not isinstance(x, Exception) for x in outcomes) == 1
    (loser,) = [x for x in outcomes if isinstance(x, Exception)]
    assert isinstance(loser, Stale) and "already played" in str(loser)
    assert len(await o.store.moves(live.id)) == 1
    await o.close()


async def test_stale_button_and_strangers_are_refused_without_change(database: Target) -> None:
    o = await orchard(database)
    live = await started(o, "cheerio", [1, 2])
    await o.runner.act(live.id, 1, "hold", "0", version=0)
    with pytest.raises(Stale, match="already played"):  # a double click
        await o.runner.act(live.id, 1, "hold", "0", version=0)
    await o.runner.act(live.id, 1, "roll", version=1)
    with pytest.raises(Stale, match="already played"):  # a board from before the roll
        await o.runner.act(live.id, 1, "hold", "1", version=1)
    with pytest.raises(Refusal, match="not playing"):
        await o.runner.act(live.id, 3, "roll", version=2)
    with pytest.raises(Refusal, match="not your turn"):
        await o.runner.act(live.id, 2, "roll", version=2)
    with pytest.raises(Refusal, match="no longer exists"):
        await o.runner.act(999, 1, "roll", version=2)
    after = await o.runner.load(live.id)
    assert after.row.version == 2 and after.state.held == (True, False, False, False, False)
    await o.close()


@pytest.mark.parametrize(("kind", "verb"), [("cheerio", "hold"), ("applejack", "pick")])
async def test_quick_taps_on_several_dice_from_one_board_all_count(
    database: Target, kind: str, verb: str
) -> None:
    """A player taps three dice in a row, each tap sent before the last one's board reached
    their screen: every tap is drawn at the same version. Each toggles a die the others left
    as it was on that board, so each means what it meant, and stands. A second tap of the
    same die would undo the first, so that one is a double click."""
    o = await orchard(database)
    live = await started(o, kind, [1, 2])
    seat = min(ENGINES[kind].to_act(live.state))
    user = live.row.players[seat].user_id
    drawn = live.row.version
    for die in ("0", "2", "4"):
        live = await o.runner.act(live.id, user, verb, die, version=drawn)
    with pytest.raises(Stale, match="already played"):
        await o.runner.act(live.id, user, verb, "2", version=drawn)
    chosen = live.state.held if kind == "cheerio" else live.state.picked[seat]
    assert [bool(x) for x in chosen] == [True, False, True, False, True]
    assert await o.runner.replay(live.id) == live.state
    await o.close()


async def test_a_click_from_before_another_players_move_says_the_game_changed(
    database: Target,
) -> None:
    """Another player left while Alice's board was up: nothing of hers was played, so she is
    told the game changed and chooses again, not that it was already played. Once she has
    moved, the same click again is already played."""
    o = await orchard(database)
    live = await started(o, "cheerio", [1, 2, 3])
    await o.runner.forfeit(live.id, 3)
    with pytest.raises(Stale) as changed:
        await o.runner.act(live.id, 1, "hold", "0", version=0)
    assert str(changed.value) == (
        "Another player has changed the game since this was shown, so nothing was played: "
        "choose again from the game's board."
    )
    await o.runner.act(live.id, 1, "hold", "0", version=1)
    with pytest.raises(Stale, match="already played"):
        await o.runner.act(live.id, 1, "hold", "0", version=1)
    after = await o.runner.load(live.id)
    assert after.row.version == 2 and after.state.held == (True, False, False, False, False)
    assert await o.runner.replay(live.id) == after.state
    await o.close()


async def test_a_stale_click_out_of_turn_then_and_now_says_not_your_turn(
    database: Target,
) -> None:
    """Carol clicks Alice's old board: it was not her turn then, nor is it now, so she is
    told whose turn it is, not that the game changed (choosing again could not help her)."""
    o = await orchard(database)
    live = await started(o, "cheerio", [1, 2, 3])
    await o.runner.act(live.id, 1, "hold", "0", version=0)
    with pytest.raises(Refusal) as refused:
        await o.runner.act(live.id, 3, "roll", version=0)
    assert not isinstance(refused.value, Stale)
    assert str(refused.value) == "It is not your turn: it is user1's."
    after = await o.runner.load(live.id)
    assert after.row.version == 1
    await o.close()


async def test_restart_resumes_mid_turn(database: Target) -> None:
    o = await orchard(database)
    live = await started(o, "cheerio", [1, 2])
    live = await o.runner.act(live.id, 1, "hold", "2", version=0)
    live = await o.runner.act(live.id, 1, "roll", version=1)
    await o.close()

    o = await orchard(database)
    resumed = await o.runner.load(live.id)
    assert resumed.state == live.state and resumed.row.version == 2
    category = "ones"
    after = await o.runner.act(live.id, 1, "score", category, version=2)
    assert after.state.turn == 1 and after.state.last_score[1] == category
    await o.close()


async def test_deadline_fires_after_a_restart(database: Target) -> None:
    """A deadline still to come at a restart is kept, and fires as it would have. (One that
    passed while Orchard was down starts the turn afresh: tests/test_opponents.py.)"""
    clock = Clock()
    o = await orchard(database, clock)
    live = await started(o, "cheerio", [1, 2])
    assert live.row.deadline == clock.now + 300
    await o.close()

    clock.now += 200
    o = await orchard(database, clock)
    assert await o.scheduler.run_due() == 0
    clock.now += 101
    assert await o.scheduler.run_due() == 1
    after = await o.runner.load(live.id)
    assert after.state.turn == 1, "the timed-out seat scored and the turn passed"
    (move,) = await o.store.moves(live.id)
    assert (move.source, move.verb) == ("timeout", "score")
    assert after.row.players[0].timeouts == 1
    assert await o.scheduler.run_due() == 0, "nothing is due twice"
    await o.close()


async def test_three_timeouts_in_a_row_remove_the_player(database: Target) -> None:
    clock = Clock()
    o = await orchard(database, clock)
    live = await started(o, "cheerio", [1, 2])
    for _ in range(3):
        clock.now += 301
        await o.scheduler.run_due()  # seat 0 times out
        live = await o.runner.load(live.id)
        await o.runner.act(live.id, 2, "score", _first_open(live), version=live.row.version)
    live = await o.runner.load(live.id)
    assert live.state.active == (False, True)
    assert [m.verb for m in await o.store.moves(live.id)].count("forfeit") == 1
    assert live.state.turn == 1
    await o.close()


async def test_holding_dice_and_rolling_never_restart_a_cheerio_turns_clock(
    database: Target,
) -> None:
    """Cheerio's deadline times the whole turn: Alice pressing Keep on and off, and rolling,
    leaves it where her turn began, so she cannot hold Bob up for ever; it fires then, and
    Bob's turn gets a clock of its own, which his own presses keep as well."""
    clock = Clock()
    o = await orchard(database, clock)
    live = await started(o, "cheerio", [1, 2])
    turn_ends = clock.now + 300
    for verb, arg in [("hold", "0"), ("hold", "0"), ("hold", "0"), ("roll", ""), ("hold", "1")]:
        clock.now += 55
        live = await o.runner.act(live.id, 1, verb, arg, version=live.row.version)
        assert (await o.runner.load(live.id)).row.deadline == turn_ends, (verb, arg)
    clock.now = turn_ends
    assert await o.scheduler.run_due() == 1, "the clock fired when her turn began plus 300 s"
    live = await o.runner.load(live.id)
    assert live.state.turn == 1 and live.row.deadline == clock.now + 300
    clock.now += 100
    live = await o.runner.act(live.id, 2, "hold", "3", version=live.row.version)
    assert (await o.runner.load(live.id)).row.deadline == turn_ends + 300
    assert await o.runner.replay(live.id) == live.state
    await o.close()


async def test_choosing_dice_is_no_decision_on_apple_jacks_clock(database: Target) -> None:
    """Apple Jack's deadline is per decision: the caller choosing and unchoosing dice keeps
    it; deciding (here, holding) starts the next decider's own."""
    clock = Clock()
    o = await orchard(database, clock)
    live = await started(o, "applejack", [1, 2])
    decision_ends = clock.now + 300
    for die in ["0", "1", "0"]:
        clock.now += 60
        live = await o.runner.act(live.id, 1, "pick", die, version=live.row.version)
    assert (await o.runner.load(live.id)).row.deadline == decision_ends
    clock.now += 60
    live = await o.runner.act(live.id, 1, "hold", version=live.row.version)
    assert (await o.runner.load(live.id)).row.deadline == clock.now + 300, "Bob's decision"
    await o.close()


async def test_apple_jacks_last_turn_has_one_clock_for_everyone(database: Target) -> None:
    """On a round's last turn everyone decides at once: Alice's picks and reroll restart
    nobody's clock, so Bob's deadline still comes when the turn began plus the turn time,
    and when it fires the next turn starts with a fresh one."""
    clock = Clock()
    o = await orchard(database, clock)
    live = await _to_applejack_last_turn(o, [1, 2])
    turn_ends = clock.now + 300
    assert live.row.deadline == turn_ends
    for verb, arg in [("pick", "0"), ("pick", "0"), ("pick", "2"), ("reroll", ""), ("pick", "4")]:
        clock.now += 55
        live = await o.runner.act(live.id, 1, verb, arg, version=live.row.version)
        assert (await o.runner.load(live.id)).row.deadline == turn_ends, (verb, arg)
    assert live.state.rerolls == (1, 0), "Alice rerolled once, Bob not at all"
    clock.now = turn_ends
    assert await o.scheduler.run_due() == 1
    live = await o.runner.load(live.id)
    assert live.state.round == 1 and live.state.phase == "reroll"
    assert live.row.deadline == clock.now + 300, "the next turn's clock"
    assert await o.runner.replay(live.id) == live.state
    await o.close()


def _challenged_in_round_one(seed: int) -> bool:
    """Whether a Hot Score game of ``seed`` comes to a challenge when its starter throws and
    sticks, and the other throws, takes the Bonus Die and adds it."""
    engine = ENGINES["hotscore"]
    state = engine.new(seed, 2, {})
    for verb, arg in [("throw", ""), ("stick", ""), ("throw", ""), ("bonus", ""), ("sign", "+")]:
        state = engine.apply(state, engine.parse(state.turn, verb, arg))
        if state.phase == "target" or engine.is_over(state):
            break
    return state.phase == "target"


async def test_hot_scores_clock_times_a_whole_turn_and_both_challenge_throws_once(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hot Score's deadline times a player's whole turn, as its timeout plays it: throwing,
    then the Bonus Die and its sign, keep it where the turn began. The challenge's throws,
    made by both at once, share one clock: user1's throw does not restart it for user2."""
    seed = next(s for s in range(1, 10_000) if _challenged_in_round_one(s))
    monkeypatch.setattr("bot.lobby.secrets.randbits", lambda bits: seed)
    clock = Clock()
    o = await orchard(database, clock)
    live = await started(o, "hotscore", [1, 2])
    users = {seat: p.user_id for seat, p in enumerate(live.row.players)}
    for verbs in (["throw", "stick"], ["throw", "bonus", "sign"]):
        turn_ends = clock.now + 300
        user = users[live.state.turn]
        for verb in verbs:
            clock.now += 55
            arg = "+" if verb == "sign" else ""
            live = await o.runner.act(live.id, user, verb, arg, version=live.row.version)
            if verb != verbs[-1]:
                assert live.row.deadline == turn_ends, verb
        assert live.row.deadline == clock.now + 300, "the next turn's own clock"
    clock.now += 55
    live = await o.runner.act(live.id, users[live.state.turn], "throw", version=live.row.version)
    assert live.state.phase == "challenge" and live.row.deadline == clock.now + 300
    throws_end = clock.now + 300
    clock.now += 55
    live = await o.runner.act(live.id, 1, "throw", version=live.row.version)
    assert live.row.deadline == throws_end, "Bob's challenge throw keeps the clock"
    clock.now = throws_end
    assert await o.scheduler.run_due() == 1
    live = await o.runner.load(live.id)
    assert live.state.challenge_dice == ((), ()), "user2's dice thrown for them, and judged"
    assert live.row.deadline == clock.now + 300, "the next decision's own clock"
    assert await o.runner.replay(live.id) == live.state
    await o.close()


def _word_for(state: AppState, seat: int, listed: bool) -> str:
    """A way ``seat`` can lay a word now that is (or is not) in the game's list: Apple
    Turnover lays unchecked words, so a challenge of it fails (or takes it back)."""
    words = word_set(state.word_list)
    ends = {state.snake[0].text[0], state.snake[-1].text[-1]} if state.snake else set()
    for size in (2, 3, 4):
        for letters in itertools.permutations(state.hands[seat] + "".join(ends), size):
            text = "".join(letters)
            ways = placements_for(state, seat, text)
            if ways and (text.lower() in words) == listed:
                return ways[0].arg
    raise AssertionError(f"no {'listed' if listed else 'unlisted'} word for seat {seat}")


async def test_another_players_challenge_restarts_the_clock_only_if_it_changes_the_snake(
    database: Target,
) -> None:
    """Apple Turnover's clock times a turn: a failed challenge by someone else changes
    nothing the player to move can do, so their deadline stays; one that takes a word off
    the snake changes their choices, so they get their full time again."""
    clock = Clock()
    o = await orchard(database, clock)
    live = await started(o, "appleturnover", [1, 2, 3])
    state: AppState = live.state
    a = state.turn
    b, c = (a + 1) % 3, (a + 2) % 3
    live = await o.runner.act(live.id, a + 1, "play", _word_for(state, a, listed=True))
    b_ends = clock.now + 300
    assert live.row.deadline == b_ends and live.state.turn == b
    clock.now += 60
    live = await o.runner.act(live.id, c + 1, "challenge", version=live.row.version)
    assert live.state.skips[c] == 1, "the word is listed: the challenger misses a turn"
    assert (await o.runner.load(live.id)).row.deadline == b_ends, "nothing changed for Bob"

    clock.now += 60
    live = await o.runner.act(live.id, b + 1, "play", _word_for(live.state, b, listed=False))
    assert live.state.turn == a, "Carol missed her turn"
    assert live.row.deadline == clock.now + 300
    clock.now += 60
    live = await o.runner.act(live.id, c + 1, "challenge", version=live.row.version)
    assert len(live.state.snake) == 1, "not listed: the word came off the snake"
    assert (await o.runner.load(live.id)).row.deadline == clock.now + 300, "a new choice"
    assert await o.runner.replay(live.id) == live.state
    await o.close()


async def test_a_click_from_before_a_timeout_says_the_time_ran_out(database: Target) -> None:
    """Alice's turn timed out while her board was up: her click is late, not a double click,
    and is told so; nothing changes."""
    clock = Clock()
    o = await orchard(database, clock)
    live = await started(o, "cheerio", [1])
    clock.now += 301
    assert await o.scheduler.run_due() == 1
    with pytest.raises(Stale) as late:
        await o.runner.act(live.id, 1, "hold", "0", version=0)
    assert str(late.value) == (
        "Your time ran out: the turn this was shown for was played for you. "
        "Choose again from the game's board."
    )
    assert (await o.runner.load(live.id)).row.version == 1
    await o.close()


async def test_a_turn_played_to_its_end_resets_the_timeout_count(database: Target) -> None:
    """A roll decides nothing: the count of turns timed out in a row stays until the player
    scores a turn themselves."""
    clock = Clock()
    o = await orchard(database, clock)
    live = await started(o, "cheerio", [1])
    clock.now += 301
    await o.scheduler.run_due()
    live = await o.runner.load(live.id)
    assert live.row.players[0].timeouts == 1
    live = await o.runner.act(live.id, 1, "roll", version=live.row.version)
    assert live.row.players[0].timeouts == 1
    box = open_categories(live.state.cards[0])[0]
    live = await o.runner.act(live.id, 1, "score", box, version=live.row.version)
    assert live.row.players[0].timeouts == 0
    await o.close()


async def test_a_click_from_before_a_third_timeout_says_its_player_was_removed(
    database: Target,
) -> None:
    """Alice's third turn in a row runs out while her board is up: the clock removes her,
    playing nothing. Her click from that board is told so, not that it was already played."""
    clock = Clock()
    o = await orchard(database, clock)
    live = await started(o, "cheerio", [1, 2, 3])
    for _ in range(2):  # Alice late twice; Bob and Carol score their turns themselves
        clock.now += 301
        await o.scheduler.run_due()
        live = await o.runner.load(live.id)
        for user in (2, 3):
            box = open_categories(live.state.cards[user - 1])[0]
            live = await o.runner.act(live.id, user, "score", box, version=live.row.version)
    board = live.row.version  # Alice's third turn, on her screen
    clock.now += 301
    assert await o.scheduler.run_due() == 1  # removed at that third deadline
    with pytest.raises(Stale) as late:
        await o.runner.act(live.id, 1, "roll", version=board)
    assert str(late.value) == REMOVED
    await o.close()


async def test_toggling_a_die_before_each_deadline_still_times_out(database: Target) -> None:
    """Apple Jack: choosing dice is no decision. A player who only toggles a die before each
    of their decisions runs out has timed out three decisions in a row: they are out at the
    third, as one who did nothing; the other player, deciding at once, wins."""
    clock = Clock()
    o = await orchard(database, clock)
    live = await started(o, "applejack", [1, 2])
    engine = o.runner.engine("applejack")
    for _ in range(3):
        while 0 not in engine.to_act(live.state):  # seat 1 decides at once
            state = live.state
            verb, arg = ("call", open_to_call(state)[0]) if state.phase == "call" else ("hold", "")
            live = await o.runner.act(live.id, 2, verb, arg, version=live.row.version)
        if live.state.phase == "reroll":
            live = await o.runner.act(live.id, 1, "pick", "0", version=live.row.version)
        clock.now += 301
        await o.scheduler.run_due()
        live = await o.runner.load(live.id)
    assert live.row.status == "finished" and not live.state.active[0]
    assert engine.results(live.state)[1].won
    await o.close()


async def test_solo_player_timing_out_three_times_abandons(database: Target) -> None:
    clock = Clock()
    o = await orchard(database, clock)
    live = await started(o, "cheerio", [1])
    for _ in range(3):
        clock.now += 301
        await o.scheduler.run_due()
    live = await o.runner.load(live.id)
    assert live.row.status == "abandoned" and live.row.deadline is None
    assert await o.store.leaderboard(GUILD, "cheerio", "wins") == []
    await o.close()


async def test_finished_game_records_results_and_replays(database: Target) -> None:
    o = await orchard(database)
    live = await started(o, "cheerio", [1, 2])
    users = {0: 1, 1: 2}
    while live.row.status == "active":
        user = users[live.state.turn]
        if live.state.rolls == 1:
            live = await o.runner.act(live.id, user, "roll", version=live.row.version)
        live = await o.runner.act(
            live.id, user, "score", _first_open(live), version=live.row.version
        )
    assert live.row.status == "finished"
    assert live.row.version == 28
    assert await o.runner.replay(live.id) == live.state
    board = await o.store.leaderboard(GUILD, "cheerio", "wins")
    assert {row[0] for row in board} == {1, 2} and sum(row[1] for row in board) >= 1
    with pytest.raises(Refusal, match="over"):
        await o.runner.act(live.id, 1, "roll", version=live.row.version)
    await o.close()


async def test_a_last_move_whose_results_cannot_be_traced_still_ends_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The results are committed before the store reads back which server's boards they
    change: a failed read there makes every kept board old, not the move fail."""
    o = await orchard(tmp_path / "o.db")
    live = await started(o, "cheerio", [1])
    assert await o.store.leaderboard_with_records(GUILD, "cheerio", "best") == ([], {})  # kept
    while live.row.status == "active":
        if len(open_categories(live.state.cards[0])) == 1:

            async def unreadable(*args: object) -> None:
                raise sqlite3.OperationalError("disk I/O error")

            monkeypatch.setattr(o.store.db, "lookup", unreadable)
        live = await o.runner.act(live.id, 1, "score", _first_open(live), version=live.row.version)
    assert live.row.status == "finished"
    monkeypatch.undo()
    ranked, _ = await o.store.leaderboard_with_records(GUILD, "cheerio", "best")
    assert [user for user, _, _ in ranked] == [1]
    await o.close()


async def test_replay_includes_timeouts_and_forfeits(database: Target) -> None:
    clock = Clock()
    o = await orchard(database, clock)
    live = await started(o, "cheerio", [1, 2, 3])
    await o.runner.act(live.id, 1, "roll", version=0)
    clock.now += 301
    await o.scheduler.run_due()
    await o.runner.forfeit(live.id, 3)
    live = await o.runner.load(live.id)
    assert await o.runner.replay(live.id) == live.state
    await o.close()


async def test_the_show_callback_runs_after_the_commit(database: Target) -> None:
    o = await orchard(database)
    live = await started(o, "cheerio", [1])
    seen: list[int] = []

    async def present(shown) -> None:
        stored = await o.store.get_game(shown.id)
        seen.append(stored.version)
        raise RuntimeError("Discord is down")

    after = await o.runner.act(live.id, 1, "roll", version=0, display=present)
    assert seen == [1], "the move was durable before it was shown"
    assert o.shown.shown[-1].row.version == 1, "a failed show falls back to publishing"
    assert after.row.version == 1
    await o.close()


async def test_a_full_channel_offers_its_lobby_or_says_to_play_elsewhere(database: Target) -> None:
    """The channel's one Cheerio game is a lobby: whoever else asks is offered to join it.
    Once that game is in play, there is nothing to join: play elsewhere, or wait."""
    o = await orchard(database, Clock())
    live = await o.lobby.open("cheerio", GUILD, CHANNEL, player(1))
    with pytest.raises(Refusal) as waiting:
        await o.lobby.open("cheerio", GUILD, CHANNEL, player(2))
    assert str(waiting.value).endswith(
        f"Join game {live.id} (still in its lobby), or play in another channel."
    )
    await o.lobby.join(live.id, player(2))
    with pytest.raises(Refusal, match=r"game 1: press Leave on its lobby, to start another"):
        await o.lobby.open("cheerio", GUILD, CHANNEL, player(2))
    await o.lobby.start(live.id, 1)
    with pytest.raises(Refusal, match=r"game 1: finish it, or give it up with /forfeit, to st"):
        await o.lobby.open("cheerio", GUILD, CHANNEL, player(2))
    with pytest.raises(Refusal) as playing:
        await o.lobby.open("cheerio", GUILD, CHANNEL, player(3))
    assert str(playing.value) == (
        "This channel already has 1 open Cheerio game, as many as this server allows here."
        " Play in another channel, or wait for one to end: /games lists them."
    )
    duel = await o.lobby.open("hotscore", GUILD, CHANNEL, player(1))
    await o.lobby.join(duel.id, player(2))
    with pytest.raises(Refusal, match="wait for one to end"):  # no seat to offer in it
        await o.lobby.open("hotscore", GUILD, CHANNEL, player(3))
    await o.close()


async def test_lobby_rules(database: Target) -> None:
    clock = Clock()
    o = await orchard(database, clock)
    live = await o.lobby.open("cheerio", GUILD, CHANNEL, player(1))
    with pytest.raises(Refusal) as hosting:
        await o.lobby.open("cheerio", GUILD, CHANNEL, player(1))
    assert str(hosting.value) == (
        "You already have an open Cheerio game here, game 1: press Cancel on its lobby, to start"
        " another. /games lists the games here."
    ), "Leave is refused to a host"
    with pytest.raises(Refusal, match=r"^This channel already has 1 open Cheerio game, as many"):
        await o.lobby.open("cheerio", GUILD, CHANNEL, player(2))
    await o.lobby.join(live.id, player(2))
    with pytest.raises(Refusal, match="already in"):
        await o.lobby.join(live.id, player(2))
    with pytest.raises(Refusal, match="Only the host"):
        await o.lobby.start(live.id, 2)
    with pytest.raises(Refusal, match="Only the host"):
        await o.lobby.cancel(live.id, 2)
    with pytest.raises(Refusal, match="not started"):
        await o.runner.act(live.id, 1, "roll", version=0)
    live = await o.lobby.leave(live.id, 2)
    assert [p.user_id for p in live.row.players] == [1]
    for user in range(2, 7):
        await o.lobby.join(live.id, player(user))
    with pytest.raises(Refusal, match="full"):
        await o.lobby.join(live.id, player(7))
    clock.now += 15 * 60 + 1
    assert await o.scheduler.run_due() == 1
    closed = await o.runner.load(live.id)
    assert closed.row.status == "cancelled"
    with pytest.raises(Refusal, match="closed"):
        await o.lobby.join(live.id, player(8))
    duel = await o.lobby.open("hotscore", GUILD, CHANNEL, player(1))
    with pytest.raises(Refusal, match=r"^This game needs at least 2 players: wait for someone"):
        await o.lobby.start(duel.id, 1)
    await o.close()


def _orchard(level: str) -> Player:
    return Player(0, 99, f"Orchard ({level.capitalize()})", is_bot=True, level=level)


def _seated(live) -> list[tuple[int, int, str]]:
    return [(p.seat, p.user_id, p.level) for p in live.row.players]


async def test_the_host_removes_an_orchard_seat_as_the_board_showed_it(database: Target) -> None:
    o = await orchard(database)
    live = await o.lobby.open("cheerio", GUILD, CHANNEL, player(1))
    await o.lobby.add_seat(live.id, 1, _orchard("easy"))
    await o.lobby.add_seat(live.id, 1, _orchard("hard"))
    live = await o.lobby.join(live.id, player(2))
    easy = SeatShown(1, live.row.revision)
    with pytest.raises(Refusal, match="Only the host"):
        await o.lobby.remove_seat(live.id, 2, easy)
    with pytest.raises(Refusal, match="not one of Orchard's"):
        await o.lobby.remove_seat(live.id, 1, SeatShown(3, live.row.revision))
    assert _seated(await o.runner.load(live.id)) == _seated(live), "refused: nothing changed"
    removed = await o.lobby.remove_seat(live.id, 1, easy)
    assert _seated(removed) == [(0, 1, ""), (1, 99, "hard"), (2, 2, "")], "renumbered"
    assert _seated(o.shown.shown[-1]) == _seated(removed), "shown once written"
    with pytest.raises(Refusal, match="changed since you chose"):
        await o.lobby.remove_seat(live.id, 1, easy)  # a double click: seat 1 is Hard now
    assert _seated(await o.runner.load(live.id)) == _seated(removed)
    await o.close()


async def test_removing_orchard_leaves_a_lobby_that_starts_only_with_enough_players(
    database: Target,
) -> None:
    o = await orchard(database)
    live = await o.lobby.open("hotscore", GUILD, CHANNEL, player(1))
    live = await o.lobby.add_seat(live.id, 1, _orchard("normal"))
    await o.close()
    o = await orchard(database)  # a restart: the lobby and its revision are stored
    live = await o.lobby.remove_seat(live.id, 1, SeatShown(1, live.row.revision))
    assert _seated(live) == [(0, 1, "")]
    with pytest.raises(Refusal, match="at least 2 players"):
        await o.lobby.start(live.id, 1)
    live = await o.lobby.add_seat(live.id, 1, _orchard("hard"))
    seat = SeatShown(1, live.row.revision)
    await o.lobby.start(live.id, 1)
    with pytest.raises(Refusal, match="already started"):
        await o.lobby.remove_seat(live.id, 1, seat)
    assert (await o.runner.load(live.id)).row.players[1].level == "hard"
    closed = await o.lobby.open("cheerio", GUILD, CHANNEL, player(1))
    closed = await o.lobby.add_seat(closed.id, 1, _orchard("easy"))
    await o.lobby.cancel(closed.id, 1)
    with pytest.raises(Refusal, match="closed"):
        await o.lobby.remove_seat(closed.id, 1, SeatShown(1, closed.row.revision))
    await o.close()


async def test_settings_limit_channels_and_open_games(database: Target) -> None:
    o = await orchard(database)
    await o.runner.settings.update(GUILD, game_channels=(CHANNEL + 1,))
    with pytest.raises(Refusal, match="only be started in"):
        await o.lobby.open("cheerio", GUILD, CHANNEL, player(1))
    many = tuple(10**17 + n for n in range(100))  # 2,200 characters of channel mentions
    await o.runner.settings.update(GUILD, game_channels=many)
    with pytest.raises(Refusal, match=r", … and \d+ more channels on this server\.$") as refused:
        await o.lobby.open("cheerio", GUILD, CHANNEL, player(1))
    assert len(str(refused.value)) <= 2000
    await o.runner.settings.update(GUILD, game_channels=(), open_games_per_channel=2)
    await o.lobby.open("cheerio", GUILD, CHANNEL, player(1))
    await o.lobby.open("cheerio", GUILD, CHANNEL, player(2))
    with pytest.raises(ValueError, match="between 30 seconds"):
        await o.runner.settings.update(GUILD, turn_seconds=10)
    await o.close()


async def test_a_player_who_left_a_game_may_open_another_of_its_kind(database: Target) -> None:
    """With two open games of a kind allowed per channel, user 3 gives up a game that users
    1 and 2 play on: that seat is no game of theirs any more, so they may open a new one
    (while a lobby they sit in, or a game they still play, counts as theirs)."""
    o = await orchard(database)
    await o.runner.settings.update(GUILD, open_games_per_channel=2)
    live = await started(o, "cheerio", [1, 2, 3])
    with pytest.raises(Refusal, match="You already have an open"):
        await o.lobby.open("cheerio", GUILD, CHANNEL, player(3))
    await o.runner.forfeit(live.id, 3)
    with pytest.raises(Refusal, match="already left"):
        await o.runner.forfeit(live.id, 3)
    lobby = await o.lobby.open("cheerio", GUILD, CHANNEL, player(3))
    await o.lobby.cancel(lobby.id, 3)
    await o.lobby.join((await o.lobby.open("hotscore", GUILD, CHANNEL, player(1))).id, player(3))
    with pytest.raises(Refusal, match="You already have an open"):
        await o.lobby.open("hotscore", GUILD, CHANNEL, player(3))
    await o.close()


async def test_a_rematch_seats_a_player_whose_only_other_game_here_they_left(
    database: Target,
) -> None:
    """A rematch's lobby seats someone whose other game of its kind here is one they gave
    up, but not someone who still plays one, nor someone sitting in another lobby of it."""
    o = await orchard(database)
    await o.runner.settings.update(GUILD, open_games_per_channel=3)
    live = await started(o, "cheerio", [1, 2, 4])
    await o.runner.forfeit(live.id, 2)  # 1 and 4 play on
    await o.lobby.open("cheerio", GUILD, CHANNEL, player(5))
    seats = (player(2), player(1), player(5))
    async with o.lobby.opened("cheerio", (GUILD, CHANNEL, None), player(3), seats=seats) as made:
        assert made.left_out == (player(1), player(5))
    seated = (await o.runner.load(made.snapshot.id)).row.players
    assert [p.user_id for p in seated] == [3, 2]
    await o.close()


async def test_a_rematch_never_seats_someone_whose_join_elsewhere_came_first(
    database: Target,
) -> None:
    """User 2 presses Join on another lobby of the channel while a rematch that seats them is
    being opened there. A Join waits for the channel's opening lock, so either the rematch
    seats them first (and their Join after is their own choice), or it sees them seated and
    leaves them out; never seated by the rematch after their Join, in two lobbies unasked."""
    o = await orchard(database)
    await o.runner.settings.update(GUILD, open_games_per_channel=3)
    other = await o.lobby.open("cheerio", GUILD, CHANNEL, player(5))
    seated: list[int] = []
    o.runner.on_commit.append(
        lambda snap: seated.append(snap.id) if snap.row.seat_of(2) is not None else None
    )
    create = o.runner.create
    joins: list[asyncio.Task[Snapshot]] = []

    async def create_while_joining(*args: Any, **kwargs: Any) -> Snapshot:
        joins.append(asyncio.create_task(o.lobby.join(other.id, player(2))))
        await asyncio.sleep(0.05)  # the Join is pressed after the rematch read the channel
        return await create(*args, **kwargs)

    o.runner.create = create_while_joining  # type: ignore[method-assign]
    place = (GUILD, CHANNEL, None)
    async with o.lobby.opened("cheerio", place, player(3), seats=(player(2),)) as made:
        pass
    await joins[0]
    assert list(dict.fromkeys(seated)) == [made.snapshot.id, other.id], "the rematch first"
    await o.close()


def _first_open(live) -> str:
    return open_categories(live.state.cards[live.state.turn])[0]


async def _to_applejack_last_turn(o: Table, users: list[int]) -> Snapshot:
    """An Apple Jack game played through its calls and holds until its first last turn,
    where every seat is awaited at once."""
    from bot.games.applejack import open_categories

    live = await started(o, "applejack", users)
    while live.state.phase != "solo":
        (seat,) = o.runner.engine("applejack").to_act(live.state)
        kind, arg = (
            ("call", open_categories(live.state)[0]) if live.state.phase == "call" else ("hold", "")
        )
        live = await o.runner.act(live.id, seat + 1, kind, arg, version=live.row.version)
    return live


async def _missed_twice(database: Target, game_id: int, seats: list[int]) -> None:
    """``seats`` have timed out two turns in a row: the next timeout is their third."""
    from tests.databases import written

    async with written(database) as tx:
        for seat in seats:
            await tx.execute(
                "UPDATE game_players SET timeouts = 2 WHERE game_id = ? AND seat = ?",
                (game_id, seat),
            )


async def _won_nothing(database: Target, o: Table, live: Snapshot, before: int) -> None:
    """The game ended with no winner: abandoned, no result or rating stored, each late seat
    played for by the clock with nobody removed, and the replay equal to the stored state."""
    from tests.databases import query

    assert live.row.status == "abandoned" and live.row.deadline is None and live.row.expired
    assert await query(database, "SELECT * FROM results WHERE game_id = ?", live.id) == []
    assert await query(database, "SELECT * FROM rating_history") == []
    late = (await o.store.moves(live.id))[before:]
    assert late and {m.source for m in late} == {"timeout"}, "played for, nobody forfeited"
    assert {m.seat for m in late} == {0, 1}
    assert [p.timeouts for p in live.row.players] == [3, 3]
    assert await o.runner.replay(live.id) == live.state


async def test_everyone_timing_out_a_third_time_at_once_ends_applejack_with_no_winner(
    database: Target,
) -> None:
    """Apple Jack's last turn awaits both seats, and both miss it a third time in a row: the
    first one's forfeit must not hand the game to the other, who was just as late."""
    clock = Clock()
    o = await orchard(database, clock)
    live = await _to_applejack_last_turn(o, [1, 2])
    await _missed_twice(database, live.id, [0, 1])
    clock.now += 301
    assert await o.scheduler.run_due() == 1
    await _won_nothing(database, o, await o.runner.load(live.id), live.row.version)
    game = f"**Apple Jack · game {live.id}**"
    assert timeout_notice(o.shown.shown[-1]).split("\n") == [
        f"⏰ user1 ran out of time in {game}, so the clock played for them.",
        f"⏰ user2 ran out of time in {game}, so the clock played for them.",
        f"👋 user1 and user2 each timed out three times in a row, so {game} ends with no winner.",
    ]
    await o.close()


async def test_two_seats_out_at_one_deadline_leave_before_the_turn_is_scored(
    database: Target,
) -> None:
    """Apple Jack's last turn awaits four seats; two hold, the first and the third miss it a
    third time in a row. Both leave at the deadline before the turn is scored, whatever
    their seat order: once, the first was removed before the scoring and the second after
    it, with the turn's points. The channel is told each left, not that the clock played."""
    from bot.boards import timeout_notice

    clock = Clock()
    o = await orchard(database, clock)
    live = await _to_applejack_last_turn(o, [1, 2, 3, 4])
    for user in (2, 4):
        live = await o.runner.act(live.id, user, "hold", version=live.row.version)
    await _missed_twice(database, live.id, [0, 2])
    before = len(await o.store.moves(live.id))
    clock.now += 301
    assert await o.scheduler.run_due() == 1
    live = await o.runner.load(live.id)
    assert live.state.active == (False, True, False, True)
    assert live.state.last_call is not None
    _, _, points = live.state.last_call
    assert points[0] is None and points[2] is None, "neither scored the turn"
    assert points[1] is not None and points[3] is not None
    late = (await o.store.moves(live.id))[before:]
    assert [(m.seat, m.verb, m.source) for m in late] == [
        (0, "forfeit", "forfeit"),
        (2, "forfeit", "forfeit"),
    ], "nothing played for a seat on its way out"
    assert [p.timeouts for p in live.row.players] == [3, 0, 3, 0]
    assert await o.runner.replay(live.id) == live.state
    assert timeout_notice(o.shown.shown[-1]).splitlines() == [
        f"👋 user1 timed out three times in a row and has left **Apple Jack · game {live.id}**.",
        f"👋 user3 timed out three times in a row and has left **Apple Jack · game {live.id}**.",
    ]
    await o.close()


async def test_everyone_timing_out_a_third_time_at_once_ends_hot_score_with_no_winner(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both players must throw a challenge's dice, and both miss it a third time in a row."""
    engine = ENGINES["hotscore"]
    choose = SPEC_OF["hotscore"].strategy
    assert choose is not None

    def reaches_a_challenge(seed: int) -> bool:
        """Whether Orchard's easy choices, for both, reach a challenge from ``seed``."""
        state = engine.new(seed, 2, {"floor_zero": True})
        while not engine.is_over(state) and state.phase != "challenge":
            seat = min(engine.to_act(state))
            state = engine.apply(state, choose(engine.view_for(state, seat), seat, "easy", seed))
        return state.phase == "challenge"

    seed = next(s for s in range(1, 500) if reaches_a_challenge(s))
    monkeypatch.setattr("bot.lobby.secrets.randbits", lambda bits: seed)
    clock = Clock()
    o = await orchard(database, clock)
    live = await started(o, "hotscore", [1, 2])
    while live.state.phase != "challenge":
        seat = min(engine.to_act(live.state))
        action = choose(engine.view_for(live.state, seat), seat, "easy", seed)
        verb, arg = engine.format(action)
        live = await o.runner.act(live.id, seat + 1, verb, arg, version=live.row.version)
    assert engine.to_act(live.state) == {0, 1}
    await _missed_twice(database, live.id, [0, 1])
    clock.now += 301
    assert await o.scheduler.run_due() == 1
    await _won_nothing(database, o, await o.runner.load(live.id), live.row.version)
    await o.close()


async def test_a_player_who_was_not_late_a_third_time_wins_when_the_others_leave(
    database: Target,
) -> None:
    """On a three-player last turn, two seats time out a third time in a row and leave; the
    third, late only once, is the one player still in, and wins."""
    clock = Clock()
    o = await orchard(database, clock)
    live = await _to_applejack_last_turn(o, [1, 2, 3])
    await _missed_twice(database, live.id, [0, 1])
    clock.now += 301
    assert await o.scheduler.run_due() == 1
    live = await o.runner.load(live.id)
    assert live.row.status == "finished"
    assert [r.won for r in o.runner.engine("applejack").results(live.state)] == [
        False,
        False,
        True,
    ]
    assert await o.runner.replay(live.id) == live.state
    await o.close()


async def test_a_game_is_only_played_from_its_own_server(database: Target) -> None:
    o = await orchard(database)
    live = await started(o, "cheerio", [1])
    with pytest.raises(Refusal, match="another server"):
        await o.runner.act(live.id, 1, "roll", version=0, guild_id=GUILD + 1)
    await o.runner.act(live.id, 1, "roll", version=0, guild_id=GUILD)
    await o.close()


async def test_what_a_move_returns_is_what_was_stored(database: Target) -> None:
    """The runner shows the game it built from its commit: it must equal a fresh load."""
    from dataclasses import replace

    clock = Clock()
    o = await orchard(database, clock)
    live = await started(o, "cheerio", [1, 2])
    clock.now += 301
    await o.scheduler.run_due()  # seat 0 times out: a timeout count to carry
    live = await o.runner.load(live.id)
    for step in range(40):
        seat = live.state.turn
        if live.row.status != "active":
            break
        user = seat + 1
        kind, arg = ("roll", "") if step % 4 else ("score", _first_open(live))
        try:
            returned = await o.runner.act(live.id, user, kind, arg, version=live.row.version)
        except Refusal:
            returned = await o.runner.act(
                live.id, user, "score", _first_open(live), version=live.row.version
            )
        stored = await o.runner.load(live.id)
        assert replace(returned.row, updated_at=0.0) == replace(stored.row, updated_at=0.0)
        assert returned.state == stored.state
        live = stored
    await o.close()


async def test_two_lobbies_opened_at_the_same_moment_respect_the_channel_limit(
    database: Target,
) -> None:
    o = await orchard(database)
    for hosts in ([1, 2], [3, 3]):  # two people, then one person pressing twice
        opens = [o.lobby.open("cheerio", GUILD, CHANNEL + hosts[0], player(h)) for h in hosts]
        outcomes = await asyncio.gather(*opens, return_exceptions=True)
        refused = [x for x in outcomes if isinstance(x, Exception)]
        assert len(refused) == 1 and isinstance(refused[0], Refusal), outcomes
        assert len(await o.store.open_games(GUILD, CHANNEL + hosts[0], "cheerio")) == 1
    other_kind = await o.lobby.open("hotscore", GUILD, CHANNEL + 1, player(1))
    assert other_kind.row.status == "lobby", "the limit is per game kind"
    await o.close()


async def test_a_lobby_expires_15_minutes_after_the_last_join(database: Target) -> None:
    clock = Clock()
    o = await orchard(database, clock)
    live = await o.lobby.open("cheerio", GUILD, CHANNEL, player(1))
    clock.now += 10 * 60
    await o.lobby.join(live.id, player(2))
    clock.now += 10 * 60  # 20 minutes after opening, 10 after the join
    assert await o.scheduler.run_due() == 0
    assert (await o.runner.load(live.id)).row.status == "lobby"
    clock.now += 5 * 60 + 1
    assert await o.scheduler.run_due() == 1
    assert (await o.runner.load(live.id)).row.status == "cancelled"
    await o.close()


async def test_game_locks_do_not_pile_up(database: Target) -> None:
    """A lock lives while a move holds or awaits it: 30 games played leave none behind."""
    import gc

    o = await orchard(database)
    for n in range(30):
        live = await o.lobby.open("cheerio", GUILD, CHANNEL + n, player(1))
        await o.lobby.start(live.id, 1)
        await o.runner.act(live.id, 1, "roll", version=0)
    gc.collect()
    assert len(o.runner._locks) == 0 and len(o.lobby._opening) == 0
    await o.close()


async def _to_apple_jack_last_turn(o, game_id: int):
    """Play an Apple Jack game on (everyone holds, the caller calls) to a round's last turn."""
    from bot.games.applejack import open_categories

    live = await o.runner.load(game_id)
    while live.state.phase != "solo":
        state = live.state
        (seat,) = o.runner.engine("applejack").to_act(state)
        kind, arg = ("call", open_categories(state)[0]) if state.phase == "call" else ("hold", "")
        live = await o.runner.act(game_id, seat + 1, kind, arg, version=live.row.version)
    return live


async def test_side_by_side_seats_may_click_a_board_another_of_them_just_moved(
    database: Target,
) -> None:
    """Apple Jack's last turn: both reroll from the same board; a double click is still one."""
    o = await orchard(database)
    live = await _to_apple_jack_last_turn(o, (await started(o, "applejack", [1, 2])).id)
    drawn = live.row.version
    assert o.runner.engine("applejack").to_act(live.state) == {0, 1}
    await o.runner.act(live.id, 1, "reroll", "01", version=drawn)
    await o.runner.act(live.id, 2, "reroll", "234", version=drawn)  # same board: it stands
    with pytest.raises(Stale, match="already played"):
        await o.runner.act(live.id, 2, "reroll", "234", version=drawn)  # a double click
    after = await o.runner.load(live.id)
    assert after.row.version == drawn + 2 and after.state.rerolls == (1, 1)
    assert await o.runner.replay(live.id) == after.state
    await o.close()


async def test_a_board_from_before_side_by_side_play_is_still_stale(database: Target) -> None:
    """A click drawn while only the caller was awaited does not become valid later."""
    o = await orchard(database)
    game = await started(o, "applejack", [1, 2])
    live = await _to_apple_jack_last_turn(o, game.id)
    with pytest.raises(Stale, match="Another player has changed the game"):
        await o.runner.act(live.id, 2, "reroll", "0", version=live.row.version - 1)
    await o.close()


async def test_a_game_stuck_showing_its_board_holds_up_no_other_deadline(database: Target) -> None:
    """Due games fire side by side: while one game's board hangs (a rate-limited channel),
    another server's timeout is committed and shown at once."""
    clock = Clock()
    o = await orchard(database, clock)
    stuck = await started(o, "cheerio", [1, 2])
    other = await o.lobby.open("cheerio", GUILD + 1, CHANNEL + 1, player(3))  # its own channel
    other = await o.lobby.start(other.id, 3)
    release = asyncio.Event()
    shown: list[int] = []

    async def board(snapshot) -> None:
        if snapshot.id == stuck.id:
            await release.wait()
        shown.append(snapshot.id)

    o.runner.board = board
    clock.now += 301
    firing = asyncio.create_task(o.scheduler.run_due())
    await asyncio.wait_for(_until(lambda: other.id in shown), 5)
    assert stuck.id not in shown and not firing.done()
    assert (await o.runner.load(other.id)).row.version == 1, "the other timeout is committed"
    release.set()
    assert await firing == 2
    await o.close()


async def _until(predicate) -> None:
    while not predicate():
        await asyncio.sleep(0.01)


async def test_displays_wait_for_no_lock_and_an_overtaken_version_is_known(
    database: Target,
) -> None:
    """A game's lock covers load, apply and commit only: while its board is still being drawn
    (a slow channel), the next changes commit. Their displays follow in write order, and each
    knows whether a newer write has overtaken it, so a board draws only the latest."""
    o = await orchard(database)
    lobby = await o.lobby.open("cheerio", GUILD, CHANNEL, player(1))
    release = asyncio.Event()
    drawn: list[tuple[int, bool]] = []

    async def board(snapshot) -> None:
        if not drawn:
            await release.wait()
        drawn.append((len(snapshot.row.players), o.runner.outdated(snapshot)))

    o.runner.board = board
    first = asyncio.create_task(o.lobby.join(lobby.id, player(2)))
    await _until(lambda: len(o.runner._writes) > 0)
    later = [asyncio.create_task(o.lobby.join(lobby.id, player(u))) for u in (3, 4)]
    await _until(lambda: o.runner._writes[lobby.id] == 3)  # committed while the board hangs
    assert drawn == [] and not first.done()
    release.set()
    await asyncio.gather(first, *later)
    assert drawn == [(2, True), (3, True), (4, False)], "in write order; only 4 seats is news"
    assert len((await o.runner.load(lobby.id)).row.players) == 4
    await o.close()


async def test_a_join_that_keeps_the_version_is_not_taken_for_drawn(database: Target) -> None:
    """A stale click redraws the game unless its latest is already drawn (``drawn``). A join
    keeps the version, so the lobby drawn before it must not pass for the one after: a join
    whose edit failed is drawn again."""
    o = await orchard(database)
    lobby = await o.lobby.open("cheerio", GUILD, CHANNEL, player(1))
    await o.lobby.join(lobby.id, player(2))
    assert o.runner.drawn(await o.runner.load(lobby.id))

    async def failing(snapshot: Any) -> None:
        raise ConnectionError("Discord is down")

    o.runner.board = failing
    await o.lobby.join(lobby.id, player(3))  # written; its edit failed (logged)
    joined = await o.runner.load(lobby.id)
    assert joined.row.version == 0 and not o.runner.drawn(joined)
    await o.close()


async def test_due_games_are_written_in_one_batch_but_a_game_being_moved_waits(
    database: Target,
) -> None:
    """After downtime many games are due at once: they are written together, each as its
    own timeout would be (and replaying equal); a game whose lock is taken is left to fire
    on its own, after the move in progress."""
    clock = Clock()
    o = await orchard(database, clock)
    games = [
        await o.lobby.start((await o.lobby.open("cheerio", GUILD, CHANNEL + i, player(i))).id, i)
        for i in range(1, 6)
    ]
    clock.now += 301
    busy = games[0].id
    async with o.runner.lock(busy):
        fresh, left = await o.runner.expire_many([g.id for g in games])
    assert left == [busy]
    assert sorted(s.id for s in fresh) == [g.id for g in games[1:]]
    for game in games[1:]:
        stored = await o.runner.load(game.id)
        assert stored.row.version == 1 and stored.row.players[0].timeouts == 1
        assert stored.state == await o.runner.replay(game.id)
    assert (await o.runner.load(busy)).row.version == 0
    assert await o.scheduler.run_due() == 1, "the game left out fires on its own"
    await o.close()


async def test_a_batch_with_a_failed_guard_writes_nothing(database: Target) -> None:
    """One change whose guard fails (its game moved on) rolls the whole batch back."""
    clock = Clock()
    o = await orchard(database, clock)
    a = await started(o, "cheerio", [1])
    b = await o.lobby.start((await o.lobby.open("cheerio", GUILD, CHANNEL + 1, player(2))).id, 2)
    clock.now += 301
    plans = []
    for game in (a, b):
        snapshot = await o.runner.load(game.id)
        planned = await o.runner._expiry(snapshot)
        assert planned is not None
        plans.append(planned[0])
    await o.runner.act(b.id, 2, "roll")  # b moves on: its planned change is stale
    assert not await o.store.write_many(plans)
    assert (await o.runner.load(a.id)).row.version == 0, "a was rolled back with b"
    await o.close()


def _shown(o: Table, game_id: int, version: int) -> bool:
    return any(s.id == game_id and s.row.version == version for s in o.shown.shown)


async def test_a_deadline_loop_whose_reads_fail_pauses_then_fires_once_they_work(
    database: Target, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """While the reads that find due games fail (disk I/O, a locked file, a dropped
    connection) each failed pass is logged with its traceback and the next follows after a
    pause that grows, not at once and not never: the deadline fires as soon as they work."""
    monkeypatch.setattr(scheduler, "FAILED_PASS_RETRY", 0.05)
    clock = Clock()
    o = await orchard(database, clock)
    live = await started(o, "cheerio", [1, 2])
    clock.now += 301
    tries = 0

    def failing(*args: Any) -> Any:
        nonlocal tries
        tries += 1
        raise sqlite3.OperationalError("disk I/O error")

    with monkeypatch.context() as broken:
        broken.setattr(o.store, "due_games", failing)  # one process: due games are read
        broken.setattr(o.store, "claim", failing)  # a shared store: they are claimed
        o.scheduler.start()
        await asyncio.sleep(0.5)  # passes at 0, 0.05, 0.15 and 0.35 s
    assert 1 <= tries <= 6, f"{tries} passes in half a second"
    await asyncio.wait_for(_until(lambda: _shown(o, live.id, 1)), 5)
    failed = [r for r in caplog.records if r.name == "bot.scheduler" and r.exc_info]
    assert failed and all(r.levelno >= logging.ERROR for r in failed)
    await o.close()


async def test_a_game_that_can_neither_fire_nor_be_put_off_holds_up_no_other(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk: a due game's timeout fails, and so does putting it off a minute. The
    other due game fires all the same; the loop pauses before trying again rather than
    spin on the game still due, and fires it once writes work."""
    monkeypatch.setattr(scheduler, "FAILED_PASS_RETRY", 0.05)
    clock = Clock()
    o = await orchard(database, clock)
    stuck = await started(o, "cheerio", [1])
    other = await o.lobby.start(
        (await o.lobby.open("cheerio", GUILD, CHANNEL + 1, player(2))).id, 2
    )
    clock.now += 301
    real_expiry, tries = o.runner._expiry, 0

    async def expiry(snapshot: Any) -> Any:
        if snapshot.id == stuck.id:
            raise sqlite3.OperationalError("database or disk is full")
        return await real_expiry(snapshot)

    async def postpone(*args: Any) -> None:  # once a pass
        nonlocal tries
        tries += 1
        raise sqlite3.OperationalError("database or disk is full")

    with monkeypatch.context() as full:
        full.setattr(o.runner, "_expiry", expiry)
        full.setattr(o.runner, "postpone", postpone)
        o.scheduler.start()
        await asyncio.wait_for(_until(lambda: _shown(o, other.id, 1)), 5)
        await asyncio.sleep(0.5)
    assert 1 <= tries <= 6, f"{tries} passes in half a second"
    await asyncio.wait_for(_until(lambda: _shown(o, stuck.id, 1)), 5)
    await o.close()


async def test_a_deadline_committed_while_the_loop_reads_the_next_one_wakes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loop reads the soonest deadline on a reader's thread; a game started meanwhile
    (after the read's snapshot, so the read misses it) still wakes the loop, which then
    waits for that game's deadline, not for a later one or MAX_SLEEP. (One process only:
    on a shared store the loop looks again every SHARED_POLL seconds anyway.)"""
    clock = Clock()
    o = await orchard(tmp_path / "o.db", clock)
    a = await started(o, "cheerio", [1, 2])  # due at +300, then at +601 once timed out
    other = GUILD + 1
    await o.runner.settings.update(other, turn_seconds=30)
    b = await o.lobby.open("cheerio", other, CHANNEL, player(3))  # a lobby: due at +900
    real, reads, b_due = o.store.next_due, 0, 0.0

    async def next_due(due: Any) -> float | None:
        nonlocal reads, b_due
        reads += 1
        found = await real(due)
        if reads == 2:  # the read has its answer: B starts before the loop sees it
            b_due = (await o.lobby.start(b.id, 3)).row.deadline or 0.0
        return found

    monkeypatch.setattr(o.store, "next_due", next_due)
    o.scheduler.start()
    await asyncio.wait_for(_until(lambda: o.scheduler._next == a.row.deadline), 5)
    clock.now += 301
    o.scheduler.wake()  # A times out; B starts during the read after it
    await asyncio.wait_for(_until(lambda: b_due > 0), 5)
    assert b_due == clock.now + 30
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(_until(lambda: o.scheduler._next == b_due), 2)
    nxt = o.scheduler._next
    assert nxt == b_due, f"the loop next wakes at {nxt}, B is due at {b_due}"
    await o.close()


async def test_a_display_reads_the_stored_revision_only_where_processes_share_the_store(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One process (SQLite) knows from its own writes which version is news: a display costs
    no read. On a shared store a board edit reads the stored revision before (is it still
    news?) and after (did another process write meanwhile?), a click's reply after only."""
    o = await orchard(database)
    live = await started(o, "cheerio", [1])
    reads: list[int] = []
    stored_revision = o.store.revision

    async def counted(game_id: int) -> int | None:
        reads.append(game_id)
        return await stored_revision(game_id)

    monkeypatch.setattr(o.store, "revision", counted)
    await o.runner.act(live.id, 1, "roll", version=0)  # shown on the board
    await o.runner.act(live.id, 1, "roll", version=1, display=Recorder())  # a click's reply
    assert len(reads) == (3 if o.store.shared else 0)
    await o.close()


async def test_a_move_starts_from_the_game_as_committed_where_one_process_writes(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On SQLite only this process writes, so the game it last committed is the stored one:
    a move reads nothing first. On a shared store each move reads the game inside its lock."""
    o = await orchard(database)
    live = await started(o, "cheerio", [1])
    reads: list[int] = []
    read_game = games.get_game

    async def counted(db: Any, game_id: int) -> GameRow | None:
        reads.append(game_id)
        return await read_game(db, game_id)

    monkeypatch.setattr(games, "get_game", counted)
    live = await o.runner.act(live.id, 1, "hold", "0", version=0)
    live = await o.runner.act(live.id, 1, "roll", version=1)
    assert len(reads) == (2 if o.store.shared else 0)
    stored = await o.runner.load(live.id)
    assert stored.state == live.state and stored.state.held[0] and stored.state.rolls == 2
    assert (stored.row.version, stored.row.players) == (live.row.version, live.row.players)
    await o.close()


async def test_a_move_reads_no_settings_where_one_process_writes_and_few_on_a_shared_store(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move's deadline comes from its server's turn time. On SQLite the settings read once
    stay right (this process makes every change); on a shared store another process may
    change them, so they are read again once SHARED_KEPT_SECONDS old, and not on every move."""
    clock = Clock()
    o = await orchard(database, clock)
    live = await started(o, "cheerio", [1])  # the lobby read the settings
    reads: list[int] = []
    stored = o.store.guild_settings

    async def counted(guild_id: int) -> dict[str, Any]:
        reads.append(guild_id)
        return await stored(guild_id)

    monkeypatch.setattr(o.store, "guild_settings", counted)
    live = await o.runner.act(live.id, 1, "roll", version=0)
    live = await o.runner.act(live.id, 1, "hold", "0", version=1)
    assert reads == []
    clock.now += SHARED_KEPT_SECONDS
    live = await o.runner.act(live.id, 1, "roll", version=2)
    live = await o.runner.act(live.id, 1, "score", _first_open(live), version=3)
    assert reads == ([GUILD] if o.store.shared else [])
    assert live.row.deadline == clock.now + 300
    await o.close()


async def test_settings_read_while_they_are_changed_are_not_kept(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read of a server's settings that began before a /settings change returns the old
    ones; they must not be kept over the change, or moves here would set deadlines with the
    old turn time (on SQLite until the bot restarts)."""
    o = await orchard(database)
    stored = o.store.guild_settings
    go = asyncio.Event()

    async def slow(guild_id: int) -> dict[str, Any]:
        found = await stored(guild_id)
        await go.wait()  # read, not yet returned: the change lands meanwhile
        return found

    monkeypatch.setattr(o.store, "guild_settings", slow)
    reading = asyncio.create_task(o.runner.settings.get(GUILD))
    await asyncio.sleep(0.05)
    monkeypatch.setattr(o.store, "guild_settings", stored)
    await o.runner.settings.update(GUILD, turn_seconds=60)
    go.set()
    assert (await reading).turn_seconds == 300, "the read began before the change"
    assert await o.runner.settings.turn_seconds(GUILD) == 60
    await o.close()


async def test_a_game_written_behind_the_runners_back_is_never_written_over(
    tmp_path: Path,
) -> None:
    """What the runner remembers is only where a move starts: if the stored game moved on
    without it, the guarded write refuses the move, and the next one starts from the store."""
    o = await orchard(tmp_path / "o.db")
    live = await started(o, "cheerio", [1])
    live = await o.runner.act(live.id, 1, "roll", version=0)
    engine = o.runner.engine("cheerio")
    theirs = engine.apply(live.state, engine.parse(0, "hold", "0"))
    assert await o.store.write(  # as another writer would: the game's version 2
        GameChange(
            live.id,
            from_status=GameStatus.ACTIVE,
            expected_version=1,
            version=2,
            state=engine.dump(theirs),
            moves=(Move(0, "hold", "0", 1),),
        )
    )
    with pytest.raises(Stale):
        await o.runner.act(live.id, 1, "hold", "1")  # played on version 1: refused
    after = await o.runner.act(live.id, 1, "hold", "1")
    assert after.row.version == 3 and after.state.held[:2] == (True, True)
    assert [m.arg for m in await o.store.moves(live.id)] == ["", "0", "1"]
    await o.close()


async def test_writes_that_are_not_moves_are_read_back_by_the_next_move(tmp_path: Path) -> None:
    """The hint mark is written, not remembered: the move after it reads the game (and keeps
    the mark). A purge deletes games behind the runner: a click on one finds it gone."""
    o = await orchard(tmp_path / "o.db")
    live = await started(o, "cheerio", [1])
    await o.runner.mark_hinted(live.id)
    live = await o.runner.act(live.id, 1, "roll", version=0)
    assert live.row.hinted
    await o.store.guild_left(GUILD, when=1000.0)
    o.orchard.leader.leading = True  # the only process: it leads (as its start would make it)
    assert await o.orchard.purge_departed(before=2000.0) == [GUILD]
    with pytest.raises(Refusal, match="no longer exists"):
        await o.runner.act(live.id, 1, "roll", version=1)
    await o.close()


async def test_a_write_whose_commit_fails_does_not_outdate_the_version_before_it(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write counts (overtakes the versions before it) only once committed. Its COMMIT
    failing (here a deferred foreign key, checked only then; a lost connection alike), the
    version before it, whose display was queued meanwhile, is still the latest and is drawn,
    and the game plays on from it. On a shared store the COMMIT comes at the end of the held
    transaction, after the write; on SQLite the group commit fails the write itself."""
    from db import session
    from tests.databases import written

    o = await orchard(database)
    live = await started(o, "cheerio", [1])
    async with written(database) as tx:
        await tx.execute(  # a foreign key checked at COMMIT only
            "CREATE TABLE tripwire"
            " (game INTEGER REFERENCES games (id) DEFERRABLE INITIALLY DEFERRED)"
        )
    drawn: list[int] = []

    async def board(snapshot) -> None:
        if not o.runner.outdated(snapshot):  # as Boards.display: an overtaken version is not
            drawn.append(snapshot.row.version)

    o.runner.board = board
    write_change = session.write_change

    async def tripped(tx: Any, change: GameChange, now: float) -> bool:
        done = await write_change(tx, change, now)
        await tx.execute("INSERT INTO tripwire (game) VALUES (?)", (-1,))  # no such game
        return done

    async with o.runner.showing(live.id):  # an earlier display of the game is in flight
        first = asyncio.create_task(o.runner.act(live.id, 1, "roll", version=0))
        await asyncio.wait_for(_until_stored(o, live.id, 1), 5)
        monkeypatch.setattr(session, "write_change", tripped)
        with pytest.raises(Exception, match=r"(?i)foreign key"):
            await o.runner.act(live.id, 1, "hold", "0", version=1)
        monkeypatch.setattr(session, "write_change", write_change)
    await first
    assert (await o.runner.load(live.id)).row.version == 1, "nothing of the failed write"
    assert drawn == [1], "the last committed version is drawn"
    after = await o.runner.act(live.id, 1, "hold", "0", version=1)
    assert after.row.version == 2 and drawn == [1, 2]
    assert after.state == await o.runner.replay(live.id)
    await o.close()


async def _until_stored(o: Any, game_id: int, version: int) -> None:
    while (await o.runner.load(game_id)).row.version != version:
        await asyncio.sleep(0.01)


async def test_a_game_over_and_shown_leaves_nothing_behind_in_the_runner(
    database: Target,
) -> None:
    """What the runner keeps per game (the writes it committed, the message it posted, the
    version it drew) serves the displays to come: once a game is over (finished, abandoned,
    cancelled, expired) and its last version shown, nothing is written to it again, and it
    goes, or a process would keep some of every game it ever played. A version written
    before the end but shown after it is still outdated; a click on an old board is told
    the game is over."""
    from bot.lobby import LOBBY_SECONDS
    from tests.support import finish_cheerio

    clock = Clock()
    o = await orchard(database, clock)
    drawn: list[int] = []

    async def board(snapshot) -> None:
        if not o.runner.outdated(snapshot):  # as Boards.display
            drawn.append(snapshot.id)

    o.runner.board = board

    async def lobby(n: int) -> int:
        opened = await o.lobby.open("cheerio", GUILD, CHANNEL + n, player(1))
        await o.runner.record_message(opened.id, 10_000 + n)  # its message, announced
        return opened.id

    await lobby(0)
    clock.now += LOBBY_SECONDS + 1
    assert await o.scheduler.run_due() == 1, "the lobby nobody started expired"
    cancelled = await lobby(1)
    await o.lobby.cancel(cancelled, 1)
    finished = await lobby(2)
    await o.lobby.start(finished, 1)
    await finish_cheerio(o, finished, {0: 1})
    ended = await lobby(3)
    await o.lobby.start(ended, 1)
    clock.now += 301
    before_end = await o.runner.expire(ended)  # written; its display comes after the end's
    assert before_end is not None
    await o.runner.abandon(ended)  # a moderator's /end

    kept = (o.runner._writes, o.runner._messages, o.runner._drawn, o.runner._committed)
    assert [len(k) for k in kept] == [0, 0, 0, 0], f"kept for 4 games over: {kept}"
    drawn.clear()
    assert o.runner.outdated(before_end)
    await o.runner.display_in_order(before_end)
    assert drawn == [] and [len(k) for k in kept] == [0, 0, 0, 0]
    with pytest.raises(Refusal, match="over"):
        await o.runner.act(ended, 1, "roll", version=0)
    with pytest.raises(Refusal, match="closed"):
        await o.lobby.join(cancelled, player(2))
    assert (await o.runner.load(finished)).row.status == "finished"
    await o.close()
