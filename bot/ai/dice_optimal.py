"""The exact optimal solitaire strategy for Yacht-like five-dice games (Cheerio, Apple Jack).

A game is a list of categories and ``score(category, dice)``; each turn starts with five dice
already rolled, the player may reroll any subset up to two times and must then score in one
open category. With no bonus that depends on the card's totals, the only thing that matters
between turns is the set of categories already used, so the whole game is a dynamic
programme over ``2**len(categories)`` turn starts:

* ``V(used)``: the expected points still to come from a turn start (``V(all) = 0``);
* within a turn, over the 252 dice multisets and 210 proper keep multisets (0 to 4 dice):
  ``best0(d) = max_c score(c, d) + V(used | c)`` (no reroll left),
  ``roll_r(k) = sum_o P(o | k) * best_r(o)`` (keep ``k``, roll the rest),
  ``best_{r+1}(d) = max(best0(d), max_{k < d} roll_r(k))`` and
  ``V(used) = sum_d P(d) * best_2(d)``.

Only the turn-start values are persisted (a small gzipped JSON file); a turn's keep values
are recomputed from them on first need (a few milliseconds) and memoised, so a decision is a
lookup over at most 31 keeps and the open categories. The files of the games Orchard plays
ship in the package (``bot/ai/data``, built by ``tools/build_tables.py``), so no start-up
builds them.

Pure: no discord, and no I/O except reading those files and the cache of :func:`load_or_build`.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import heapq
import json
import math
import os
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from itertools import combinations_with_replacement, product
from operator import itemgetter, mul
from pathlib import Path
from typing import Literal

DICE = 5
FACES = 6
REROLLS = 2
FORMAT = 1

ScoreFn = Callable[[str, Sequence[int]], int]
Dice = tuple[int, ...]

# The fixed combinatorics of five six-sided dice, shared by every game.

ROLLS: tuple[Dice, ...] = tuple(combinations_with_replacement(range(1, FACES + 1), DICE))
ROLL_INDEX: dict[Dice, int] = {d: i for i, d in enumerate(ROLLS)}
KEEPS: tuple[Dice, ...] = tuple(
    k for size in range(DICE) for k in combinations_with_replacement(range(1, FACES + 1), size)
)
KEEP_INDEX: dict[Dice, int] = {k: i for i, k in enumerate(KEEPS)}


def _multiset_probability(dice: Dice) -> float:
    """The chance that rolling ``len(dice)`` fair dice shows exactly this multiset."""
    ways = math.factorial(len(dice))
    for count in Counter(dice).values():
        ways //= math.factorial(count)
    outcomes: int = FACES ** len(dice)
    return ways / outcomes


def _transitions(keep: Dice) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """Outcome roll indices and their probabilities when ``keep`` is held and the rest rolled."""
    fresh = combinations_with_replacement(range(1, FACES + 1), DICE - len(keep))
    pairs = [(ROLL_INDEX[tuple(sorted(keep + f))], _multiset_probability(f)) for f in fresh]
    return tuple(i for i, _ in pairs), tuple(p for _, p in pairs)


def _sub_keeps(dice: Dice) -> tuple[int, ...]:
    """Indices of the distinct proper sub-multisets of ``dice`` (what may be held to reroll)."""
    counts = sorted(Counter(dice).items())
    out: list[int] = []
    for choice in product(*(range(c + 1) for _, c in counts)):
        keep = tuple(face for (face, _), n in zip(counts, choice, strict=True) for _ in range(n))
        if len(keep) < DICE:
            out.append(KEEP_INDEX[keep])
    return tuple(out)


TRANSITIONS = tuple(_transitions(k) for k in KEEPS)
SUB_KEEPS = tuple(_sub_keeps(d) for d in ROLLS)
FIRST_ROLL: tuple[float, ...] = tuple(_multiset_probability(d) for d in ROLLS)
# The same lookups as itemgetters, which pick many values in one C call: a turn's values (a
# game's first review computes dozens) cost half as much. Every keep leaves a die to roll and
# every roll has two keeps or more, so each getter returns a tuple.
_OUTCOMES = tuple((itemgetter(*idx), probs) for idx, probs in TRANSITIONS)
_SUB_KEEPERS = tuple(itemgetter(*keeps) for keeps in SUB_KEEPS)


@dataclass(frozen=True)
class Choice:
    """One option for the dice now: hold ``keep`` and reroll the rest, or score ``category``.

    ``expected`` is the expected final score of the game if this option is taken and every
    later decision is optimal: banked points + ``points`` (when scoring) + expected rest.
    """

    kind: Literal["keep", "score"]
    expected: float
    keep: Dice = ()
    category: str = ""
    points: int = 0


def sort_dice(dice: Iterable[int]) -> Dice:
    out = tuple(sorted(dice))
    if out not in ROLL_INDEX:
        raise ValueError(f"expected {DICE} dice showing 1 to {FACES}, got {out}")
    return out


class DiceTables:
    """Turn-start values of every used-category set, and the decisions they imply."""

    def __init__(
        self,
        categories: Sequence[str],
        score_fn: ScoreFn,
        values: Sequence[float] | None = None,
    ) -> None:
        self.categories: tuple[str, ...] = tuple(categories)
        if len(set(self.categories)) != len(self.categories):
            raise ValueError("categories must be distinct")
        self.bit = {c: 1 << i for i, c in enumerate(self.categories)}
        self.full = (1 << len(self.categories)) - 1
        self.points: tuple[tuple[int, ...], ...] = tuple(
            tuple(score_fn(c, d) for d in ROLLS) for c in self.categories
        )
        self._rolls: dict[int, tuple[list[float], list[float]]] = {}
        if values is None:
            self.values = self._build()
        else:
            if len(values) != self.full + 1:
                raise ValueError(f"expected {self.full + 1} values, got {len(values)}")
            self.values = [float(v) for v in values]

    # Building.

    def _score_now(self, mask: int) -> list[float]:
        """``best0``: the best score-now value of each roll (points + expected rest), built
        one open category at a time over all rolls at once (the same maxima, faster)."""
        best: list[float] | None = None
        for i in range(len(self.categories)):
            if mask >> i & 1:
                continue
            rest = self.values[mask | (1 << i)]
            scored = [points + rest for points in self.points[i]]
            best = scored if best is None else list(map(max, best, scored))
        assert best is not None, "a turn is only played with a category open"
        return best

    def _turn(self, mask: int) -> tuple[list[float], list[float]]:
        """``roll_0`` and ``roll_1`` over every keep for a turn with ``mask`` used (memoised)."""
        cached = self._rolls.get(mask)
        if cached is not None:
            return cached
        now = self._score_now(mask)
        best = now
        rolls: list[list[float]] = []
        for _ in range(REROLLS):
            # Each sum adds probability × value in the same order as ever, so the shipped
            # tables are reproduced to the last bit.
            roll: list[float] = [sum(map(mul, p, outcomes(best))) for outcomes, p in _OUTCOMES]
            rolls.append(roll)
            best = list(map(max, now, [max(keeps(roll)) for keeps in _SUB_KEEPERS]))
        out = (rolls[0], rolls[1])
        self._rolls[mask] = out
        return out

    def _turn_start(self, mask: int) -> float:
        now = self._score_now(mask)
        roll1 = self._turn(mask)[1]
        return float(
            sum(
                p * max(now[d], max(keeps(roll1)))
                for d, (p, keeps) in enumerate(zip(FIRST_ROLL, _SUB_KEEPERS, strict=True))
            )
        )

    def _build(self) -> list[float]:
        # Supersets of a mask are numerically larger, so a downward sweep sees them first.
        self.values = [0.0] * (self.full + 1)
        for mask in range(self.full - 1, -1, -1):
            self.values[mask] = self._turn_start(mask)
        return self.values

    def warm(self) -> None:
        """Compute every turn's keep values now rather than on first need (0.1-0.3 s)."""
        for _ in self.warming():
            pass

    def warming(self) -> Iterator[int]:
        """:meth:`warm`, one card at a time (about a millisecond each) for a caller that lets
        other work run in between; yields each card's mask once its values are known."""
        for mask in range(self.full):
            self._turn(mask)
            yield mask

    # Queries.

    def mask(self, used: Iterable[str]) -> int:
        try:
            return sum({self.bit[c] for c in used})
        except KeyError as err:
            raise ValueError(f"unknown category {err.args[0]!r}") from None

    def value(self, used: Iterable[str]) -> float:
        """Expected points still to come from the start of a turn with ``used`` filled."""
        return self.values[self.mask(used)]

    def _options(
        self, used: Iterable[str], dice: Iterable[int], rolls_left: int, scoring: bool = True
    ) -> list[tuple[float, int, int, int]]:
        """Every option as a sortable ``(-value, group, tie-break, index)``: categories (group 0,
        card order) before holds (group 1, larger holds first) on an exact tie."""
        if not 0 <= rolls_left <= REROLLS:
            raise ValueError(f"rolls_left must be 0 to {REROLLS}, got {rolls_left}")
        mask, d = self.mask(used), ROLL_INDEX[sort_dice(dice)]
        if mask == self.full:
            raise ValueError("every category is already used")
        out: list[tuple[float, int, int, int]] = []
        if scoring:
            values, points = self.values, self.points
            out = [
                (-(points[i][d] + values[mask | 1 << i]), 0, i, i)
                for i in range(len(self.categories))
                if not mask >> i & 1
            ]
        if rolls_left:
            roll = self._turn(mask)[rolls_left - 1]
            out += [(-roll[k], 1, DICE - len(KEEPS[k]), k) for k in SUB_KEEPS[d]]
        return out

    def _choices(
        self, options: list[tuple[float, int, int, int]], dice: Iterable[int], n: int, banked: int
    ) -> list[Choice]:
        d = ROLL_INDEX[sort_dice(dice)]
        out: list[Choice] = []
        for value, group, _, index in heapq.nsmallest(n, options):
            if group == 0:
                pts = self.points[index][d]
                category = self.categories[index]
                out.append(Choice("score", banked - value, category=category, points=pts))
            else:
                out.append(Choice("keep", banked - value, keep=KEEPS[index]))
        return out

    def score_choices(
        self, used: Iterable[str], dice: Iterable[int], banked: int = 0
    ) -> list[Choice]:
        """Every open category for ``dice``, best first (card order on a tie)."""
        dice = tuple(dice)
        return self._choices(self._options(used, dice, 0), dice, len(self.categories), banked)

    def keep_choices(
        self, used: Iterable[str], dice: Iterable[int], rolls_left: int, banked: int = 0
    ) -> list[Choice]:
        """Every distinct hold (a proper sub-multiset of ``dice``), best first; [] without rolls."""
        dice = tuple(dice)
        options = self._options(used, dice, rolls_left, scoring=False)
        return self._choices(options, dice, len(options), banked)

    def ranked_choices(
        self,
        used: Iterable[str],
        dice: Iterable[int],
        rolls_left: int,
        n: int = 3,
        banked: int = 0,
    ) -> list[Choice]:
        """The ``n`` best options now (holds and categories), each with its expected final score.

        ``banked`` (points already on the card) is added so ``expected`` is a final score. On an
        exact tie scoring comes before holding, and a larger hold before a smaller one.
        """
        dice = tuple(dice)
        return self._choices(self._options(used, dice, rolls_left), dice, n, banked)

    def keep_value(self, used: Iterable[str], keep: Iterable[int], rolls_left: int) -> float:
        """The expected points still to come if ``keep`` is held and the rest rolled, with
        ``rolls_left`` rolls left before it (the very number the decisions compare)."""
        if not 1 <= rolls_left <= REROLLS:
            raise ValueError(f"rolls_left must be 1 to {REROLLS}, got {rolls_left}")
        return self._turn(self.mask(used))[rolls_left - 1][KEEP_INDEX[tuple(sorted(keep))]]

    def best(self, used: Iterable[str], dice: Iterable[int], rolls_left: int) -> Choice:
        return self.ranked_choices(used, dice, rolls_left, n=1)[0]

    def best_keep(
        self, used: Iterable[str], dice: Iterable[int], rolls_left: int
    ) -> tuple[Dice, float]:
        """The best dice to hold before a reroll and the expected points still to come."""
        choices = self.keep_choices(used, dice, rolls_left)
        if not choices:
            raise ValueError("no reroll is left")
        return choices[0].keep, choices[0].expected

    def best_category(self, used: Iterable[str], dice: Iterable[int]) -> tuple[str, float]:
        """The best open category to score ``dice`` in and the expected points still to come."""
        top = self.score_choices(used, dice)[0]
        return top.category, top.expected


# Persistence.


def fingerprint(categories: Sequence[str], score_fn: ScoreFn) -> str:
    """A hash of the rules: changes whenever any category would score any roll differently."""
    h = hashlib.sha256(f"dice-optimal/{FORMAT}/{DICE}/{FACES}/{REROLLS}".encode())
    for c in categories:
        h.update(f"|{c}:".encode())
        h.update(",".join(str(score_fn(c, d)) for d in ROLLS).encode())
    return h.hexdigest()


def default_cache_dir() -> Path:
    """``$ORCHARD_CACHE``, else a ``cache`` folder beside the ``$ORCHARD_DB`` file, else the
    user cache (a PostgreSQL URL is no file: its "folder" would name the server, password too)."""
    explicit = os.environ.get("ORCHARD_CACHE", "").strip()
    if explicit:
        return Path(explicit)
    db = os.environ.get("ORCHARD_DB", "").strip()
    if db and "://" not in db:
        return Path(db).parent / "cache"
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or Path.home() / ".cache"
    return Path(base) / "orchard"


def save(tables: DiceTables, name: str, path: Path, stamp: str) -> None:
    """Write the turn-start values atomically (a temporary file renamed into place)."""
    data = {
        "format": FORMAT,
        "name": name,
        "categories": list(tables.categories),
        "fingerprint": stamp,
        "values": tables.values,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
            gz.write(json.dumps(data, separators=(",", ":")).encode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def shipped_file(name: str) -> Traversable:
    """Where the package ships game ``name``'s tables (see ``tools/build_tables.py``)."""
    return resources.files("bot.ai").joinpath("data", f"{name}.dp.json.gz")


def load(
    path: Traversable, categories: Sequence[str], score_fn: ScoreFn, stamp: str
) -> DiceTables | None:
    """The tables stored at ``path``, or None if missing, unreadable or for other rules."""
    try:
        data = json.loads(gzip.decompress(path.read_bytes()))
        if (
            data.get("format") != FORMAT
            or data.get("fingerprint") != stamp
            or data.get("categories") != list(categories)
        ):
            return None
        return DiceTables(categories, score_fn, data["values"])
    except (OSError, ValueError, TypeError, KeyError, EOFError, AttributeError):
        return None


def load_or_build(
    name: str,
    categories: Sequence[str],
    score_fn: ScoreFn,
    path: Path | None = None,
) -> DiceTables:
    """The tables for a game, read from ``path`` if it holds them for these exact rules.

    Otherwise they are built (a few seconds) and written to ``path`` (default:
    ``default_cache_dir() / f"{name}.dp.json.gz"``); a cache that cannot be written is skipped.
    """
    path = path if path is not None else default_cache_dir() / f"{name}.dp.json.gz"
    stamp = fingerprint(categories, score_fn)
    tables = load(path, categories, score_fn, stamp)
    if tables is None:
        tables = DiceTables(categories, score_fn)
        with contextlib.suppress(OSError):
            save(tables, name, path, stamp)
    return tables


_GAMES: dict[str, DiceTables] = {}
_LOADING = threading.Lock()


def tables_for(
    name: str, categories: Sequence[str], score_fn: ScoreFn, cache_dir: Path | None = None
) -> DiceTables:
    """The solitaire tables of the dice game ``name`` (its own module passes its categories
    and scoring), memoised by name.

    Read from the file the package ships (a few milliseconds); only if that file is missing
    or for other rules, from the cache folder, else built (seconds) and cached. Each turn's
    keep values are computed on its first decision and kept, so a first move costs a few
    milliseconds more than the next ones (well under a millisecond): nothing needs warming.
    Threads asking at once (hints, Orchard's moves) read or build them once between them.
    """
    with _LOADING:
        if name not in _GAMES:
            stamp = fingerprint(categories, score_fn)
            tables = load(shipped_file(name), categories, score_fn, stamp)
            if tables is None:
                folder = cache_dir if cache_dir is not None else default_cache_dir()
                tables = load_or_build(name, categories, score_fn, folder / f"{name}.dp.json.gz")
            _GAMES[name] = tables
        return _GAMES[name]


def install(name: str, tables: DiceTables | None) -> None:
    """Use ``tables`` for game ``name`` from now on (tests build theirs in a temporary folder);
    None forgets them, so the next :func:`tables_for` loads the cached file again."""
    if tables is None:
        _GAMES.pop(name, None)
    else:
        _GAMES[name] = tables
