"""The ``orchard`` program's entry: SIGTERM and SIGINT are held from its first instant.

Importing discord.py and the rest takes most of a second, and as PID 1 (a container) the
kernel drops a signal the process has no handler for: a ``docker stop`` in that moment was
lost, and the container killed 10 s later, with no close frame. Held here, before those
imports, such a signal stops the bot in order as soon as it can
(:func:`bot.cli.on_signals`); any other command gets them back (:func:`release`).
Nothing is imported here but the standard library.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType

HELD: list[int] = []  # signals that came before the bot's own handlers were installed
RUNS = ("run", "sync")  # the commands that run the bot, and so act on a signal held


def hold() -> None:
    """Keep SIGTERM and SIGINT, when they come, for the bot's handlers to act on."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _held)


def _held(signum: int, frame: FrameType | None) -> None:
    HELD.append(signum)


def release() -> None:
    """Give SIGTERM and SIGINT their usual handling back, for a command that is not the bot's
    run (``migrate-db`` must stop at Ctrl-C); one that came meanwhile is acted on now."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    held, HELD[:] = list(HELD), []
    for signum in held:
        signal.raise_signal(signum)


def main() -> int:
    hold()
    from bot.cli import main as run  # discord.py and the rest: most of a second

    args = sys.argv[1:]
    if (args[0] if args else "run") not in RUNS:
        release()  # only the bot's run acts on a signal held while starting
    return run(args, held=HELD)


if __name__ == "__main__":
    sys.exit(main())
