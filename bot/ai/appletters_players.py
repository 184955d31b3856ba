"""Orchard's Appletters players (Appletters, Applescore, Apple Turnover): Hard, Normal, Easy.

A strategy sees one seat's :class:`~bot.games.appletters.View`: its own tiles, the snake and
counts. It never sees another hand, so it cannot cheat, and it only ever plays words from the
game's word list (no bluffing in Apple Turnover).

Finding words: :func:`word_index` turns a list into, per letter, the words that begin or end
with it, longest first, each with a *unary letter code* (``c`` copies of a letter set the
``c`` lowest bits of that letter's slot). A word can be spelt from some tiles exactly when
``code & ~tiles_code == 0``, so one pass over ~20,000 integers finds every word that the hand
plus an end's shared letter can spell. Placement (room on the table, the one-tile-wide rule)
is then checked lazily, best candidate first, with the engine's own ``placements_for`` and
``turnovers_for`` on a stand-in state built from the view alone (other hands empty, core
empty): the rules are never copied here.

* Hard: the move that empties its hand fastest (most tiles laid; in a scored game the most
  points); going out beats everything. Stuck in Apple Turnover, it throws a hard letter
  (Q, X, Z, J, or any letter once the core is empty) as its one Bad Apple instead of picking.
* Normal: a seeded random one of Hard's top ``NORMAL_TOP`` moves.
* Easy: the shortest common word (one in the ``family`` list), three letters or more when it
  can; never turns a word over, never throws a Bad Apple, never challenges.
* No word fits: pick and pass.
* Challenges: Hard and Normal challenge the last word only when it is *not* in the list
  (a sure win, not a bluff), so they never challenge a valid word; otherwise they accept a
  claim.

The word list's name is read from the view's ``word_list`` when it has one (or from a whole
state, which is turned into this seat's view first). Without it Orchard plays only ``family``
words, which both shipped lists contain, and challenges only words missing from ``full``,
which neither list contains: safe either way.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bot.games.appletters import (
    BONUS,
    Accept,
    AppLettersAction,
    AppState,
    BadApple,
    Challenge,
    Pick,
    Placement,
    Play,
    Turnover,
    View,
    Word,
    board,
    open_ends,
    placements_for,
    turnovers_for,
    view_for,
    word_points,
    word_set,
)

COMMON_LIST = "family"
"""Easy's "common" words, and the list played when the view does not name one."""
WIDEST_LIST = "full"
"""The largest shipped list: a word missing from it is missing from every shipped list."""
WIDTH = 12
"""Bits per letter in a unary letter code: no shipped word repeats a letter more than 9 times."""
NORMAL_TOP = 3
EASY_MIN = 3
HARD_LETTERS = "QXZJ"
THROW_ORDER = "QXZJKVWYFBHMPCGULDNRSTOIAE"
"""Which tile to throw as a Bad Apple first: the hardest letters to place."""

Code = int
Entry = tuple[str, Code]


# The index.


MAX_LETTERS = 127
"""Longer words are left out of the index: there are only 110 tiles."""
_SLOTS: Mapping[str, tuple[Code, ...]] = {
    ch: tuple(((1 << min(n, WIDTH)) - 1) << (WIDTH * i) for n in range(MAX_LETTERS + 1))
    for i, ch in enumerate("abcdefghijklmnopqrstuvwxyz")
}


def letter_code(letters: str) -> Code:
    """The unary code of ``letters`` (lowercase a-z), at most ``WIDTH`` copies of a letter.

    The cap can only make the index too generous, never too strict, and every candidate's
    tiles are checked again by the engine before it is played."""
    return sum([_SLOTS[ch][letters.count(ch)] for ch in set(letters)])


@dataclass(frozen=True)
class WordIndex:
    """One word list, ready for fast "what can these tiles spell" questions."""

    words: frozenset[str]
    everything: tuple[Entry, ...]
    by_letter: Mapping[str, tuple[Entry, ...]]

    def spellable(self, hand: str, through: str | None) -> list[str]:
        """Listed words (lowercase, longest first) spelt from ``hand`` plus the shared letter
        ``through``, beginning or ending with it; with ``through`` None, from ``hand`` alone."""
        letters = (hand + (through or "")).lower()[:MAX_LETTERS]
        missing = ~letter_code(letters)
        pool = self.everything if through is None else self.by_letter.get(through.lower(), ())
        return [w for w, code in pool if not code & missing]


@lru_cache(maxsize=8)
def word_index(name: str) -> WordIndex:
    """The index of word list ``name``, built once (about a second for the full list)."""
    words = word_set(name)
    ordered = sorted(w for w in words if 2 <= len(w) <= MAX_LETTERS and w.isascii() and w.isalpha())
    entries = [(w, letter_code(w)) for w in sorted(ordered, key=len, reverse=True)]
    groups: dict[str, list[Entry]] = {ch: [] for ch in _SLOTS}
    for entry in entries:
        first, last = entry[0][0], entry[0][-1]
        groups[first].append(entry)
        if last != first:
            groups[last].append(entry)
    return WordIndex(words, tuple(entries), {ch: tuple(g) for ch, g in groups.items()})


# The moves a seat could make.


@dataclass(frozen=True)
class Candidate:
    """A listed word the tiles can spell, before its placement is checked.

    ``end`` is the end whose word a turnover replaces (None for a plain play); ``laid`` the
    tiles it takes from the hand; ``value`` what Hard maximises."""

    kind: str
    text: str
    end: str | None
    laid: int
    value: int
    returned: int = 0


@dataclass(frozen=True)
class Table:
    """What the strategy works from: the seat's view, its stand-in state and the lists."""

    view: View
    seat: int
    hand: str
    stand_in: AppState
    index: WordIndex
    scored: bool


def stand_in(view: View, seat: int, word_list: str) -> AppState:
    """A state holding only what ``view`` shows (other hands and the core empty), so the
    engine's own ``placements_for`` and ``turnovers_for`` judge placements. Words are not
    checked there (``check_words`` off): the candidates come from the list already."""
    n = len(view.active)
    hand = view.hand or ""
    return AppState(
        seed=0,
        draws=0,
        variant=view.rules.name,
        word_list=word_list,
        check_words=False,
        scored=view.scores is not None,
        total_tiles=0,
        hands=tuple(hand if s == seat else "" for s in range(n)),
        core="",
        snake=view.snake,
        turn=seat,
        phase="play",
        active=view.active,
        scores=(0,) * n,
        skips=view.skips,
        bad_apples="",  # face down: unknown, and no word can use them anyway
        bad_apple_used=view.bad_apple_used,
    )


def _value(table: Table, text: str, laid: int) -> int:
    """Tiles laid, or in a scored game the word's points; going out adds its bonus."""
    out = BONUS if laid == len(table.hand) else 0
    if not table.scored:
        return laid + out
    return word_points(text.upper(), laid, table.index.words) + out


def plays(table: Table) -> list[Candidate]:
    """Every listed word the hand can spell through an open end (or, first, on its own)."""
    if not table.view.snake:
        texts = table.index.spellable(table.hand, None)
        return [Candidate("play", w, None, len(w), _value(table, w, len(w))) for w in texts]
    seen: set[str] = set()
    found = []
    for letter in sorted({letter for _, _, letter in table.view.open_ends}):
        for w in table.index.spellable(table.hand, letter):
            if w not in seen:
                seen.add(w)
                found.append(Candidate("play", w, None, len(w) - 1, _value(table, w, len(w) - 1)))
    return found


def _turnover_end(snake: tuple[Word, ...], end: str) -> tuple[Word, str]:
    """The word a turnover at ``end`` replaces, and the letter its replacement must share."""
    old, rest = (snake[0], snake[1:]) if end == "start" else (snake[-1], snake[:-1])
    cell = open_ends(rest)["start" if end == "start" else "end"]
    return old, board(rest)[cell][0]


def turnovers(table: Table) -> list[Candidate]:
    """Every listed word that could replace an opponent's end word (Apple Turnover)."""
    snake = table.view.snake
    if not table.view.rules.turnovers or len(snake) < 2:
        return []
    found = []
    for end in ("start", "end"):
        old, letter = _turnover_end(snake, end)
        if old.seat == table.seat:
            continue
        for w in table.index.spellable(table.hand, letter):
            if len(w) <= len(old.text):
                break
            value = _value(table, w, len(w) - 1) + (old.points if table.scored else 0)
            found.append(Candidate("turnover", w, end, len(w) - 1, value, len(old.text) - 1))
    return found


def legal(table: Table, candidates: Iterable[Candidate]) -> Iterator[tuple[Candidate, Placement]]:
    """The candidates that really fit on the table, in the given order, with a placement."""
    for c in candidates:
        if c.kind == "play":
            found = placements_for(table.stand_in, table.seat, c.text)
        else:
            found = [p for p in turnovers_for(table.stand_in, table.seat, c.text) if p.end == c.end]
        if found:
            yield c, found[0]


# The levels.


def hard_order(candidates: list[Candidate]) -> list[Candidate]:
    """Most value first; a turnover that hands back more tiles wins a tie."""
    return sorted(candidates, key=lambda c: (-c.value, -c.returned, c.text))


def easy_order(candidates: list[Candidate], rand: random.Random) -> list[Candidate]:
    """Common words first, then three letters or more, then the shortest; ties at random."""
    common = word_set(COMMON_LIST)
    keyed = [
        (c.text not in common, len(c.text) < EASY_MIN, len(c.text), rand.random(), c)
        for c in candidates
    ]
    return [k[-1] for k in sorted(keyed, key=lambda k: k[:4])]


def pick_move(table: Table, level: str, rand: random.Random) -> tuple[Candidate, Placement] | None:
    """The level's word move, or None when no listed word fits anywhere."""
    if level == "easy":
        return next(legal(table, easy_order(plays(table), rand)), None)
    ranked = legal(table, hard_order(plays(table) + turnovers(table)))
    if level == "hard":
        return next(ranked, None)
    top = [move for _, move in zip(range(NORMAL_TOP), ranked, strict=False)]
    return rand.choice(top) if top else None


def bad_apple(view: View, seat: int, hand: str) -> str | None:
    """Hard's one throw when stuck: a hard letter, or any letter once the core is empty."""
    if not view.rules.bad_apple or view.bad_apple_used[seat] or len(hand) < 2:
        return None
    ranked = sorted(hand, key=THROW_ORDER.index)
    if ranked[0] in HARD_LETTERS or view.core_count == 0:
        return ranked[0]
    return None


# Challenges and claims.


def should_challenge(view: View, seat: int, level: str, word_list: str | None) -> bool:
    """Only a word that is surely not in the list (see the module notes), never one's own."""
    if level == "easy" or view.challengeable is None or not view.rules.challenges:
        return False
    owner, text = view.challengeable
    return owner != seat and text.lower() not in word_set(word_list or WIDEST_LIST)


# The entry point.


def as_view(seen: View | AppState | Any, seat: int) -> tuple[View, str | None]:
    """The seat's view and the word list's name (None when the view does not say).

    A whole state is cut down to the seat's view at once, so nothing below can read another
    seat's tiles."""
    name = getattr(seen, "word_list", None)
    view = view_for(seen, seat) if isinstance(seen, AppState) else seen
    if not isinstance(view, View):
        raise TypeError(f"an Appletters strategy needs a View, not {type(seen).__name__}")
    return view, name if isinstance(name, str) else None


def decision_rng(view: View, seat: int, level: str, seed: int) -> random.Random:
    """Replayable: fixed by the runner's seed and what the seat sees."""
    return random.Random(f"appletters:{level}:{seed}:{seat}:{len(view.log)}:{view.hand}")


def choose(seen: View | AppState, seat: int, level: str, seed: int) -> AppLettersAction:
    """Orchard's strategy for this game (a :data:`bot.specs.Strategy`)."""
    if level not in ("easy", "normal", "hard"):
        raise ValueError(f"unknown level {level!r}")
    view, name = as_view(seen, seat)
    if should_challenge(view, seat, level, name):
        return Challenge(seat)
    if view.phase == "claim":
        return Accept(seat)
    hand = view.hand or ""
    index = word_index(name or COMMON_LIST)
    table = Table(
        view, seat, hand, stand_in(view, seat, name or COMMON_LIST), index, view.scores is not None
    )
    move = pick_move(table, level, decision_rng(view, seat, level, seed)) if hand else None
    if move is not None:
        candidate, p = move
        laid = Turnover if candidate.kind == "turnover" else Play
        return laid(seat, p.word, p.end, p.mode)
    throw = bad_apple(view, seat, hand) if level == "hard" else None
    return BadApple(seat, throw) if throw else Pick(seat)
