"""How well Orchard's Cheerio players score, and how fast Hard decides.

    .venv/bin/python -m bench.cheerio_strategies [--games 100000] [--engine-games 1000]

Prints the exact optimal expected solitaire score (the dynamic programme's value), then the
mean of simulated solitaire games for Hard, Normal, Easy and a greedy baseline (score the
best category for the first roll) with 95% intervals. The fast simulation plays each
strategy's decisions on sorted dice; a smaller run through the real engine and the real
``choose`` functions (one toggle at a time) checks that they agree. Then the table's build
and load times, its file size, and Hard's time per move. Figures only, no asserts.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bot.ai import cheerio_players as players
from bot.ai.dice_optimal import DiceTables, load_or_build
from bot.games import cheerio
from bot.games.cheerio import CATEGORIES, ENGINE, CheerioAction, CheerioState, score

Policy = Callable[[frozenset[str], tuple[int, ...], int, random.Random], tuple[int, ...] | str]


def interval(xs: list[float]) -> str:
    mean = statistics.fmean(xs)
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return f"{mean:9.4f}  95% [{mean - half:.4f}, {mean + half:.4f}]  (n={len(xs)})"


def optimal_policy(tables: DiceTables, slips: bool) -> Policy:
    def policy(
        used: frozenset[str], dice: tuple[int, ...], left: int, rng: random.Random
    ) -> tuple[int, ...] | str:
        choice = players.decide(tables, used, dice, left, rng if slips else None)
        return choice.category if choice.kind == "score" else choice.keep

    return policy


def easy_policy(
    used: frozenset[str], dice: tuple[int, ...], left: int, rng: random.Random
) -> tuple[int, ...] | str:
    return players.easy_decision(used, dice, left)


def greedy_policy(
    used: frozenset[str], dice: tuple[int, ...], left: int, rng: random.Random
) -> tuple[int, ...] | str:
    return max((c for c in CATEGORIES if c not in used), key=lambda c: score(c, dice))


def simulate(policy: Policy, games: int, seed: int) -> list[float]:
    """Solitaire games on sorted dice: each turn rolls five, then follows ``policy``."""
    rng = random.Random(seed)
    roll = rng.randint
    out: list[float] = []
    for _ in range(games):
        used: frozenset[str] = frozenset()
        total = 0
        for _turn in CATEGORIES:
            dice = tuple(sorted(roll(1, 6) for _ in range(5)))
            left = cheerio.ROLLS_PER_TURN - 1
            while True:
                decision = policy(used, dice, left, rng)
                if isinstance(decision, str):
                    total += score(decision, dice)
                    used |= {decision}
                    break
                fresh = tuple(roll(1, 6) for _ in range(5 - len(decision)))
                dice = tuple(sorted(decision + fresh))
                left -= 1
        out.append(total)
    return out


def engine_games(
    strategy: Callable[[CheerioState, int], CheerioAction], games: int, seed: int
) -> tuple[list[float], list[float]]:
    """Whole solitaire games through ENGINE.apply; returns final scores and seconds per move."""
    scores: list[float] = []
    times: list[float] = []
    for g in range(games):
        state = ENGINE.new(seed * 1_000_000 + g, 1, {})
        while not ENGINE.is_over(state):
            t0 = time.perf_counter()
            action = strategy(state, 0)
            times.append(time.perf_counter() - t0)
            state = ENGINE.apply(state, action)
        scores.append(float(cheerio.total(state.cards[0])))
    return scores, times


def percentile(xs: list[float], q: float) -> float:
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000, help="fast simulated games per player")
    ap.add_argument("--engine-games", type=int, default=1_000, help="games through the engine")
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cheerio.dp.json.gz"
        t0 = time.perf_counter()
        built = load_or_build("cheerio", CATEGORIES, score, path)
        build_s = time.perf_counter() - t0
        size = path.stat().st_size
        t0 = time.perf_counter()
        tables = load_or_build("cheerio", CATEGORIES, score, path)
        load_s = time.perf_counter() - t0
        assert tables.values == built.values
        t0 = time.perf_counter()
        tables.warm()
        warm_s = time.perf_counter() - t0
        aj_line = ""
        try:
            from bot.games import applejack

            aj_path = Path(tmp) / "applejack.dp.json.gz"
            t0 = time.perf_counter()
            aj = load_or_build("applejack", applejack.CATEGORIES, applejack.score, aj_path)
            aj_s = time.perf_counter() - t0
            aj_line = (
                f"Apple Jack (8 categories, solitaire): exact optimum {aj.value(()):.4f}; "
                f"built and saved in {aj_s:.2f} s, {aj_path.stat().st_size} bytes"
            )
        except ImportError:
            aj_line = "Apple Jack: engine not available"

    exact = tables.value(())
    print(f"Exact optimal expected solitaire score: {exact:.4f}")
    print()
    print(f"Fast simulation, {args.games} games each (seed {args.seed}):")
    runs: list[tuple[str, Policy]] = [
        ("hard", optimal_policy(tables, slips=False)),
        ("normal", optimal_policy(tables, slips=True)),
        ("easy", easy_policy),
        ("greedy", greedy_policy),
    ]
    for name, policy in runs:
        t0 = time.perf_counter()
        xs = simulate(policy, args.games, args.seed)
        print(f"  {name:7s} {interval(xs)}  {time.perf_counter() - t0:.1f} s")

    print()
    print(f"Through the engine and the real strategies, {args.engine_games} games each:")
    fresh = DiceTables(CATEGORIES, score, tables.values)  # as loaded: no turn computed yet
    strategies: list[tuple[str, Callable[[CheerioState, int], CheerioAction]]] = [
        ("hard", lambda s, seat: players.hard(s, seat, tables=fresh)),
        ("normal", lambda s, seat: players.normal(s, seat, tables=tables)),
        ("easy", lambda s, seat: players.easy(s, seat)),
        ("greedy", lambda s, seat: players.greedy(s, seat)),
    ]
    hard_times: list[float] = []
    for name, strategy in strategies:
        xs, times = engine_games(strategy, args.engine_games, args.seed)
        if name == "hard":
            hard_times = times
        print(f"  {name:7s} {interval(xs)}")

    _, warm_times = engine_games(
        lambda s, seat: players.hard(s, seat, tables=tables), args.engine_games, args.seed + 1
    )

    print()
    print(
        f"Table: built and saved in {build_s:.2f} s, {size} bytes gzipped JSON "
        f"({tables.full + 1} turn-start values); loaded in {load_s * 1000:.1f} ms; "
        f"all within-turn keep values computed in {warm_s:.2f} s"
    )
    print(aj_line)
    ms = [t * 1000 for t in hard_times]
    print(
        f"Hard, per move (one action; tables as loaded from file, each turn's keep values "
        f"computed on first need): median {statistics.median(ms):.3f} ms, "
        f"p99 {percentile(ms, 0.99):.3f} ms, "
        f"max {max(ms):.3f} ms over {len(ms)} moves"
    )
    ms = [t * 1000 for t in warm_times]
    print(
        f"Hard, per move (all turns' keep values precomputed, as tables_for does): "
        f"median {statistics.median(ms):.3f} ms, p99 {percentile(ms, 0.99):.3f} ms, "
        f"max {max(ms):.3f} ms over {len(ms)} moves"
    )


if __name__ == "__main__":
    main()
