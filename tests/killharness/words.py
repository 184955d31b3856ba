"""An Appletters player's word: the hand read from the bot's store, a word from the project's index.

Discord would never show a hand to the table, so the player reads their own from the database
the bot writes (WAL: a reader never blocks it), through the project's ``Store``.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3

from bot.ai.appletters_players import word_index
from bot.games import appletters
from bot.games.appletters import AppState, Placement, placements_for, public_view
from bot.specs import ENGINES
from db.store import Store

WORD_KINDS = frozenset(engine.kind for engine in appletters.ENGINES)
LONGEST = 5  # the most tiles from the hand a word looked for takes: players lay short words


async def read_game(store: Store, game_id: int, user: int) -> tuple[int, AppState, int] | None:
    """``version, state, seat`` of ``user`` in word game ``game_id``; None if not in play."""
    try:
        row = await store.get_game(game_id)
    except sqlite3.Error:  # e.g. busy while the restarted bot recovers the file: next turn
        return None
    if row is None or row.kind not in WORD_KINDS or row.status != "active" or row.state is None:
        return None
    seat = row.seat_of(user)
    if seat is None:
        return None
    state: AppState = ENGINES[row.kind].load(row.state)
    return row.version, state, seat


def word_for(state: AppState, seat: int, rng: random.Random) -> Placement | None:
    """A listed word of at most ``LONGEST`` tiles from the hand, at random, that fits exactly
    one way at its end (so the form's end field decides it), or None."""
    index = word_index(state.word_list)
    hand = state.hands[seat]
    ends = public_view(state).open_ends  # the letters a word may hook onto
    shared = sorted({letter for _, _, letter in ends}) if state.snake else [None]
    words = {
        word
        for letter in shared
        for word in index.spellable(hand, letter)
        if len(word) - (letter is not None) <= LONGEST
    }
    ordered = sorted(words)
    rng.shuffle(ordered)
    for word in ordered:
        ways = placements_for(state, seat, word)
        for way in ways:
            if sum(other.end == way.end for other in ways) == 1:
                return way
    return None


async def word_to_play(
    store: Store, game_id: int, version: int, user: int, rng: random.Random
) -> Placement | None:
    """A legal word for ``user`` in the game as the board (at ``version``) shows it, or None
    (not their turn, board stale, no word found)."""
    read = await read_game(store, game_id, user)
    if read is None:
        return None
    stored, state, seat = read
    if stored != version or state.phase != "play" or state.turn != seat:
        return None
    # in a thread: building the index (a second, once) must not stall the fake Discord
    return await asyncio.to_thread(word_for, state, seat, rng)
