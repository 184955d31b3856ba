"""Apple Jack's rules, case by case, worked by hand from the seed text and seeds/applejack.md."""

import json
import random
from dataclasses import dataclass, field, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.games.applejack import (
    CATEGORIES,
    ENGINE,
    ApplejackAction,
    ApplejackState,
    Call,
    Hold,
    Pick,
    Reroll,
    best_call,
    call_preview,
    decision_order,
    open_categories,
    rerolls_left,
    round_totals,
    score,
    totals,
)
from bot.games.base import BadInput, IllegalMove


@pytest.mark.parametrize(
    ("dice", "category", "points"),
    [
        # Cheerio's seed example: three fives and two sixes.
        ((5, 5, 5, 6, 6), "fives", 15),
        ((5, 5, 5, 6, 6), "sixes", 12),
        ((5, 5, 5, 6, 6), "fours", 0),
        # Three ones, a two and a three: ones are wild only where the face shows.
        ((1, 1, 1, 2, 3), "twos", 8),
        ((1, 1, 1, 2, 3), "threes", 12),
        ((1, 1, 1, 2, 3), "ones", 3),
        ((1, 1, 1, 2, 3), "fours", 0),
        ((1, 1, 1, 2, 3), "sum", 8),
        ((6, 6, 6, 6, 1), "sixes", 30),
        # No bonus for five of a kind in Apple Jack.
        ((6, 6, 6, 6, 6), "sixes", 30),
        ((2, 2, 2, 2, 2), "twos", 10),
        ((1, 1, 1, 1, 1), "ones", 5),
        ((1, 1, 1, 1, 1), "sixes", 0),
        # Sum: ones are never wild, always worth one.
        ((6, 6, 6, 6, 6), "sum", 30),
        ((1, 1, 1, 1, 1), "sum", 5),
        ((6, 1, 1, 1, 1), "sum", 10),
        # Cheerio: honest runs 20, runs completed with wild ones 10.
        ((1, 2, 3, 4, 5), "cheerio", 20),
        ((6, 5, 4, 3, 2), "cheerio", 20),
        ((2, 3, 4, 1, 6), "cheerio", 10),
        ((6, 1, 1, 1, 1), "cheerio", 10),
        ((1, 2, 3, 4, 4), "cheerio", 0),
        ((3, 3, 3, 3, 3), "cheerio", 0),
    ],
)
def test_score(dice: tuple[int, ...], category: str, points: int) -> None:
    assert score(category, dice) == points


def test_unknown_category_is_an_error() -> None:
    with pytest.raises(ValueError):
        score("chance", (1, 2, 3, 4, 5))


def test_player_count_is_checked() -> None:
    assert (ENGINE.min_players, ENGINE.max_players, ENGINE.kind) == (2, 6, "applejack")
    with pytest.raises(ValueError):
        ENGINE.new(1, 1, {})
    with pytest.raises(ValueError):
        ENGINE.new(1, 7, {})


# Helpers.


def with_dice(state: ApplejackState, *dice: tuple[int, ...]) -> ApplejackState:
    """The same game with every seat's dice set by hand."""
    return replace(state, dice=tuple(dice))


def act(state: ApplejackState, seat: int, kind: str, arg: str = "") -> ApplejackState:
    """One move as a button or a move log names it."""
    return ENGINE.apply(state, ENGINE.parse(seat, kind, arg))


def to_call(state: ApplejackState) -> ApplejackState:
    """Everyone holds until the caller must call (the shared phase of one turn)."""
    while state.phase == "reroll":
        (seat,) = ENGINE.to_act(state)
        state = act(state, seat, "hold")
    return state


def skip_turns(state: ApplejackState, turns: int) -> ApplejackState:
    """Play ``turns`` whole turns by timeouts."""
    for _ in range(turns):
        key = (state.round, len(state.called))
        while (state.round, len(state.called)) == key and not ENGINE.is_over(state):
            for action in ENGINE.timeout_actions(state):
                state = ENGINE.apply(state, action)
    return state


@dataclass
class Playthrough:
    """A whole game: the final state, each turn's (round, turn, caller), the action log, the
    turns that ended at once because everyone held in step 1, and the last-turn moves made
    by a seat while a lower seat was still rolling."""

    final: ApplejackState
    turns: list[tuple[int, int, int]] = field(default_factory=list)
    log: list[ApplejackAction] = field(default_factory=list)
    early_ends: int = 0
    out_of_order: int = 0


def roll_or_hold(rng: random.Random, seat: int) -> ApplejackAction:
    """Hold one time in three, else reroll a random non-empty set of dice."""
    if rng.random() < 1 / 3:
        return Hold(seat)
    chosen = [i for i in range(5) if rng.random() < 0.5] or [rng.randrange(5)]
    return Reroll(seat, frozenset(chosen))


def next_action(state: ApplejackState, rng: random.Random, calm: bool) -> ApplejackAction:
    """The varied policy: a calm turn holds in step 1; the last turn picks any waiting seat."""
    if state.phase == "call":
        return Call(state.caller, best_call(state))
    waiting = sorted(ENGINE.to_act(state))
    if state.phase == "solo":
        return roll_or_hold(rng, rng.choice(waiting))
    (seat,) = waiting
    return Hold(seat) if calm and state.step == 1 else roll_or_hold(rng, seat)


def play(seed: int, players: int) -> Playthrough:
    """A whole game with a seeded varied policy (same seed, same game): about one turn in four
    everyone holds in step 1, and on each round's last turn seats act in a random order."""
    rng = random.Random(seed)
    state = ENGINE.new(seed, players, {})
    run = Playthrough(state)
    calm = False
    while not ENGINE.is_over(state):
        key = (state.round, len(state.called), state.caller)
        if not run.turns or run.turns[-1][:2] != key[:2]:
            run.turns.append(key)
            calm = rng.random() < 0.25
        action = next_action(state, rng, calm)
        if state.phase == "solo" and action.seat > min(ENGINE.to_act(state)):
            run.out_of_order += 1
        before, state = state, ENGINE.apply(state, action)
        run.log.append(action)
        if before.phase == "reroll" and state.phase == "call" and state.step == 1:
            assert state.rerolls == (0,) * players and state.dice == before.dice
            assert state.draws == before.draws, "nothing is rolled when everyone holds"
            run.early_ends += 1
    run.final = state
    return run


def expected_callers(players: int) -> list[tuple[int, int, int]]:
    """Round r starts with seat r; the caller passes on every turn, eight turns a round."""
    return [(r, t, (r + t) % players) for r in range(players) for t in range(len(CATEGORIES))]


# Whole games.


@pytest.mark.parametrize("players", [2, 3])
def test_whole_game_rotates_callers_and_fills_every_card(players: int) -> None:
    run = play(seed=2024, players=players)
    state, turns = run.final, run.turns
    assert turns == expected_callers(players)
    assert len(turns) == len(CATEGORIES) * players
    # Some turns ended after step 1 because all held; a last turn let a higher seat go first.
    assert run.early_ends > 0
    assert run.out_of_order > 0
    assert ENGINE.to_act(state) == frozenset()
    for cards in state.cards:
        assert len(cards) == players
        assert all(None not in card for card in cards)
    assert totals(state) == tuple(sum(rounds) for rounds in round_totals(state))
    results = ENGINE.results(state)
    best = max(totals(state))
    assert [r.won for r in results] == [t == best for t in totals(state)]
    with pytest.raises(IllegalMove, match="over"):
        act(state, 0, "hold")


def test_replay_is_deterministic_and_dump_load_round_trips() -> None:
    run = play(seed=99, players=3)
    final = run.final
    state = ENGINE.new(99, 3, {})
    for i, action in enumerate(run.log):
        state = ENGINE.apply(state, action)
        if i % 17 == 0:
            data = json.loads(json.dumps(ENGINE.dump(state)))
            assert ENGINE.load(data) == state
    assert state == final
    assert ENGINE.load(ENGINE.dump(final)) == final


def test_dump_load_keeps_picks_and_last_call() -> None:
    state = skip_turns(ENGINE.new(5, 3, {}), 1)
    state = act(state, state.caller, "reroll", "13")
    assert state.last_call is not None and any(state.picked[state.caller])
    assert ENGINE.load(json.loads(json.dumps(ENGINE.dump(state)))) == state


# A turn's shared steps.


def test_a_turn_starts_rolled_with_the_caller_deciding() -> None:
    state = ENGINE.new(7, 2, {})
    assert all(len(d) == 5 and all(1 <= x <= 6 for x in d) for d in state.dice)
    assert (state.phase, state.step, state.caller) == ("reroll", 1, 0)
    assert ENGINE.to_act(state) == frozenset({0})
    assert rerolls_left(state, 0) == 2
    assert open_categories(state) == list(CATEGORIES)


def test_everyone_holding_ends_the_turn_at_once() -> None:
    state = ENGINE.new(7, 2, {})
    state = act(act(state, 0, "hold"), 1, "hold")
    assert state.phase == "call" and state.step == 1 and state.draws == 1
    assert ENGINE.to_act(state) == frozenset({0})
    assert rerolls_left(state, 0) == 0


def test_decision_order_is_caller_first_then_seat_order() -> None:
    state = skip_turns(ENGINE.new(3, 3, {}), 1)
    assert state.caller == 1 and decision_order(state) == [1, 2, 0]
    assert ENGINE.to_act(state) == frozenset({1})
    with pytest.raises(IllegalMove, match="caller decides first"):
        act(state, 2, "pick", "0")
    with pytest.raises(IllegalMove, match="caller decides first"):
        act(state, 0, "hold")
    state = act(state, 1, "hold")
    assert ENGINE.to_act(state) == frozenset({2})
    with pytest.raises(IllegalMove, match="already decided"):
        act(state, 1, "reroll", "0")
    state = act(act(state, 2, "pick", "0"), 2, "pick", "3")
    assert state.picked[2] == (True, False, False, True, False) and not state.decided[2]
    state = act(state, 2, "reroll")
    # Seat 0 sees seat 2's committed choice before deciding.
    assert state.decided[2] and state.picked[2] == (True, False, False, True, False)
    assert ENGINE.to_act(state) == frozenset({0})
    before = state.dice
    state = act(state, 0, "hold")
    assert state.step == 2 and state.rerolls == (0, 0, 1)
    assert state.dice[0] == before[0] and state.dice[1] == before[1]
    assert [state.dice[2][i] for i in (1, 2, 4)] == [before[2][i] for i in (1, 2, 4)]
    assert state.picked == ((False,) * 5,) * 3 and state.decided == (False,) * 3
    assert ENGINE.to_act(state) == frozenset({1})


def test_picks_toggle_and_reroll_needs_a_die() -> None:
    state = ENGINE.new(7, 2, {})
    state = act(act(state, 0, "pick", "4"), 0, "pick", "4")
    assert state.picked[0] == (False,) * 5
    with pytest.raises(IllegalMove, match="at least one die"):
        act(state, 0, "reroll")
    with pytest.raises(BadInput, match="not one of your five dice"):
        act(state, 0, "pick", "5")
    with pytest.raises(BadInput, match="not one of your five dice"):
        act(state, 0, "reroll", "0x")


def test_the_second_step_ends_the_turn_and_the_call_scores_everyone() -> None:
    state = ENGINE.new(7, 2, {})
    for _ in range(2):
        state = act(act(state, 0, "reroll", "0"), 1, "reroll", "01234")
    assert state.phase == "call" and state.rerolls == (2, 2)
    state = with_dice(state, (5, 5, 5, 6, 6), (1, 1, 1, 2, 3))
    preview = dict(call_preview(state))
    assert preview["fives"] == (15, 0) and preview["threes"] == (0, 12)
    assert preview["sum"] == (27, 8)
    with pytest.raises(IllegalMove, match="Only the caller"):
        act(state, 1, "call", "fives")
    state = act(state, 0, "call", "fives")
    assert state.last_call == (0, "fives", (15, 0))
    assert state.cards[0][0][CATEGORIES.index("fives")] == 15
    assert state.cards[1][0][CATEGORIES.index("fives")] == 0
    assert state.called == ("fives",) and "fives" not in open_categories(state)
    assert (state.phase, state.caller, state.step) == ("reroll", 1, 1)
    assert ENGINE.to_act(state) == frozenset({1})


# The last turn of a round.


def test_last_turn_of_a_round_is_rolled_independently() -> None:
    state = skip_turns(ENGINE.new(11, 2, {}), 7)
    assert state.phase == "solo" and len(open_categories(state)) == 1
    (last,) = open_categories(state)
    assert ENGINE.to_act(state) == frozenset({0, 1})
    with pytest.raises(IllegalMove, match="Only one category is left"):
        act(state, state.caller, "call", last)
    # Seat 1 goes first though seat 0 is the caller: no one waits.
    state = act(state, 1, "reroll", "01")
    assert state.rerolls == (0, 1) and ENGINE.to_act(state) == frozenset({0, 1})
    state = act(state, 1, "reroll", "2")
    assert state.decided[1] and ENGINE.to_act(state) == frozenset({0})
    with pytest.raises(IllegalMove, match="done with this turn"):
        act(state, 1, "hold")
    state = act(state, 0, "pick", "3")
    dice = state.dice
    state = act(state, 0, "hold")
    assert state.round == 1 and state.called == () and state.caller == 1
    assert state.last_call == (1, last, tuple(score(last, d) for d in dice))
    assert state.phase == "reroll"


# Deadlines.


def test_the_clock_mark_is_the_decision_and_the_last_turn_is_one() -> None:
    """Choosing dice decides nothing; a hold or a reroll hands the decision on, and the call
    is one of its own. On a round's last turn the mark stays for everyone's moves, until
    the next turn."""
    state = ENGINE.new(7, 2, {})
    caller = ENGINE.clock_mark(state)
    for die in "010":
        state = act(state, 0, "pick", die)
        assert ENGINE.clock_mark(state) == caller
    state = act(state, 0, "reroll")
    second = ENGINE.clock_mark(state)
    assert second != caller
    state = act(state, 1, "hold")
    assert ENGINE.clock_mark(state) not in (caller, second), "the next step is the caller's"
    assert ENGINE.clock_mark(to_call(state)) != ENGINE.clock_mark(state)
    last = skip_turns(ENGINE.new(11, 2, {}), 7)
    mark = ENGINE.clock_mark(last)
    for seat, kind, arg in [(1, "reroll", "01"), (0, "pick", "3"), (1, "hold", "")]:
        last = act(last, seat, kind, arg)
        assert ENGINE.clock_mark(last) == mark
    assert ENGINE.clock_mark(act(last, 0, "hold")) != mark


def test_timeout_in_a_step_holds_and_drops_the_picks() -> None:
    state = act(ENGINE.new(7, 2, {}), 0, "pick", "2")
    assert ENGINE.timeout_actions(state) == [Hold(0)]
    state = ENGINE.apply(state, ENGINE.timeout_actions(state)[0])
    assert state.picked[0] == (False,) * 5 and state.decided[0]


def test_timeout_call_maximises_the_callers_lead() -> None:
    state = to_call(ENGINE.new(7, 3, {}))
    # Sum would give the caller most (28), but fives widens the lead most (+10).
    state = with_dice(state, (6, 6, 6, 5, 5), (6, 6, 6, 6, 2), (2, 2, 3, 3, 4))
    assert best_call(state) == "fives"
    assert ENGINE.timeout_actions(state) == [Call(0, "fives")]
    # On a tie the earliest open category wins.
    same = with_dice(state, (2, 2, 3, 3, 4), (2, 2, 3, 3, 4), (2, 2, 3, 3, 4))
    assert best_call(same) == "ones"
    assert best_call(replace(same, called=("ones",))) == "twos"


def test_timeout_call_counts_the_game_totals() -> None:
    """Round 2 of 3 players. Banked from round 1: seat 0 has 60, the caller (seat 1) 40,
    seat 2 10. Lead = 40 + caller's points - max(60 + seat 0's, 10 + seat 2's):
    ones 40-60 = -20, twos 40-64 = -24, threes 40-66 = -26, fours 40-64 = -24,
    fives 50-60 = -10, sixes 58-60 = -2, cheerio 40-60 = -20, sum 68-74 = -6.
    Sixes closes the gap to the leader most, though it gives seat 2 more than the caller;
    the old per-category rule (10 - max(0, 0) = +10 for fives) called fives."""
    state = to_call(ENGINE.new(7, 3, {}))
    first_round = (
        (3, 4, 6, 8, 10, 12, 0, 17),
        (2, 4, 6, 8, 10, 0, 0, 10),
        (1, 2, 0, 0, 0, 0, 0, 7),
    )
    state = replace(
        state,
        round=1,
        caller=1,
        cards=tuple((card, (None,) * 8, (None,) * 8) for card in first_round),
    )
    state = with_dice(state, (2, 2, 3, 3, 4), (6, 6, 6, 5, 5), (6, 6, 6, 6, 2))
    assert totals(state) == (60, 40, 10)
    assert best_call(state) == "sixes"
    assert ENGINE.timeout_actions(state) == [Call(1, "sixes")]


def test_timeout_on_the_last_turn_holds_for_everyone_left() -> None:
    state = skip_turns(ENGINE.new(11, 3, {}), 7)
    state = act(state, 2, "hold")
    assert ENGINE.timeout_actions(state) == [Hold(0), Hold(1)]


# Leaving.


def test_forfeit_with_two_players_ends_the_game_for_the_other() -> None:
    state = skip_turns(ENGINE.new(4, 2, {}), 3)
    state = replace(state, cards=((((50,) * 8),) * 2, state.cards[1]))
    state = ENGINE.forfeit(state, 0)
    assert ENGINE.is_over(state) and ENGINE.to_act(state) == frozenset()
    results = ENGINE.results(state)
    assert results[1].won and results[1].placement == 1
    assert not results[0].won and results[0].placement == 2
    assert ENGINE.forfeit(state, 1) == state


def test_forfeited_caller_passes_the_turn_and_the_game_goes_on() -> None:
    state = ENGINE.forfeit(ENGINE.new(8, 3, {}), 0)
    assert state.active == (False, True, True) and state.caller == 1
    assert ENGINE.to_act(state) == frozenset({1})
    with pytest.raises(IllegalMove, match="no longer playing"):
        act(state, 0, "hold")
    state, turns = to_call(state), []
    while not ENGINE.is_over(state):
        turns.append((state.round, len(state.called), state.caller))
        state = skip_turns(state, 1)
    assert all(caller != 0 for _, _, caller in turns)
    assert len(turns) == 3 * len(CATEGORIES)
    assert [c for r, t, c in turns if t == 0] == [1, 1, 2]
    assert all(None not in card for seat in (1, 2) for card in state.cards[seat])
    assert state.cards[0] == ((None,) * 8,) * 3
    results = ENGINE.results(state)
    assert not results[0].won and results[0].placement == 3


def test_forfeit_of_the_last_undecided_seat_rolls_the_step() -> None:
    state = ENGINE.new(8, 3, {})
    state = act(act(state, 0, "reroll", "0"), 1, "hold")
    state = ENGINE.forfeit(state, 2)
    assert state.step == 2 and state.rerolls == (1, 0, 0)
    assert ENGINE.to_act(state) == frozenset({0})


def test_forfeit_in_the_call_phase_hands_the_call_on() -> None:
    state = to_call(ENGINE.new(8, 3, {}))
    state = ENGINE.forfeit(state, 0)
    assert state.phase == "call" and ENGINE.to_act(state) == frozenset({1})
    state = act(state, 1, "call", "sum")
    assert state.last_call is not None and state.last_call[2][0] is None
    assert state.caller == 2


def test_forfeit_on_the_last_turn_scores_once_the_rest_are_done() -> None:
    state = skip_turns(ENGINE.new(12, 3, {}), 7)
    state = act(act(state, 0, "hold"), 2, "hold")
    (last,) = open_categories(state)
    state = ENGINE.forfeit(state, 1)
    assert state.round == 1 and state.called == () and state.caller == 2
    assert state.last_call is not None and state.last_call[1] == last
    assert state.last_call[2][1] is None and state.cards[1][0][CATEGORIES.index(last)] is None


# Refusals.


def test_refusals_are_readable() -> None:
    state = ENGINE.new(1, 2, {})
    with pytest.raises(IllegalMove, match="caller decides first"):
        act(state, 1, "hold")
    with pytest.raises(IllegalMove, match="not over yet"):
        act(state, 0, "call", "sum")
    with pytest.raises(BadInput, match="no move called"):
        act(state, 0, "score", "sum")
    state = to_call(state)
    with pytest.raises(IllegalMove, match="rerolls are over"):
        act(state, 0, "pick", "1")
    with pytest.raises(BadInput, match="no category called 'chance'"):
        act(state, 0, "call", "chance")
    state = to_call(act(state, 0, "call", "sixes"))
    assert state.caller == 1
    with pytest.raises(IllegalMove, match="Sixes has already been scored this round"):
        act(state, 1, "call", "sixes")
    with pytest.raises(IllegalMove, match="Only the caller"):
        act(state, 0, "call", "fives")


# Any legal play.


def legal_actions(state: ApplejackState) -> list[ApplejackAction]:
    if state.phase == "call":
        return [Call(state.caller, c) for c in open_categories(state)]
    options: list[ApplejackAction] = []
    for seat in sorted(ENGINE.to_act(state)):
        options += [Pick(seat, i) for i in range(5)]
        options.append(Hold(seat))
        if any(state.picked[seat]):
            options.append(Reroll(seat))
    return options


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**62),
    st.integers(2, 6),
    st.lists(st.integers(0, 99), max_size=400),
    st.one_of(st.none(), st.tuples(st.integers(0, 5), st.integers(0, 400))),
)
def test_random_legal_play_scores_each_category_once_per_round(
    seed: int, players: int, picks: list[int], leaver: tuple[int, int] | None
) -> None:
    """Any legal play (random choices, then timeouts) ends with every card filled exactly once."""

    def run() -> ApplejackState:
        state = ENGINE.new(seed, players, {})
        moves = 0
        while not ENGINE.is_over(state):
            if leaver is not None and moves == leaver[1] and leaver[0] < players:
                state = ENGINE.forfeit(state, leaver[0])
                moves += 1
                continue
            if moves < len(picks):
                options = legal_actions(state)
                action = options[picks[moves] % len(options)]
                after = ENGINE.apply(state, action)
            else:
                after = state
                for action in ENGINE.timeout_actions(state):
                    after = ENGINE.apply(after, action)
            for old, new in zip(state.cards, after.cards, strict=True):
                for old_card, new_card in zip(old, new, strict=True):
                    for a, b in zip(old_card, new_card, strict=True):
                        assert a is None or a == b, "a scored category changed"
            state, moves = after, moves + 1
            assert moves < 10_000
        return state

    final = run()
    assert run() == final
    survivors = [s for s in range(players) if final.active[s]]
    if sum(final.active) > 1:
        assert final.round == players - 1 and len(final.called) == len(CATEGORIES)
        for seat in survivors:
            assert all(None not in card for card in final.cards[seat])
    else:
        assert len(survivors) == 1 and ENGINE.results(final)[survivors[0]].won
    for cards in final.cards:
        for card in cards:
            for category, points in zip(CATEGORIES, card, strict=True):
                assert points is None or 0 <= points <= (20 if category == "cheerio" else 30)
