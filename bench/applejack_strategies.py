"""How well Orchard's Apple Jack Hard player scores and wins, and how fast it decides.

    .venv/bin/python -m bench.applejack_strategies [--games 100000] [--engine-games 1000]

Prints the exact optimal expected solitaire score of Apple Jack's eight categories (the
tables' value), the mean of simulated solitaire games played by Hard's reroll decisions on
the tables directly (one player scoring where the table says) with a 95% interval, then
2-player games through the real engine and ``choose``: Hard against Easy and Normal (seats
alternate), and Hard's time per move. Figures only, no asserts.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import time

from bot.ai import applejack_players as players
from bot.games.applejack import CATEGORIES, ENGINE, REROLLS, score, totals


def solitaire(seed: int, games: int) -> list[float]:
    """Hard's solitaire games on sorted dice: reroll by the tables, then score their best."""
    tables = players.exact_tables()
    rng = random.Random(seed)
    out: list[float] = []
    for _ in range(games):
        used: frozenset[str] = frozenset()
        total = 0
        for _turn in CATEGORIES:
            dice = tuple(sorted(rng.randint(1, 6) for _ in range(5)))
            left = REROLLS
            while True:
                choice = tables.best(used, dice, left)
                if choice.kind == "score":
                    total += score(choice.category, dice)
                    used |= {choice.category}
                    break
                fresh = tuple(rng.randint(1, 6) for _ in range(5 - len(choice.keep)))
                dice = tuple(sorted(choice.keep + fresh))
                left -= 1
        out.append(float(total))
    return out


def mean_interval(xs: list[float]) -> str:
    mean = statistics.fmean(xs)
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))
    return f"{mean:.4f}  95% [{mean - half:.4f}, {mean + half:.4f}]  (n={len(xs)})"


def rate_interval(count: float, n: int) -> str:
    p = count / n
    half = 1.96 * math.sqrt(p * (1 - p) / n)
    return f"{100 * p:6.2f}%  95% [{100 * (p - half):.2f}, {100 * (p + half):.2f}]"


def duel(levels: tuple[str, str], games: int, seed: int) -> tuple[int, int, list[float]]:
    """2-player engine games, ``levels[0]`` taking seat 0 in even games and seat 1 in odd
    ones: its wins, the ties, and its seconds per move."""
    wins = ties = 0
    times: list[float] = []
    for g in range(games):
        seat_of_first = g % 2
        level = {seat_of_first: levels[0], 1 - seat_of_first: levels[1]}
        state = ENGINE.new(seed * 1_000_000 + g, 2, {})
        while not ENGINE.is_over(state):
            for seat in sorted(ENGINE.to_act(state))[:1]:
                t0 = time.perf_counter()
                action = players.choose(state, seat, level[seat], 0)
                if seat == seat_of_first:
                    times.append(time.perf_counter() - t0)
                state = ENGINE.apply(state, action)
        scores = totals(state)
        mine, theirs = scores[seat_of_first], scores[1 - seat_of_first]
        wins += mine > theirs
        ties += mine == theirs
    return wins, ties, times


def percentile(xs: list[float], q: float) -> float:
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000, help="simulated solitaire games")
    ap.add_argument("--engine-games", type=int, default=1_000, help="2-player engine games")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()

    t0 = time.perf_counter()
    tables = players.exact_tables()
    print(f"Tables loaded (or built) and warmed in {time.perf_counter() - t0:.2f} s")
    print(f"Exact optimal expected solitaire score (8 categories): {tables.value(()):.4f}")

    t0 = time.perf_counter()
    chunks = [
        args.games // args.workers + (i < args.games % args.workers) for i in range(args.workers)
    ]
    jobs = [(args.seed * 100 + i, n) for i, n in enumerate(chunks[: args.workers]) if n]
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        xs = [x for part in pool.starmap(solitaire, jobs) for x in part]
    print(f"Hard, simulated solitaire: {mean_interval(xs)}  {time.perf_counter() - t0:.1f} s")

    print()
    print(f"Through the engine and choose(), {args.engine_games} 2-player games each:")
    hard_times: list[float] = []
    for pair in (("hard", "easy"), ("hard", "normal"), ("normal", "easy")):
        t0 = time.perf_counter()
        wins, ties, times = duel(pair, args.engine_games, args.seed)
        if pair == ("hard", "easy"):
            hard_times = times
        n = args.engine_games
        print(
            f"  {pair[0]:6s} vs {pair[1]:6s} wins {rate_interval(wins, n)}, "
            f"ties {100 * ties / n:.2f}%, wins + ties/2 {100 * (wins + ties / 2) / n:.2f}%  "
            f"{time.perf_counter() - t0:.1f} s"
        )
    ms = [t * 1000 for t in hard_times]
    print(
        f"Hard per move (tables warm): median {statistics.median(ms):.3f} ms, "
        f"p99 {percentile(ms, 0.99):.3f} ms, max {max(ms):.3f} ms over {len(ms)} moves"
    )


if __name__ == "__main__":
    main()
