"""Time to draw a game message: the Cheerio dice view, and the Appletters snake picture.

    python bench/render_times.py [--n 2000]

Cheerio: ``CheerioCog.render`` plus turning the embed and buttons into Discord's JSON (what
discord.py sends), for six players mid-game. Appletters: ``draw_snake`` (PNG bytes) for
snakes of 10, 40 and 110 tiles.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.games.cheerio import ENGINE as CHEERIO  # noqa: E402
from bot.games.cheerio import Hold, Roll, Score  # noqa: E402
from bot.model import GameRow, Player  # noqa: E402
from bot.runner import Snapshot  # noqa: E402


def timed(draw: Callable[[], Any], n: int) -> str:
    samples = []
    for _ in range(n):
        began = time.perf_counter()
        draw()
        samples.append(time.perf_counter() - began)
    samples.sort()
    p99 = samples[min(n - 1, int(0.99 * n))]
    return f"median {statistics.median(samples) * 1e3:7.3f} ms   p99 {p99 * 1e3:7.3f} ms"


def cheerio_live(players: int = 6) -> Snapshot:
    state = CHEERIO.new(42, players, {})
    for _ in range(players * 3):  # a few turns in: scores on every card
        state = CHEERIO.apply(state, Score(state.turn, _first_open(state)))
    state = CHEERIO.apply(state, Hold(state.turn, 0))
    state = CHEERIO.apply(state, Roll(state.turn))
    seats = tuple(Player(i, 7000 + i, f"Player {i + 1}") for i in range(players))
    row = GameRow(
        id=12345,
        kind="cheerio",
        variant="",
        guild_id=1,
        channel_id=2,
        message_id=3,
        host_id=7000,
        status="active",
        seed=42,
        options={},
        state=CHEERIO.dump(state),
        version=players * 3 + 2,
        deadline=None,
        created_at=0.0,
        updated_at=0.0,
        players=seats,
    )
    return Snapshot(row, state)


def _first_open(state: Any) -> str:
    from bot.games.cheerio import open_categories

    return open_categories(state.cards[state.turn])[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=2000)
    args = parser.parse_args()

    from bot.dice_emojis import DiceEmojis
    from cogs.cheerio import CheerioCog

    # render needs no bot while in play, only the dice pictures (none here: dice as text)
    cog: Any = CheerioCog(SimpleNamespace(uis={}, dice=DiceEmojis()))
    live = cheerio_live()

    def cheerio_message() -> None:
        cog.render(live).board.to_components()

    print(f"Cheerio render, 6 players  : {timed(lambda: cog.render(live), args.n)}")
    print(f"  ... and to Discord JSON   : {timed(cheerio_message, args.n)}")
    try:
        from cogs.appletters_picture import draw_snake
        from tests.test_appletters_picture import public_view, snake_of
    except ImportError as err:
        print(f"Appletters snake: not measured ({err})")
        return
    for tiles in (10, 40, 110):
        view = public_view(snake_of(tiles))
        size = len(draw_snake(view))
        n = max(20, args.n // 20)
        print(
            f"Appletters snake, {tiles:>3} tiles: {timed(lambda v=view: draw_snake(v), n)}"
            f"   ({size / 1024:.1f} KiB PNG, {n} draws)"
        )


if __name__ == "__main__":
    main()
