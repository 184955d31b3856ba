"""A small line chart of a player's recent ratings or scores, drawn with Pillow (no discord)."""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT, MARGIN = 480, 180, 28


def line_chart(values: Sequence[float], title: str) -> bytes:
    """A PNG of ``values`` in order (oldest first), with the range and the title labelled."""
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=13)
    draw.text((MARGIN, 6), title, fill="black", font=font)
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    left, right, top, bottom = MARGIN + 24, WIDTH - MARGIN, MARGIN + 4, HEIGHT - MARGIN
    draw.rectangle((left, top, right, bottom), outline="#bbbbbb")
    step = (right - left) / max(1, len(values) - 1)
    points = [
        (left + i * step, bottom - (v - low) / span * (bottom - top)) for i, v in enumerate(values)
    ]
    if len(points) > 1:
        draw.line(points, fill="#2e7d32", width=3)
    for x, y in points:
        draw.ellipse((x - 3, y - 3, x + 3, y + 3), fill="#2e7d32")
    draw.text((4, top), f"{high:.0f}", fill="#555555", font=font)
    draw.text((4, bottom - 14), f"{low:.0f}", fill="#555555", font=font)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def describe(values: Sequence[float], what: str) -> str:
    """Alt text for the chart: what it shows (name the game in ``what``), from where to where."""
    return (
        f"Line chart of {what} over the last {len(values)} games, from {values[0]:.1f} "
        f"to {values[-1]:.1f} (lowest {min(values):.1f}, highest {max(values):.1f})."
    )
