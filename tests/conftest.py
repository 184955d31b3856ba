"""Shared fixtures. Keep each one short: the machinery lives in the modules it names."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakediscord import FakeDiscord


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A fake Discord on 127.0.0.1 that discord.py points at; run a bot with ``run_bot``."""
    async with FakeDiscord.running() as fake:
        yield fake
