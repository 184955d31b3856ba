"""Time to review a finished game: every seat of a six-player Cheerio game, and a solo daily.

    python bench/review_times.py [--games 20] [--cold 10]

Each game is played by Orchard's Easy player (the costliest to review: many distinct cards),
then reviewed with :func:`bot.ai.cheerio_review.review_all` (one replay, every seat). "cold"
is the first review in a fresh process (the shipped tables loaded, each card's keep values
computed on first need, as in a bot just started); "warm" is after every card's values were
computed (``DiceTables.warm``), as in a bot that has run for a while. The cold figure is
taken ``--cold`` times, each of another game in a process of its own (started for it, the
time to start it not counted), so one lucky or unlucky game does not make the figure.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
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


def cold(seed: int, moves: list[Move]) -> float:
    """The first review in a fresh process (``--one``), in milliseconds: the game's moves are
    sent to it, so nothing but the review has touched its tables."""
    sent = json.dumps([[m.seat, m.verb, m.arg] for m in moves])
    out = subprocess.run(
        [sys.executable, __file__, "--one", str(seed)],
        input=sent,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout)


def calibration() -> float:
    """Milliseconds for a fixed pure-Python loop: this shared machine's speed drifts (the
    same code's reviews took twice as long one hour as the hour before), so figures from
    different times compare only beside it."""
    began = time.perf_counter()
    total = 0
    for i in range(1_000_000):
        total += i
    return (time.perf_counter() - began) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--cold", type=int, default=10, help="fresh processes, a game each")
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:  # a fresh process's one game (see cold)
        moves = [Move(seat, verb, arg) for seat, verb, arg in json.load(sys.stdin)]
        exact_tables()  # loaded at start-up in the bot, before any review
        print(timed([(args.one, 6, {}, moves)])[0])
        return
    six = [(seed, 6, {}, played(seed, 6, {})) for seed in range(args.games)]
    solo = [
        (seed, 1, {"daily": seed + 1}, played(seed, 1, {"daily": seed + 1}))
        for seed in range(args.games)
    ]
    tables = exact_tables()
    print(f"calibration: a million additions in {calibration():.0f} ms")
    firsts = [cold(seed, moves) for seed, _, _, moves in six[: args.cold]]
    print(line("6-player Cheerio, cold", firsts))
    tables.warm()
    print(line("6-player Cheerio, warm", timed(six)))
    print(line("solo daily Cheerio, warm", timed(solo)))


if __name__ == "__main__":
    main()
