"""Build the dice games' exact tables that ship in the package: ``bot/ai/data/*.dp.json.gz``.

Why shipped: building them takes seconds of CPU, and a bot that built them at start-up made
the first hints, clicks and Orchard moves after a restart wait (past Discord's 3 s). Run
from the repository root after changing a dice game's categories or scoring (the shipped
tables test fails until then)::

    python tools/build_tables.py [--out bot/ai/data]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.ai.dice_optimal import DiceTables, ScoreFn, fingerprint, save
from bot.specs import SPECS

GAMES: tuple[tuple[str, Sequence[str], ScoreFn], ...] = tuple(
    (spec.command, *spec.tables) for spec in SPECS if spec.tables is not None
)
"""Each dice game Orchard plays exactly, as its spec says: its tables' name (as its player
module asks for them), categories and scoring."""


def build(out: Path) -> list[Path]:
    """Build every game's tables and write them into ``out``; the files written."""
    written = []
    for name, categories, score_fn in GAMES:
        path = out / f"{name}.dp.json.gz"
        save(DiceTables(categories, score_fn), name, path, fingerprint(categories, score_fn))
        path.chmod(0o644)  # read by whoever runs the bot, not only by who built it
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("bot/ai/data"))
    args = parser.parse_args(argv)
    for path in build(args.out):
        print(f"{path}: {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
