"""The Review button of a finished game: one player's review, shown only to that player.

Each game's reviewer is its spec's ``review`` (pure, in ``bot/ai/<game>_review.py``): it
replays the move log from the seed and weighs the asker's own decisions, from what that seat
could see, so no review shows another player's hidden tiles. The button is on the finished
board; anyone may press it, and each gets their own review, privately (a spectator is told
they did not play). Reviews take up to a second of CPU (Appletters' word searches), so they
are computed in a thread; a slow one is deferred in time by :mod:`bot.answers`. A finished
game never changes, so each seat's review is computed once and kept (:data:`REVIEWS_KEPT` a
store): pressed over and over, it would fill the threads that draw boards and decide
Orchard's moves for every server.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

import discord

from bot.answers import MESSAGE_LIMIT, send
from bot.components import GameButton
from bot.model import GameStatus
from bot.recent import Recent
from bot.runner import Refusal, Snapshot
from bot.specs import SPEC_OF
from db.store import Store

REVIEW_VERB = "review"
REVIEWS_KEPT = 256  # per store: the reviews of the games finished lately, by (game, seat)
_kept: weakref.WeakKeyDictionary[Store, Recent[tuple[int, int], asyncio.Future[str]]] = (
    weakref.WeakKeyDictionary()
)

HELP = """\
**Review** (the button on a finished game, only you see it): your decisions weighed against \
the best play. For the dice games, the game splits exactly into *optimum* (the best possible \
expected score) + *luck* (how far each roll moved your expected final score) − *choices* \
(what each decision gave up against the best option, in expected points), and in Apple \
Jack + *others' calls* (what the other players' choices did to yours): your three \
costliest choices with the better move, then every choice that gave something up. \
**Accuracy** is the share of the optimum your choices kept: 100 × (1 − choices ÷ optimum), \
rounded down; 100% means every choice was a best one. A move made for you when your time ran \
out is the clock's, not your choice. Hot Score: the chance of winning the round each decision \
gave up. Appletters: the longest word your own tiles could have played \
on each of your turns."""
"""The /help section of the Review button (for whoever assembles /help)."""


def review_buttons(snapshot: Snapshot) -> list[GameButton]:
    """The Review button, for a finished game whose spec has a reviewer (else none)."""
    spec = SPEC_OF.get(snapshot.row.kind)
    if spec is None or spec.review is None or snapshot.row.status is not GameStatus.FINISHED:
        return []
    return [GameButton(snapshot.id, snapshot.row.version, REVIEW_VERB, label="Review")]


async def review_text(store: Store, snapshot: Snapshot, user_id: int) -> str:
    """The asker's review of a finished game they played; raises :class:`Refusal` otherwise."""
    row = snapshot.row
    spec = SPEC_OF.get(row.kind)
    if spec is None or spec.review is None:
        raise Refusal("This game has no review.")
    if row.status is not GameStatus.FINISHED:
        raise Refusal("A game is reviewed once it is over.")
    seat = row.seat_of(user_id)
    if seat is None:
        raise Refusal("Only the players of this game have a review of it.")
    kept = _kept.setdefault(store, Recent(REVIEWS_KEPT))
    key = (row.id, seat)
    if key not in kept:  # the first press computes it; presses meanwhile wait for it
        kept.keep(key, asyncio.ensure_future(_reviewed(store, snapshot, seat)))
    review = kept.get(key)
    try:
        return await asyncio.shield(review)
    except Exception:
        kept.take(key)  # a review that failed is computed again at the next press
        raise


async def _reviewed(store: Store, snapshot: Snapshot, seat: int) -> str:
    row = snapshot.row
    review = SPEC_OF[row.kind].review
    assert review is not None, "checked by review_text"
    moves = await store.moves(row.id)
    return await asyncio.to_thread(
        review, row.kind, row.seed, len(row.players), row.options, moves, seat
    )


async def answer_review(
    interaction: discord.Interaction[Any], snapshot: Snapshot, store: Store
) -> None:
    """Answer the Review button privately with the asker's own review, whole: a long one in
    several messages (the answer, then follow-ups), none over Discord's limit."""
    text = await review_text(store, snapshot, interaction.user.id)
    for page in pages(text):
        await send(interaction, page, ephemeral=True)


def pages(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """``text`` in messages of at most ``limit`` characters, split between lines (a line
    longer than that, which no review writes, is cut into pieces)."""
    found: list[str] = []
    for line in text.split("\n"):
        pieces = [line[i : i + limit] for i in range(0, len(line), limit)] or [""]
        for piece in pieces:
            if found and len(found[-1]) + 1 + len(piece) <= limit:
                found[-1] += "\n" + piece
            else:
                found.append(piece)
    return found
