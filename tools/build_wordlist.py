"""Build Orchard's Appletters word lists from an installed SCOWL (Debian package ``scowl``).

Why a script: SCOWL splits its words by kind, so taking only the plain-word files of the
English spellings gives inflections without names or abbreviations. The outputs are
committed, so installing Orchard needs nothing else. Run from the repository root::

    python tools/build_wordlist.py [--scowl /usr/share/dict/scowl] [--out bot/games/data]

See seeds/appletters.md (and the shared Appletters notes it was written from) for the recipe.
"""

from __future__ import annotations

import argparse
import gzip
import re
from collections.abc import Iterable
from pathlib import Path

CATEGORIES = ("english", "american", "british", "british_z", "canadian", "australian")
LEVELS = {"full": 80, "family": 60}
LETTERS = re.compile(r"[a-z]+")

_TWO_LETTER_TEXT = """
aa ab ad ae ag ah ai al am an ar as at aw ax ay be bi bo by da de do ed ef eh el em en er es ew
ex fa fe go ha he hi hm ho id if in is it jo ka ki la li lo ma me mi mm mo mu my na ne no nu od
oe of oh oi ok om on op or os ow ox oy pa pe pi po qi re sh si so ta ti to uh um un up us ut we
wo xi xu ya ye yo za
"""
TWO_LETTER = frozenset(_TWO_LETTER_TEXT.split())
"""SCOWL files most two-letter words as abbreviations; these are the common real ones."""

DENY = frozenset({"csc", "csch", "dkl", "hhd"})
"""Junk that slips through the plain-word files."""

LICENSE_HEADER = """\
Orchard's Appletters word lists (words-full.txt.gz, words-family.txt.gz) are derived from
SCOWL (Spell Checker Oriented Word Lists) by Kevin Atkinson, as packaged by Debian
(package "scowl"), using tools/build_wordlist.py. Level 80, used for the full list,
includes the UK Advanced Cryptics Dictionary (UKACD), whose copyright notice and text are
reproduced below verbatim, together with SCOWL's own notice and those of its sources, from
/usr/share/doc/scowl/copyright.

--------------------------------------------------------------------------------------------

"""


def source_files(scowl: Path, level: int) -> list[Path]:
    """The plain-word files of the chosen spellings at or below ``level``."""
    found = []
    for category in CATEGORIES:
        for path in scowl.glob(f"{category}-words.*"):
            suffix = path.name.rsplit(".", 1)[1]
            if suffix.isdigit() and int(suffix) <= level:
                found.append(path)
    return sorted(found)


def read_words(paths: Iterable[Path]) -> set[str]:
    """Every lowercase a-z word (of three letters or more) in ``paths``."""
    words: set[str] = set()
    for path in paths:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            word = line.strip()
            if len(word) >= 3 and LETTERS.fullmatch(word):
                words.add(word)
    return words


def build(scowl: Path, level: int) -> list[str]:
    """The sorted list for ``level``: SCOWL's words plus the allow-list, minus the deny-list."""
    if not scowl.is_dir():
        raise SystemExit(f"{scowl} not found: apt-get install scowl")
    words = (read_words(source_files(scowl, level)) | TWO_LETTER) - DENY
    return sorted(words)


def write_gz(path: Path, words: list[str]) -> None:
    """Gzip with a fixed mtime so rebuilding unchanged lists gives identical bytes."""
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        gz.write(("\n".join(words) + "\n").encode("ascii"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scowl", type=Path, default=Path("/usr/share/dict/scowl"))
    parser.add_argument("--copyright", type=Path, default=Path("/usr/share/doc/scowl/copyright"))
    parser.add_argument("--out", type=Path, default=Path("bot/games/data"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, level in LEVELS.items():
        words = build(args.scowl, level)
        write_gz(args.out / f"words-{name}.txt.gz", words)
        print(f"{name}: {len(words)} words (levels <= {level})")
    notice = LICENSE_HEADER + args.copyright.read_text(encoding="utf-8")
    (args.out / "WORDLIST-LICENSE.txt").write_text(notice, encoding="utf-8")


if __name__ == "__main__":
    main()
