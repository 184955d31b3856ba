"""``python -m tests.bot_launch PORT DB``: :mod:`tests.bot_process`, started as the ``orchard``
program starts (:mod:`bot.launch`): signals held before the slow imports. It prints ``held``
once they are, so a test can send one while the rest is still being imported."""

from __future__ import annotations

import sys

from bot import launch


def main() -> int:
    launch.hold()
    print("held", flush=True)
    from tests.bot_process import main as run  # discord.py and the rest: most of a second

    return run(sys.argv[1:], held=launch.HELD)


if __name__ == "__main__":
    sys.exit(main())
