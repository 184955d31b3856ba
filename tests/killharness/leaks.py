"""No public message shows a hand: what the bot sent to the whole channel, searched for tiles.

Appletters hands are secret: the owner's DM (and ephemeral replies) may show one, nothing else.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator

from cogs.appletters_tiles import tiles_text
from tests.fakediscord import EPHEMERAL, FakeDiscord
from tests.killharness.report import Report

SHOWN_TILES = re.compile(r"(?=(`[A-Z]`(?: `[A-Z]`)*))")  # tiles_text runs, at every start
DM_TILES = re.compile(r"Your tiles \(\d+\): (.*)")


def public_bodies(fake: FakeDiscord) -> Iterator[tuple[str, str]]:
    """``path, JSON text`` of every request the bot made that shows something to the whole
    channel: messages posted or edited in a server channel, interaction responses and
    follow-ups without the ephemeral flag, and edits of interaction messages that are public.
    DMs, forms (shown to one user) and anything ephemeral are left out."""
    dm = set(fake.dm_channels.values())
    records = {r.token: r for r in fake.interactions.values()}
    followed: Counter[str] = Counter()

    def shown_to_all(message_id: int | None) -> bool:  # a message not known counts as public
        versions = fake.versions.get(message_id or 0) or []
        return not versions or not int(versions[0]["flags"]) & EPHEMERAL

    for request in fake.requests:
        body = request.json
        if not isinstance(body, dict):
            continue
        path, public = request.path, False
        flags = int((body.get("data") or body).get("flags") or 0)
        channel = re.fullmatch(r"/channels/(\d+)/messages(?:/\d+)?", path)
        callback = re.fullmatch(r"/interactions/\d+/([^/]+)/callback", path)
        hook = re.fullmatch(r"/webhooks/\d+/([^/]+)(?:/messages/(@original|\d+))?", path)
        if channel is not None:
            public = int(channel[1]) not in dm
        elif callback is not None:
            record = records.get(callback[1])
            kind = int(body.get("type") or 0)
            if kind in (4, 5):
                public = not flags & EPHEMERAL
            elif kind == 7:  # an update of the message the component was on
                public = shown_to_all(record.message_id if record is not None else None)
        elif hook is not None and request.method in ("POST", "PATCH"):
            record = records.get(hook[1])
            if request.method == "PATCH" and record is not None:
                target = record.original_id if hook[2] == "@original" else int(hook[2] or 0)
                public = shown_to_all(target)
            elif request.method == "POST":
                followed[hook[1]] += 1
                deferred = record is not None and record.type == 5 and followed[hook[1]] == 1
                # the first follow-up of a deferred answer keeps the defer's ephemeral choice
                public = not flags & EPHEMERAL and not (
                    deferred and not shown_to_all(record.original_id if record else None)
                )
        if public:
            yield path, json.dumps(body)


def check_hands_private(fake: FakeDiscord, hands: set[str], report: Report) -> None:
    """No public message shows a hand as :func:`cogs.appletters_tiles.tiles_text` shows it to its
    owner. The hands are every one held (replayed from the logs) and every one DMed."""
    shown = {tiles_text(hand) for hand in hands if hand}
    dm = {str(channel) for channel in fake.dm_channels.values()}
    for versions in fake.versions.values():
        for message in versions:
            if message["channel_id"] in dm:
                for found in DM_TILES.finditer(str(message.get("content") or "")):
                    if found[1] != tiles_text(""):
                        shown.add(found[1])
    report.hands = len(shown)
    for path, text in public_bodies(fake):
        report.public += 1
        for run in SHOWN_TILES.finditer(text):  # every tile run, from every tile on
            tiles = run[1]
            for end in range(3, len(tiles) + 1, 4):  # each run's first 1, 2, 3... tiles
                if tiles[:end] in shown:
                    report.leaks.append(f"{path}: {tiles[:end]}")
