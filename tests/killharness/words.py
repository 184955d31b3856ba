"""An Appletters player's word: the hand read from the database the bot writes, a word found.

Discord would never show a hand to the table, so the player reads their own from the file.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from bot.games import appletters
from bot.games.appletters import AppState, Placement, placements_for, public_view, word_set
from bot.games.registry import ENGINES

WORD_KINDS = frozenset(engine.kind for engine in appletters.ENGINES)
LONGEST = 5  # tiles from the hand in a word looked for (the search stays a few milliseconds)


def read_game(db: Path, game_id: int, user: int) -> tuple[int, AppState, int] | None:
    """``version, state, seat`` of ``user`` in word game ``game_id``, read-only from the
    database file the bot writes (WAL: readers never block it); None if not in play."""
    try:
        conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=0.5)
    except sqlite3.Error:
        return None
    try:
        game = conn.execute(
            "SELECT kind, status, version, state FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        seat = conn.execute(
            "SELECT seat FROM game_players WHERE game_id = ? AND user_id = ?", (game_id, user)
        ).fetchone()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    if game is None or seat is None or game[0] not in WORD_KINDS or game[1] != "active":
        return None
    if not game[3]:
        return None
    state: AppState = ENGINES[game[0]].load(json.loads(game[3])["state"])
    return int(game[2]), state, int(seat[0])


@lru_cache(maxsize=2)
def anagrams(word_list: str) -> dict[str, tuple[str, ...]]:
    """Short words of a list by their sorted letters (upper case)."""
    found: dict[str, list[str]] = {}
    for word in word_set(word_list):
        if 2 <= len(word) <= LONGEST + 1 and word.isascii() and word.isalpha():
            text = word.upper()
            found.setdefault("".join(sorted(text)), []).append(text)
    return {key: tuple(sorted(words)) for key, words in found.items()}


def bags(hand: str, most: int) -> Iterator[str]:
    """Every distinct multiset of at most ``most`` tiles of ``hand``, as sorted letters."""
    counts = sorted(Counter(hand).items())

    def grow(i: int, taken: str) -> Iterator[str]:
        if i == len(counts):
            yield taken
            return
        letter, have = counts[i]
        for n in range(min(have, most - len(taken)) + 1):
            yield from grow(i + 1, taken + letter * n)

    yield from grow(0, "")


def word_to_play(
    db: Path, game_id: int, version: int, user: int, rng: random.Random
) -> Placement | None:
    """A legal word for ``user`` in the game as the board (at ``version``) shows it, with
    exactly one way at its end, or None (not their turn, board stale, no word found)."""
    read = read_game(db, game_id, user)
    if read is None:
        return None
    stored, state, seat = read
    if stored != version or state.phase != "play" or state.turn != seat:
        return None
    index = anagrams(state.word_list)
    hand = state.hands[seat]
    ends = public_view(state).open_ends  # the letters a word may hook onto
    shared = sorted({letter for _, _, letter in ends}) if state.snake else [""]
    words: set[str] = set()
    for bag in bags(hand, LONGEST):
        for letter in shared:
            words.update(index.get("".join(sorted(bag + letter)), ()))
    ordered = sorted(words)
    rng.shuffle(ordered)
    for word in ordered:
        ways = placements_for(state, seat, word)
        for way in ways:
            if sum(other.end == way.end for other in ways) == 1:
                return way
    return None
