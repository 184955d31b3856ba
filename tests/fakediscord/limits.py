"""Discord's documented size limits, so a body Discord would refuse fails here too."""

from __future__ import annotations

from typing import Any

from tests.fakediscord.models import walk
from tests.fakediscord.protocol import JSON

COMPONENTS_V2 = 1 << 15
"""The message flag for Components V2: then a message is its components, with no content,
embeds, poll or stickers, and the flag can never be taken off again."""


class Refused(Exception):
    """A request Discord answers 400 (Invalid Form Body) with these problems."""

    def __init__(self, *problems: str) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)


def form_errors(problems: list[str]) -> JSON:
    """Problems (``"field: what is wrong"``) as Discord's ``errors`` object, which discord.py
    flattens into its exception's text: one ``_errors`` list per field."""
    errors: JSON = {}
    for problem in problems:
        field, _, message = problem.partition(": ")
        entry = {"code": "BASE_TYPE_INVALID", "message": message or field}
        errors.setdefault(field if message else "_form", {"_errors": []})["_errors"].append(entry)
    return errors


def v2_problems(body: JSON, flags: int) -> list[str]:
    """What a body sent to a Components V2 message (by ``flags``) may not carry."""
    if not flags & COMPONENTS_V2:
        return []
    return [
        f"{key}: cannot be used with the IS_COMPONENTS_V2 flag"
        for key in ("content", "embeds", "poll", "sticker_ids")
        if body.get(key)
    ]


def _too_long(errors: list[str], where: str, text: Any, limit: int) -> int:
    n = len(text or "")
    if n > limit:
        errors.append(f"{where}: {n} characters > {limit}")
    return n


def payload_problems(body: JSON, *, modal: bool = False) -> list[str]:
    """Discord's documented size limits a message (or modal) body breaks; empty when fine."""
    errors: list[str] = []
    _too_long(errors, "content", body.get("content"), 2000)
    embeds = body.get("embeds") or []
    if len(embeds) > 10:
        errors.append(f"embeds: {len(embeds)} > 10")
    total = 0
    for i, embed in enumerate(embeds):
        total += _too_long(errors, f"embeds[{i}].title", embed.get("title"), 256)
        total += _too_long(errors, f"embeds[{i}].description", embed.get("description"), 4096)
        author, footer = embed.get("author") or {}, embed.get("footer") or {}
        total += _too_long(errors, f"embeds[{i}].author.name", author.get("name"), 256)
        total += _too_long(errors, f"embeds[{i}].footer.text", footer.get("text"), 2048)
        fields = embed.get("fields") or []
        if len(fields) > 25:
            errors.append(f"embeds[{i}].fields: {len(fields)} > 25")
        for j, f in enumerate(fields):
            total += _too_long(errors, f"embeds[{i}].fields[{j}].name", f.get("name"), 256)
            total += _too_long(errors, f"embeds[{i}].fields[{j}].value", f.get("value"), 1024)
    if total > 6000:
        errors.append(f"embeds: {total} characters in all > 6000")
    components = body.get("components") or []
    v2 = int(body.get("flags") or 0) & COMPONENTS_V2
    errors += v2_problems(body, int(body.get("flags") or 0))
    if not v2 and not modal and any(c.get("type") != 1 for c in components):
        errors.append("components: only action rows at the top without IS_COMPONENTS_V2")
    if modal:
        _too_long(errors, "title", body.get("title"), 45)
        if not 1 <= len(components) <= 5:
            errors.append(f"modal components: {len(components)} not in 1..5")
    elif not v2 and len(components) > 5:
        errors.append(f"components: {len(components)} action rows > 5")
    every = list(walk(components))
    if v2 and len(every) > 40:
        errors.append(f"components: {len(every)} in all > 40")
    shown = sum(len(c.get("content") or "") for c in every if c.get("type") == 10)
    if v2 and shown > 4000:
        errors.append(f"text displays: {shown} characters in all > 4000")
    ids = [c["custom_id"] for c in every if c.get("custom_id")]
    if len(set(ids)) < len(ids):
        errors.append("components: a custom_id used twice in one message")
    for c in every:
        where = f"component {c.get('custom_id') or c.get('type')!r}"
        _too_long(errors, f"{where}.custom_id", c.get("custom_id"), 100)
        _too_long(errors, f"{where}.label", c.get("label"), 45 if c.get("type") == 4 else 80)
        if c.get("type") == 1 and len(c.get("components") or []) > 5:
            errors.append(f"{where}: {len(c['components'])} items in a row > 5")
        options = c.get("options") or []
        if len(options) > 25:
            errors.append(f"{where}.options: {len(options)} > 25")
        for o in options:
            _too_long(errors, f"{where}.options.label", o.get("label"), 100)
            _too_long(errors, f"{where}.options.value", o.get("value"), 100)
            _too_long(errors, f"{where}.options.description", o.get("description"), 100)
    return errors


def callback_problems(body: JSON) -> list[str]:
    """An interaction response: only a message (4), an update (7) or a modal (9) has limits."""
    data = body.get("data") or {}
    kind = body.get("type")
    return payload_problems(data, modal=kind == 9) if kind in (4, 7, 9) else []
