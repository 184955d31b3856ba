"""Appletters, Applescore and Apple Turnover: a one-tile-wide word snake. See seeds/appletters.md.

Pure rules. The word list is the only outside data; the state names it (``word_list``) and
:func:`word_set` looks it up, so a stored game never carries 250,000 words and tests can
register a tiny list.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Literal, Self, TypeVar, assert_never

from bot.games import codec
from bot.games.base import (
    Act,
    Ambiguous,
    BadInput,
    IllegalMove,
    NotYourTurn,
    Option,
    Options,
    SeatResult,
    Verbs,
    Written,
    placements,
    rng,
)
from bot.games.words import load_words

DISTRIBUTION: Mapping[str, int] = {
    "A": 10, "B": 2, "C": 2, "D": 5, "E": 14, "F": 2, "G": 3, "H": 3, "I": 10,
    "J": 1, "K": 2, "L": 4, "M": 2, "N": 6, "O": 9, "P": 2, "Q": 1, "R": 7,
    "S": 5, "T": 7, "U": 5, "V": 2, "W": 2, "X": 1, "Y": 2, "Z": 1,
}  # fmt: skip
"""The 110 tiles, as the shared Appletters notes give them: the one place each count lives."""

EASY_REMOVED = "QXZ"
PICK = 3
LONG_WORD = 8
MAX_WORD = 40
"""The longest word a player may lay, and the modal's and slash option's limit: the 110 tiles
spell no listed word over 29 letters. Longer text is refused without being echoed back."""
BONUS = 5
EDITION = 4
"""The rules edition new games play (their ``edition`` option, absent: this one). Edition 1
(Apple Turnover games stored before it) dealt 21 tiles at any table and threw the Bad Apple
away; edition 2 shrinks crowded hands and makes the Bad Apple an exchange; edition 3 mends
three turn rules (see :func:`_edition_3_turns`); edition 4 counts a word taken back as a turn
without one (see :func:`_quiet_after_take_back`). A game keeps its edition, so its move log
replays as it was played."""
CROWDED = 5
"""From this many players a variant deals its ``crowded_hand_size`` (edition 2 on)."""

Variant = Literal["appletters", "applescore", "appleturnover"]
Phase = Literal["play", "claim", "over"]
Cell = tuple[int, int]
End = Literal["start", "end"]
Mode = Literal["begins", "ends"]
ENDS: tuple[End, ...] = ("start", "end")
MODES: tuple[Mode, ...] = ("begins", "ends")
T = TypeVar("T")


@dataclass(frozen=True)
class VariantRules:
    """What sets a variant apart. The engine and its views read these, never the name;
    a state names its variant, and :data:`VARIANTS` gives the rules back by that name.

    ``challenges``: words go unchecked unless the game's ``check_words`` option is on, and
    the last one may be challenged (without the flag every word is checked as it is laid).
    ``scored_by_default``: points count unless the ``scored`` option says otherwise.
    ``crowded_hand_size``: the smaller hand dealt from :data:`CROWDED` players, so that every
    hand is full and the core keeps tiles (None: ``hand_size`` at any table).
    """

    name: Variant
    hand_size: int
    turnovers: bool
    bad_apple: bool
    challenges: bool
    scored_by_default: bool
    crowded_hand_size: int | None = None

    def hand_for(self, players: int, edition: int = EDITION) -> int:
        """Tiles dealt to each of ``players`` (edition 1 always dealt ``hand_size``)."""
        crowded = players >= CROWDED and edition >= 2
        return self.crowded_hand_size if crowded and self.crowded_hand_size else self.hand_size


VARIANTS: Mapping[str, VariantRules] = {
    rules.name: rules
    for rules in (
        VariantRules("appletters", 9, False, False, False, False),
        VariantRules("applescore", 9, False, False, False, True),
        VariantRules("appleturnover", 21, True, True, True, False, crowded_hand_size=15),
    )
}

_CUSTOM_WORDS: dict[str, frozenset[str]] = {}


def register_words(name: str, words: Iterable[str]) -> str:
    """Make ``words`` available as word list ``name`` (tests, custom lists); returns the name."""
    _CUSTOM_WORDS[name] = frozenset(w.lower() for w in words)
    return name


def word_set(name: str) -> frozenset[str]:
    """The words of list ``name``: a registered one first, else a shipped list."""
    return _CUSTOM_WORDS[name] if name in _CUSTOM_WORDS else load_words(name)


def tile_bag(easy_letters: bool = False) -> str:
    """Every tile of a game, in alphabetical order (107 without Q, X and Z)."""
    return "".join(
        letter * count
        for letter, count in DISTRIBUTION.items()
        if not (easy_letters and letter in EASY_REMOVED)
    )


# The state.


@dataclass(frozen=True)
class Word:
    """A word on the table. ``cells`` are (row, col) in reading order (left to right or top
    to bottom); ``reversed`` says the snake runs through it from its last cell to its first,
    which is what tells the snake's open ends apart."""

    text: str
    cells: tuple[Cell, ...]
    horizontal: bool
    reversed: bool
    seat: int
    points: int


@dataclass(frozen=True)
class Pending:
    """The last word, open to a challenge until the next player acts (unchecked games).

    ``replaced`` is the word it turned over, put back if the challenge succeeds; ``quiet``
    the count of turns without a word before it, which a word taken back never ended
    (edition 4: see :func:`_quiet_after_take_back`)."""

    seat: int
    end: End
    replaced: Word | None = None
    quiet: int = 0


@dataclass(frozen=True)
class Event:
    """One log line: ``seat`` (None for the table) did ``text``. Never names hidden tiles."""

    seat: int | None
    text: str


@dataclass(frozen=True)
class AppState:
    """A whole game; ``hands`` and ``core`` are secret and leave the engine only via views.

    ``quiet`` counts turns in a row without a word taken while the core was empty, by players
    still in (before edition 3 a leaver's turn stayed counted): once it reaches their number,
    the game is a stalemate. Turns go round in seat order, so those turns are the last
    ``quiet`` seats still in before the one to play (see :func:`_had_quiet_turn`).
    ``turns`` counts the turns given (from 0 in a state stored before it): a new turn, even
    the same player's again when everyone else misses one, gets a clock of its own.
    """

    seed: int
    draws: int
    variant: Variant
    word_list: str
    check_words: bool
    scored: bool
    total_tiles: int
    hands: tuple[str, ...]
    core: str
    snake: tuple[Word, ...]
    turn: int
    phase: Phase
    active: tuple[bool, ...]
    scores: tuple[int, ...]
    skips: tuple[int, ...]
    bad_apples: str
    bad_apple_used: tuple[bool, ...]
    quiet: int = 0
    pending: Pending | None = None
    out_seat: int | None = None
    log: tuple[Event, ...] = ()
    edition: int = 1  # states stored before editions were edition 1
    turns: int = 0

    @property
    def rules(self) -> VariantRules:
        return VARIANTS[self.variant]


@dataclass(frozen=True)
class Placement:
    """One legal way to lay a word: at which open end, and whether it begins or ends there.

    ``arg`` is what the "play" (or "turnover") action takes to choose exactly this way.
    """

    word: str
    end: End | None
    mode: Mode | None
    cells: tuple[Cell, ...]
    horizontal: bool

    @property
    def arg(self) -> str:
        return _written(self.word, self.end, self.mode)

    def label(self, turnover: bool) -> str:
        """This way in words, for a button (at most 80 characters)."""
        shared = self.word[0] if self.mode == "begins" else self.word[-1]
        where = f"Turn over the {self.end} word" if turnover else f"At the {self.end}"
        return f"{where}: {self.word} {self.mode} with {shared}"


@dataclass(frozen=True)
class View:
    """What one seat (or, with ``hand`` None, anyone) may see: no other seat's tiles."""

    kind: str
    rules: VariantRules
    word_list: str
    seat: int | None
    hand: str | None
    tile_counts: tuple[int, ...]
    core_count: int
    snake: tuple[Word, ...]
    open_ends: tuple[tuple[End, Cell, str], ...]
    turn: int
    phase: Phase
    active: tuple[bool, ...]
    scores: tuple[int, ...] | None
    skips: tuple[int, ...]
    bad_apple_count: int  # thrown tiles lie face down: how many, never which
    bad_apple_used: tuple[bool, ...]
    challengeable: tuple[int, str] | None
    log: tuple[Event, ...]


# Small pure helpers.


def _set(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*values[:index], value, *values[index + 1 :])


def _take(hand: str, letters: str) -> str | None:
    """``hand`` without ``letters`` (sorted), or None when a letter is missing."""
    left = Counter(hand)
    left.subtract(letters)
    if any(n < 0 for n in left.values()):
        return None
    return "".join(sorted(left.elements()))


def _give(hand: str, letters: str) -> str:
    return "".join(sorted(hand + letters))


def _missing(hand: str, letters: str) -> str:
    """The letters of ``letters`` that ``hand`` lacks, as a readable list ("E, R and R")."""
    short = Counter(letters)
    short.subtract(hand)
    names = sorted(short.elements())
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def board(snake: Iterable[Word]) -> dict[Cell, tuple[str, str]]:
    """Every occupied cell: its letter and (for messages) a word it belongs to."""
    cells: dict[Cell, tuple[str, str]] = {}
    for word in snake:
        for cell, letter in zip(word.cells, word.text, strict=True):
            cells.setdefault(cell, (letter, word.text))
    return cells


def open_ends(snake: tuple[Word, ...]) -> dict[End, Cell]:
    """The snake's two open end cells (empty before the first word)."""
    if not snake:
        return {}
    first, last = snake[0], snake[-1]
    head = first.cells[-1] if first.reversed else first.cells[0]
    tail = last.cells[0] if last.reversed else last.cells[-1]
    return {"start": head, "end": tail}


def _neighbours(cell: Cell) -> list[Cell]:
    r, c = cell
    return [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]


def mirror_bonus(text: str, words: frozenset[str]) -> bool:
    """A palindrome of 3+ letters (TOOT), or a word whose reversal is another listed word
    (DOG/GOD, and NO/ON: the issue sets the 3-letter minimum for palindromes only)."""
    low = text.lower()
    reverse = low[::-1]
    return (len(low) >= 3 and low == reverse) or (reverse != low and reverse in words)


def word_points(text: str, from_hand: int, words: frozenset[str]) -> int:
    """Applescore: a point per tile from the hand, +5 for 8+ letters, +5 for a mirror."""
    bonus = BONUS * (len(text) >= LONG_WORD) + BONUS * mirror_bonus(text, words)
    return from_hand + bonus


def tally(text: str, from_hand: int, words: frozenset[str]) -> str:
    """Applescore's points for a word as the log says them: "+8: 3 tiles, +5 mirror word"."""
    parts = [_tiles(from_hand)]
    if len(text) >= LONG_WORD:
        parts.append(f"+{BONUS} for {LONG_WORD}+ letters")
    if mirror_bonus(text, words):
        parts.append(f"+{BONUS} mirror word")
    total = word_points(text, from_hand, words)
    return f"+{total}" if len(parts) == 1 else f"+{total}: {', '.join(parts)}"


# Dealing.


def deal(core: str, players: int, hand_size: int) -> tuple[tuple[str, ...], str, int]:
    """Hands, the rest of the core and the starter, drawing from the front of ``core``.

    Everyone draws one tile; the lowest letter starts; seats tied for lowest draw again
    (keeping every tile). Then each hand is filled up to ``hand_size`` in seat order.
    """
    hands = [""] * players
    contenders = list(range(players))
    while len(contenders) > 1 and len(core) >= len(contenders):
        drawn = {s: core[i] for i, s in enumerate(contenders)}
        core = core[len(contenders) :]
        for s, letter in drawn.items():
            hands[s] += letter
        low = min(drawn.values())
        contenders = [s for s in contenders if drawn[s] == low]
    for s in range(players):
        need = max(0, hand_size - len(hands[s]))
        hands[s], core = hands[s] + core[:need], core[need:]
    return tuple("".join(sorted(h)) for h in hands), core, contenders[0]


# The actions: what a seat may do, and how each is written down.


_END_NAMES: Mapping[str, End] = {"start": "start", "s": "start", "end": "end", "e": "end"}
_MODE_NAMES: Mapping[str, Mode] = {"begins": "begins", "b": "begins", "ends": "ends"}
_END_CODES: Mapping[str, End] = {"s": "start", "e": "end"}
_MODE_CODES: Mapping[str, Mode] = {"b": "begins", "e": "ends"}
_CODES: Mapping[str, str] = {"start": "s", "end": "e", "begins": "b", "ends": "e"}
_COMPACT = re.compile(r"\s*(?P<word>[A-Za-z]+)-(?P<end>[se])(?P<mode>[be])?\s*")


def _written(word: str, end: End | None, mode: Mode | None) -> str:
    """``WORD``, ``WORD-e`` or ``WORD-eb`` (end s/e, then mode b/e): custom_ids take no colon.

    The way adds up to three characters, so only a word of 38 to 40 letters laid a chosen
    way outgrows a custom_id's 40 (unlisted, in an unchecked game: no listed word is that long).
    """
    if end is None:
        return word
    return f"{word}-{_CODES[end]}{_CODES[mode] if mode else ''}"


def _read_way(arg: str) -> tuple[str, End | None, Mode | None]:
    """What :func:`_written` writes, or the forms older move logs hold: ``WORD``,
    ``WORD:end`` and ``WORD:end:mode`` (end start/end or s/e, mode begins/ends or b)."""
    compact = _COMPACT.fullmatch(arg)
    if compact is not None:
        mode = _MODE_CODES[compact["mode"]] if compact["mode"] else None
        return compact["word"].upper(), _END_CODES[compact["end"]], mode
    parts = [part.strip() for part in arg.split(":")]
    if len(parts) > 3:
        raise BadInput("Write the word, then optionally :start or :end and :begins or :ends.")
    end = _END_NAMES.get(parts[1].lower()) if len(parts) > 1 else None
    mode = _MODE_NAMES.get(parts[2].lower()) if len(parts) > 2 else None
    if len(parts) > 1 and end is None:
        raise BadInput("Choose the start or the end of the snake.")
    if len(parts) > 2 and mode is None:
        raise BadInput("Choose whether the word begins or ends with the snake's letter.")
    return parts[0].upper(), end, mode


def check_spelling(text: str) -> None:
    """Capitals A to Z, 2 to ``MAX_WORD`` of them. Length first: later refusals repeat the
    word, and a reply must stay short."""
    if len(text) > MAX_WORD:
        raise BadInput(f"That is too long: a word has at most {MAX_WORD} letters.")
    if not (text.isascii() and text.isalpha() and text.isupper()):
        raise BadInput("A word may only use the letters A to Z.")
    if len(text) < 2:
        raise BadInput("A word needs at least 2 letters.")


@dataclass(frozen=True)
class Laid(Act):
    """A word laid on the snake; ``end`` and ``mode`` pick the way when it fits several
    (a ``mode`` only ever comes with an ``end``)."""

    word: str
    end: End | None = None
    mode: Mode | None = None

    def __post_init__(self) -> None:
        check_spelling(self.word)
        if self.end not in (None, *ENDS) or self.mode not in (None, *MODES):
            raise BadInput("Choose the start or the end, and begins or ends.")
        if self.mode is not None and self.end is None:
            raise BadInput("Choose the start or the end of the snake.")

    @classmethod
    def read(cls, seat: int, arg: str) -> Self:
        return cls(seat, *_read_way(arg))

    @property
    def arg(self) -> str:
        return _written(self.word, self.end, self.mode)


@dataclass(frozen=True)
class Play(Laid, verb="play"):
    """Add a word at an open end of the snake (or, first, lay it flat)."""


@dataclass(frozen=True)
class Turnover(Laid, verb="turnover"):
    """Replace the word at ``end`` with a longer one (variants with ``turnovers``)."""


@dataclass(frozen=True)
class Pick(Act, verb="pick"):
    """Pick and pass: take tiles from the core instead of laying a word."""


@dataclass(frozen=True)
class BadApple(Act, verb="badapple"):
    """Throw ``letter`` from the hand on the Bad Apple pile (variants with ``bad_apple``)."""

    letter: str

    def __post_init__(self) -> None:
        if len(self.letter) != 1 or not "A" <= self.letter <= "Z":
            raise BadInput("Choose one tile, A to Z, to throw away.")

    @classmethod
    def read(cls, seat: int, arg: str) -> Self:
        return cls(seat, arg.strip().upper())

    @property
    def arg(self) -> str:
        return self.letter


@dataclass(frozen=True)
class Accept(Act, verb="accept"):
    """Let a player's going out on an unchecked word stand."""


@dataclass(frozen=True)
class Challenge(Act, verb="challenge"):
    """Say the last word is not in the list (variants with ``challenges``)."""


AppLettersAction = Play | Turnover | Pick | BadApple | Accept | Challenge
VERBS = Verbs[AppLettersAction]("Appletters", Play, Turnover, Pick, BadApple, Accept, Challenge)


# Where a word can go.


def _spelled(text: str) -> bool:
    """Whether ``text`` passes :func:`check_spelling` (which says why not)."""
    return 2 <= len(text) <= MAX_WORD and text.isascii() and text.isalpha()


def _geometry(snake: tuple[Word, ...], text: str, end: End, mode: Mode) -> Placement:
    """The one position of ``text`` at ``end`` sharing its first (begins) or last letter."""
    anchor = snake[0] if end == "start" else snake[-1]
    r, c = open_ends(snake)[end]
    horizontal = not anchor.horizontal
    offset = 0 if mode == "begins" else len(text) - 1
    dr, dc = (0, 1) if horizontal else (1, 0)
    r0, c0 = r - dr * offset, c - dc * offset
    cells = tuple((r0 + dr * i, c0 + dc * i) for i in range(len(text)))
    return Placement(text, end, mode, cells, horizontal)


def _shared(p: Placement) -> int:
    """The index in ``p.word`` of the letter the snake already has (-1: the first word)."""
    if p.end is None:
        return -1
    return 0 if p.mode == "begins" else len(p.word) - 1


def _clash(p: Placement, taken: dict[Cell, tuple[str, str]]) -> str | None:
    """Why ``p`` would break the one-tile-wide snake, or None when it fits."""
    return _landing(p, taken) or _beyond(p, taken) or _touching(p, taken)


def _landing(p: Placement, taken: dict[Cell, tuple[str, str]]) -> str | None:
    """A new tile may not sit on a tile already on the table."""
    for i, cell in enumerate(p.cells):
        if i != _shared(p) and cell in taken:
            letter, word = taken[cell]
            return f"the {p.word[i]} would land on the {letter} of {word}"
    return None


def _beyond(p: Placement, taken: dict[Cell, tuple[str, str]]) -> str | None:
    """The cells just past both ends stay empty, or the word would read longer."""
    dr, dc = (0, 1) if p.horizontal else (1, 0)
    (r0, c0), (r1, c1) = p.cells[0], p.cells[-1]
    for cell in ((r0 - dr, c0 - dc), (r1 + dr, c1 + dc)):
        if cell in taken:
            letter, word = taken[cell]
            return f"{p.word} would run straight into the {letter} of {word}"
    return None


def _touching(p: Placement, taken: dict[Cell, tuple[str, str]]) -> str | None:
    """A new tile may touch no tile side-on but the shared one: the snake stays one wide."""
    shared = _shared(p)
    allowed = {*p.cells}
    for i, cell in enumerate(p.cells):
        if i == shared:
            continue
        for near in _neighbours(cell):
            if near not in allowed and near in taken:
                letter, word = taken[near]
                return f"the {p.word[i]} would touch the {letter} of {word}"
    return None


ROOM_SHOWN = 12
"""The longest room :func:`room` measures: a word this long fits, and maybe longer ones."""


@lru_cache(maxsize=64)  # a board and its picture's alt text ask it of one snake
def room(snake: tuple[Word, ...]) -> Mapping[tuple[End, Mode], int]:
    """The longest word that fits at each open end, beginning or ending with its letter, up
    to :data:`ROOM_SHOWN` (0: none fits). What the picture shows, for players who cannot
    see it: a word refused for want of room costs its player time on the clock. A longer
    word only adds cells beyond a shorter one's, so the first length that clashes ends it.
    Read only: the answer is shared."""
    taken = board(snake)
    found: dict[tuple[End, Mode], int] = {}
    for end in ENDS if snake else ():
        for mode in MODES:
            longest = 0
            for length in range(2, ROOM_SHOWN + 1):
                if _clash(_geometry(snake, "?" * length, end, mode), taken) is not None:
                    break
                longest = length
            found[end, mode] = longest
    return MappingProxyType(found)


def _needed(p: Placement) -> str:
    """The letters the player must give from their hand for ``p``."""
    shared = _shared(p)
    return "".join(ch for i, ch in enumerate(p.word) if i != shared)


def _candidates(
    snake: tuple[Word, ...], text: str, end: End | None, mode: Mode | None
) -> list[Placement]:
    """Every position whose shared letter matches, before checking room or tiles."""
    if not snake:
        return [Placement(text, None, None, tuple((0, i) for i in range(len(text))), True)]
    found = []
    letters = board(snake)
    for e in ENDS if end is None else (end,):
        for m in MODES if mode is None else (mode,):
            p = _geometry(snake, text, e, m)
            if letters[p.cells[_shared(p)]][0] == text[_shared(p)]:
                found.append(p)
    return found


def _fits(snake: tuple[Word, ...], hand: str, p: Placement) -> str | None:
    """Why ``p`` cannot be played from ``hand`` on ``snake``, or None when it can."""
    clash = _clash(p, board(snake))
    if clash:
        return f"{p.word} does not fit there: {clash}."
    if _take(hand, _needed(p)) is None:
        return (
            f"You don't have the tiles for {p.word}: you are missing {_missing(hand, _needed(p))}."
        )
    return None


def _choose(
    snake: tuple[Word, ...], hand: str, text: str, end: End | None, mode: Mode | None
) -> Placement:
    """The single legal placement the player asked for, or a refusal saying why not."""
    found = _candidates(snake, text, end, mode)
    if not found:
        raise IllegalMove(_no_match(snake, text, end, mode))
    reasons = [_fits(snake, hand, p) for p in found]
    legal = [p for p, why in zip(found, reasons, strict=True) if why is None]
    if not legal:
        raise IllegalMove(next(why for why in reasons if why))
    _only_one(text, legal, Play)
    return legal[0]


def _only_one(text: str, ways: Sequence[Placement], laid: type[Laid]) -> None:
    """Several ways to lay ``text`` are :class:`Ambiguous`, offering each one as a choice."""
    if len(ways) < 2:
        return
    turnover = laid is Turnover
    options = [Option(p.label(turnover), laid.verb, p.arg) for p in ways]
    choices = "; ".join(option.label for option in options)
    raise Ambiguous(f"{text} fits more than one way. Choose one: {choices}.", options)


def _no_match(snake: tuple[Word, ...], text: str, end: End | None, mode: Mode | None) -> str:
    """Why ``text`` shares no letter with the end(s) asked for, naming each end and its
    letter: "the snake's end" alone would read as the end called "end"."""
    letters, ends = board(snake), open_ends(snake)
    how = {"begins": "begin with", "ends": "end with", None: "begin or end with"}[mode]
    if end is not None:
        return f"{text} must {how} {letters[ends[end]][0]}, the letter at the {end} of the snake."
    start, last = (letters[ends[e]][0] for e in ENDS)
    return f"{text} must {how} a letter at an open end: {start} at the start or {last} at the end."


def _no_hook(old: Word, rest: tuple[Word, ...], text: str, end: End, mode: Mode | None) -> str:
    """Why ``text`` cannot replace ``old``: it shares no letter with the tile ``old`` hooks
    onto, which is not an open end of the snake, so the open ends' letters would mislead."""
    how = {"begins": "begin with", "ends": "end with", None: "begin or end with"}[mode]
    shared = board(rest)[open_ends(rest)[end]][0]
    return f"To turn over {old.text}, {text} must {how} {shared}, the letter {old.text} hooks onto."


def _listed(state: AppState, text: str) -> bool:
    return text.lower() in word_set(state.word_list)


def _check_listed(state: AppState, text: str) -> None:
    """Where words are checked as they are laid, an unlisted one is refused on the spot."""
    if state.check_words and not _listed(state, text):
        raise IllegalMove(f"{text} is not in the word list.")


def _turnover_split(state: AppState, seat: int, end: End) -> tuple[Word, tuple[Word, ...]]:
    """The word a turnover at ``end`` would replace and the snake without it, or why not."""
    if len(state.snake) < 2:
        raise IllegalMove("You can only turn over a word once the snake has two words or more.")
    old, rest = (
        (state.snake[0], state.snake[1:]) if end == "start" else (state.snake[-1], state.snake[:-1])
    )
    if old.seat == seat:
        raise IllegalMove(f"{old.text} is your own word: you can only turn over someone else's.")
    return old, rest


Swap = tuple[Word, tuple[Word, ...], Placement]
"""A legal turnover: the word it replaces, the snake without that word, the new word's way."""


def _turnover_options(
    state: AppState, seat: int, text: str, end: End | None, mode: Mode | None
) -> tuple[list[Swap], list[str]]:
    """Every legal turnover asked for (replaced word, snake without it, placement), and
    the reasons the other tries failed, the try that got furthest first: tried at both ends,
    the word was meant for the end whose word it could replace and whose letter it shares,
    so that end's reason is the one to give."""
    legal: list[Swap] = []
    reasons: list[tuple[int, str]] = []  # (how far the try got, why it failed)
    for e in ENDS if end is None else (end,):
        try:
            old, rest = _turnover_split(state, seat, e)
        except IllegalMove as err:
            reasons.append((0, str(err)))
            continue
        found = _candidates(rest, text, e, mode)
        if not found:
            reasons.append((1, _no_hook(old, rest, text, e, mode)))
            continue
        if len(text) <= len(old.text):
            reasons.append((2, f"{text} must be longer than {old.text} to turn it over."))
            continue
        for p in found:
            why = _fits(rest, state.hands[seat], p)
            reasons += [(3, why)] if why else []
            legal += [] if why else [(old, rest, p)]
    return legal, [why for _, why in sorted(reasons, key=lambda r: -r[0])]


def placements_for(state: AppState, seat: int, word: str) -> list[Placement]:
    """Every legal way ``seat`` could play ``word`` now (empty: ``apply`` says why not)."""
    text = word.strip().upper()
    if not _spelled(text):
        return []
    if state.check_words and not _listed(state, text):
        return []
    hand = state.hands[seat]
    return [
        p for p in _candidates(state.snake, text, None, None) if not _fits(state.snake, hand, p)
    ]


def turnovers_for(state: AppState, seat: int, word: str) -> list[Placement]:
    """Every legal way ``seat`` could turn over an end word with ``word`` (Apple Turnover)."""
    text = word.strip().upper()
    if not state.rules.turnovers or not _spelled(text):
        return []
    if state.check_words and not _listed(state, text):
        return []
    return [p for _, _, p in _turnover_options(state, seat, text, None, None)[0]]


# Views.


def _view(state: AppState, seat: int | None) -> View:
    pending = state.pending
    challengeable = None
    if pending is not None:
        challengeable = (pending.seat, _pending_word(state).text)
    letters = board(state.snake)
    return View(
        kind=state.variant,
        rules=state.rules,
        word_list=state.word_list,
        seat=seat,
        hand=None if seat is None else state.hands[seat],
        tile_counts=tuple(len(h) for h in state.hands),
        core_count=len(state.core),
        snake=state.snake,
        open_ends=tuple((e, c, letters[c][0]) for e, c in open_ends(state.snake).items()),
        turn=state.turn,
        phase=state.phase,
        active=state.active,
        scores=state.scores if state.scored else None,
        skips=state.skips,
        bad_apple_count=len(state.bad_apples),
        bad_apple_used=state.bad_apple_used,
        challengeable=challengeable,
        log=state.log,
    )


def view_for(state: AppState, seat: int) -> View:
    """What ``seat`` sees: its own tiles, and only counts of everyone else's."""
    return _view(state, seat)


def public_view(state: AppState) -> View:
    """What a spectator sees: no tiles at all, only counts."""
    return _view(state, None)


# The engine.


class AppLettersEngine(Written[AppLettersAction]):
    """The runner's view of one variant (see :class:`bot.games.base.Engine`)."""

    verbs = VERBS
    min_players = 2
    max_players = 6
    toggles = frozenset[str]()

    def __init__(self, variant: Variant) -> None:
        self.kind: str = variant
        self.rules = VARIANTS[variant]

    def view_for(self, state: AppState, seat: int) -> View:
        """What ``seat`` sees: all Orchard's strategy is ever given (see bot/opponents.py)."""
        return view_for(state, seat)

    def new(self, seed: int, players: int, options: Options) -> AppState:
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Appletters needs 2 to 6 players, not {players}")
        rules = self.rules
        edition = int(options.get("edition", EDITION))
        bag = list(tile_bag(bool(options.get("easy_letters", False))))
        rng(seed, 0).shuffle(bag)
        hands, core, starter = deal("".join(bag), players, rules.hand_for(players, edition))
        return AppState(
            seed=seed,
            draws=1,
            variant=rules.name,
            word_list=_word_list_option(options),
            check_words=bool(options.get("check_words", False)) if rules.challenges else True,
            scored=bool(options.get("scored", rules.scored_by_default)),
            total_tiles=len(bag),
            hands=hands,
            core=core,
            snake=(),
            turn=starter,
            phase="play",
            active=(True,) * players,
            scores=(0,) * players,
            skips=(0,) * players,
            bad_apples="",
            bad_apple_used=(False,) * players,
            log=(Event(starter, "drew the lowest letter and starts"),),
            edition=edition,
        )

    def apply(self, state: AppState, action: AppLettersAction) -> AppState:
        seat = action.seat
        if state.phase == "over":
            raise IllegalMove("This game is over.")
        if not 0 <= seat < len(state.active) or not state.active[seat]:
            raise IllegalMove("You are no longer playing in this game.")
        if isinstance(action, Challenge):
            return self._challenge(state, seat)
        if state.phase == "claim":
            return self._claim_move(state, action)
        if seat != state.turn:
            raise NotYourTurn()
        match action:
            case Play():
                return self._play(state, action)
            case Turnover():
                return self._turnover(state, action)
            case Pick():
                return self._pick(state, seat)
            case BadApple(letter=letter):
                return self._bad_apple(state, seat, letter)
            case Accept():
                raise IllegalMove("Nobody has used every tile: there is nothing to accept.")
            case _:
                assert_never(action)

    def to_act(self, state: AppState) -> frozenset[int]:
        return frozenset() if state.phase == "over" else frozenset({state.turn})

    def same_moves(self, before: AppState, after: AppState, seat: int) -> bool:
        """Whether ``seat``'s moves do on ``after`` just what they did on ``before``: its turn
        to play in both, on the same snake, from the same hand, with the same core, Bad Apple
        and count of turns without a word among the same players (a pass may end the game).
        Another player's failed challenge changes none of these, only the challenger's turns
        and the word's challenge, which any move of ``seat`` ends; a word challenged off
        changes the snake, so the choice is made again."""

        def seen(state: AppState) -> tuple[object, ...]:
            return (
                state.phase,
                state.turn,
                state.snake,
                state.hands[seat],
                state.core,
                state.bad_apple_used[seat],
                state.quiet,
                state.active,
            )

        return before.phase == "play" and before.turn == seat and seen(before) == seen(after)

    def clock_mark(self, state: AppState) -> Hashable:
        """The turn, and the snake it is played on. A challenge is made out of turn: one that
        fails changes nothing the player to move can do, so their clock runs on; one that
        takes a word off the snake changes their choices, so they get their full time again."""
        return state.turns, state.phase, state.snake

    def timeout_actions(self, state: AppState) -> list[AppLettersAction]:
        """A late player picks and passes; a late claim is accepted."""
        if state.phase == "over":
            return []
        return [Accept(state.turn) if state.phase == "claim" else Pick(state.turn)]

    def forfeit(self, state: AppState, seat: int) -> AppState:
        """The seat's tiles are set aside (kept in its hand, out of play); the rest go on."""
        if state.phase == "over" or not state.active[seat]:
            return state
        fixed = _edition_3_turns(state)
        had_quiet_turn = fixed and _had_quiet_turn(state, seat, state.turn, state.quiet)
        quiet = state.quiet - had_quiet_turn  # players still in
        pending = _pending_without(state, seat)
        active = _set(state.active, seat, False)
        state = replace(state, active=active, quiet=quiet, pending=pending)
        state = _log(state, seat, "left the game; their tiles are set aside")
        if state.out_seat == seat:  # the game goes on: the turn passes on from the leaver
            turn = seat if fixed else state.turn  # before edition 3: the claim's next seat
            state = replace(state, out_seat=None, phase="play", turn=turn)
        if sum(state.active) == 1:
            return replace(state, phase="over", pending=None)
        if state.turn == seat:
            state = self._advance(state, skips=state.phase == "play")
        return state if state.phase == "over" else _maybe_stalemate(state)

    def is_over(self, state: AppState) -> bool:
        return state.phase == "over"

    def results(self, state: AppState) -> list[SeatResult]:
        """Scored games rank by points; the others by fewest tiles left (``score`` = tiles)."""
        if state.scored:
            return placements(list(state.scores), state.active)
        left = [len(h) for h in state.hands]
        ranked = placements([-n for n in left], state.active)
        return [replace(r, score=left[r.seat]) for r in ranked]

    def dump(self, state: AppState) -> dict[str, Any]:
        return dict(codec.dump(state))

    def load(self, data: Mapping[str, Any]) -> AppState:
        return codec.load(AppState, data)

    # The moves.

    def _play(self, state: AppState, action: Play) -> AppState:
        seat, text = action.seat, action.word
        _check_listed(state, text)
        p = _choose(state.snake, state.hands[seat], text, action.end, action.mode)
        state = replace(state, pending=None)
        return self._lay(state, seat, p, None)

    def _turnover(self, state: AppState, action: Turnover) -> AppState:
        seat, text = action.seat, action.word
        if not state.rules.turnovers:
            raise IllegalMove("Turning over words is only allowed in Apple Turnover.")
        _check_listed(state, text)
        legal, reasons = _turnover_options(state, seat, text, action.end, action.mode)
        if not legal:
            raise IllegalMove(reasons[0])
        _only_one(text, [p for _, _, p in legal], Turnover)
        old, rest, p = legal[0]
        state = _return_word(replace(state, pending=None), old, rest)
        state = replace(state, snake=rest)
        return self._lay(state, seat, p, old)

    def _pick(self, state: AppState, seat: int) -> AppState:
        taken, core = state.core[:PICK], state.core[PICK:]
        was_empty = not state.core
        hands = _set(state.hands, seat, _give(state.hands[seat], taken))
        state = replace(state, hands=hands, core=core, pending=None)
        said = f"picked {_tiles(len(taken))}" if taken else "found the core empty"
        state = _log(state, seat, f"{said}: PICK AND PASS!")
        return self._end_turn(state, was_empty)

    def _bad_apple(self, state: AppState, seat: int, letter: str) -> AppState:
        """Edition 2 exchanges the tile for the core's next one (none when it is empty);
        edition 1 threw it away. Either way that is the whole turn, once a game."""
        if not state.rules.bad_apple:
            raise IllegalMove("Bad Apples are only thrown in Apple Turnover.")
        if state.bad_apple_used[seat]:
            raise IllegalMove("You have already thrown your one Bad Apple this game.")
        if letter not in state.hands[seat]:
            raise IllegalMove(f"You don't have a {letter} to throw away.")
        swap = bad_apple_swaps(state)
        if len(state.hands[seat]) == 1 and not swap:
            raise IllegalMove("You can't throw away your last tile: play it in a word instead.")
        drawn, core = (state.core[:1], state.core[1:]) if swap else ("", state.core)
        hand = _give(_take(state.hands[seat], letter) or "", drawn)
        was_empty = not state.core
        state = replace(
            state,
            hands=_set(state.hands, seat, hand),
            core=core,
            bad_apples=state.bad_apples + letter,
            bad_apple_used=_set(state.bad_apple_used, seat, True),
            pending=None,
        )
        state = _log(state, seat, _bad_apple_said(state.edition, swap))
        return self._end_turn(state, was_empty)

    def _claim_move(self, state: AppState, action: AppLettersAction) -> AppState:
        """After an unchecked last word: the next player accepts it (or anyone challenges).
        Its own player, whatever they press, is told that the others decide on it."""
        if action.seat == state.out_seat or not isinstance(action, Accept):
            raise IllegalMove(claim_pending(state, action.seat))
        if action.seat != state.turn:
            raise NotYourTurn(_challenge_instead(state, action.seat))
        assert state.out_seat is not None
        return _go_out(replace(state, pending=None), state.out_seat)

    def _challenge(self, state: AppState, seat: int) -> AppState:
        pending = state.pending
        if not state.rules.challenges:
            raise IllegalMove("Challenges are only part of Apple Turnover.")
        if state.check_words:
            raise IllegalMove("Words are checked as they are played here: nothing to challenge.")
        if pending is None:
            raise IllegalMove("There is no word to challenge right now.")
        if pending.seat == seat:
            raise IllegalMove("You can't challenge your own word.")
        word = _pending_word(state)
        claim = state.phase == "claim"
        state = replace(state, pending=None)
        if _listed(state, word.text):
            return self._lost_challenge(state, seat, word.text)
        state = _take_back(state, seat, pending, word)
        if not _edition_3_turns(state):
            return state  # before edition 3 the seat to play played on, owing a turn or not
        state = self._after_take_back(state, pending, claim)
        return state if state.phase == "over" else _maybe_stalemate(state)

    def _after_take_back(self, state: AppState, pending: Pending, claim: bool) -> AppState:
        """Whose turn it is once a word went back (edition 3 on)."""
        if claim:
            # A claim waits on the next seat, missed turns unused: the game now goes on, so
            # the turn passes on from the player who went out, as after any other word.
            return self._advance(replace(state, turn=pending.seat))
        if state.turn == pending.seat:
            # Everyone else missed a turn, so the word's player was to play again: that is
            # the turn they miss, at once, as a challenger whose turn it is loses theirs.
            skips = _set(state.skips, pending.seat, state.skips[pending.seat] - 1)
            state = _log(replace(state, skips=skips), pending.seat, "misses a turn")
            return self._end_turn(state, not state.core)
        return state

    def _lost_challenge(self, state: AppState, seat: int, text: str) -> AppState:
        """A challenge of a listed word costs the challenger this turn, or their next one if
        it is not theirs (said so: "turn lost" left which); against a last word, its player
        goes out."""
        said = f"challenged {text}, but it is in the word list"
        if state.phase == "claim":
            assert state.out_seat is not None
            return _go_out(_log(state, seat, said), state.out_seat)
        if seat == state.turn:
            return self._end_turn(_log(state, seat, f"{said}: their turn is over"), not state.core)
        state = _log(state, seat, f"{said}: they miss their next turn")
        return replace(state, skips=_set(state.skips, seat, state.skips[seat] + 1))

    # What follows a move.

    def _lay(self, state: AppState, seat: int, p: Placement, old: Word | None) -> AppState:
        """Put ``p`` on the table from ``seat``'s hand (turning over ``old``, if not None); then
        a win, a claim or the next turn. The log says it in one line, the board's headline:
        a turnover logged apart from its word left "played" there."""
        words = word_set(state.word_list)
        needed = _needed(p)
        quiet = state.quiet
        word = Word(
            text=p.word,
            cells=p.cells,
            horizontal=p.horizontal,
            reversed=(p.end == "start") == (p.mode == "begins") and p.end is not None,
            seat=seat,
            points=word_points(p.word, len(needed), words),
        )
        snake = (word, *state.snake) if p.end == "start" else (*state.snake, word)
        state = replace(
            state,
            snake=snake,
            hands=_set(state.hands, seat, _take(state.hands[seat], needed) or ""),
            scores=_set(state.scores, seat, state.scores[seat] + word.points),
            quiet=0,
        )
        laid = p.word + (f" ({tally(p.word, len(needed), words)})" if state.scored else "")
        said = (
            f"played {laid}" if old is None else f"turned over {old.text} with {laid}: TURN OVER!"
        )
        state = _log(state, seat, said)
        if not state.check_words:
            state = replace(state, pending=Pending(seat, p.end or "end", old, quiet))
        if state.hands[seat]:
            return self._advance(state)
        if state.pending is not None:
            turn = _next_seat(state, seat)
            return replace(state, phase="claim", out_seat=seat, turn=turn, turns=state.turns + 1)
        return _go_out(state, seat)

    def _end_turn(self, state: AppState, core_was_empty: bool) -> AppState:
        """A turn with no word: counts toward a stalemate once the core is empty."""
        state = replace(state, quiet=state.quiet + 1 if core_was_empty else 0)
        state = _maybe_stalemate(state)
        return state if state.phase == "over" else self._advance(state)

    def _advance(self, state: AppState, skips: bool = True) -> AppState:
        """The turn passes on, skipping (and using up) any missed turns."""
        seat = state.turn
        while True:
            seat = _next_seat(state, seat)
            if not skips or not state.skips[seat]:
                return replace(state, turn=seat, turns=state.turns + 1)
            state = replace(state, skips=_set(state.skips, seat, state.skips[seat] - 1))
            state = _log(state, seat, "misses a turn")
            if not state.core:
                state = _maybe_stalemate(replace(state, quiet=state.quiet + 1))
                if state.phase == "over":
                    return state


def bad_apple_swaps(state: AppState) -> bool:
    """Whether a Bad Apple thrown now brings the core's next tile back in its place (edition 2
    on, while the core has tiles); else the tile is only thrown away."""
    return state.edition >= 2 and bool(state.core)


def _word_list_option(options: Options) -> str:
    """The word list's name: ``words`` (any iterable) registers a custom one by its content."""
    if "words" in options:
        words = sorted({w.lower() for w in options["words"]})
        digest = hashlib.sha256("\n".join(words).encode()).hexdigest()[:12]
        return register_words(f"custom-{digest}", words)
    name = str(options.get("word_list", "full"))
    word_set(name)  # fail early on an unknown list
    return name


def _bad_apple_said(edition: int, swap: bool) -> str:
    """The log line of a Bad Apple, naming no letter; edition 1's as its games logged it."""
    if swap:
        return "swapped a tile on the Bad Apple pile for one from the core"
    if edition >= 2:
        return "threw a tile on the Bad Apple pile; the core is empty, so none comes back"
    return "threw a tile on the Bad Apple pile"


def _tiles(n: int) -> str:
    return f"{n} tile" if n == 1 else f"{n} tiles"


_TALLY = r"(?: \(\+\d+[^)]*\))?"  # Applescore's points, after the word
_LAID = re.compile(
    rf"played (?P<word>[A-Z]+){_TALLY}|turned over [A-Z]+ with (?P<over>[A-Z]+){_TALLY}: TURN OVER!"
)


def word_laid(text: str) -> str | None:
    """The word a log line says its player laid ("played WORD", or a turnover's one line, which
    names the word turned over first; either with Applescore's points), or None: what the log
    says is the one record of which word is newest."""
    found = _LAID.fullmatch(text)
    return None if found is None else found["word"] or found["over"]


def _log(state: AppState, seat: int | None, text: str) -> AppState:
    return replace(state, log=(*state.log, Event(seat, text)))


def _next_seat(state: AppState, seat: int) -> int:
    n = len(state.active)
    return next(s for s in ((seat + k) % n for k in range(1, n + 1)) if state.active[s])


def _edition_3_turns(state: AppState) -> bool:
    """Whether the game plays edition 3's turn rules: a player who leaves takes their wordless
    turns out of the stalemate count, and a missed turn owed is used up when a going-out claim
    falls through or when a word is taken back on its player's own turn. Editions 1 and 2
    played without them, and their stored logs replay only as they were played."""
    return state.edition >= 3


def _had_quiet_turn(state: AppState, seat: int, turn: int, quiet: int) -> bool:
    """Whether one of ``quiet`` turns in a row without a word before ``turn``'s was ``seat``'s:
    they were taken by the last ``quiet`` seats still in, going back from ``turn``."""
    n = len(state.active)
    before = [s for s in ((turn - k) % n for k in range(1, n)) if state.active[s]]
    return seat in before[:quiet]


def _pending_without(state: AppState, seat: int) -> Pending | None:
    """The word open to a challenge once ``seat`` leaves: none if it was theirs (it stands);
    else, from edition 4, without their turns in the count before it, as for ``quiet``."""
    pending = state.pending
    if pending is None or pending.seat == seat:
        return None
    if state.edition >= 4 and _had_quiet_turn(state, seat, pending.seat, pending.quiet):
        return replace(pending, quiet=pending.quiet - 1)
    return pending


def _quiet_after_take_back(state: AppState, pending: Pending) -> int:
    """The count of turns without a word once ``pending``'s word went back. From edition 4 a
    word taken back was never laid: the count runs on from before it, its player's turn and
    the turns missed since (all with the core empty, as nothing is drawn meanwhile) counted.
    Before, the count started again, which gave everyone another round on the same snake."""
    if state.edition < 4 or state.core:
        return 0
    return pending.quiet + 1 + state.quiet


def _maybe_stalemate(state: AppState) -> AppState:
    """Everyone still in has gone a turn without a word since the core ran out. Said as
    that, not as "nobody can play": a player may pass with a word they could have laid."""
    if state.core or state.quiet < sum(state.active):
        return state
    state = replace(state, phase="over", pending=None)
    wins = "the highest score" if state.scored else "the fewest tiles left"
    return _log(
        state,
        None,
        f"Stalemate: the core is empty and nobody laid a word for a whole round, so {wins} wins",
    )


def _go_out(state: AppState, seat: int) -> AppState:
    state = replace(
        state,
        phase="over",
        out_seat=seat,
        scores=_set(state.scores, seat, state.scores[seat] + BONUS),
    )
    return _log(state, seat, "used every tile: HOW DO YOU LIKE THEM APPLES!")


def _return_word(state: AppState, word: Word, rest: tuple[Word, ...]) -> AppState:
    """Give ``word``'s own tiles (not the one ``rest`` still uses) and points back."""
    keep = board(rest)
    letters = "".join(
        ch for cell, ch in zip(word.cells, word.text, strict=True) if cell not in keep
    )
    return replace(
        state,
        hands=_set(state.hands, word.seat, _give(state.hands[word.seat], letters)),
        scores=_set(state.scores, word.seat, state.scores[word.seat] - word.points),
    )


def _restore_word(state: AppState, word: Word, end: End) -> AppState:
    """Undo a turnover: ``word`` goes back on the snake and its tiles leave its owner's hand."""
    keep = board(state.snake)
    letters = "".join(
        ch for cell, ch in zip(word.cells, word.text, strict=True) if cell not in keep
    )
    snake = (word, *state.snake) if end == "start" else (*state.snake, word)
    return replace(
        state,
        snake=snake,
        hands=_set(state.hands, word.seat, _take(state.hands[word.seat], letters) or ""),
        scores=_set(state.scores, word.seat, state.scores[word.seat] + word.points),
    )


def claim_pending(state: AppState, seat: int) -> str:
    """What ``seat`` is told trying a move while a last word waits to be accepted or
    challenged: its own player, that the others decide on it; anyone else, what to do."""
    if seat == state.out_seat:
        return "You have used every tile: the others may now accept or challenge your word."
    word = _pending_word(state).text
    if seat == state.turn:
        return f"{word} used every tile: accept it or challenge it."
    return f"{word} used every tile: challenge it, or let the player whose turn it is accept it."


def _pending_word(state: AppState) -> Word:
    """The word laid last, which may still be challenged (or, after a claim, accepted)."""
    pending = state.pending
    assert pending is not None
    return state.snake[0] if pending.end == "start" else state.snake[-1]


def _challenge_instead(state: AppState, seat: int) -> str:
    """Said to ``seat`` pressing accept out of turn: any other player may challenge the word
    (not its own player, nor anyone when words are checked as they are laid)."""
    pending = state.pending
    if pending is None or pending.seat == seat or state.check_words:
        return ""
    return f"You may challenge {_pending_word(state).text} instead."


def _take_back(state: AppState, challenger: int, pending: Pending, word: Word) -> AppState:
    """A successful challenge: the word goes back to its player, who misses a turn."""
    rest = state.snake[1:] if pending.end == "start" else state.snake[:-1]
    quiet = _quiet_after_take_back(state, pending)
    state = replace(_return_word(state, word, rest), snake=rest, quiet=quiet)
    if pending.replaced is not None:
        state = _restore_word(state, pending.replaced, pending.end)
    skips = _set(state.skips, pending.seat, state.skips[pending.seat] + 1)
    state = replace(state, skips=skips, phase="play", out_seat=None)
    return _log(state, challenger, f"challenged {word.text}: not in the word list, so it goes back")


ENGINE = AppLettersEngine("appletters")
SCORE_ENGINE = AppLettersEngine("applescore")
TURNOVER_ENGINE = AppLettersEngine("appleturnover")
ENGINES = (ENGINE, SCORE_ENGINE, TURNOVER_ENGINE)
