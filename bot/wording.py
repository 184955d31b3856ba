"""How Orchard words things for people, the same in every game: names shown as typed, lists
of names, plurals, the one "not your turn", links, and how wide a name is in a table. Pure
text (no discord), so the runner and the cogs say it alike; times and links to messages are
discord.py's (:func:`bot.boards.when`, :func:`bot.boards.message_link`).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from wcwidth import iter_graphemes, width

MARKS = re.compile(r"[\\*_~|`\[<]|^\s*[#>-]")
"""What Discord's Markdown reads in a name: the marks of bold, italics, underline, strike,
spoilers and code, a masked link's ``[``, the ``<`` of a mention, channel, timestamp or
custom emoji, and a heading, quote, subtext or list at the start of a line."""
LOOKALIKE_BACKTICK = "\u02cb"  # ˋ: one character, as wide in a table as the ` it stands for
ELLIPSIS = "…"


def plural(count: int, one: str, many: str | None = None) -> str:
    """``plural(1, "point")`` is "1 point"; ``plural(3, "point")`` is "3 points": no message
    says "1 points" or "3 games in 1 kinds"."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


def literal(name: str) -> str:
    """A name (anything a person typed) for Markdown, shown exactly as typed: each mark gets
    the backslash ``discord.utils.escape_markdown`` would give it (in an address too), and
    so does ``<``, which would make ``<@123>`` a mention pill or ``<t:0>`` a time. Written
    here, not imported, so the runner's refusals use it and stay free of discord. A name is
    escaped once, where it goes into text: never pass the result in again."""
    return MARKS.sub(lambda mark: mark[0][:-1] + "\\" + mark[0][-1], name)


def in_code(name: str) -> str:
    """A name for a code block, where no backslash escapes: a run of backticks would end
    the block, so each becomes a look-alike of the same width and the table's columns hold."""
    return name.replace("`", LOOKALIKE_BACKTICK)


@lru_cache(maxsize=4096)  # the same names, on every board of a game: measured once each
def shown_width(text: str) -> int:
    """How many cells of a code block's monospace font ``text`` takes: two for an emoji (a
    ZWJ family, a flag, a skin tone) or a CJK character, none for a combining mark or a
    zero-width character. This is wcwidth's reading of Unicode's East Asian Width and emoji
    data, summed per grapheme so a cut (:func:`clipped`) measures alike; Discord's fonts vary
    by platform, so a rare emoji may still draw a little off."""
    return sum(width(grapheme) for grapheme in iter_graphemes(text))


def clipped(text: str, most: int) -> str:
    """``text`` in at most ``most`` cells (:func:`shown_width`), cut with "…" only when it does not
    fit: between graphemes, never inside an emoji sequence or through a wide character. Pad
    the result to a column's width: it may come out a cell short."""
    return _cut(text, most, shown_width)


def shortened(text: str, most: int) -> str:
    """``text`` in at most ``most`` characters (Discord's limits count them), cut with "…"
    only when it does not fit, between graphemes like :func:`clipped`."""
    return _cut(text, most, len)


def _cut(text: str, most: int, size: Callable[[str], int]) -> str:
    if size(text) <= most:
        return text
    kept, used = "", size(ELLIPSIS)
    for grapheme in iter_graphemes(text):
        used += size(grapheme)
        if used > most:
            break
        kept += grapheme
    return kept + ELLIPSIS


def joined(names: Sequence[str]) -> str:
    """Names in a sentence: "Alice", "Alice and Bob", "Alice, Bob and Carol"."""
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + f" and {names[-1]}"


def not_your_turn(waiting_for: Sequence[str]) -> str:
    """Every game's one answer to a move out of turn, naming whom the game waits for (their
    names as stored: they are shown literally here)."""
    shown = [literal(name) for name in waiting_for]
    if not shown:
        return "It is not your turn."
    if len(shown) == 1:
        return f"It is not your turn: it is {shown[0]}'s."
    return f"It is not your turn: the game is waiting for {joined(shown)}."


def duration(seconds: int) -> str:
    """A length of time as a setting shows it: "30 s", "5 min", "1 min 30 s", "24 h" (no
    "0 min 30 s": a part that is zero is left out)."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{n} {unit}" for n, unit in ((hours, "h"), (minutes, "min"), (secs, "s")) if n]
    return " ".join(parts) or "0 s"


def link(text: str, url: str) -> str:
    """A masked link, ``[text](url)``: Discord shows the words, not the address."""
    return f"[{text}]({url})"


def command_mention(command: str, ids: dict[str, int]) -> str:
    """``</cheerio new:123>``, which Discord shows as a clickable command, for ``"cheerio
    new"`` when the top-level command's id is known; else ``/cheerio new`` in code style."""
    top = command.split()[0]
    return f"</{command}:{ids[top]}>" if top in ids else f"`/{command}`"


def lines_within(lines: Sequence[str], limit: int, noun: str, sep: str = "\n") -> str:
    """As many of ``lines`` as fit in ``limit`` characters, joined by ``sep`` (", " for a list
    in a sentence), then "… and 3 more games" for the rest (``noun`` "game"): Discord refuses
    a text over its limit outright, so a long list is cut rather than lost."""
    whole = sep.join(lines)
    if len(whole) <= limit:
        return whole

    def rest(count: int) -> str:
        return f"… and {plural(count, 'more ' + noun)}"

    room = limit - len(rest(len(lines))) - len(sep)  # the kept lines and their separators
    kept: list[str] = []
    used = -len(sep)  # no separator before the first line
    for line in lines:
        if used + len(sep) + len(line) > room:
            break
        used += len(sep) + len(line)
        kept.append(line)
    return sep.join([*kept, rest(len(lines) - len(kept))])


CHOICE_NAMES = {
    "orchard": "Orchard (the bot)",
    "best": "Best score",
    "average": "Average score",
    "start": "Start of the snake",
    "end": "End of the snake",
    "challenge": "Unchecked (players challenge)",
    "checked": "Checked when played",
    "full": "Full list",
    "family": "Family list (common words)",
    "channel": "In the game's channel",
    "dm": "By DM",
}
"""How a stored choice reads in Discord's menus and in /settings, where its value would not
read well (:func:`choice_name`)."""


def choice_name(value: str) -> str:
    """A stored choice as people read it: named in :data:`CHOICE_NAMES`, else capitalised
    ("easy" reads "Easy")."""
    return CHOICE_NAMES.get(value, value.capitalize())


def date_text(day: datetime.date, *, weekday: bool = True, year: bool = False) -> str:
    """A date as people write it, "Monday 5 January" ("%d" would write "05")."""
    text = f"{day.day} {day:%B}" + (f" {day.year}" if year else "")
    return f"{day:%A} {text}" if weekday else text
