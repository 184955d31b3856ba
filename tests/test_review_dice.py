"""Reviews of the dice games: the exact split, checked by hand where a turn allows it."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot import reviews
from bot.ai import applejack_review, cheerio_review
from bot.ai.applejack_players import choose as applejack_choose
from bot.ai.cheerio_players import easy as cheerio_easy
from bot.ai.cheerio_players import exact_tables
from bot.ai.cheerio_players import hard as cheerio_hard
from bot.ai.dice_review import DiceReview, best_share, dice_text
from bot.games import applejack, cheerio
from bot.games.base import daily_dice
from bot.model import FORFEIT_VERB, Move, MoveSource

DAY = 321
# A die held for ones that is not yet one becomes one within two rerolls with chance 11/36.
TWO_REROLLS = Fraction(11, 36)


def split_holds(review: DiceReview) -> None:
    """final = optimum + luck + others - choices - clock, to the last digit (Fractions, no
    tolerance)."""
    split = review.optimum + review.luck + review.others - review.choices - review.clock
    assert split == review.final


def scored_at_once(order: tuple[str, ...]) -> list[Move]:
    return [Move(0, "score", c) for c in order]


def test_cheerio_last_turn_costs_and_luck_by_hand() -> None:
    """Score every category on its first roll, ones last. The last turn, with only ones
    open: before its roll the turn is worth 5 * 91/216 + 5 * (91/216)^5 (each die ends a one
    with chance 91/216; five ones score double); with k ones showing and two rerolls left,
    k + (5-k) * 11/36 + 5 * (11/36)^(5-k); scoring k at once gives up the difference."""
    order = (*cheerio.CATEGORIES[1:], "ones")
    review = cheerio_review.review(7, 1, {"daily": DAY}, scored_at_once(order), 0)
    assert review is not None
    split_holds(review)
    ones = daily_dice("cheerio", DAY, 6, 0, 5).count(1)
    state = cheerio.ENGINE.new(7, 1, {"daily": DAY})
    for move in scored_at_once(order[:-1]):
        state = cheerio.ENGINE.apply(state, cheerio.ENGINE.parse(0, move.verb, move.arg))
    banked = cheerio.total(state.cards[0])
    start = 5 * Fraction(91, 216) + 5 * Fraction(91, 216) ** 5
    assert exact_tables().value(order[:-1]) == pytest.approx(float(start), abs=1e-12)
    shown = ones + (5 - ones) * TWO_REROLLS + 5 * TWO_REROLLS ** (5 - ones)
    last = review.decisions[-1]
    assert last.chose == f"score Ones ({ones})" and last.best == (
        f"keep {' '.join(['1'] * ones)} and reroll" if ones else "reroll all five"
    )
    assert float(last.cost) == pytest.approx(float(shown - ones), abs=1e-12)
    assert float(review.rolls[-1]) == pytest.approx(float(shown - start), abs=1e-12)
    assert sum(review.rolls, Fraction(0)) == review.luck
    assert review.final == banked + ones
    assert len(review.decisions) == 7 and review.best_choices < 7


def test_a_move_the_clock_made_is_the_clocks_not_the_players_choice() -> None:
    """Day 1's Cheerio played by Hard, but the last turn's time ran out and the clock scored
    ones at once on 2 3 3 4 6 (no one, two rerolls left): what that gave up, 5 * 11/36 +
    5 * (11/36)^5 (see the test below), is the clock's, not a choice of the player's. Hard's
    own choices cost nothing, so the accuracy is 100%, and the split still holds exactly."""
    *played, last = hard_then_ones_at_once()
    late = Move(0, last.verb, last.arg, None, MoveSource.TIMEOUT)
    review = cheerio_review.review(1, 1, {"daily": 1}, [*played, late], 0)
    assert review is not None
    split_holds(review)
    given_up = 5 * TWO_REROLLS + 5 * TWO_REROLLS**5
    assert review.late == 1 and float(review.clock) == pytest.approx(float(given_up), abs=1e-12)
    assert review.choices == 0 and review.accuracy == 100
    assert all(d.chose != "score Ones (0)" for d in review.decisions)
    text = dice_text(review)
    assert f" · the clock −{float(review.clock):.1f} = **{review.final}**" in text, text
    assert "your choices +0.0" in text and "-" not in text.split("\n")[0], "one minus sign"
    assert "Not weighed as your choices: 1 move made for you when your time ran out" in text
    assert "score ones" not in text.lower()
    mine = cheerio_review.review(1, 1, {"daily": 1}, [*played, last], 0)
    assert mine is not None and mine.late == 0 and mine.choices == review.clock


def test_an_apple_jack_move_the_clock_made_is_the_clocks() -> None:
    """Apple Jack's last hold made by the clock: booked to it, the split exact."""
    moves: list[Move] = []
    for category in applejack.CATEGORIES[1:]:
        moves += [Move(0, "hold"), Move(0, "call", category)]
    moves.append(Move(0, "hold", "", None, MoveSource.TIMEOUT))
    review = applejack_review.review(5, 1, {"daily": DAY}, moves, 0)
    assert review is not None
    split_holds(review)
    ones = daily_dice("applejack", DAY, 7, 0, 5).count(1)
    assert review.late == 1 and len(review.decisions) == 14
    assert float(review.clock) == pytest.approx(float((5 - ones) * TWO_REROLLS), abs=1e-12)


def test_cheerio_optimal_play_costs_nothing_and_scores_a_hundred() -> None:
    engine = cheerio.ENGINE
    state = engine.new(99, 1, {})
    moves = []
    while not engine.is_over(state):
        action = cheerio_hard(state, 0)
        moves.append(Move(0, *engine.format(action)))
        state = engine.apply(state, action)
    review = cheerio_review.review(99, 1, {}, moves, 0)
    assert review is not None
    split_holds(review)
    assert review.choices == 0 and review.accuracy == 100 and review.costliest() == []
    assert review.final == cheerio.total(state.cards[0])


def test_cheerio_every_seat_of_a_six_player_game_splits_exactly() -> None:
    engine = cheerio.ENGINE
    state = engine.new(2024, 6, {})
    moves = []
    while not engine.is_over(state):
        action = cheerio_easy(state, state.turn)
        moves.append(Move(action.seat, *engine.format(action)))
        state = engine.apply(state, action)
    reviews = cheerio_review.review_all(2024, 6, {}, moves)
    for seat, review in enumerate(reviews):
        assert review is not None
        split_holds(review)
        assert review.final == cheerio.total(state.cards[seat])
        assert review.optimum == reviews[0].optimum and review.others == 0
        worst = review.costliest()
        assert len(worst) == 3 and worst[0].cost >= worst[1].cost >= worst[2].cost > 0
        assert 0 <= review.accuracy < 100


def test_a_seat_that_left_has_no_review() -> None:
    moves = [Move(0, "score", "ones"), Move(1, FORFEIT_VERB)]
    assert cheerio_review.review(3, 2, {}, moves, 1) is None


def test_applejack_daily_last_turn_by_hand() -> None:
    """Apple Jack's ones have no bonus: with k ones and two rerolls left the last turn is worth
    k + (5-k) * 11/36, and holding at once gives up (5-k) * 11/36."""
    moves: list[Move] = []
    for category in applejack.CATEGORIES[1:]:
        moves += [Move(0, "hold"), Move(0, "call", category)]
    moves.append(Move(0, "hold"))
    review = applejack_review.review(5, 1, {"daily": DAY}, moves, 0)
    assert review is not None
    split_holds(review)
    ones = daily_dice("applejack", DAY, 7, 0, 5).count(1)
    last = review.decisions[-1]
    assert last.chose == "hold" and last.where == "round 1, turn 8, roll 1"
    assert float(last.cost) == pytest.approx(float((5 - ones) * TWO_REROLLS), abs=1e-12)
    assert review.others == 0 and len(review.decisions) == 15
    called = [d.chose.split(" (")[0] for d in review.decisions if d.chose != "hold"]
    assert called == [  # as the call menu and the board name them
        "call Twos",
        "call Threes",
        "call Fours",
        "call Fives",
        "call Sixes",
        "call Cheerio",
        "call Sum",
    ]


@pytest.mark.parametrize("players", [1, 3])
def test_applejack_games_split_exactly(players: int) -> None:
    engine = applejack.ENGINE
    options = {"daily": DAY} if players == 1 else {}
    levels = ["easy", "normal", "hard"]
    state = engine.new(8, players, options)
    moves = []
    while not engine.is_over(state):
        seat = min(engine.to_act(state))
        action = applejack_choose(state, seat, levels[seat], 0)
        moves.append(Move(seat, *engine.format(action)))
        state = engine.apply(state, action)
    for seat in range(players):
        review = applejack_review.review(8, players, options, moves, seat)
        assert review is not None
        split_holds(review)
        assert review.final == applejack.totals(state)[seat]
        assert (review.others == 0) == (players == 1)


def hard_then_ones_at_once() -> list[Move]:
    """Day 1's daily Cheerio: Hard's choices until only ones are open, then ones scored at
    once on the turn's first roll, 2 3 3 4 6."""
    engine, options = cheerio.ENGINE, {"daily": 1}
    state, moves = engine.new(1, 1, options), []
    while cheerio.open_categories(state.cards[0]) != ["ones"]:
        action = cheerio_hard(state, 0)
        moves.append(Move(0, *engine.format(action)))
        state = engine.apply(state, action)
    assert sorted(state.dice) == [2, 3, 3, 4, 6] and state.rolls == 1
    return [*moves, Move(0, "score", "ones")]


def test_accuracy_by_hand_one_costly_choice_in_a_hard_game() -> None:
    """Hard plays day 1's daily Cheerio until only ones are open, then the player scores ones
    at once on 2 3 3 4 6 (no one showing). Every earlier choice was Hard's, so the one cost
    is the last turn's: rerolling all five is worth 5 * 11/36 + 5 * (11/36)^5 = 1.5411 (each
    die a one within two rerolls with chance 11/36; five ones score double), and scoring 0
    gives that up. The optimum is 121.642 (the tables' value of an empty card), so accuracy is
    floor(100 * (1 - 1.5411 / 121.642)) = floor(98.73) = 98; rounding would say 99, and
    dividing by the final score (166) 99 too. /help states the same formula."""
    review = cheerio_review.review(1, 1, {"daily": 1}, hard_then_ones_at_once(), 0)
    assert review is not None
    split_holds(review)
    cost = 5 * TWO_REROLLS + 5 * TWO_REROLLS**5
    assert float(review.choices) == pytest.approx(float(cost), abs=1e-12)
    assert float(review.optimum) == pytest.approx(121.642, abs=1e-3) and review.final == 166
    assert review.accuracy == 98 and review.best_choices == len(review.decisions) - 1
    assert "100 × (1 − choices ÷ optimum), rounded down" in reviews.HELP


def test_the_review_lists_every_choice_that_gave_something_up() -> None:
    """Scoring every category on its first roll gives something up each turn: the three
    costliest come first, then all seven in order, the last one worked out by hand (ones
    scored on 2 3 4 5 6: rerolling all five was worth 5 * 11/36 + 5 * (11/36)^5 = 1.54)."""
    order = (*cheerio.CATEGORIES[1:], "ones")
    review = cheerio_review.review(7, 1, {"daily": DAY}, scored_at_once(order), 0)
    assert review is not None and review.best_choices == 0
    lines = dice_text(review).splitlines()
    top = lines.index("Costliest choices (expected final score given up):")
    listed = lines.index("Every choice that gave something up (7, in order):")
    assert listed == top + 4 and len(lines) == listed + 8
    assert [line.split(" · ")[0] for line in lines[listed + 1 :]] == [
        f"Turn {n}, roll 1" for n in range(1, 8)
    ]
    assert lines[-1] == "Turn 7, roll 1 · 2 3 4 5 6 · score Ones (0) → reroll all five · −1.5"
    assert lines[top + 1].startswith("• Turn 6, roll 1, dice 4 5 5 6 6: you chose to score")
    for worst, line in zip(review.costliest(), lines[top + 1 : listed], strict=True):
        assert worst.where.capitalize() in line and f"(−{float(worst.cost):.1f})" in line


def test_a_review_with_few_costly_choices_lists_them_once() -> None:
    """With three costly choices or fewer the costliest are all of them: no second list."""
    text = dice_text(cheerio_review.review(1, 1, {"daily": 1}, hard_then_ones_at_once(), 0))
    assert "Every choice" not in text and text.count("\n• ") == 1
    assert text.endswith("better: reroll all five (−1.5)")


@pytest.mark.parametrize(
    ("best", "total", "said"),
    [
        (1, 1, "your one choice was the best there was"),
        (0, 1, "your one choice was not the best there was"),
        (9, 9, "all 9 of your choices were the best there was"),
        (1, 9, "1 of 9 choices was the best there was"),
        (0, 9, "0 of 9 choices were the best there was"),
        (0, 0, "no choice of yours to weigh"),
    ],
)
def test_the_share_of_best_choices_reads_right_for_one_none_or_all(
    best: int, total: int, said: str
) -> None:
    assert best_share(best, total) == said
