"""Reviews of Hot Score (round-win chance given up) and Appletters (the longest word then)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from string import ascii_lowercase
from typing import Any

import pytest

from bot.ai import appletters_review, hotscore_review
from bot.ai.appletters_players import choose as appletters_choose
from bot.ai.hotscore_players import choose as hotscore_choose
from bot.ai.hotscore_players import option_values
from bot.games import appletters, hotscore
from bot.games.appletters import Pick
from bot.games.hotscore import Throw
from bot.model import Move
from bot.reviews import MESSAGE_LIMIT, pages, review_text
from db.connection import Target
from tests.support import orchard, started


def hotscore_game(levels: list[str], seed: int = 5) -> list[Move]:
    engine = hotscore.ENGINE
    state = engine.new(seed, 2, {})
    moves = []
    while not engine.is_over(state):
        seat = min(engine.to_act(state))
        action = hotscore_choose(state, seat, levels[seat], 0)
        moves.append(Move(seat, *engine.format(action)))
        state = engine.apply(state, action)
    return moves


def test_hard_gives_up_no_round_win_chance_and_easy_does() -> None:
    moves = hotscore_game(["easy", "hard"])
    hard = hotscore_review.review(5, 2, {}, moves, 1)
    easy = hotscore_review.review(5, 2, {}, moves, 0)
    assert hard and all(d.cost == 0 for d in hard)
    costly = [d for d in easy if d.cost > 0]
    assert costly and all(d.chose == "stick" and d.best == "bonus" for d in costly)


def test_a_decisions_cost_is_the_gap_between_its_options() -> None:
    """Answering a 7 (HOT) with 2 and 3 (a 5, FAR): sticking loses for sure (0%), the Bonus Die
    can still make a HOT or force a challenge, so throwing it is worth its exact chance."""
    values = option_values(Throw((3, 4)), (2, 3))
    assert values["stick"] == 0.0 and values["bonus"] > 0
    text = hotscore_review.review_text("hotscore", 5, 2, {}, hotscore_game(["easy", "hard"]), 0)
    assert text.startswith("**Your review**") and "percentage points" in text


def appletters_game(kind_engine: appletters.AppLettersEngine) -> list[Move]:
    state = kind_engine.new(5, 2, {})
    moves = []
    for n in range(200):
        if kind_engine.is_over(state):
            break
        seat = min(kind_engine.to_act(state))
        action = appletters_choose(kind_engine.view_for(state, seat), seat, "hard", n)
        moves.append(Move(seat, *kind_engine.format(action)))
        state = kind_engine.apply(state, action)
    return moves


def test_the_longest_word_is_found_from_the_players_own_tiles_only() -> None:
    """Whatever another seat holds, the answer is the same: only the asker's view is read."""
    engine = appletters.ENGINE
    state = engine.new(11, 2, {})
    mine = appletters_review.longest_word(state, 0)
    other = replace(state, hands=(state.hands[0], "QQQQQQQ"))
    assert mine is not None and appletters_review.longest_word(other, 0) == mine
    assert set(mine) <= set(state.hands[0].upper())


def test_appletters_review_lists_each_of_the_players_turns() -> None:
    engine = appletters.TURNOVER_ENGINE
    moves = appletters_game(engine)
    turns = appletters_review.review(engine.kind, 5, 2, {}, moves, 0)
    mine = [m for m in moves if m.seat == 0 and m.verb in ("play", "turnover", "pick", "badapple")]
    assert len(turns) == len(mine) > 0
    assert all(t.longest is None or len(t.longest) >= 2 for t in turns)
    text = appletters_review.review_text(engine.kind, 5, 2, {}, moves, 0)
    assert "Turn 1:" in text and len(text) <= 2000


@pytest.mark.parametrize("seat", [0, 1])
def test_a_hotscore_review_names_only_the_seats_own_rounds(seat: int) -> None:
    moves = hotscore_game(["hard", "hard"], seed=9)
    decisions = hotscore_review.review(9, 2, {}, moves, seat)
    assert len(decisions) == sum(
        1 for m in moves if m.seat == seat and m.verb in ("stick", "bonus", "sign")
    )


_WORD_TEXT = """apple apples eat eats eaten the ant tea toot ten net at pa ta dog god pear
staple elephant noon era"""
WORDS = frozenset(_WORD_TEXT.split())


def after_eat(hand: str) -> appletters.AppState:
    """Seat 0 has laid EAT flat (open ends E and T); seat 1, holding ``hand``, is to play."""
    state = appletters.ENGINE.new(1, 2, {"words": WORDS})
    state = replace(state, hands=("AETZ", "".join(sorted(hand))), core="", turn=0)
    state = appletters.ENGINE.apply(state, appletters.Play(0, "EAT"))
    assert state.turn == 1 and [w.text for w in state.snake] == ["EAT"]
    return state


@pytest.mark.parametrize(
    ("hand", "longest"),
    [
        # Through E or T, AELNPPST spells AT, TA, ANT, NET, TEA, TEN, EATS, APPLE, EATEN and
        # STAPLE (ending on the E); ELEPHANT lacks an H, APPLES hooks to neither end.
        ("AELNPPST", "STAPLE"),
        # Without the S the longest are APPLE and EATEN, five letters each: alphabetical first.
        ("AELNPPT", "APPLE"),
        # With an H, ELEPHANT (beginning on the E, or ending on the T) is the longest.
        ("AEHLNPPST", "ELEPHANT"),
        # Nothing in the list hooks onto E or T with these.
        ("DGOO", None),
    ],
)
def test_the_longest_word_the_askers_tiles_could_lay(hand: str, longest: str | None) -> None:
    assert appletters_review.longest_word(after_eat(hand), 1) == longest


ROUND_ONE = [Move(0, "throw"), Move(0, "stick"), Move(1, "throw"), Move(1, "bonus")]


def test_a_sign_decision_and_its_cost_by_hand() -> None:
    """Seed 58, round 1: the starter sticks on 6 5 (11, HOT). The answer's 3 1 (4, FAR)
    sticking loses (HOT beats FAR): 0. Its Bonus Die can only save the round by making the
    other HOT number, 7 (a forced challenge, half a win): 4 + 3, one face in six, so the
    Bonus Die is worth 1/6 * 1/2 = 1/12; any other three dice lose to two. The die shows 3:
    + makes 7 (1/2), - makes 1 (lost, 0), so taking it away gives up 1/2: 50 points."""
    state = hotscore.ENGINE.new(58, 2, {})
    for move in ROUND_ONE:
        state = hotscore.ENGINE.apply(state, hotscore.ENGINE.parse(move.seat, move.verb, move.arg))
    assert state.throws[0] == Throw((6, 5)) and state.throws[1] == Throw((3, 1, 3))
    bonus, sign = hotscore_review.review(58, 2, {}, [*ROUND_ONE, Move(1, "sign", "-")], 1)
    assert (bonus.round, bonus.dice, bonus.chose, bonus.best) == (1, (3, 1), "bonus", "bonus")
    assert bonus.chance == pytest.approx(1 / 12, abs=1e-12) and bonus.cost == 0
    assert (sign.round, sign.dice, sign.chose, sign.best) == (1, (3, 1, 3), "-", "+")
    assert sign.chance == 0 and sign.cost == pytest.approx(0.5, abs=1e-12)
    stuck = hotscore_review.review(58, 2, {}, [*ROUND_ONE[:3], Move(1, "stick")], 1)
    assert [(d.chose, d.best, d.chance) for d in stuck] == [("stick", "bonus", 0.0)]
    assert stuck[0].cost == pytest.approx(1 / 12, abs=1e-12)
    text = hotscore_review.review_text("hotscore", 58, 2, {}, [*ROUND_ONE, Move(1, "sign", "-")], 1)
    assert "gave up 50 percentage points" in text
    assert (
        "Round 1, dice 3 1 3: you chose to take the Bonus Die away (0% to win the round); "
        "add the Bonus Die gave 50%" in text
    )


async def test_a_hotscore_review_leaves_out_the_moves_the_clock_made(database: Target) -> None:
    """The starter's time runs out, so Orchard throws and sticks for them: that stick is no
    choice of theirs, so their review does not say "you chose to stick", and counts it apart.
    Both then play Easy (always stick) until the game ends."""
    o = await orchard(database)
    live = await started(o, "hotscore", [1, 2])
    late, users = live.state.turn, {0: 1, 1: 2}
    o.clock.now += 3600
    live = await o.runner.expire(live.id) or live
    assert [m.verb for m in await o.store.moves(live.id)] == ["throw", "stick"]
    while live.row.status == "active":
        seat = min(hotscore.ENGINE.to_act(live.state))
        action = hotscore_choose(live.state, seat, "easy", 0)
        live = await o.runner.act(live.id, users[seat], *hotscore.ENGINE.format(action))
    text = await review_text(o.store, live, users[late])
    sticks = sum(1 for m in await o.store.moves(live.id) if m.seat == late and m.verb == "stick")
    reviewed = sticks - 1  # the clock's stick left out; the dice decide whether each was best
    first = text.splitlines()[0]
    forms = (f" of {reviewed} decisions w", f"All {reviewed} of your decisions were")
    assert any(form in first for form in forms) or (reviewed == 1 and "one decision" in first)
    assert (
        text.splitlines()[1]
        == "Not reviewed: 1 move the clock made for you when your time ran out."
    )
    await o.close()


async def test_a_review_pressed_over_and_over_is_computed_once(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finished game never changes: its players' reviews are computed once each, however
    often Review is pressed (at once, or later), so nobody can fill the threads every server's
    boards and Orchard's moves are made in."""
    from bot.specs import SPEC_OF

    o = await orchard(database)
    live = await started(o, "hotscore", [1, 2])
    users = {0: 1, 1: 2}
    while live.row.status == "active":
        seat = min(hotscore.ENGINE.to_act(live.state))
        action = hotscore_choose(live.state, seat, "easy", 0)
        live = await o.runner.act(live.id, users[seat], *hotscore.ENGINE.format(action))
    spec = SPEC_OF["hotscore"]
    assert spec.review is not None
    computed: list[int] = []
    review = spec.review

    def counted(*args: Any) -> str:
        computed.append(args[-1])
        return review(*args)

    monkeypatch.setitem(SPEC_OF, "hotscore", replace(spec, review=counted))
    first = await asyncio.gather(*(review_text(o.store, live, 1) for _ in range(8)))
    assert len(set(first)) == 1 and await review_text(o.store, live, 1) == first[0]
    await review_text(o.store, live, 2)
    assert sorted(computed) == [0, 1]
    await o.close()


def test_a_hotscore_reviews_summary_reads_right_for_one_none_or_all_best() -> None:
    """Seed 58: the starter (seat 0) sticks on 6 5 (11, HOT), the best there was, and the
    other seat then leaves before deciding anything."""
    moves = [*ROUND_ONE[:2], Move(1, "forfeit")]
    assert hotscore_review.review_text("hotscore", 58, 2, {}, moves, 0) == (
        "**Your review** · Your one decision was the best there was."
    )
    assert hotscore_review.review_text("hotscore", 58, 2, {}, moves, 1) == (
        "You made no decision in this game: it ended before you had to stick or throw the "
        "Bonus Die."
    )
    stuck = hotscore_review.review_text(
        "hotscore", 58, 2, {}, [*ROUND_ONE[:3], Move(1, "stick")], 1
    )
    assert stuck.splitlines()[0] == (
        "**Your review** · Your one decision gave up 8 percentage points of round-win chance."
    )
    hard = hotscore_review.review_text("hotscore", 5, 2, {}, hotscore_game(["easy", "hard"]), 1)
    assert hard == "**Your review** · All 21 of your decisions were the best there was."
    assert hotscore_review.given_up(0.01) == "1 percentage point of round-win chance"


def test_the_hotscore_review_lists_every_decision_that_gave_something_up() -> None:
    """Easy always sticks: four of its eighteen decisions gave something up, listed in order
    after the three costliest. Round 1 by hand: the starter stuck on 1 6 (7, HOT); Easy's 4 5
    (9, FAR) lost sticking, while the Bonus Die's 2 would have made 11, the other HOT number
    (a forced challenge, half a win): 1/6 * 1/2 = 8%."""
    moves = hotscore_game(["easy", "hard"])
    decisions = hotscore_review.review(5, 2, {}, moves, 0)
    costly = [d for d in decisions if d.cost > 0]
    lines = hotscore_review.review_text("hotscore", 5, 2, {}, moves, 0).splitlines()
    assert len(decisions) == 18 and len(costly) == 4 and lines[0].startswith("**Your review** · 14")
    assert [line[:2] for line in lines[1:4]] == ["• "] * 3
    assert lines[4].startswith("Every decision that gave something up (4, in order;")
    assert [line.split(" · ")[:2] for line in lines[5:]] == [
        [f"Round {d.round}", " ".join(map(str, d.dice))] for d in costly
    ]
    assert lines[5] == "Round 1 · 4 5 · stick 0% → throw the Bonus Die 8% · −8 percentage points"
    assert costly[0].cost == pytest.approx(1 / 12, abs=1e-12)


def test_a_long_appletters_review_keeps_every_turn() -> None:
    """Every two-letter pairing is a word: both players pick until the core is empty, then lay
    one tile a turn (Hard), so the asker has 68 turns, over 2,000 characters of review. Each
    turn is there, in order, and the pages Discord is sent hold all of it."""
    options = {"words": [a + b for a in ascii_lowercase for b in ascii_lowercase]}
    engine = appletters.ENGINE
    state, moves = engine.new(3, 2, options), []
    for n in range(400):
        if engine.is_over(state):
            break
        seat = min(engine.to_act(state))
        view = engine.view_for(state, seat)
        action = Pick(seat) if state.core else appletters_choose(view, seat, "hard", n)
        moves.append(Move(seat, *engine.format(action)))
        state = engine.apply(state, action)
    text = appletters_review.review_text(engine.kind, 3, 2, options, moves, 0)
    lines = text.splitlines()
    turns = sum(1 for m in moves if m.seat == 0)
    assert engine.is_over(state) and turns == 68 and len(text) > MESSAGE_LIMIT
    assert [line.split(":")[0][2:] for line in lines[1:]] == [f"Turn {n}" for n in range(1, 69)]
    assert lines[-1].startswith("✓ Turn 68: ") and "\n".join(pages(text)) == text


@pytest.mark.parametrize(
    ("longest", "total", "said"),
    [
        (1, 1, "Your one turn laid the longest word your tiles could, or passed when none fitted."),
        (0, 1, "Your one turn missed a longer word."),
        (4, 4, "All 4 of your turns laid the longest word your tiles could, or passed when"),
        (1, 4, "1 of your 4 turns laid the longest word your tiles could, or passed when"),
    ],
)
def test_the_share_of_longest_words_reads_right_for_one_turn_or_all(
    longest: int, total: int, said: str
) -> None:
    assert appletters_review.longest_share(longest, total).startswith(said)
