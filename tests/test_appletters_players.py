"""Appletters players: only legal moves, Hard's longest word, Easy's short common one, no
peeking at other hands, and no challenge of a listed word.

Games use the ``family`` list (the shipped list the strategies assume when a view does not
name one), so every word the players know is one the engine accepts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from bot.ai import appletters_players as players
from bot.ai.appletters_players import choose
from bot.games.appletters import (
    ENGINE,
    ENGINES,
    SCORE_ENGINE,
    TURNOVER_ENGINE,
    Accept,
    AppLettersAction,
    AppLettersEngine,
    AppState,
    BadApple,
    Challenge,
    Laid,
    Pick,
    Play,
    Turnover,
    placements_for,
    public_view,
    turnovers_for,
    view_for,
    word_set,
)

FAMILY = {"word_list": "family"}
LEVELS = ("easy", "normal", "hard")


def listed(word: str) -> bool:
    return word.lower() in word_set("family")


def play_game(engine: AppLettersEngine, seed: int, levels: tuple[str, ...]) -> AppState:
    """A whole game with a strategy on every seat, each seeing only its own view."""
    state = engine.new(seed, len(levels), FAMILY)
    for _ in range(1_000):
        if engine.is_over(state):
            return state
        (seat,) = engine.to_act(state)
        action = choose(view_for(state, seat), seat, levels[seat], seed)
        if isinstance(action, Laid):
            assert listed(action.word), action  # never a bluff
        assert not isinstance(action, Challenge)  # every word on the table is listed
        state = engine.apply(state, action)  # raises IllegalMove on an illegal choice
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.kind)
def test_whole_games_only_take_legal_moves(engine: AppLettersEngine) -> None:
    for seed in range(6):
        levels = tuple(LEVELS[(seed + i) % 3] for i in range(2 + seed % 3))
        state = play_game(engine, seed, levels)
        assert engine.is_over(state)


# Hand-built positions.


def after_first_word(engine: AppLettersEngine, first: str, hand: str) -> AppState:
    """Seat 0 has laid ``first``; seat 1 holds ``hand`` and is to play."""
    state = engine.new(3, 2, FAMILY)
    hands = ("".join(sorted(first + "EEE")), "".join(sorted(hand)))
    state = replace(state, hands=hands, turn=0, core="EEEAAA")
    return engine.apply(state, Play(0, first))


def fitting_words(state: AppState, seat: int) -> list[str]:
    """Brute force: every family word ``seat`` could legally play now."""
    tiles = Counter(state.hands[seat] + "".join(w.text for w in state.snake))
    return [
        w.upper()
        for w in word_set("family")
        if not Counter(w.upper()) - tiles and placements_for(state, seat, w)
    ]


def word_of(action: AppLettersAction) -> str:
    assert isinstance(action, Laid), action
    return action.word


def test_hard_plays_the_longest_fitting_word() -> None:
    state = after_first_word(ENGINE, "CAT", "AEINRSTLO")
    best = max(map(len, fitting_words(state, 1)))
    action = choose(view_for(state, 1), 1, "hard", 0)
    assert isinstance(action, Play) and len(word_of(action)) == best >= 7
    ENGINE.apply(state, action)


def test_hard_in_applescore_plays_the_most_points() -> None:
    state = after_first_word(SCORE_ENGINE, "CAT", "AEINRSTLO")
    action = choose(view_for(state, 1), 1, "hard", 0)
    after = SCORE_ENGINE.apply(state, action)
    points = after.scores[1]
    for word in fitting_words(state, 1):
        for p in placements_for(state, 1, word):
            trial = SCORE_ENGINE.apply(state, Play(1, p.word, p.end, p.mode))
            assert trial.scores[1] <= points


def test_easy_plays_a_short_common_word() -> None:
    state = after_first_word(ENGINE, "CAT", "AEINRSTLO")
    fitting = [w for w in fitting_words(state, 1) if len(w) >= 3]
    action = choose(view_for(state, 1), 1, "easy", 0)
    assert isinstance(action, Play) and listed(word_of(action))
    assert len(word_of(action)) == min(map(len, fitting)) == 3
    ENGINE.apply(state, action)


def test_normal_plays_one_of_the_longest_and_replays_the_same() -> None:
    state = after_first_word(ENGINE, "CAT", "AEINRSTLO")
    top = sorted(fitting_words(state, 1), key=lambda w: (-len(w), w))[: players.NORMAL_TOP]
    picks = {word_of(choose(view_for(state, 1), 1, "normal", s)) for s in range(20)}
    assert picks <= set(top) and len(picks) > 1
    assert choose(view_for(state, 1), 1, "normal", 5) == choose(view_for(state, 1), 1, "normal", 5)


def test_first_word_uses_the_hand_alone() -> None:
    state = replace(ENGINE.new(1, 2, FAMILY), hands=("AEINRSTLOU", "EEE"), turn=0)
    action = choose(view_for(state, 0), 0, "hard", 0)
    assert len(word_of(action)) == max(map(len, fitting_words(state, 0)))
    assert ENGINE.apply(state, action).snake[0].text == word_of(action)


def test_no_fitting_word_picks_and_passes() -> None:
    state = after_first_word(ENGINE, "FIZZ", "QVX")
    for level in LEVELS:
        assert choose(view_for(state, 1), 1, level, 0) == Pick(1)


def test_stuck_hard_throws_a_hard_letter_in_apple_turnover() -> None:
    state = TURNOVER_ENGINE.new(3, 2, {**FAMILY, "check_words": True})
    state = replace(state, hands=("EEFIZZ", "QVX"), turn=0, core="EEE")
    state = TURNOVER_ENGINE.apply(state, Play(0, "FIZZ"))
    action = choose(view_for(state, 1), 1, "hard", 0)
    assert action == BadApple(1, "Q")
    TURNOVER_ENGINE.apply(state, action)
    assert choose(view_for(state, 1), 1, "normal", 0) == Pick(1)


def test_hard_turns_over_a_word_when_that_lays_the_most_tiles() -> None:
    state = TURNOVER_ENGINE.new(3, 2, {**FAMILY, "check_words": True})
    state = replace(state, hands=("CATSEEOO", "HIMPRU"), turn=0, core="EEE")
    state = TURNOVER_ENGINE.apply(state, Play(0, "CAT"))
    state = replace(state, turn=0)
    state = TURNOVER_ENGINE.apply(state, Play(0, "TEES", "end", "begins"))
    plain = max(len(w) - 1 for w in fitting_words(state, 1))
    tiles = Counter(state.hands[1] + "CATEES")
    turned = [
        w
        for w in word_set("family")
        if not Counter(w.upper()) - tiles and turnovers_for(state, 1, w)
    ]
    assert turned  # the position offers a turnover
    action = choose(view_for(state, 1), 1, "hard", 0)
    after = TURNOVER_ENGINE.apply(state, action)
    assert len(word_of(action)) - 1 == max(plain, *(len(w) - 1 for w in turned))
    assert action == Turnover(1, "TRIUMPH", "end", "begins")
    assert [w.text for w in after.snake] == ["CAT", "TRIUMPH"] and after.hands[0] == "EEOOS"


# Only the seat's own view.


def test_the_strategy_works_from_a_bare_view() -> None:
    state = after_first_word(ENGINE, "CAT", "AEINRSTLO")
    view = view_for(state, 1)
    assert not hasattr(view, "hands") and not hasattr(view, "core")
    bare = replace(view, tile_counts=(0, 0), log=(), scores=None, core_count=0)
    assert choose(bare, 1, "hard", 0) == choose(view, 1, "hard", 0)


def test_other_hands_and_the_core_do_not_change_the_choice() -> None:
    state = after_first_word(TURNOVER_ENGINE, "CAT", "AEINRSTLOBDEGMU")
    other = replace(state, hands=("ZZZZ"[: len(state.hands[0])], state.hands[1]), core="QQQQQQ")
    for level in LEVELS:
        seen = choose(view_for(state, 1), 1, level, 7)
        assert choose(view_for(other, 1), 1, level, 7) == seen
        assert choose(state, 1, level, 7) == seen  # a whole state is cut to the view first


def test_a_spectator_view_is_refused_a_word_but_does_not_crash() -> None:
    state = after_first_word(ENGINE, "CAT", "AEINRSTLO")
    assert choose(public_view(state), 1, "hard", 0) == Pick(1)
    with pytest.raises(ValueError):
        choose(view_for(state, 1), 1, "expert", 0)


# Challenges and claims (Apple Turnover, words unchecked).


def laid_by_seat_0(word: str, rest: str = "EE") -> AppState:
    state = TURNOVER_ENGINE.new(3, 2, FAMILY)
    state = replace(state, hands=(word + rest, "AEINRSTLO"), turn=0, core="EEE")
    return TURNOVER_ENGINE.apply(state, Play(0, word))


@pytest.mark.parametrize("level", LEVELS)
def test_a_listed_word_is_never_challenged(level: str) -> None:
    state = laid_by_seat_0("CAT")
    assert state.pending is not None
    assert isinstance(choose(view_for(state, 1), 1, level, 0), Play)


@pytest.mark.parametrize("level", LEVELS)
def test_a_listed_winning_word_is_accepted(level: str) -> None:
    state = laid_by_seat_0("CAT", rest="")
    assert state.phase == "claim" and state.turn == 1
    action = choose(view_for(state, 1), 1, level, 0)
    assert action == Accept(1)
    assert TURNOVER_ENGINE.is_over(TURNOVER_ENGINE.apply(state, action))


def test_hard_challenges_only_an_unlisted_word_and_easy_lets_it_be() -> None:
    assert not listed("QATZ")
    state = laid_by_seat_0("QATZ")
    assert isinstance(choose(view_for(state, 1), 1, "easy", 0), Play)
    action = choose(view_for(state, 1), 1, "hard", 0)
    assert action == Challenge(1)
    after = TURNOVER_ENGINE.apply(state, action)
    assert not after.snake and after.turn == 1
    claim = laid_by_seat_0("QATZ", rest="")
    assert choose(view_for(claim, 1), 1, "normal", 0) == Challenge(1)
    assert choose(view_for(claim, 1), 1, "easy", 0) == Accept(1)


def test_the_index_finds_words_through_the_shared_letter() -> None:
    index = players.word_index("family")
    found = index.spellable("ATE", "R")
    assert {"rate", "tear", "rat", "tar"} <= set(found)
    assert "art" not in found  # spelt, but it neither begins nor ends with the R
    assert all(w[0] == "r" or w[-1] == "r" for w in found)
    assert [len(w) for w in found] == sorted(map(len, found), reverse=True)
