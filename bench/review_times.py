"""Time to review a finished game: every seat of a six-player Cheerio game, and a solo daily.

    python bench/review_times.py [--games 20]

Each game is played by Orchard's Easy player (the costliest to review: many distinct cards),
then reviewed with :func:`bot.ai.cheerio_review.review_all` (one replay, every seat). "cold"
is the first review in a fresh process (the shipped tables loaded, each card's keep values
computed on first need, as in a bot just started); "warm" is after every card's values were
computed (``DiceTables.warm``), as in a bot that has run for a while.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.ai.cheerio_players import easy, exact_tables  # noqa: E402
from bot.ai.cheerio_review import review_all  # noqa: E402
from bot.games.cheerio import ENGINE  # noqa: E402
from bot.model import Move  # noqa: E402


def played(seed: int, players: int, options: dict[str, int]) -> list[Move]:
    state = ENGINE.new(seed, players, options)
    moves = []
    while not ENGINE.is_over(state):
        action = easy(state, state.turn)
        moves.append(Move(action.seat, *ENGINE.format(action)))
        state = ENGINE.apply(state, action)
    return moves


def timed(games: list[tuple[int, int, dict[str, int], list[Move]]]) -> list[float]:
    samples = []
    for seed, players, options, moves in games:
        began = time.perf_counter()
        review_all(seed, players, options, moves)
        samples.append((time.perf_counter() - began) * 1e3)
    return samples


def line(name: str, samples: list[float]) -> str:
    ordered = sorted(samples)
    return (
        f"{name:<28}: median {statistics.median(ordered):7.2f} ms   "
        f"max {ordered[-1]:7.2f} ms   ({len(ordered)} games)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    six = [(seed, 6, {}, played(seed, 6, {})) for seed in range(args.games)]
    solo = [
        (seed, 1, {"daily": seed + 1}, played(seed, 1, {"daily": seed + 1}))
        for seed in range(args.games)
    ]
    tables = exact_tables()
    print(line("6-player Cheerio, cold", timed(six[:1])))
    tables.warm()
    print(line("6-player Cheerio, warm", timed(six)))
    print(line("solo daily Cheerio, warm", timed(solo)))


if __name__ == "__main__":
    main()
