"""The entry point as a user meets it: no token explains itself and exits cleanly."""

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.health import HEARTBEAT, STALE_AFTER
from db.store import Store


def run_bot(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in {"DISCORD_TOKEN", "DEV_GUILD_ID"}}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_no_token_explains_how_to_get_one(tmp_path: Path) -> None:
    done = run_bot(tmp_path, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "DISCORD_TOKEN" in done.stderr and "Developer Portal" in done.stderr
    assert not (tmp_path / "data").exists(), "nothing is created before there is a token"


def test_bad_dev_guild_is_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DISCORD_TOKEN=abc\nDEV_GUILD_ID=my-server\n")
    done = run_bot(tmp_path, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    assert done.returncode == 2
    assert done.stderr.strip() == "DEV_GUILD_ID must be a server id (digits only)."


def test_unknown_subcommand_prints_usage(tmp_path: Path) -> None:
    done = run_bot(tmp_path, "frobnicate", PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    assert done.returncode == 2 and "usage" in done.stderr


def test_debug_logging_is_orchards_own_never_the_libraries() -> None:
    """Below INFO, discord.py echoes request bodies and gateway events and aiosqlite each
    query's parameters: all of them carry players' hidden tiles."""
    import logging

    from bot.__main__ import OWN_LOGGERS, configure_logging

    root = logging.getLogger()
    saved = root.level, root.handlers[:]
    try:
        configure_logging("DEBUG")
        for name in ("bot.runner", "cogs.appletters", "db.store"):
            assert logging.getLogger(name).isEnabledFor(logging.DEBUG), name
        for name in ("discord.http", "discord.gateway", "discord.client", "aiosqlite", "x"):
            assert not logging.getLogger(name).isEnabledFor(logging.DEBUG), name
        configure_logging("WARNING")
        assert not logging.getLogger("bot.runner").isEnabledFor(logging.INFO)
        assert not logging.getLogger("aiosqlite").isEnabledFor(logging.INFO)
    finally:
        root.setLevel(saved[0])
        root.handlers[:] = saved[1]
        for name in OWN_LOGGERS:
            logging.getLogger(name).setLevel(logging.NOTSET)


def test_bad_log_level_is_one_clear_line(tmp_path: Path) -> None:
    root = str(Path(__file__).resolve().parent.parent)
    done = run_bot(tmp_path, DISCORD_TOKEN="abc", LOG_LEVEL="LOUD", PYTHONPATH=root)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL (got 'LOUD')."
    )
    assert not (tmp_path / "data").exists()


def test_log_level_is_read_in_any_case_and_defaults_to_info(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bot.config import Config

    monkeypatch.setenv("DISCORD_TOKEN", "abc")
    monkeypatch.delenv("DEV_GUILD_ID", raising=False)
    monkeypatch.setenv("LOG_LEVEL", " debug ")
    assert Config.from_env(env_file=None).log_level == "DEBUG"
    monkeypatch.setenv("LOG_LEVEL", "")
    assert Config.from_env(env_file=None).log_level == "INFO"


def heartbeat(db: Path, at: float | None) -> None:
    """Create the store at ``db`` and record a heartbeat at ``at`` (None: none at all)."""

    async def write() -> None:
        store = await Store.open(db)
        if at is not None:
            await store.set_meta(HEARTBEAT, str(at))
        await store.close()

    asyncio.run(write())


def test_health_is_0_for_a_fresh_heartbeat_and_1_with_one_line_otherwise(tmp_path: Path) -> None:
    db = tmp_path / "orchard.db"

    def unhealthy(why: str) -> None:
        done = run_bot(tmp_path, "health", ORCHARD_DB=str(db))
        assert done.returncode == 1 and why in done.stderr, done.stderr
        assert len(done.stderr.splitlines()) == 1, done.stderr

    unhealthy("no database")
    assert not db.exists(), "health creates nothing"
    heartbeat(db, None)
    unhealthy("has not connected")
    heartbeat(db, time.time() - STALE_AFTER - 5)
    unhealthy(f"(more than {STALE_AFTER:.0f})")
    heartbeat(db, time.time() - 2)
    done = run_bot(tmp_path, "health", ORCHARD_DB=str(db))  # needs no token
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
