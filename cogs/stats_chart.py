"""A small line chart of a player's recent ratings or scores, drawn with Pillow (no discord).

Drawn for Discord's dark theme, where most people read it: the embed's own background, light
grey text and grid, one bright line. Both axes are labelled: the values on the left with a
few round ticks, the games along the bottom (1 is the oldest shown).
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 480, 200
BACKGROUND = "#2b2d31"  # an embed's background in Discord's dark theme
TEXT = "#dbdee1"  # Discord's dark-theme body text
MUTED = "#949ba4"  # its secondary text: ticks and axis names
GRID = "#3f4147"
LINE = "#57f287"  # Discord's green: reads on dark grey, and apples are green too
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 30, 40  # room for the value ticks, the title, the games
CHARTS_KEPT = 128  # charts drawn, kept by their figures


def nice_ticks(low: float, high: float, most: int = 5) -> list[float]:
    """Round values (1, 2 or 5 times a power of ten apart) covering ``low`` to ``high``."""
    if high <= low:
        low, high = low - 1, high + 1
    raw = (high - low) / max(1, most - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    count = math.ceil((high - first) / step) + 1
    return [first + i * step for i in range(count)]


@functools.lru_cache(maxsize=CHARTS_KEPT)
def chart_of(values: tuple[float, ...], title: str) -> bytes:
    """:func:`line_chart`, drawn once for the same figures (25 ms of CPU each): one person
    repeating /stats must not cost the other servers a core. Thread-safe."""
    return line_chart(values, title)


def line_chart(values: Sequence[float], title: str) -> bytes:
    """A PNG of ``values`` in order (oldest first): title, value axis, game axis, the line."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=13)
    small = ImageFont.load_default(size=11)
    draw.text((LEFT, 8), title, fill=TEXT, font=font)
    ticks = nice_ticks(min(values), max(values))
    low, high = ticks[0], ticks[-1]
    left, right, top, bottom = LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM

    def y_of(value: float) -> float:
        return bottom - (value - low) / (high - low) * (bottom - top)

    for tick in ticks:
        y = y_of(tick)
        draw.line((left, y, right, y), fill=GRID, width=1)
        label = f"{tick:.0f}" if float(tick).is_integer() else f"{tick:.1f}"
        draw.text((left - 6, y), label, fill=MUTED, font=small, anchor="rm")
    draw.line((left, top, left, bottom), fill=MUTED, width=1)
    draw.line((left, bottom, right, bottom), fill=MUTED, width=1)
    step = (right - left) / max(1, len(values) - 1)
    points = [(left + i * step, y_of(v)) for i, v in enumerate(values)]
    for i, (x, _) in enumerate(points):
        if i in (0, len(points) - 1) or len(points) <= 10 or (i + 1) % 5 == 0:
            draw.text((x, bottom + 4), str(i + 1), fill=MUTED, font=small, anchor="mt")
    games = "game (oldest first)"
    draw.text(((left + right) / 2, HEIGHT - 6), games, fill=MUTED, font=small, anchor="ms")
    if len(points) > 1:
        draw.line(points, fill=LINE, width=3, joint="curve")
    for x, y in points:
        draw.ellipse((x - 3, y - 3, x + 3, y + 3), fill=LINE)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def describe(values: Sequence[float], what: str) -> str:
    """Alt text for the chart: what it shows (name the game in ``what``), from where to where."""
    return (
        f"Line chart of {what} over the last {len(values)} games, from {values[0]:.0f} "
        f"to {values[-1]:.0f} (lowest {min(values):.0f}, highest {max(values):.0f})."
    )
