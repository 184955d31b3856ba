"""Shared fixtures. Keep each one short: the machinery lives in the modules it names."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from db.connection import Dialect, Target
from tests.databases import BACKENDS, fresh_schema
from tests.fakediscord import FakeDiscord
from tests.support import close_left_open


@pytest.fixture(autouse=True)
async def closes_what_a_test_left_open() -> AsyncIterator[None]:
    yield
    await close_left_open()


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A fake Discord on 127.0.0.1 that discord.py points at; run a bot with ``run_bot``."""
    async with FakeDiscord.running() as fake:
        yield fake


@pytest.fixture(params=BACKENDS)
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Target]:
    """Where a test's Orchard keeps its data, once per backend: a SQLite file in ``tmp_path``,
    or a fresh schema on the test PostgreSQL server (see ``tests/databases.py``)."""
    if request.param is Dialect.SQLITE:
        yield tmp_path / "o.db"
        return
    async with fresh_schema() as url:
        yield url
        await close_left_open()  # before the schema goes
