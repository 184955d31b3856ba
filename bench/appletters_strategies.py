"""How fast Orchard's Appletters players decide, and how often Hard beats Easy.

    .venv/bin/python -m bench.appletters_strategies [--games 200] [--decisions 200]
        [--word-list full] [--variants appletters applescore appleturnover]

1. Builds a snake of 60+ tiles by letting Hard play against itself with a fresh random
   hand every turn (so nobody goes out), then times single decisions on that snake for
   random hands of 9 and of 21 tiles drawn from the tile bag: median and p99 per level.
   Passing the whole state gives the strategy the word list's name (it cuts the state to
   the seat's view first); a bare view, which names no list, makes it use ``family``.
2. Plays ``--games`` two-player games of each variant, Hard against Easy (seats alternate),
   and prints Hard's win rate (a shared win counts half) with a 95% interval.

Figures only, no asserts.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from bot.ai.appletters_players import choose, word_index
from bot.games.appletters import (
    ENGINE,
    ENGINES,
    AppLettersEngine,
    AppState,
    Play,
    board,
    tile_bag,
    view_for,
)

MAX_STEPS = 2_000


def random_hand(rnd: random.Random, size: int) -> str:
    return "".join(sorted(rnd.sample(tile_bag(), size)))


def long_snake(seed: int, word_list: str, tiles: int = 60) -> AppState:
    """A two-player Appletters position whose snake has at least ``tiles`` tiles."""
    rnd = random.Random(seed)
    state = ENGINE.new(seed, 2, {"word_list": word_list})
    for _ in range(MAX_STEPS):
        if len(board(state.snake)) >= tiles:
            return state
        seat = state.turn
        hands = tuple(random_hand(rnd, 9) for _ in range(2))
        state = replace(state, hands=hands, core="E" * 30)
        action = choose(state, seat, "hard", rnd.randrange(1 << 30))
        if isinstance(action, Play):
            after = ENGINE.apply(state, action)
            state = state if ENGINE.is_over(after) else after
        state = replace(state, turn=1 - seat)
    raise RuntimeError("could not grow the snake")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def time_decisions(
    state: AppState, size: int, level: str, n: int, see: Callable[[AppState], Any]
) -> tuple[float, float]:
    """Median and p99 milliseconds of one decision for ``n`` random hands of ``size``."""
    rnd = random.Random(size)
    times = []
    for i in range(n):
        trial = replace(state, hands=(random_hand(rnd, size), state.hands[1]), turn=0)
        seen = see(trial)
        start = time.perf_counter()
        choose(seen, 0, level, i)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), percentile(times, 0.99)


def bench_speed(word_list: str, n: int) -> None:
    for name in {word_list, "family"}:
        start = time.perf_counter()
        word_index(name)
        print(f"index of {name!r}: built in {time.perf_counter() - start:.2f} s")
    state = long_snake(1, word_list)
    print(f"snake: {len(state.snake)} words, {len(board(state.snake))} tiles")
    sees: dict[str, Callable[[AppState], Any]] = {
        f"state ({word_list})": lambda s: s,
        "view (family)": lambda s: view_for(s, 0),
    }
    for label, see in sees.items():
        for size in (9, 21):
            for level in ("hard", "normal", "easy"):
                med, p99 = time_decisions(state, size, level, n, see)
                where = f"{label:>16} {size:2} tiles {level:>6}"
                print(f"  {where}: median {med:6.1f} ms, p99 {p99:6.1f} ms")


def play(engine: AppLettersEngine, seed: int, levels: tuple[str, str], word_list: str) -> float:
    """One game; what it is worth to seat 0 (1 a win, 0.5 a shared win, 0 a loss)."""
    state = engine.new(seed, 2, {"word_list": word_list})
    for _ in range(MAX_STEPS):
        if engine.is_over(state):
            break
        (seat,) = engine.to_act(state)
        state = engine.apply(state, choose(engine.view_for(state, seat), seat, levels[seat], seed))
    results = engine.results(state)
    if results[0].won:
        return 0.5 if results[1].won else 1.0
    return 0.0


def bench_wins(engine: AppLettersEngine, games: int, word_list: str) -> None:
    start = time.perf_counter()
    points = []
    for g in range(games):
        hard_seat = g % 2
        levels = ("hard", "easy") if hard_seat == 0 else ("easy", "hard")
        worth = play(engine, 10_000 + g, levels, word_list)
        points.append(worth if hard_seat == 0 else 1.0 - worth)
    p = statistics.fmean(points)
    half = 1.96 * math.sqrt(max(p * (1 - p), 1e-9) / games)
    took = time.perf_counter() - start
    print(
        f"  {engine.kind:>13}: Hard beats Easy {p:.1%} ± {half:.1%} over {games} games "
        f"({took / games:.2f} s a game)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument("--word-list", default="full")
    parser.add_argument("--variants", nargs="*", default=[e.kind for e in ENGINES])
    args = parser.parse_args()
    bench_speed(args.word_list, args.decisions)
    print(f"Hard against Easy, two players, {args.word_list!r} list:")
    for engine in ENGINES:
        if engine.kind in args.variants:
            bench_wins(engine, args.games, args.word_list)


if __name__ == "__main__":
    main()
