"""Words for people: plurals, so no message says "1 points" or "3 games in 1 kinds"."""


def plural(count: int, one: str, many: str | None = None) -> str:
    """``plural(1, "point")`` is "1 point"; ``plural(3, "point")`` is "3 points"."""
    return f"{count} {one if count == 1 else (many or one + 's')}"
