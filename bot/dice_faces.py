"""Dice faces drawn as small PNG pictures, to become Orchard's application emojis.

Drawn from code so the pictures live in the repository as text and every deployment uploads
the same ones. A held die is the same face on a green tile with a thick green frame: it
reads as "kept" at emoji size, in light and dark themes, and to colour-blind players by its
frame's shape as much as by its colour.
"""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

SIZE = 96  # pixels; Discord shows emojis at 22 to 48 px and accepts up to 128
FACES = range(1, 7)
_PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)),
}
_HELD_FRAME = (46, 160, 67, 255)  # Discord's "success" green
_HELD_TILE = (214, 245, 221, 255)
_TILE = (250, 250, 250, 255)
_EDGE = (60, 60, 60, 255)
_PIP = (30, 30, 30, 255)


def emoji_name(face: int, held: bool) -> str:
    """The application emoji's name: stable, so a restart finds what it uploaded before."""
    return f"orchard_die{face}" + ("_held" if held else "")


def draw_face(face: int, held: bool = False) -> bytes:
    """One die face as a PNG, transparent around the rounded tile."""
    image = Image.new("RGBA", (SIZE, SIZE), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    if held:
        pen.rounded_rectangle((0, 0, SIZE - 1, SIZE - 1), radius=22, fill=_HELD_FRAME)
        box, tile = 11, _HELD_TILE
    else:
        box, tile = 4, _TILE
    pen.rounded_rectangle(
        (box, box, SIZE - 1 - box, SIZE - 1 - box), radius=16, fill=tile, outline=_EDGE, width=3
    )
    inner = SIZE - 2 * box
    radius = inner * 0.09
    for x, y in _PIPS[face]:
        cx, cy = box + x * inner, box + y * inner
        pen.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=_PIP)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


def all_faces() -> dict[str, bytes]:
    """Every emoji Orchard needs, by name: six faces, plain and held."""
    return {emoji_name(f, held): draw_face(f, held) for f in FACES for held in (False, True)}
