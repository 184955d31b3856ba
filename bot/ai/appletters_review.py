"""Appletters' review: on each of a player's turns, the longest word their own tiles could
have played then (a plain play through an open end, or a turnover where the variant has them).

Only the asking seat's own view of each turn is searched (its tiles, the snake and the
counts): nothing here can see another seat's tiles, and the review is offered only once the
game is over, so it tells nobody what is still hidden. Pure; the word search takes tens of
milliseconds a turn, so callers run it off the event loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.ai.appletters_players import (
    COMMON_LIST,
    Table,
    legal,
    plays,
    stand_in,
    turnovers,
    word_index,
)
from bot.games.appletters import ENGINES, AppState, BadApple, Pick, Play, Turnover, view_for
from bot.model import FORFEIT_VERB, Move

BY_KIND = {engine.kind: engine for engine in ENGINES}


@dataclass(frozen=True)
class TurnReview:
    turn: int  # the player's own turns, counted from 1
    played: str | None  # the word laid, or None for a tile picked or a Bad Apple thrown
    longest: str | None  # the longest word the tiles could lay then, None if none fitted


def longest_word(state: AppState, seat: int) -> str | None:
    """The longest listed word ``seat``'s own tiles could lay now (alphabetical on a tie)."""
    view = view_for(state, seat)
    hand = view.hand or ""
    if not hand:
        return None
    name = view.word_list or COMMON_LIST
    table = Table(view, seat, hand, stand_in(view, seat, name), word_index(name), False)
    candidates = sorted(plays(table) + turnovers(table), key=lambda c: (-len(c.text), c.text))
    found = next(legal(table, candidates), None)
    return found[0].text.upper() if found else None


def review(
    kind: str, seed: int, players: int, options: Mapping[str, Any], moves: Sequence[Move], seat: int
) -> list[TurnReview]:
    engine = BY_KIND[kind]
    state = engine.new(seed, players, options)
    found: list[TurnReview] = []
    for move in moves:
        if move.verb == FORFEIT_VERB:
            state = engine.forfeit(state, move.seat)
            continue
        action = engine.parse(move.seat, move.verb, move.arg)
        if move.seat == seat and isinstance(action, Play | Turnover | Pick | BadApple):
            played = action.word.upper() if isinstance(action, Play | Turnover) else None
            found.append(TurnReview(len(found) + 1, played, longest_word(state, seat)))
        state = engine.apply(state, action)
    return found


def longest_share(longest: int, total: int) -> str:
    """How many of ``total`` turns laid the longest word there was, or passed when no word
    fitted (both marked ✓), worded right for one turn or all."""
    did = "laid the longest word your tiles could, or passed when none fitted"
    if total == 1:
        return f"Your one turn {did}." if longest else "Your one turn missed a longer word."
    if longest == total:
        return f"All {total} of your turns {did}."
    return f"{longest} of your {total} turns {did}."


def review_text(
    kind: str, seed: int, players: int, options: Mapping[str, Any], moves: Sequence[Move], seat: int
) -> str:
    """Every one of the asker's turns, however many: the Review button sends a long review in
    several messages (:func:`bot.reviews.pages`) rather than cut turns off."""
    turns = review(kind, seed, players, options, moves, seat)
    if not turns:
        return "You had no turn in this game."
    longest = sum(
        1 for t in turns if t.longest is None or (t.played and len(t.played) >= len(t.longest))
    )
    lines = [f"**Your review** · {longest_share(longest, len(turns))}"]
    for t in turns:
        did = t.played or "no word"
        best = t.longest or "nothing fitted"
        mark = "✓" if t.longest is None or (t.played and len(t.played) >= len(t.longest)) else "·"
        lines.append(f"{mark} Turn {t.turn}: {did} · longest possible: {best}")
    return "\n".join(lines)
