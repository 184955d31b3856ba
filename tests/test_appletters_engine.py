"""Appletters, Applescore and Apple Turnover, case by case, on snakes drawn by hand.

Coordinates are (row, col); the first word lies on row 0 from column 0. A tiny word list
is passed through the ``words`` option so every case is readable.
"""

from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.games.appletters import (
    DISTRIBUTION,
    EDITION,
    ENGINE,
    MAX_WORD,
    SCORE_ENGINE,
    TURNOVER_ENGINE,
    VARIANTS,
    Accept,
    AppLettersAction,
    AppLettersEngine,
    AppState,
    BadApple,
    Challenge,
    Event,
    Pick,
    Placement,
    Play,
    Turnover,
    board,
    deal,
    mirror_bonus,
    placements_for,
    public_view,
    room,
    tally,
    tile_bag,
    turnovers_for,
    view_for,
    word_laid,
    word_points,
)
from bot.games.base import Ambiguous, BadInput, IllegalMove, Option
from bot.games.words import load_words

_WORD_TEXT = """apple apples eat eats eaten the ant tea toot ten net at pa ta dog god pear
staple elephant noon era"""
WORDS = frozenset(_WORD_TEXT.split())
BIG = "AAAAAEEEEEPPPPLLLTTTTTNNNOOOSSDDGGRRHH"


def table(
    engine: AppLettersEngine, hands: list[str], core: str = "", turn: int = 0, **options: object
) -> AppState:
    """A game with the given hands and core, ``turn`` to play and an empty snake."""
    state = engine.new(1, len(hands), {"words": WORDS, **options})
    total = sum(map(len, hands)) + len(core)
    sorted_hands = tuple("".join(sorted(h)) for h in hands)
    return replace(state, hands=sorted_hands, core=core, turn=turn, total_tiles=total)


def act(state: AppState, seat: int, kind: str, arg: str = "") -> AppState:
    """One move as a button, a form or a move log names it."""
    return TURNOVER_ENGINE.apply(state, TURNOVER_ENGINE.parse(seat, kind, arg))


def play(state: AppState, arg: str) -> AppState:
    return act(state, state.turn, "play", arg)


def row(r: int, c0: int, n: int) -> tuple[tuple[int, int], ...]:
    return tuple((r, c0 + i) for i in range(n))


def col(c: int, r0: int, n: int) -> tuple[tuple[int, int], ...]:
    return tuple((r0 + i, c) for i in range(n))


def in_bag(state: AppState) -> int:
    """Every tile accounted for: hands, core, the table and the Bad Apple pile."""
    held = sum(len(h) for h in state.hands)
    return held + len(state.core) + len(board(state.snake)) + len(state.bad_apples)


# Tiles and the deal.


def test_there_are_110_tiles_or_107_with_easy_letters() -> None:
    assert sum(DISTRIBUTION.values()) == 110 == len(tile_bag())
    easy = tile_bag(easy_letters=True)
    assert len(easy) == 107 and not set("QXZ") & set(easy)


@pytest.mark.parametrize(
    ("engine", "size"), [(ENGINE, 9), (SCORE_ENGINE, 9), (TURNOVER_ENGINE, 21)]
)
def test_new_deals_full_hands_from_the_whole_bag(engine: AppLettersEngine, size: int) -> None:
    state = engine.new(5, 4, {"words": WORDS})
    assert [len(h) for h in state.hands] == [size] * 4
    assert in_bag(state) == state.total_tiles == 110
    assert Counter("".join(state.hands) + state.core) == Counter(tile_bag())
    easy = engine.new(5, 2, {"words": WORDS, "easy_letters": True})
    assert in_bag(easy) == 107 and not set("QXZ") & set("".join(easy.hands) + easy.core)


@pytest.mark.parametrize(
    ("players", "hand", "core"),
    # 110 tiles: 21 a hand up to four players (core 68, 47, 26), 15 from five (core 35, 20).
    [(2, 21, 68), (3, 21, 47), (4, 21, 26), (5, 15, 35), (6, 15, 20)],
)
def test_turnover_deals_equal_hands_and_the_core_keeps_tiles(
    players: int, hand: int, core: int
) -> None:
    for seed in range(5):
        state = TURNOVER_ENGINE.new(seed, players, {"words": WORDS})
        assert state.edition == EDITION == 4
        assert [len(h) for h in state.hands] == [hand] * players
        assert len(state.core) == core and in_bag(state) == 110
    easy = TURNOVER_ENGINE.new(1, 6, {"words": WORDS, "easy_letters": True})
    assert [len(h) for h in easy.hands] == [15] * 6 and len(easy.core) == 107 - 90


def test_edition_1_turnover_dealt_21_at_any_table() -> None:
    """As games stored before edition 2 were dealt: with six players the sixth got the 5
    tiles left and the core none; with five the core kept 5."""
    six = TURNOVER_ENGINE.new(3, 6, {"words": WORDS, "edition": 1})
    assert sorted(map(len, six.hands)) == [5, 21, 21, 21, 21, 21] and six.core == ""
    five = TURNOVER_ENGINE.new(3, 5, {"words": WORDS, "edition": 1})
    assert [len(h) for h in five.hands] == [21] * 5 and len(five.core) == 5
    assert six.edition == five.edition == 1


def test_player_count_is_two_to_six() -> None:
    for players in (1, 7):
        with pytest.raises(ValueError):
            ENGINE.new(1, players, {"words": WORDS})


def test_lowest_letter_starts() -> None:
    hands, core, starter = deal("BCA" + "E" * 40, 3, 9)
    assert starter == 2
    assert hands == ("BEEEEEEEE", "CEEEEEEEE", "AEEEEEEEE")
    assert len(core) == 43 - 27


def test_tied_players_draw_again_and_keep_every_tile() -> None:
    # A, Z, A: seats 0 and 2 tie and draw again (C and B): seat 2 starts.
    hands, core, starter = deal("AZA" + "CB" + "E" * 40, 3, 9)
    assert starter == 2
    assert hands[0].count("A") == 1 and "C" in hands[0]
    assert "A" in hands[2] and "B" in hands[2]
    assert [len(h) for h in hands] == [9, 9, 9]
    assert len(core) == 45 - 27
    # A second tie: both draw D, then F beats G.
    _, _, starter = deal("AA" + "DD" + "GF" + "E" * 30, 2, 9)
    assert starter == 1


def test_the_starter_is_announced_without_naming_a_tile() -> None:
    state = ENGINE.new(9, 3, {"words": WORDS})
    assert state.log[0].seat == state.turn
    assert state.log[0].text == "drew the lowest letter and starts"


# Placement on hand-drawn snakes.


def test_first_word_lies_flat_and_later_words_run_across_it_each_way() -> None:
    state = play(table(ENGINE, [BIG, BIG]), "APPLE")
    assert state.snake[0].cells == row(0, 0, 5) and state.snake[0].horizontal
    expected = {
        "EAT": ("end", "begins", col(4, 0, 3)),  # down from the final E
        "THE": ("end", "ends", col(4, -2, 3)),  # down into the final E
        "ANT": ("start", "begins", col(0, 0, 3)),  # down from the first A
        "TEA": ("start", "ends", col(0, -2, 3)),  # down into the first A
    }
    for word, (end, mode, where) in expected.items():
        (p,) = placements_for(state, 1, word)
        assert (p.end, p.mode, p.cells, p.horizontal) == (end, mode, where, False)
        assert p.arg == f"{word}-{end[0]}{mode[0]}"  # TEA-sb


def test_a_word_attached_to_a_vertical_word_runs_flat() -> None:
    state = play(play(table(ENGINE, [BIG, BIG]), "APPLE"), "EAT")
    assert state.snake[-1].cells == col(4, 0, 3)
    found = {(p.end, p.mode): p.cells for p in placements_for(state, 0, "ANT")}
    assert found == {("end", "ends"): row(2, 2, 3), ("start", "begins"): col(0, 0, 3)}
    (ten,) = placements_for(state, 0, "TEN")
    assert ten.cells == row(2, 4, 3) and ten.horizontal


def test_a_word_that_fits_several_ways_must_say_which() -> None:
    state = play(table(ENGINE, [BIG, BIG]), "TOOT")
    ways = {(p.end, p.mode) for p in placements_for(state, 1, "TOOT")}
    assert ways == {("start", "begins"), ("start", "ends"), ("end", "begins"), ("end", "ends")}
    with pytest.raises(Ambiguous, match="more than one way"):
        play(state, "TEN")
    with pytest.raises(Ambiguous, match="more than one way"):
        play(state, "TOOT:end")
    after = play(state, "TEN:end:begins")
    assert after.snake[-1].cells == col(3, 0, 3)
    after = play(state, "NET:start")
    assert after.snake[0].cells == col(0, -2, 3)


def each_way(
    state: AppState, seat: int, kind: str, word: str
) -> tuple[tuple[Option, ...], list[AppState]]:
    """The options of a word that fits several ways, and the state after each one."""
    with pytest.raises(Ambiguous) as asked:
        act(state, seat, kind, word)
    options = asked.value.options
    return options, [act(state, seat, o.verb, o.arg) for o in options]


def test_a_word_that_fits_both_ends_offers_each_way() -> None:
    """TOOT lies on row 0, columns 0 to 3: both open ends are a T. TEN begins with T and ends
    with N, so it can only go down from (0,0) or down from (0,3), and nothing is near either
    column: two ways, one option each, and each option plays exactly its own way."""
    state = play(table(ENGINE, [BIG, BIG]), "TOOT")
    options, (at_start, at_end) = each_way(state, 1, "play", "TEN")
    assert options == (
        Option("At the start: TEN begins with T", "play", "TEN-sb"),
        Option("At the end: TEN begins with T", "play", "TEN-eb"),
    )
    with pytest.raises(Ambiguous) as asked:
        play(state, "TEN")
    assert str(asked.value) == (
        "TEN fits more than one way. Choose one: "
        "At the start: TEN begins with T; At the end: TEN begins with T."
    )
    assert [w.text for w in at_start.snake] == ["TEN", "TOOT"]
    assert at_start.snake[0].cells == col(0, 0, 3)
    assert [w.text for w in at_end.snake] == ["TOOT", "TEN"]
    assert at_end.snake[-1].cells == col(3, 0, 3)


def test_a_turnover_that_fits_both_ends_offers_each_way() -> None:
    """TEA (seat 0) on row 0, then ANT (seat 1) down from its A at (0,2): seat 2 may turn
    over either. ANTS begins with A (and does not end with it): across from ANT's A in
    place of TEA, or down from TEA's A in place of ANT. Both are longer and touch nothing."""
    state = play(table(TURNOVER_ENGINE, [BIG, BIG, BIG]), "TEA")
    state = play(state, "ANT:end")
    options, (at_start, at_end) = each_way(state, 2, "turnover", "ANTS")
    assert options == (
        Option("Turn over the start word: ANTS begins with A", "turnover", "ANTS-sb"),
        Option("Turn over the end word: ANTS begins with A", "turnover", "ANTS-eb"),
    )
    assert [w.text for w in at_start.snake] == ["ANTS", "ANT"]
    assert at_start.snake[0].cells == row(0, 2, 4)
    assert [w.text for w in at_end.snake] == ["TEA", "ANTS"]
    assert at_end.snake[-1].cells == col(2, 0, 4)


def test_a_way_label_fits_a_button() -> None:
    longest = Placement("W" * MAX_WORD, "start", "begins", (), True)
    assert len(longest.label(turnover=True)) == 80


def test_the_new_end_is_the_far_end_of_the_new_word() -> None:
    state = play(table(ENGINE, [BIG, BIG]), "APPLE")
    state = play(state, "TEA:start:ends")  # the snake now starts at the T of TEA
    (ant,) = placements_for(state, 1, "ANT")
    assert ant.arg == "ANT-se" and ant.cells == row(-2, -2, 3)
    (p,) = placements_for(state, 1, "TEN")
    assert p.end == "start" and p.cells == row(-2, 0, 3)


def test_a_word_must_share_an_end_letter() -> None:
    """The refusal names each end it means with its letter: "the snake's end" would read as
    the end called "end" (EAT begins with its E, but the start was asked for)."""
    state = play(table(ENGINE, [BIG, BIG]), "APPLE")
    with pytest.raises(IllegalMove) as both:
        play(state, "TOOT")
    said = "TOOT must begin or end with a letter at an open end: A at the start or E at the end."
    assert str(both.value) == said
    with pytest.raises(IllegalMove) as start:
        play(state, "EAT:start")
    assert str(start.value) == "EAT must begin or end with A, the letter at the start of the snake."
    with pytest.raises(IllegalMove) as way:
        play(state, "ANT:start:ends")
    assert str(way.value) == "ANT must end with A, the letter at the start of the snake."


def test_new_tiles_may_not_touch_the_snake_side_on() -> None:
    state = play(table(ENGINE, [BIG, BIG]), "AT")
    state = play(state, "ANT:start:begins")  # A N T down from (0,0): the start is now T
    with pytest.raises(IllegalMove, match="the E would touch the N of ANT"):
        play(state, "TEN:end")  # down from the T at (0,1): its E sits beside the N
    assert {(p.end, p.mode) for p in placements_for(state, state.turn, "NET")} == {
        ("end", "ends"),
        ("start", "ends"),
    }


def winding() -> AppState:
    """APPLE, then EAT down from its E, then ANT back left to end under APPLE's second P."""
    state = play(table(ENGINE, [BIG, BIG]), "APPLE")
    state = play(state, "EAT")
    state = play(state, "ANT:end:ends")
    assert state.snake[-1].cells == row(2, 2, 3)
    return state


def test_a_winding_snake_may_not_come_back_onto_itself() -> None:
    state = winding()
    with pytest.raises(IllegalMove, match="the T would land on the P of APPLE"):
        play(state, "TEA:end")


def test_the_cell_beyond_a_word_must_stay_empty() -> None:
    state = winding()
    # PA would fill (1,2) and (2,2): the P of APPLE at (0,2) would extend it to PPA.
    with pytest.raises(IllegalMove, match="PA would run straight into the P of APPLE"):
        play(state, "PA:end")
    after = play(state, "ANT:end")  # down, away from everything
    assert after.snake[-1].cells == col(2, 2, 3)


def test_room_at_each_end_is_the_longest_word_that_fits_there() -> None:
    """Worked by hand. The winding snake's end is the A of ANT at (2,2): a word ending there
    would come up from (1,2), beside APPLE's P at (0,2); one beginning there runs down,
    free. Then APPLE, EAT down from its E, and ANT down from its A: the ends are ANT's T at
    (2,0) and EAT's T at (2,4), on one row with two empty cells between. A word beginning
    with the first T runs right and may take both (3 letters: a fourth would run into the
    other T); one ending with the second runs left, the same; the other ways are open (up
    to ROOM_SHOWN)."""
    assert room(winding().snake) == {
        ("start", "begins"): 12,
        ("start", "ends"): 12,
        ("end", "begins"): 12,
        ("end", "ends"): 0,
    }
    state = play(table(ENGINE, [BIG, BIG]), "APPLE")
    state = play(play(state, "EAT:end"), "ANT:start")
    assert [w.cells[-1] for w in state.snake[::2]] == [(2, 0), (2, 4)]
    assert room(state.snake) == {
        ("start", "begins"): 3,
        ("start", "ends"): 12,
        ("end", "begins"): 12,
        ("end", "ends"): 3,
    }
    assert room(()) == {}


def test_room_is_told_in_words_on_the_board() -> None:
    """The winding snake (above): at its end, the A of ANT, no word may end."""
    from cogs.appletters import room_lines

    assert room_lines(public_view(winding())) == [
        "Room at the start (A): at least 12 letters either way",
        "Room at the end (A): at least 12 letters beginning with A, none ending with A",
    ]
    state = play(play(play(table(ENGINE, [BIG, BIG]), "APPLE"), "EAT:end"), "ANT:start")
    assert room_lines(public_view(state)) == [
        "Room at the start (T): up to 3 letters beginning with T, at least 12 letters ending "
        "with T",
        "Room at the end (T): at least 12 letters beginning with T, up to 3 letters ending with T",
    ]


def test_missing_letters_are_named() -> None:
    state = table(ENGINE, ["APLE", "TT"])
    with pytest.raises(IllegalMove, match="you are missing P"):
        play(state, "APPLE")
    with pytest.raises(IllegalMove, match="missing P, P and S"):
        play(replace(state, hands=("ALE", "TT")), "APPLES")


def test_words_need_letters_length_and_the_word_list() -> None:
    state = table(ENGINE, [BIG, BIG])
    with pytest.raises(BadInput, match="at least 2 letters"):
        play(state, "A")
    with pytest.raises(BadInput, match="A to Z"):
        play(state, "AP-PLE")
    with pytest.raises(IllegalMove, match="PAPLE is not in the word list"):
        play(state, "PAPLE")
    assert placements_for(state, 0, "paple") == []


def test_over_long_words_are_refused_without_being_repeated() -> None:
    """A 4,000-letter word must not come back in a 4,000-letter refusal (Discord takes 2,000)."""
    state = table(ENGINE, [BIG, BIG])
    turnover = table(TURNOVER_ENGINE, [BIG, BIG])
    for word in ("QZ" * 300, "A" * 4000, "É" * 41, "A" * (MAX_WORD + 1) + ":end"):
        for kind, at in (("play", state), ("turnover", turnover)):
            with pytest.raises(BadInput, match=f"at most {MAX_WORD} letters") as refused:
                act(at, 0, kind, word)
            assert len(str(refused.value)) < 80
        assert placements_for(state, 0, word) == turnovers_for(turnover, 0, word) == []
    with pytest.raises(IllegalMove, match="not in the word list"):
        play(state, "A" * MAX_WORD)


def test_the_longest_word_the_tiles_can_spell_is_not_too_long() -> None:
    """The bag spells no listed word longer than ``MAX_WORD`` letters, the modal's limit."""
    bag = Counter(tile_bag())
    spelled = [w for w in load_words("full") if not Counter(w.upper()) - bag]
    assert max(map(len, spelled)) <= MAX_WORD


def test_only_the_player_to_act_may_play() -> None:
    state = table(ENGINE, [BIG, BIG])
    with pytest.raises(IllegalMove, match="not your turn"):
        act(state, 1, "play", "APPLE")
    with pytest.raises(BadInput, match="no move called"):
        act(state, 0, "dance")
    with pytest.raises(IllegalMove, match="nothing to accept"):
        act(state, 0, "accept")  # only once someone has used every tile on an unchecked word


def test_playing_uses_every_letter_but_the_shared_one() -> None:
    state = play(table(ENGINE, ["APPLEZ", "ATX"]), "APPLE")
    assert state.hands[0] == "Z"
    state = play(state, "EAT")
    assert state.hands[1] == "X" and state.turn == 0


# Pick and pass, winning, stalemate.


def test_pick_and_pass_takes_three_or_what_is_left() -> None:
    state = table(ENGINE, ["Q", "Z"], core="ABCDE")
    state = act(state, 0, "pick")
    assert state.hands[0] == "ABCQ" and state.core == "DE" and state.turn == 1
    state = act(state, 1, "pick")
    assert state.hands[1] == "DEZ" and state.core == ""
    assert [e.text for e in state.log[-2:]] == [
        "picked 3 tiles: PICK AND PASS!",
        "picked 2 tiles: PICK AND PASS!",
    ]


def test_using_the_last_tile_wins() -> None:
    state = play(table(ENGINE, ["APPLE", "QZ"], core="XX"), "APPLE")
    assert ENGINE.is_over(state) and ENGINE.to_act(state) == frozenset()
    assert "HOW DO YOU LIKE THEM APPLES!" in state.log[-1].text
    winner, loser = ENGINE.results(state)
    assert winner.won and winner.placement == 1 and winner.score == 0
    assert not loser.won and loser.score == 2
    with pytest.raises(IllegalMove, match="over"):
        act(state, 1, "pick")


def test_stalemate_when_everyone_passes_with_the_core_empty() -> None:
    state = table(ENGINE, ["QX", "ZQQ", "XZ"], core="")
    state = act(state, 0, "pick")
    state = act(state, 1, "pick")
    assert not ENGINE.is_over(state)
    state = act(state, 2, "pick")
    assert ENGINE.is_over(state)
    assert state.log[-1].text == (
        "Stalemate: the core is empty and nobody laid a word for a whole round,"
        " so the fewest tiles left wins"
    ), "passing is a choice: not that nobody can play"
    results = ENGINE.results(state)
    assert [(r.placement, r.won) for r in results] == [(1, True), (3, False), (1, True)]


def test_a_pass_that_empties_the_core_does_not_count_toward_stalemate() -> None:
    state = table(ENGINE, ["Q", "Z"], core="XY")
    state = act(state, 0, "pick")  # takes the last two tiles
    state = act(state, 1, "pick")
    assert not ENGINE.is_over(state)
    state = act(state, 0, "pick")
    assert ENGINE.is_over(state)


def test_a_word_resets_the_stalemate_count() -> None:
    state = table(ENGINE, ["ATQ", "Z"], core="", turn=1)
    state = act(state, 1, "pick")
    state = play(state, "AT")
    state = act(state, 1, "pick")
    assert not ENGINE.is_over(state) and state.quiet == 1


def test_stalemate_waits_for_every_remaining_player_after_a_forfeit() -> None:
    # Core empty. Seat 2 lays AT (the last word) and still holds E and A (TEA fits at the T).
    state = table(ENGINE, ["QX", "ZQQ", "ATEA"], core="", turn=2)
    state = play(state, "AT")
    state = act(state, 0, "pick")
    state = ENGINE.forfeit(state, 0)
    state = act(state, 1, "pick")
    assert not ENGINE.is_over(state)
    assert state.turn == 2


def test_a_player_leaving_ends_the_game_when_everyone_left_has_passed() -> None:
    # Core empty. Seat 2 lays AT, seats 0 and 1 pass; seat 2 leaves before its turn.
    state = table(ENGINE, ["QX", "ZQQ", "ATEA"], core="", turn=2)
    state = play(state, "AT")
    state = act(act(state, 0, "pick"), 1, "pick")
    state = ENGINE.forfeit(state, 2)
    assert ENGINE.is_over(state) and "Stalemate" in state.log[-1].text


def test_edition_2_kept_a_leavers_wordless_turn_in_the_stalemate_count() -> None:
    """As edition 2 games were played, so their logs replay: seat 0's pass still counted
    after it left, and seat 1's pass ended the game before seat 2 could go out."""
    state = table(ENGINE, ["QX", "ZQQ", "ATEA"], core="", turn=2, edition=2)
    state = play(state, "AT")
    state = act(state, 0, "pick")
    state = ENGINE.forfeit(state, 0)
    state = act(state, 1, "pick")
    assert ENGINE.is_over(state) and "Stalemate" in state.log[-1].text


def test_timeout_picks_and_passes() -> None:
    state = table(ENGINE, [BIG, BIG], core="ABC")
    assert ENGINE.timeout_actions(state) == [Pick(0)]


def test_forfeit_sets_tiles_aside_and_the_last_player_wins() -> None:
    state = table(ENGINE, ["APPLE", "ZZ", "QQ"], core="ABC")
    state = ENGINE.forfeit(state, 0)
    assert state.turn == 1 and state.hands[0] == "AELPP" and in_bag(state) == state.total_tiles
    state = ENGINE.forfeit(state, 2)
    assert ENGINE.is_over(state)
    assert [r.won for r in ENGINE.results(state)] == [False, True, False]


# The variants, as data.


def test_the_variants_differ_only_by_their_rules() -> None:
    rules = {
        name: (r.hand_size, r.turnovers, r.bad_apple, r.challenges, r.scored_by_default)
        for name, r in VARIANTS.items()
    }
    assert rules == {
        "appletters": (9, False, False, False, False),
        "applescore": (9, False, False, False, True),
        "appleturnover": (21, True, True, True, False),
    }
    assert [e.kind for e in (ENGINE, SCORE_ENGINE, TURNOVER_ENGINE)] == list(VARIANTS)
    for engine in (ENGINE, SCORE_ENGINE, TURNOVER_ENGINE):
        state = engine.new(2, 3, {"words": WORDS, "check_words": False})
        assert engine.rules is VARIANTS[engine.kind] is state.rules is public_view(state).rules
        assert state.scored == engine.rules.scored_by_default
        assert state.check_words == (not engine.rules.challenges)  # the option needs challenges
    assert SCORE_ENGINE.new(2, 2, {"words": WORDS, "scored": False}).scored is False


# Applescore.


@pytest.mark.parametrize(
    ("word", "from_hand", "points"),
    [
        ("TOOT", 4, 9),  # palindrome
        ("NOON", 3, 8),
        ("DOG", 3, 8),  # GOD is listed too
        ("APPLE", 5, 5),
        ("EAT", 2, 2),
        ("ELEPHANT", 8, 13),  # eight letters
        ("ELEPHANT", 7, 12),
        ("AA", 2, 2),  # a two-letter palindrome: no mirror bonus
        ("AT", 2, 7),  # TA is listed: a reversal pair of any length counts
    ],
)
def test_word_points(word: str, from_hand: int, points: int) -> None:
    assert word_points(word, from_hand, WORDS | {"aa", "at", "ta"}) == points


def test_palindromes_need_three_letters_and_reversal_pairs_two() -> None:
    assert mirror_bonus("TOOT", WORDS) and mirror_bonus("GOD", WORDS)
    assert mirror_bonus("NO", WORDS | {"no", "on"}) and not mirror_bonus("NO", WORDS - {"on"})
    assert not mirror_bonus("AA", WORDS | {"aa"}) and not mirror_bonus("PEAR", WORDS)


def test_applescore_adds_points_and_a_bonus_for_going_out() -> None:
    toot = SCORE_ENGINE.apply(table(SCORE_ENGINE, ["TOOTX", "Q"]), Play(0, "TOOT"))
    assert toot.scores == (9, 0)
    state = table(SCORE_ENGINE, ["DOGX", "OD"], core="")
    state = SCORE_ENGINE.apply(state, Play(0, "DOG"))
    assert state.scores == (8, 0)  # three tiles; GOD is listed too
    state = SCORE_ENGINE.apply(state, Play(1, "GOD"))
    assert SCORE_ENGINE.is_over(state)
    assert state.scores == (8, 2 + 5 + 5)  # O, D from the hand; DOG; going out
    second, first = SCORE_ENGINE.results(state)
    assert first.won and first.score == 12 and second.placement == 2


def test_applescore_highest_score_wins_even_against_the_player_going_out() -> None:
    state = replace(table(SCORE_ENGINE, ["APPLE", "ZZ"]), scores=(0, 20))
    state = SCORE_ENGINE.apply(state, Play(0, "APPLE"))
    assert SCORE_ENGINE.is_over(state) and state.scores == (10, 20)
    assert [r.won for r in SCORE_ENGINE.results(state)] == [False, True]


def test_scores_are_visible_only_in_scored_games() -> None:
    assert public_view(table(SCORE_ENGINE, [BIG, BIG])).scores == (0, 0)
    assert public_view(table(ENGINE, [BIG, BIG])).scores is None


# Apple Turnover.


def turnover_table(scored: bool = False) -> AppState:
    """APPLE by seat 0, EAT by seat 1 down from its E; seat 0 to play."""
    state = table(TURNOVER_ENGINE, [BIG, BIG], check_words=True, scored=scored)
    return play(play(state, "APPLE"), "EAT")


def test_turn_over_an_end_word_with_a_longer_one() -> None:
    state = turnover_table()
    before, old = state.hands, state.snake[1].text
    (p,) = turnovers_for(state, 0, "EATS")
    assert p.arg == "EATS-eb" and p.cells == col(4, 0, 4)
    logged = len(state.log)
    state = act(state, 0, "turnover", "EATS")
    assert [w.text for w in state.snake] == ["APPLE", "EATS"] and state.snake[1].seat == 0
    assert Counter(state.hands[1]) == Counter(before[1]) + Counter("AT")
    assert Counter(state.hands[0]) + Counter("ATS") == Counter(before[0])
    # one line, the board's headline: not the turnover, then a plain "played EATS" after it
    assert [e.text for e in state.log[logged:]] == [f"turned over {old} with EATS: TURN OVER!"]
    assert state.turn == 1 and in_bag(state) == state.total_tiles


def test_turning_over_the_first_word_keeps_the_shared_tile_on_the_table() -> None:
    state = act(turnover_table(), 0, "pick")
    before = state.hands
    state = act(state, 1, "turnover", "STAPLE:start")
    assert [w.text for w in state.snake] == ["STAPLE", "EAT"]
    assert state.snake[0].cells == row(0, -1, 6)
    assert Counter(state.hands[0]) == Counter(before[0]) + Counter("APPL")
    assert in_bag(state) == state.total_tiles


def test_turnover_refusals() -> None:
    state = turnover_table()
    with pytest.raises(IllegalMove, match="APPLE is your own word"):
        act(state, 0, "turnover", "STAPLE:start")
    with pytest.raises(IllegalMove, match="ERA must be longer than EAT"):
        act(state, 0, "turnover", "ERA:end")
    lone = play(table(TURNOVER_ENGINE, [BIG, BIG], check_words=True), "APPLE")
    with pytest.raises(IllegalMove, match="two words or more"):
        act(lone, 1, "turnover", "STAPLE")
    with pytest.raises(IllegalMove, match="only allowed in Apple Turnover"):
        ENGINE.apply(table(ENGINE, [BIG, BIG]), Turnover(0, "EATS"))


def test_a_turnover_refusal_gives_the_reason_of_the_end_the_word_was_meant_for() -> None:
    """APPLE (seat 1) and EAT (seat 2) both share the E at (0, 4). EATEN is no longer than
    APPLE, so it can only be meant for EAT, where seat 0 lacks the N: that is the reason
    given, at either end left unsaid, not that EATEN is no longer than APPLE."""
    state = table(TURNOVER_ENGINE, ["AEST", BIG, "ATZ"], turn=1, check_words=True)
    state = play(play(state, "APPLE"), "EAT")
    assert [(w.text, w.seat) for w in state.snake] == [("APPLE", 1), ("EAT", 2)]
    assert state.turn == 0
    for arg in ("EATEN", "EATEN:end"):
        with pytest.raises(IllegalMove, match="missing N"):
            act(state, 0, "turnover", arg)
    with pytest.raises(IllegalMove, match="EATEN must be longer than APPLE"):
        act(state, 0, "turnover", "EATEN:start")


def test_a_turnover_sharing_no_letter_names_the_letter_the_old_word_hooks_onto() -> None:
    """EAT hooks onto APPLE's E, which is no open end (they are A and T): a word for EAT's
    place is told it needs that E, not "the letter at the snake's end"."""
    state = play(play(table(TURNOVER_ENGINE, [BIG, BIG]), "APPLE"), "EAT")
    assert [letter for _, _, letter in public_view(state).open_ends] == ["A", "T"]
    said = "To turn over EAT, TOTS must begin or end with E, the letter EAT hooks onto."
    for arg in ("TOTS", "TOTS:end"):
        with pytest.raises(IllegalMove) as refused:
            act(state, 0, "turnover", arg)
        assert str(refused.value) == said


def test_bad_apple_is_an_exchange_once_per_game_and_face_down() -> None:
    """Q goes on the pile and the core's next tile (B) comes back: the hand keeps its size,
    the core gives one, the turn passes. Only seat 0's own view shows the B."""
    state = table(TURNOVER_ENGINE, ["QAPPLE", "ZAT"], core="BCDEFG", check_words=True)
    state = act(state, 0, "badapple", "q")
    assert state.bad_apples == "Q" and state.hands[0] == "ABELPP" and state.core == "CDEFG"
    assert state.turn == 1 and state.quiet == 0 and in_bag(state) == state.total_tiles
    assert state.log[-1] == Event(0, "swapped a tile on the Bad Apple pile for one from the core")
    assert view_for(state, 0).hand == "ABELPP"
    for seen in (view_for(state, 1), public_view(state)):
        assert seen.bad_apple_count == 1 and seen.tile_counts == (6, 3) and seen.core_count == 5
        assert "Q" not in repr(seen) and "ABELPP" not in repr(seen)
    with pytest.raises(IllegalMove, match="don't have a X"):
        act(state, 1, "badapple", "X")
    with pytest.raises(IllegalMove, match="not your turn"):
        act(state, 0, "pick")
    state = act(state, 1, "pick")
    with pytest.raises(IllegalMove, match="already thrown"):
        act(state, 0, "badapple", "A")
    with pytest.raises(IllegalMove, match="only thrown in Apple Turnover"):
        ENGINE.apply(table(ENGINE, ["QA", "Z"]), BadApple(0, "Q"))


def test_bad_apple_out_of_turn_is_refused_and_changes_nothing() -> None:
    state = table(TURNOVER_ENGINE, ["QAPPLE", "ZAT"], core="BCDEFG", check_words=True)
    with pytest.raises(IllegalMove, match="not your turn"):
        act(state, 1, "badapple", "Z")
    assert state.bad_apple_used == (False, False)


def test_bad_apple_with_an_empty_core_is_a_throw_that_counts_toward_a_stalemate() -> None:
    state = table(TURNOVER_ENGINE, ["QA", "ZAT", "EE"], check_words=True)
    state = act(state, 0, "badapple", "Q")
    assert state.hands[0] == "A" and state.core == "" and state.bad_apples == "Q"
    assert state.turn == 1 and state.quiet == 1
    assert state.log[-1].text == (
        "threw a tile on the Bad Apple pile; the core is empty, so none comes back"
    )


def test_the_last_tile_is_exchanged_only_while_the_core_has_tiles() -> None:
    one = table(TURNOVER_ENGINE, ["Q", "Z"], core="BC", check_words=True)
    swapped = act(one, 0, "badapple", "Q")
    assert swapped.hands[0] == "B" and swapped.core == "C" and not TURNOVER_ENGINE.is_over(swapped)
    lone = table(TURNOVER_ENGINE, ["Q", "Z"], check_words=True)
    with pytest.raises(IllegalMove, match="last tile"):
        act(lone, 0, "badapple", "Q")


def test_edition_1_games_threw_the_bad_apple_away() -> None:
    """Games stored before the exchange replay as they were played: nothing comes back."""
    state = table(TURNOVER_ENGINE, ["QAPPLE", "ZAT"], core="BCDEFG", check_words=True, edition=1)
    state = act(state, 0, "badapple", "Q")
    assert state.hands[0] == "AELPP" and state.core == "BCDEFG" and state.turn == 1
    assert state.log[-1].text == "threw a tile on the Bad Apple pile"
    lone = table(TURNOVER_ENGINE, ["Q", "Z"], core="BC", check_words=True, edition=1)
    with pytest.raises(IllegalMove, match="last tile"):
        act(lone, 0, "badapple", "Q")


def test_words_are_unchecked_in_turnover_until_challenged() -> None:
    state = table(TURNOVER_ENGINE, [BIG, BIG], core="BCDEFG")
    state = play(state, "PAPLE")
    assert public_view(state).challengeable == (0, "PAPLE")
    state = act(state, 1, "challenge")
    assert state.snake == () and Counter(state.hands[0]) == Counter(BIG)
    assert state.skips == (1, 0) and state.turn == 1
    state = act(state, 1, "pick")  # seat 0 misses its turn
    assert state.turn == 1 and state.skips == (0, 0)
    assert state.log[-1].seat == 0 and state.log[-1].text == "misses a turn"


def test_a_failed_challenge_costs_the_challenger_a_turn() -> None:
    state = play(table(TURNOVER_ENGINE, [BIG, BIG, BIG]), "APPLE")
    # Seat 2 challenges out of turn: its next turn is lost.
    lost = act(state, 2, "challenge")
    assert lost.skips == (0, 0, 1) and lost.pending is None
    said = "challenged APPLE, but it is in the word list"
    assert lost.log[-1].text == f"{said}: they miss their next turn"  # not "turn lost"
    lost = act(lost, 1, "pick")
    assert lost.turn == 0 and lost.skips == (0, 0, 0)
    # Seat 1, whose turn it is, challenges: the turn is lost at once.
    now = act(state, 1, "challenge")
    assert now.turn == 2 and len(now.snake) == 1
    assert now.log[-1].text == f"{said}: their turn is over"


def test_a_failed_challenge_leaves_the_next_players_moves_as_they_were() -> None:
    """Seat 1 was offered ETE's two ways after seat 0's APPLE; seat 2 challenged APPLE, and
    failed. Nothing seat 1's moves read has changed, so its choice stands and lays ETE just as
    it would have (then seat 2 misses its turn). A word challenged off, or a player leaving,
    changes what they read: seat 1 chooses again."""
    same = TURNOVER_ENGINE.same_moves
    state = play(table(TURNOVER_ENGINE, [BIG, BIG, BIG], core="BCDEFG"), "APPLE")
    with pytest.raises(Ambiguous):
        play(state, "ETE")
    failed = act(state, 2, "challenge")
    assert failed.skips == (0, 0, 1) and failed.turn == 1
    assert same(state, failed, 1)
    assert not same(state, failed, 0) and not same(state, failed, 2)  # not theirs to play
    chosen, later = play(state, "ETE-eb"), play(failed, "ETE-eb")
    assert later.snake == chosen.snake and later.hands == chosen.hands and later.turn == 0
    bogus = play(table(TURNOVER_ENGINE, [BIG, BIG, BIG], core="BCDEFG"), "PAPLE")
    taken_back = act(bogus, 2, "challenge")
    assert taken_back.turn == 1 and not same(bogus, taken_back, 1)
    left = TURNOVER_ENGINE.forfeit(state, 2)
    assert left.turn == 1 and not same(state, left, 1)


def test_the_challenge_window_closes_when_the_next_player_acts() -> None:
    state = play(table(TURNOVER_ENGINE, [BIG, BIG, BIG]), "PAPLE")
    with pytest.raises(IllegalMove, match="your own word"):
        act(state, 0, "challenge")
    state = act(state, 1, "pick")
    with pytest.raises(IllegalMove, match="no word to challenge"):
        act(state, 2, "challenge")


def test_a_challenged_turnover_is_undone() -> None:
    state = table(TURNOVER_ENGINE, [BIG, BIG])
    state = play(play(state, "APPLE"), "EAT")
    before = state.hands
    state = act(state, 0, "turnover", "EATTN")
    state = act(state, 1, "challenge")
    assert [w.text for w in state.snake] == ["APPLE", "EAT"] and state.snake[1].seat == 1
    assert state.hands == before and state.skips == (1, 0) and state.turn == 1


def test_checked_turnover_refuses_bad_words_and_challenges() -> None:
    state = table(TURNOVER_ENGINE, [BIG, BIG], check_words=True)
    with pytest.raises(IllegalMove, match="not in the word list"):
        play(state, "PAPLE")
    state = play(state, "APPLE")
    with pytest.raises(IllegalMove, match="nothing to challenge"):
        act(state, 1, "challenge")
    with pytest.raises(IllegalMove, match="only part of Apple Turnover"):
        ENGINE.apply(play(table(ENGINE, [BIG, BIG]), "APPLE"), Challenge(1))


def test_going_out_on_an_unchecked_word_waits_for_a_challenge() -> None:
    state = play(table(TURNOVER_ENGINE, ["APPLE", "ZZ", "QQ"]), "APPLE")
    assert state.phase == "claim" and TURNOVER_ENGINE.to_act(state) == frozenset({1})
    assert TURNOVER_ENGINE.timeout_actions(state) == [Accept(1)]
    with pytest.raises(IllegalMove, match=r"^APPLE used every tile: accept it or challenge it"):
        act(state, 1, "pick")
    with pytest.raises(IllegalMove, match=r"^APPLE used every tile: challenge it, or let the pl"):
        act(state, 2, "pick")  # not to accept it: it is seat 1's turn
    with pytest.raises(IllegalMove, match=r"^You have used every tile: the others may now"):
        act(state, 0, "play", "EZ")  # not "someone" to the one who did
    done = act(state, 1, "accept")
    assert TURNOVER_ENGINE.is_over(done) and TURNOVER_ENGINE.results(done)[0].won
    done = act(state, 2, "challenge")  # APPLE is listed: the win stands
    assert TURNOVER_ENGINE.is_over(done) and TURNOVER_ENGINE.results(done)[0].won
    bogus = play(table(TURNOVER_ENGINE, ["PAPLE", "ZZ", "QQ"]), "PAPLE")
    back = act(bogus, 2, "challenge")
    assert back.phase == "play" and back.hands[0] == "AELPP" and back.turn == 1
    assert back.skips == (1, 0, 0)


def test_a_player_owing_a_missed_turn_misses_it_after_a_claim_is_overturned() -> None:
    state = table(TURNOVER_ENGINE, ["PAPLE", BIG, BIG], turn=2)
    state = play(state, "APPLE")
    state = act(state, 1, "challenge")  # APPLE is listed: seat 1 owes a turn
    assert state.skips == (0, 1, 0) and state.turn == 0
    state = act(state, 0, "play", "EPAPLE-eb")  # seat 0 goes out on an unlisted word
    assert state.phase == "claim" and state.turn == 1
    state = act(state, 2, "challenge")  # the challenge succeeds
    assert state.phase == "play" and state.skips[0] == 1
    assert state.turn == 2


def test_the_clock_mark_is_the_turn_and_the_snake() -> None:
    """A failed challenge out of turn keeps the mover's clock; a pass that comes back to the
    same player (the other misses a turn) is a new turn, with a clock of its own."""
    state = play(table(TURNOVER_ENGINE, [BIG, BIG], turn=1), "APPLE")
    mark = TURNOVER_ENGINE.clock_mark(state)
    state = act(state, 0, "challenge")  # APPLE is listed: seat 0 loses this turn
    assert state.turn == 1 and TURNOVER_ENGINE.clock_mark(state) != mark
    state = play(table(TURNOVER_ENGINE, [BIG, BIG, BIG], "EEEEEE", turn=2), "APPLE")
    mark = TURNOVER_ENGINE.clock_mark(state)
    state = act(state, 1, "challenge")  # out of turn: seat 1 owes a turn, seat 0 plays on
    assert state.turn == 0 and TURNOVER_ENGINE.clock_mark(state) == mark
    state = act(state, 0, "pick")
    state = act(state, 2, "pick")  # seat 1 misses its turn: seat 0 again, same snake
    assert state.turn == 0 and state.snake[-1].text == "APPLE"
    assert TURNOVER_ENGINE.clock_mark(state) != mark


def test_a_player_owing_a_missed_turn_misses_it_when_the_player_going_out_leaves() -> None:
    state = table(TURNOVER_ENGINE, ["PAPLE", BIG, BIG], turn=2)
    state = act(play(state, "APPLE"), 1, "challenge")  # seat 1 owes a turn
    state = act(state, 0, "play", "EPAPLE-eb")  # seat 0 goes out; seat 1 may accept
    state = TURNOVER_ENGINE.forfeit(state, 0)
    assert state.phase == "play" and state.out_seat is None and state.pending is None
    assert state.turn == 2 and state.skips == (0, 0, 0)
    assert state.log[-1] == Event(1, "misses a turn")


def test_edition_2_let_the_seat_a_claim_waited_on_play_though_it_owed_a_turn() -> None:
    """As edition 2 games were played, so their logs replay: when the claim fell through,
    seat 1 played next and its missed turn stayed owed."""
    state = table(TURNOVER_ENGINE, ["PAPLE", BIG, BIG], turn=2, edition=2)
    state = act(play(state, "APPLE"), 1, "challenge")  # seat 1 owes a turn
    state = act(state, 0, "play", "EPAPLE-eb")  # seat 0 goes out; seat 1 may accept
    overturned = act(state, 2, "challenge")
    assert overturned.phase == "play" and overturned.turn == 1
    assert overturned.skips == (1, 1, 0)
    left = TURNOVER_ENGINE.forfeit(state, 0)
    assert left.phase == "play" and left.turn == 1 and left.skips == (0, 1, 0)
    for after in (overturned, left):
        assert act(after, 1, "pick").turn == 2  # the move edition 3 refuses


def test_a_taken_back_word_costs_its_player_the_turn_they_are_about_to_play() -> None:
    state = table(TURNOVER_ENGINE, [BIG, BIG], core="BCDEFG", turn=1)
    state = act(play(state, "PAPLE"), 0, "challenge")  # seat 1 owes a turn
    state = play(state, "APPEL")  # seat 1 misses its turn: seat 0 is to play again
    assert state.turn == 0 and state.skips == (0, 0)
    state = act(state, 1, "challenge")  # APPEL goes back: seat 0 misses this turn
    assert state.snake == () and state.turn == 1 and state.skips == (0, 0)
    assert state.log[-1] == Event(0, "misses a turn")


def test_edition_2_let_a_word_taken_back_on_its_players_turn_be_followed_by_another() -> None:
    """As edition 2 games were played, so their logs replay: the player whose word went back
    played on at once and owed the missed turn for later."""
    state = table(TURNOVER_ENGINE, [BIG, BIG], core="BCDEFG", turn=1, edition=2)
    state = act(play(state, "PAPLE"), 0, "challenge")  # seat 1 owes a turn
    state = play(state, "APPEL")  # seat 1 misses its turn: seat 0 is to play again
    state = act(state, 1, "challenge")  # APPEL goes back
    assert state.snake == () and state.turn == 0 and state.skips == (1, 0)
    assert act(state, 0, "pick").turn == 1  # the move edition 3 refuses


def test_a_word_taken_back_counts_as_a_turn_without_one_toward_a_stalemate() -> None:
    """The core is empty and seat 1 owes a missed turn. Seat 0 lays an unlisted word, seat 1
    misses its turn, and seat 1 challenges: since the last word that stands, seat 0's turn
    (its word went back) and seat 1's missed turn went without a word, so with seat 0's
    missed turn the round is whole: a stalemate. Edition 3 started the count again, giving
    seat 1 another turn on the same snake."""
    state = replace(table(TURNOVER_ENGINE, [BIG, BIG]), skips=(0, 1))
    state = play(state, "PAPLE")
    assert state.turn == 0 and state.quiet == 1  # seat 1 missed its turn
    over = act(state, 1, "challenge")
    assert over.phase == "over" and over.snake == ()
    assert [e.text for e in over.log[-3:-1]] == [
        "challenged PAPLE: not in the word list, so it goes back",
        "misses a turn",
    ]
    assert over.log[-1].text.startswith("Stalemate")
    edition_3 = replace(table(TURNOVER_ENGINE, [BIG, BIG], edition=3), skips=(0, 1))
    edition_3 = act(play(edition_3, "PAPLE"), 1, "challenge")
    assert edition_3.phase == "play" and edition_3.turn == 1 and edition_3.quiet == 1


def test_the_count_before_a_word_taken_back_runs_on() -> None:
    """Seats 0 and 1 pass with the core empty, seat 2 lays an unlisted word and seat 0
    challenges it: all three went a turn without a word that stands, so the game is over
    (edition 3 played on from seat 0)."""
    state = table(TURNOVER_ENGINE, [BIG, BIG, BIG])
    state = act(act(state, 0, "pick"), 1, "pick")
    state = play(state, "PAPLE")
    assert state.turn == 0 and state.quiet == 0 and state.pending is not None
    assert act(state, 0, "challenge").phase == "over"
    edition_3 = table(TURNOVER_ENGINE, [BIG, BIG, BIG], edition=3)
    edition_3 = play(act(act(edition_3, 0, "pick"), 1, "pick"), "PAPLE")
    assert act(edition_3, 0, "challenge").turn == 0


def test_a_leaver_drops_out_of_the_count_before_a_word_taken_back() -> None:
    """Four players, the core empty: seat 1 passes, seat 2 lays an unlisted word, seat 1
    leaves, and seat 3 challenges it, then passes. Of the three still in, seats 2 and 3 went
    a turn without a word that stands, but seat 0 has not: it still gets its turn."""
    state = act(table(TURNOVER_ENGINE, [BIG, BIG, BIG, BIG], turn=1), 1, "pick")
    state = TURNOVER_ENGINE.forfeit(play(state, "PAPLE"), 1)
    assert state.turn == 3 and state.pending is not None and state.pending.quiet == 0
    state = act(act(state, 3, "challenge"), 3, "pick")
    assert state.phase == "play" and state.turn == 0 and state.quiet == 2


def test_turned_over_and_challenged_points_are_taken_back() -> None:
    state = turnover_table(scored=True)
    assert state.scores == (5, 2)
    state = act(state, 0, "turnover", "EATS")
    assert state.scores == (5 + 3, 0)
    state = play(table(TURNOVER_ENGINE, [BIG, BIG], scored=True), "PAPLE")
    assert state.scores == (5, 0)
    assert act(state, 1, "challenge").scores == (0, 0)


# Views, storage and replay.


def test_a_seat_sees_its_own_tiles_and_only_counts_of_the_others() -> None:
    state = play(table(ENGINE, ["APPLEQ", "ZZZ", "XXXX"], core="ABCD"), "APPLE")
    view = view_for(state, 0)
    assert view.hand == "Q" and view.tile_counts == (1, 3, 4) and view.core_count == 4
    secret_changed = replace(state, hands=("Q", "MMM", "NNNN"), core="EFGH")
    assert view_for(secret_changed, 0) == view
    assert public_view(secret_changed) == public_view(state)
    assert public_view(state).hand is None
    assert [w.text for w in view.snake] == ["APPLE"]
    assert view.open_ends == (("start", (0, 0), "A"), ("end", (0, 4), "E"))


def test_log_lines_never_name_hidden_tiles() -> None:
    state = table(ENGINE, ["QQ", "ZZ"], core="XYZW")
    state = act(act(state, 0, "pick"), 1, "pick")
    for event in state.log[1:]:
        assert not set("XYZWQ") & set(event.text.replace("PICK AND PASS!", ""))


def test_dump_load_round_trip() -> None:
    state = table(TURNOVER_ENGINE, [BIG, BIG])
    state = play(play(state, "APPLE"), "EAT")
    state = act(state, 0, "turnover", "EATTN")
    assert state.pending is not None and state.pending.replaced is not None
    assert TURNOVER_ENGINE.load(TURNOVER_ENGINE.dump(state)) == state


def test_new_is_deterministic_and_loads_the_real_word_list() -> None:
    first = ENGINE.new(42, 3, {"word_list": "family"})
    assert first == ENGINE.new(42, 3, {"word_list": "family"})
    assert first != ENGINE.new(43, 3, {"word_list": "family"})
    assert first.word_list == "family" and "apples" in load_words("family")


# Random play keeps the snake one tile wide and every tile accounted for.

SAMPLE = sorted(w for w in load_words("family") if 2 <= len(w) <= 4)[::25]
RANDOM_WORDS = [w.upper() for w in SAMPLE] + ["AE", "ETA", "TEA", "EAT", "SEA", "TOE"]
JUNK = ["ZZA", "PPTE", "AAE"]


def is_path(state: AppState) -> bool:
    """The occupied cells form one simple path, and every word agrees with the table."""
    taken = board(state.snake)
    for word in state.snake:
        if any(taken[c][0] != ch for c, ch in zip(word.cells, word.text, strict=True)):
            return False
    if len(taken) < 2:
        return True
    degree = {
        (r, c): sum(n in taken for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)))
        for r, c in taken
    }
    if max(degree.values()) > 2 or sorted(degree.values()).count(1) != 2:
        return False
    return sum(degree.values()) // 2 == len(taken) - 1


def formable(word: str, hand: str) -> bool:
    short = Counter(word)
    short.subtract(hand)
    return sum(n for n in short.values() if n > 0) <= 1


def choices(engine: AppLettersEngine, state: AppState) -> list[AppLettersAction]:
    seat = state.turn
    challengers: list[AppLettersAction] = [
        Challenge(s)
        for s, a in enumerate(state.active)
        if a and state.pending is not None and s != state.pending.seat
    ]
    if state.phase == "claim":
        return [Accept(seat), *challengers]
    hand = state.hands[seat]
    pool = RANDOM_WORDS + ([] if state.check_words else JUNK)
    words = [w for w in pool if formable(w, hand)]
    found: list[AppLettersAction] = [Pick(seat)]
    for w in words:
        found += [Play(seat, p.word, p.end, p.mode) for p in placements_for(state, seat, w)]
        found += [Turnover(seat, p.word, p.end, p.mode) for p in turnovers_for(state, seat, w)]
    if engine is TURNOVER_ENGINE and not state.bad_apple_used[seat] and len(hand) > 1:
        found.append(BadApple(seat, hand[0]))
    return found + challengers


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**40),
    st.integers(2, 4),
    st.sampled_from([ENGINE, SCORE_ENGINE, TURNOVER_ENGINE]),
    st.booleans(),
    st.booleans(),
    st.lists(st.integers(0, 999), max_size=60),
)
def test_random_legal_play_keeps_the_snake_one_wide_and_conserves_tiles(
    seed: int, players: int, engine: AppLettersEngine, checked: bool, short: bool, picks: list[int]
) -> None:
    """With ``short`` hands (3 tiles, the rest back in the core) players often go out."""
    options = {"words": [w.lower() for w in RANDOM_WORDS], "check_words": checked}

    def run() -> AppState:
        state = engine.new(seed, players, options)
        if short:
            spare = "".join(h[3:] for h in state.hands)
            state = replace(state, hands=tuple(h[:3] for h in state.hands), core=state.core + spare)
        for i, pick in enumerate(picks):
            if engine.is_over(state):
                break
            if i == 40 and players > 2:
                state = engine.forfeit(state, pick % players)
                continue
            moves = choices(engine, state)
            # Favour words over picks so snakes grow long.
            move = moves[pick % len(moves)] if pick % 4 else moves[0]
            state = engine.apply(state, move)
            assert in_bag(state) == state.total_tiles
            assert is_path(state)
        return state

    first = run()
    assert first == run()
    assert engine.load(engine.dump(first)) == first


def test_applescores_log_says_what_each_word_scored() -> None:
    """TOOT from the hand: 4 tiles, +5 as a palindrome; DOG: 3 tiles, +5 as GOD is listed
    too; an unscored game says nothing of points."""
    toot = SCORE_ENGINE.apply(table(SCORE_ENGINE, ["TOOTX", "Q"]), Play(0, "TOOT"))
    assert toot.log[-1].text == "played TOOT (+9: 4 tiles, +5 mirror word)"
    dog = SCORE_ENGINE.apply(table(SCORE_ENGINE, ["DOGX", "OD"], core=""), Play(0, "DOG"))
    assert dog.log[-1].text == "played DOG (+8: 3 tiles, +5 mirror word)"
    assert tally("APPLE", 4, WORDS) == "+4"
    assert tally("APPLESAUCE", 9, WORDS) == "+14: 9 tiles, +5 for 8+ letters"
    plain = ENGINE.apply(table(ENGINE, ["TOOTX", "Q"]), Play(0, "TOOT"))
    assert plain.log[-1].text == "played TOOT"
    assert [word_laid(s.log[-1].text) for s in (toot, dog, plain)] == ["TOOT", "DOG", "TOOT"]
    over = "turned over EAT with EATS (+3): TURN OVER!"
    assert word_laid(over) == "EATS" and word_laid("played TOOT (tiles)") is None
