"""How often Orchard's Hot Score Hard player wins, and how fast it decides.

    .venv/bin/python -m bench.hotscore_strategies [--games 100000] [--engine-games 2000]

A fast simulation plays whole games (opening roll-off, rounds, challenges with their
escalation, bounces off 100, scores floored at 0) on plain values with each player's decision
functions, split over ``--workers`` processes. It prints Hard's win rate against Easy (always
sticks on two dice) and Normal, for both of Hard's objectives, with 95% intervals. Then a
smaller run through the real engine and ``choose`` checks the figure and times Hard's moves.
Figures only, no asserts.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from bot.ai import hotscore_players as players
from bot.games.hotscore import (
    CHALLENGE_STAKE,
    ENGINE,
    GOAL,
    Throw,
    challenge_winner,
    judge,
    lose_points,
    move_towards_100,
)

Policy = Callable[[Throw | None, tuple[int, ...]], str]
MAX_ROUNDS = 10_000


def hard_points(first: Throw | None, dice: tuple[int, ...]) -> str:
    return players.hard_decision(first, dice, "points")


def hard_win(first: Throw | None, dice: tuple[int, ...]) -> str:
    return players.hard_decision(first, dice, "win")


POLICIES: dict[str, Policy] = {
    "hard": hard_points,
    "hard(win)": hard_win,
    "normal": players.normal_decision,
    "easy": players.easy_decision,
}


def play_throw(policy: Policy, first: Throw | None, rng: random.Random) -> Throw:
    """Two dice, then the policy's stick or Bonus Die (and its sign)."""
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    if policy(first, dice) == "stick":
        return Throw(dice)
    three = (*dice, rng.randint(1, 6))
    if len(set(three)) == 1:
        return Throw(three, 1)
    return Throw(three, 1 if policy(first, three) == "+" else -1)


def challenge(level: int, rng: random.Random) -> tuple[int, int]:
    """The challenge's winner and stake, thrown again one level up on every tie."""
    parity = "odd" if rng.randint(1, 6) % 2 else "even"
    while True:
        dice = [tuple(rng.randint(1, 6) for _ in range(3)) for _ in range(2)]
        winner = challenge_winner(dice, parity)
        if winner is not None:
            return winner, CHALLENGE_STAKE * level
        level += 1


def play_game(policies: tuple[Policy, Policy], rng: random.Random) -> int | None:
    """One game; the winning seat (None if it somehow runs past MAX_ROUNDS)."""
    a, b = 0, 0
    while a == b:
        a, b = rng.randint(1, 6), rng.randint(1, 6)
    starter, scores = (0 if a < b else 1), [0, 0]
    for _ in range(MAX_ROUNDS):
        first = play_throw(policies[starter], None, rng)
        second = play_throw(policies[1 - starter], first, rng)
        verdict = judge(first, second)
        if verdict.winner is not None:
            winner = starter if verdict.winner == 0 else 1 - starter
            scores[winner] = move_towards_100(scores[winner], verdict.points)
        else:
            winner, stake = challenge(verdict.challenge, rng)
            scores[winner] = move_towards_100(scores[winner], stake)
            scores[1 - winner] = lose_points(scores[1 - winner], stake)
        if scores[winner] == GOAL:
            return winner
        starter = 1 - winner
    return None


def wins_of_seat0(pair: tuple[str, str], seed: int, games: int) -> int:
    """Games seat 0 wins (the roll-off decides who starts, so seats are symmetric)."""
    rng = random.Random(seed)
    policies = (POLICIES[pair[0]], POLICIES[pair[1]])
    return sum(play_game(policies, rng) == 0 for _ in range(games))


def win_rate(pair: tuple[str, str], games: int, seed: int, workers: int) -> int:
    """Seat 0's wins over ``games``, split over ``workers`` forked processes."""
    chunks = [games // workers + (i < games % workers) for i in range(workers)]
    jobs = [(seed * 100 + i, n) for i, n in enumerate(chunks)]
    if workers == 1:
        return sum(wins_of_seat0(pair, s, n) for s, n in jobs)
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(workers) as pool:
        return sum(pool.starmap(partial(wins_of_seat0, pair), jobs))


def interval(wins: int, n: int) -> str:
    p = wins / n
    half = 1.96 * math.sqrt(p * (1 - p) / n)
    return f"{100 * p:6.2f}%  95% [{100 * (p - half):.2f}, {100 * (p + half):.2f}]  (n={n})"


def percentile(xs: list[float], q: float) -> float:
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def engine_games(games: int, seed: int) -> tuple[int, list[float], list[float]]:
    """Hard (seat 0) against Easy through the engine: Hard's wins, then its seconds per move
    for every move and for the decisions alone (stick/bonus and sign)."""
    wins, every, decisions = 0, [], []
    for g in range(games):
        state = ENGINE.new(seed * 1_000_000 + g, 2, {})
        while not ENGINE.is_over(state):
            (seat,) = sorted(ENGINE.to_act(state))[:1]
            level = "hard" if seat == 0 else "easy"
            t0 = time.perf_counter()
            action = players.choose(state, seat, level, 0)
            spent = time.perf_counter() - t0
            if seat == 0:
                every.append(spent)
                if state.phase in ("choose", "sign"):
                    decisions.append(spent)
            state = ENGINE.apply(state, action)
        wins += state.winner == 0
    return wins, every, decisions


def cold_first_decision() -> float:
    """Seconds for Hard's first decision as a starter with every cache empty."""
    for fn in (
        players.answer_sign_values,
        players.answer_values,
        players.reply_value,
        players.starter_sign_values,
        players.starter_values,
    ):
        fn.cache_clear()
    t0 = time.perf_counter()
    players.hard_decision(None, (3, 5))
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000, help="fast simulated games per pair")
    ap.add_argument("--engine-games", type=int, default=2_000, help="games through the engine")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()

    cold = cold_first_decision()
    t0 = time.perf_counter()
    players.warm("points")
    players.warm("win")
    warm_s = time.perf_counter() - t0

    print(
        f"Fast simulation, {args.games} games per pair (seed {args.seed}), win rate of the first:"
    )
    pairs = [  # hard(win) is Orchard's Hard; hard (expected points) is kept to compare
        ("hard(win)", "easy"),
        ("hard(win)", "normal"),
        ("hard", "easy"),
        ("hard", "normal"),
        ("normal", "easy"),
    ]
    for pair in pairs:
        t0 = time.perf_counter()
        wins = win_rate(pair, args.games, args.seed, args.workers)
        spent = time.perf_counter() - t0
        print(f"  {pair[0]:9s} vs {pair[1]:9s} {interval(wins, args.games)}  {spent:.1f} s")

    print()
    wins, every, decisions = engine_games(args.engine_games, args.seed)
    print(f"Through the engine and choose(), hard vs easy: {interval(wins, args.engine_games)}")
    for name, xs in (("every move", every), ("stick/bonus/sign decisions", decisions)):
        ms = [t * 1000 for t in xs]
        print(
            f"Hard per move ({name}, caches warm): median {statistics.median(ms):.4f} ms, "
            f"p99 {percentile(ms, 0.99):.4f} ms, max {max(ms):.3f} ms over {len(ms)} moves"
        )
    print(
        f"Hard's first decision with empty caches: {cold * 1000:.0f} ms; "
        f"filling every cache (both objectives): {warm_s:.2f} s"
    )


if __name__ == "__main__":
    main()
