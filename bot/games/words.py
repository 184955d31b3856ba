"""The Appletters word lists, read once from the package data built by tools/build_wordlist.py.

Kept apart from the engine so the engine stays pure and tests can hand it a tiny word set.
"""

from __future__ import annotations

import gzip
from functools import lru_cache
from importlib import resources

LISTS = ("full", "family")
"""``full``: SCOWL levels up to 80 (about 251,000 words); ``family``: up to 60 (about 80,000)."""


@lru_cache(maxsize=len(LISTS))
def load_words(name: str = "full") -> frozenset[str]:
    """Every word of list ``name``, lowercase a-z; cached because the full list takes ~50 ms."""
    if name not in LISTS:
        raise ValueError(f"unknown word list {name!r} (choose from {', '.join(LISTS)})")
    data = resources.files("bot.games").joinpath("data", f"words-{name}.txt.gz").read_bytes()
    return frozenset(gzip.decompress(data).decode("ascii").split())
