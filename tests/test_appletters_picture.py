"""The snake picture: decodes, stays small, marks the last word, and ignores every hand."""

from __future__ import annotations

import io
import random
from dataclasses import replace

from PIL import Image

from bot.games.appletters import (
    ENGINE,
    AppState,
    IllegalMove,
    board,
    public_view,
    register_words,
    view_for,
    word_set,
)
from cogs.appletters_picture import CELL, MAX_SIDE, draw_snake, last_word
from tests.test_appletters_engine import act, turnover_table

LETTERS = "ABCDEFGHIJKLMNOPRSTUVWY"


def _give(state: AppState, seat: int, letters: str) -> AppState:
    hands = list(state.hands)
    hands[seat] = "".join(sorted(hands[seat] + letters))
    return replace(state, hands=tuple(hands))


def _play(state: AppState, word: str, arg: str) -> AppState:
    """``word`` added to the game's list and the mover's hand, then played as ``arg``."""
    register_words(state.word_list, word_set(state.word_list) | {word.lower()})
    state = _give(state, state.turn, word + "EE")  # "EE": never run out, so never go out
    return ENGINE.apply(state, ENGINE.parse(state.turn, "play", arg))


def snake_of(tiles: int, seed: int = 3) -> AppState:
    """A game whose snake winds over at least ``tiles`` squares, grown by trial and error."""
    r = random.Random(seed)
    state = ENGINE.new(seed, 2, {"words": ["zz"]})
    state = _play(state, "ORCHARD", "ORCHARD")
    while len(board(state.snake)) < tiles:
        ends = {end: letter for end, _, letter in public_view(state).open_ends}
        tries = [(e, m) for e in ("start", "end") for m in ("begins", "ends")]
        r.shuffle(tries)
        for end, mode in tries:
            middle = "".join(r.choice(LETTERS) for _ in range(r.randint(2, 5)))
            word = ends[end] + middle if mode == "begins" else middle + ends[end]
            try:
                state = _play(state, word, f"{word}:{end}:{mode}")
                break
            except IllegalMove:
                continue
    return state


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.format == "PNG"
    return image


def test_a_one_word_snake_is_one_row_with_a_margin() -> None:
    state = _play(ENGINE.new(1, 2, {"words": ["zz"]}), "APPLE", "APPLE")
    image = decode(draw_snake(public_view(state)))
    assert image.size == ((5 + 2) * CELL, 3 * CELL)
    assert last_word(public_view(state)) == state.snake[0]


def test_a_word_turned_over_is_the_one_marked_as_the_last() -> None:
    """A turnover is logged in one line, not as "played": the word it laid is still the one
    the picture marks as the newest (not none, as when only "played" lines were read)."""
    state = act(turnover_table(), 0, "turnover", "EATS")
    assert last_word(public_view(state)) == state.snake[1]
    assert state.snake[1].text == "EATS"


def test_a_long_winding_snake_stays_small() -> None:
    state = snake_of(110)
    view = public_view(state)
    assert len(board(view.snake)) >= 110
    rows = {r for r, _ in board(view.snake)}
    assert len(rows) > 3  # it really winds
    image = decode(draw_snake(view))
    assert max(image.size) <= MAX_SIDE and min(image.size) >= 3 * 14
    assert last_word(view) in (view.snake[0], view.snake[-1])


def test_the_picture_never_depends_on_a_hand() -> None:
    state = snake_of(20)
    assert draw_snake(view_for(state, 0)) == draw_snake(public_view(state))
    other = _give(state, 0, "QXZ")
    assert draw_snake(public_view(other)) == draw_snake(public_view(state))


def test_no_words_yet_is_a_small_card() -> None:
    image = decode(draw_snake(public_view(ENGINE.new(1, 2, {"words": ["zz"]}))))
    assert image.size[0] <= 6 * CELL
