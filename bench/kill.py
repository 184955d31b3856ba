"""Kill the bot at random moments mid-game and prove nothing acknowledged is lost.

    python bench/kill.py [--kills 20] [--games 8] [--tables 2] [--words 1] [--seed 1]

The experiment (players, kills, restarts and checks) is ``tests/killharness``; this prints
its figures and exits 1 when a move was lost, a game's state differs from the replay of its
log, an open game did not play on, a control went unanswered, or a hand was shown publicly.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.killharness import Report, chaos  # noqa: E402


def figures(report: Report) -> list[str]:
    """The report as the lines this prints (and ``tests/test_kill.py`` shows on a failure)."""
    starts = sorted(report.restart_seconds)
    median = starts[len(starts) // 2] if starts else 0.0
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(report.kinds.items()))
    return [
        f"kills: {report.kills}",
        f"moves acknowledged: {len(report.acked)} (by {len({a.user_id for a in report.acked})} "
        "players)",
        f"moves lost: {len(report.lost)}",
        f"interactions unanswered (bot was down or killed mid-way): {report.unanswered}",
        f"clicks refused (stale boards after a kill, or the other player was quicker): "
        f"{report.refused}",
        f"games: {report.games} ({report.finished} finished; {kinds})",
        f"games whose state differs from the replay of their log: {len(report.mismatched)}",
        f"open games that played on after the last restart: {report.continued} of "
        f"{report.open_games}",
        f"buttons pressed: {report.pressed}",
        f"buttons unanswered: {len(report.dead)}",
        f"Appletters words played through the form (acknowledged): {report.words}",
        f"public messages showing a hand: {len(report.leaks)} ({report.hands} hands looked for "
        f"in {report.public} public message bodies)",
        f"restart to ready: median {median:.2f} s, max {max(starts, default=0.0):.2f} s",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--games", type=int, default=8, help="solo Cheerio games at once")
    parser.add_argument("--tables", type=int, default=2, help="two-player Hot Score tables")
    parser.add_argument("--words", type=int, default=1, help="two-player Appletters tables")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    # /games lists 25 games: every player's open game must be among them to be posted again
    tables = min(args.tables, 25)
    words = min(args.words, 25 - tables)
    games = min(args.games, 25 - tables - words)
    began = time.monotonic()
    report = asyncio.run(chaos(args.kills, games, args.seed, say=print, tables=tables, words=words))
    print("\n".join(figures(report)))
    for ack in report.lost[:10]:
        print(f"  lost: {ack}")
    for problem in report.dead[:10]:
        print(f"  unanswered: {problem}")
    for leak in report.leaks[:10]:
        print(f"  hand shown publicly: {leak}")
    print(f"wall time: {time.monotonic() - began:.1f} s")
    if (
        report.lost
        or report.mismatched
        or report.continued < report.open_games
        or report.dead
        or report.leaks
    ):
        sys.exit(1)


if __name__ == "__main__":
    main()
