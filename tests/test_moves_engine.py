"""Every game's actions as text: what buttons, commands and move logs carry.

``parse(seat, *format(action)) == action`` for every action of every game, with an argument
a Discord custom_id can hold; every form an older move log holds still parses, since stored
games replay from their log. Text that is no move is :class:`BadInput`; a well-formed move
the rules forbid now is :class:`IllegalMove`.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.games import applejack, appletters, cheerio, hotscore
from bot.games.appletters import ENDS, MODES, Play, Turnover, View
from bot.games.base import Act, Ambiguous, BadInput, IllegalMove, MoveError, Option
from bot.specs import ENGINES

CUSTOM_ID_ARG = re.compile(r"[A-Za-z0-9_+\-]{0,40}")
VERBS = {  # the move kinds stored in move logs and button ids: they never change
    "cheerio": {"hold", "roll", "score"},
    "applejack": {"pick", "reroll", "hold", "call"},
    "hotscore": {"throw", "stick", "bonus", "sign"},
    "appletters": {"play", "turnover", "pick", "badapple", "accept", "challenge"},
}
WAYS = [(None, None), *((e, None) for e in ENDS), *((e, m) for e in ENDS for m in MODES)]


def every_action() -> list[Any]:
    """Each engine with every kind of action it has, every argument shape included."""
    found: list[tuple[Any, Act]] = [
        *((cheerio.ENGINE, cheerio.Hold(0, die)) for die in range(5)),
        (cheerio.ENGINE, cheerio.Roll(1)),
        *((cheerio.ENGINE, cheerio.Score(2, c)) for c in cheerio.CATEGORIES),
        *((applejack.ENGINE, applejack.Pick(1, die)) for die in range(5)),
        (applejack.ENGINE, applejack.Reroll(0)),
        (applejack.ENGINE, applejack.Reroll(2, frozenset({0, 2, 4}))),
        (applejack.ENGINE, applejack.Reroll(3, frozenset(range(5)))),
        (applejack.ENGINE, applejack.Hold(1)),
        *((applejack.ENGINE, applejack.Call(0, c)) for c in applejack.CATEGORIES),
        (hotscore.ENGINE, hotscore.ThrowDice(0)),
        (hotscore.ENGINE, hotscore.Stick(1)),
        (hotscore.ENGINE, hotscore.Bonus(0)),
        (hotscore.ENGINE, hotscore.Sign(1, "+")),
        (hotscore.ENGINE, hotscore.Sign(0, "-")),
    ]
    for engine in appletters.ENGINES:
        found += [(engine, laid(1, "TOOT", e, m)) for laid in (Play, Turnover) for e, m in WAYS]
        found += [
            (engine, appletters.Pick(0)),
            (engine, appletters.BadApple(2, "Q")),
            (engine, appletters.Accept(1)),
            (engine, appletters.Challenge(3)),
        ]
    return [pytest.param(e, a, id=f"{e.kind}-{a!r}") for e, a in found]


def family(engine: Any) -> str:
    return "appletters" if engine in appletters.ENGINES else engine.kind


@pytest.mark.parametrize(("engine", "action"), every_action())
def test_every_action_reads_back_from_its_text(engine: Any, action: Act) -> None:
    verb, arg = engine.format(action)
    assert engine.parse(action.seat, verb, arg) == action
    assert verb in VERBS[family(engine)] and CUSTOM_ID_ARG.fullmatch(arg), (verb, arg)


def test_every_verb_of_every_game_is_covered() -> None:
    covered: dict[str, set[str]] = {}
    for param in every_action():
        engine, action = param.values
        covered.setdefault(family(engine), set()).add(action.verb)
    assert covered == VERBS
    assert {family(engine) for engine in ENGINES.values()} == set(VERBS)


@given(
    word=st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=2, max_size=appletters.MAX_WORD - 3),
    way=st.sampled_from(WAYS),
    laid=st.sampled_from([Play, Turnover]),
)
def test_any_word_any_way_reads_back_and_fits_a_custom_id(
    word: str, way: tuple[Any, Any], laid: type[Play] | type[Turnover]
) -> None:
    """Up to 37 letters: the way takes three more characters ("-eb")."""
    action = laid(0, word, *way)
    verb, arg = appletters.ENGINE.format(action)
    assert appletters.ENGINE.parse(0, verb, arg) == action and CUSTOM_ID_ARG.fullmatch(arg)


@pytest.mark.parametrize(
    ("engine", "verb", "arg", "expected"),
    [
        (cheerio.ENGINE, "hold", "0", cheerio.Hold(0, 0)),
        (cheerio.ENGINE, "hold", "04", cheerio.Hold(0, 4)),
        (cheerio.ENGINE, "roll", "", cheerio.Roll(0)),
        (cheerio.ENGINE, "roll", "x", cheerio.Roll(0)),  # bare verbs always ignored an argument
        (cheerio.ENGINE, "score", "cheerio", cheerio.Score(0, "cheerio")),
        (applejack.ENGINE, "pick", "3", applejack.Pick(0, 3)),
        (applejack.ENGINE, "reroll", "", applejack.Reroll(0)),
        (applejack.ENGINE, "reroll", "024", applejack.Reroll(0, frozenset({0, 2, 4}))),
        (applejack.ENGINE, "reroll", "4400", applejack.Reroll(0, frozenset({0, 4}))),
        (applejack.ENGINE, "hold", "", applejack.Hold(0)),
        (applejack.ENGINE, "call", "sum", applejack.Call(0, "sum")),
        (hotscore.ENGINE, "throw", "", hotscore.ThrowDice(0)),
        (hotscore.ENGINE, "stick", "", hotscore.Stick(0)),
        (hotscore.ENGINE, "bonus", "", hotscore.Bonus(0)),
        (hotscore.ENGINE, "sign", "-", hotscore.Sign(0, "-")),
        (appletters.ENGINE, "play", "apple", Play(0, "APPLE")),
        (appletters.ENGINE, "play", "TOOT:end", Play(0, "TOOT", "end")),
        (appletters.ENGINE, "play", "TOOT:e", Play(0, "TOOT", "end")),
        (appletters.ENGINE, "play", "TOOT:end:begins", Play(0, "TOOT", "end", "begins")),
        (appletters.ENGINE, "play", " toot : Start : ENDS ", Play(0, "TOOT", "start", "ends")),
        (appletters.ENGINE, "play", "TOOT:s:b", Play(0, "TOOT", "start", "begins")),
        (appletters.ENGINE, "play", "TOOT-eb", Play(0, "TOOT", "end", "begins")),
        (appletters.ENGINE, "play", "toot-s", Play(0, "TOOT", "start")),
        (appletters.ENGINE, "turnover", "EATS:end:begins", Turnover(0, "EATS", "end", "begins")),
        (appletters.ENGINE, "turnover", "STAPLE:start", Turnover(0, "STAPLE", "start")),
        (appletters.ENGINE, "pick", "", appletters.Pick(0)),
        (appletters.ENGINE, "badapple", "q", appletters.BadApple(0, "Q")),
        (appletters.ENGINE, "accept", "", appletters.Accept(0)),
        (appletters.ENGINE, "challenge", "", appletters.Challenge(0)),
    ],
)
def test_the_forms_stored_in_move_logs_still_parse(
    engine: Any, verb: str, arg: str, expected: Act
) -> None:
    assert engine.parse(0, verb, arg) == expected


@pytest.mark.parametrize(
    ("engine", "verb", "arg", "message"),
    [
        (cheerio.ENGINE, "dance", "", "Cheerio has no move called 'dance'"),
        (cheerio.ENGINE, "hold", "5", "not one of your five dice"),
        (cheerio.ENGINE, "hold", "", "not one of your five dice"),
        (cheerio.ENGINE, "hold", "-1", "not one of your five dice"),
        (cheerio.ENGINE, "score", "chance", "no category called 'chance'"),
        (cheerio.ENGINE, "score", "sum", "no category called 'sum'"),  # Apple Jack's only
        (applejack.ENGINE, "score", "sum", "Apple Jack has no move called 'score'"),
        (applejack.ENGINE, "pick", "9", "not one of your five dice"),
        (applejack.ENGINE, "reroll", "0x", "not one of your five dice"),
        (applejack.ENGINE, "call", "chance", "no category called 'chance'"),
        (hotscore.ENGINE, "roll", "", "Hot Score has no move called 'roll'"),
        (hotscore.ENGINE, "sign", "", "Choose \\+ or -"),
        (hotscore.ENGINE, "sign", "x", "Choose \\+ or -"),
        (appletters.ENGINE, "dance", "", "Appletters has no move called 'dance'"),
        (appletters.ENGINE, "play", "", "A to Z"),
        (appletters.ENGINE, "play", "A", "at least 2 letters"),
        (appletters.ENGINE, "play", "AP-PLE", "A to Z"),
        (appletters.ENGINE, "play", "TOOT-x", "A to Z"),
        (appletters.ENGINE, "play", "TOOT:middle", "start or the end"),
        (appletters.ENGINE, "play", "TOOT:end:sideways", "begins or ends"),
        (appletters.ENGINE, "play", "A:B:C:D", "Write the word"),
        (appletters.ENGINE, "play", "A" * 41, "at most 40 letters"),
        (appletters.ENGINE, "turnover", "É" * 3, "A to Z"),
        (appletters.ENGINE, "badapple", "", "one tile"),
        (appletters.ENGINE, "badapple", "QQ", "one tile"),
        (appletters.ENGINE, "badapple", "1", "one tile"),
    ],
)
def test_text_that_is_no_move_is_bad_input(engine: Any, verb: str, arg: str, message: str) -> None:
    with pytest.raises(BadInput, match=message) as refused:
        engine.parse(0, verb, arg)
    assert not isinstance(refused.value, IllegalMove)


def test_an_action_that_cannot_exist_cannot_be_built() -> None:
    """The same checks guard the typed actions, so an engine only ever sees sound ones."""
    for build in (
        lambda: cheerio.Hold(0, 5),
        lambda: cheerio.Score(0, "sum"),
        lambda: applejack.Reroll(0, frozenset({7})),
        lambda: hotscore.Sign(0, "±"),
        lambda: Play(0, "toot"),
        lambda: Play(0, "TOOT", None, "begins"),
        lambda: appletters.BadApple(0, "q"),
    ):
        with pytest.raises(BadInput):
            build()


@pytest.mark.parametrize(
    ("engine", "forbidden", "malformed"),
    [
        (cheerio.ENGINE, ("hold", "0", 1), ("hold", "7", 0)),  # seat 1: not its turn
        (applejack.ENGINE, ("call", "sum", 0), ("call", "chance", 0)),  # rerolls come first
        (hotscore.ENGINE, ("sign", "+", None), ("sign", "x", None)),  # no Bonus Die yet
        (appletters.ENGINE, ("badapple", "Q", None), ("badapple", "QQ", None)),  # not here
    ],
)
def test_forbidden_is_illegal_and_malformed_is_bad_input(
    engine: Any, forbidden: tuple[str, str, int | None], malformed: tuple[str, str, int | None]
) -> None:
    """The same verb twice on a fresh game: well-formed but not allowed now, then junk."""
    state = engine.new(1, 2, {"words": ["apple"]} if engine in appletters.ENGINES else {})
    turn = min(engine.to_act(state))
    for (verb, arg, seat), refusal in ((forbidden, IllegalMove), (malformed, BadInput)):
        with pytest.raises(refusal):
            engine.apply(state, engine.parse(turn if seat is None else seat, verb, arg))


def test_error_kinds() -> None:
    """One base for the runner to catch; players read ``str(err)``; ambiguity offers ways."""
    assert all(issubclass(kind, MoveError) for kind in (BadInput, IllegalMove, Ambiguous))
    assert not issubclass(BadInput, IllegalMove) and not issubclass(IllegalMove, BadInput)
    ways = (Option("At the end: TOOT begins with T", "play", "TOOT-eb"),)
    err = Ambiguous("TOOT fits more than one way.", ways)
    assert str(err) == "TOOT fits more than one way." and err.options == ways


def test_strategies_see_what_view_for_gives() -> None:
    """The dice games hide nothing: the view is the state. Appletters shows one hand."""
    for engine in (cheerio.ENGINE, applejack.ENGINE, hotscore.ENGINE):
        state = engine.new(3, 2, {})
        assert engine.view_for(state, 1) is state
    for engine in appletters.ENGINES:
        state = engine.new(3, 2, {"words": ["apple"]})
        view = engine.view_for(state, 1)
        assert isinstance(view, View) and view.hand == state.hands[1]
        assert view.rules == state.rules == engine.rules
