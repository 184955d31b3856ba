"""The Daily Orchard's dice: the same for everyone on a day, ordinary games' dice unchanged."""

from __future__ import annotations

from bot.games import applejack, cheerio
from bot.games.base import daily_dice

CHEERIO_MOVES = [
    cheerio.Hold(0, 0),
    cheerio.Roll(0),
    cheerio.Roll(0),
    cheerio.Score(0, "sixes"),
    cheerio.Roll(1),
    cheerio.Score(1, "cheerio"),
]


def cheerio_dice(seed: int, options: dict[str, int], moves: list[cheerio.CheerioAction]) -> list:
    engine = cheerio.ENGINE
    state = engine.new(seed, 2, options)
    seen = [state.dice]
    for move in moves:
        state = engine.apply(state, move)
        seen.append(state.dice)
    return seen


def test_ordinary_cheerio_dice_are_what_they_always_were() -> None:
    """Worked out with the engine before daily games existed: old games replay identically."""
    assert cheerio_dice(12345, {}, CHEERIO_MOVES) == [
        (3, 5, 3, 5, 5),
        (3, 5, 3, 5, 5),
        (3, 4, 4, 6, 6),
        (3, 2, 3, 5, 5),
        (1, 2, 6, 6, 2),
        (2, 6, 3, 3, 3),
        (1, 4, 6, 3, 4),
    ]


def test_ordinary_applejack_dice_are_what_they_always_were() -> None:
    engine = applejack.ENGINE
    state = engine.new(777, 2, {})
    seen = [state.dice]
    for move in [
        applejack.Reroll(0, frozenset({0, 1})),
        applejack.Reroll(1, frozenset({4})),
        applejack.Hold(0),
        applejack.Reroll(1, frozenset({2})),
        applejack.Call(0, "sum"),
    ]:
        state = engine.apply(state, move)
        seen.append(state.dice)
    assert seen == [
        ((4, 3, 2, 3, 1), (1, 4, 4, 4, 3)),
        ((4, 3, 2, 3, 1), (1, 4, 4, 4, 3)),
        ((2, 4, 2, 3, 1), (1, 4, 4, 4, 1)),
        ((2, 4, 2, 3, 1), (1, 4, 4, 4, 1)),
        ((2, 4, 2, 3, 1), (1, 4, 3, 4, 1)),
        ((3, 4, 6, 1, 4), (3, 4, 1, 3, 4)),
    ]


def solo_cheerio(seed: int, day: int, moves: list[cheerio.CheerioAction]) -> cheerio.CheerioState:
    engine = cheerio.ENGINE
    state = engine.new(seed, 1, {"daily": day})
    for move in moves:
        state = engine.apply(state, move)
    return state


SOLO = [
    cheerio.Hold(0, 2),
    cheerio.Roll(0),
    cheerio.Hold(0, 2),
    cheerio.Hold(0, 4),
    cheerio.Roll(0),
    cheerio.Score(0, "fives"),
    cheerio.Roll(0),
    cheerio.Score(0, "cheerio"),
]


def test_two_players_making_the_same_choices_see_the_same_dice_and_score() -> None:
    """The seeds differ (every game has its own); the day alone decides the dice."""
    alice, bob = solo_cheerio(1, 300, SOLO), solo_cheerio(987654321, 300, SOLO)
    assert alice.dice == bob.dice and alice.cards == bob.cards


def test_another_day_brings_other_dice() -> None:
    assert solo_cheerio(1, 300, SOLO).dice != solo_cheerio(1, 301, SOLO).dice
    assert cheerio.ENGINE.new(1, 1, {"daily": 300}).dice != (
        cheerio.ENGINE.new(1, 1, {"daily": 301}).dice
    )


def test_a_turn_draws_its_rerolls_in_order_from_one_stream() -> None:
    """First roll: the stream's first five dice; a reroll of two takes the next two, in die
    order; the next turn starts a stream of its own."""
    stream = daily_dice("cheerio", 300, 0, 0, 15)
    state = cheerio.ENGINE.new(5, 1, {"daily": 300})
    assert state.dice == stream[:5]
    for die in (0, 1, 2):
        state = cheerio.ENGINE.apply(state, cheerio.Hold(0, die))
    state = cheerio.ENGINE.apply(state, cheerio.Roll(0))
    assert state.dice == (*stream[:3], *stream[5:7])
    state = cheerio.ENGINE.apply(state, cheerio.Score(0, "ones"))
    assert state.dice == daily_dice("cheerio", 300, 1, 0, 5)


def test_the_dice_do_not_depend_on_what_was_scored_before() -> None:
    """A turn's dice depend on the turn and the rerolls in it, not on earlier choices."""
    a = solo_cheerio(1, 9, [cheerio.Score(0, "ones")])
    b = solo_cheerio(2, 9, [cheerio.Roll(0), cheerio.Roll(0), cheerio.Score(0, "sixes")])
    assert a.dice == b.dice


def test_daily_applejack_is_one_players_round_with_the_days_dice() -> None:
    engine = applejack.ENGINE
    moves = [applejack.Reroll(0, frozenset({0, 1})), applejack.Hold(0), applejack.Call(0, "sum")]
    states = []
    for seed in (3, 4):
        state = engine.new(seed, 1, {"daily": 42})
        for move in moves:
            state = engine.apply(state, move)
        states.append(state)
    assert states[0] == states[1].__class__(**{**states[1].__dict__, "seed": 3})
    first = daily_dice("applejack", 42, 0, 0, 7)
    assert engine.new(3, 1, {"daily": 42}).dice == (first[:5],)
    rerolled = engine.apply(engine.new(3, 1, {"daily": 42}), moves[0])
    assert rerolled.dice == ((*first[5:7], *first[2:5]),)
    assert states[0].dice == (daily_dice("applejack", 42, 1, 0, 5),)


def test_a_whole_daily_applejack_ends_after_eight_calls() -> None:
    engine = applejack.ENGINE
    state = engine.new(3, 1, {"daily": 42})
    for category in applejack.CATEGORIES[:-1]:
        state = engine.apply(state, applejack.Hold(0))
        state = engine.apply(state, applejack.Call(0, category))
    assert state.phase == "solo"
    state = engine.apply(state, applejack.Hold(0))
    assert engine.is_over(state) and all(p is not None for p in state.cards[0][0])
