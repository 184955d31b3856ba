"""The entry point as an operator meets it: help, mistakes, an unreachable Discord and the
health check each answer in a line or a page, never with a traceback."""

import asyncio
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import discord
import pytest

from bot.cli import COMMANDS
from bot.config import LOG_LEVELS, SETTINGS, Config, database
from bot.health import HEARTBEAT, STALE_AFTER
from db.connection import redacted
from db.store import Store
from tests.botharness import GUILD
from tests.fakediscord import FakeDiscord
from tests.fakediscord import run_bot as connected

ROOT = Path(__file__).resolve().parent.parent
# `orchard ARGS...` with discord.py's REST calls sent to the URL in argv[1].
AT_DISCORD = (
    "import sys, discord.http; discord.http.Route.BASE = sys.argv[1]; "
    "from bot.cli import main; sys.exit(main(sys.argv[2:]))"
)


def run_bot(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_python(cwd, "-m", "bot", *args, **env)


def first_command() -> str:
    """The README's first shell command: setting up and running the bot."""
    return (ROOT / "README.md").read_text().split("```sh\n", 1)[1].split("\n```", 1)[0]


def run_python(cwd: Path, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in {"DISCORD_TOKEN", "DEV_GUILD_ID"}}
    env.setdefault("PYTHONPATH", str(ROOT))
    return subprocess.run(
        [sys.executable, *argv],
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

    from bot.cli import OWN_LOGGERS, configure_logging

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


def test_the_example_env_names_every_log_level_orchard_takes() -> None:
    (line,) = [line for line in (ROOT / ".env.example").read_text().splitlines() if "DEBUG" in line]
    assert [level for level in LOG_LEVELS if level not in line] == [], line


def test_log_level_is_read_in_any_case_and_defaults_to_info(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "abc")
    monkeypatch.delenv("DEV_GUILD_ID", raising=False)
    monkeypatch.setenv("LOG_LEVEL", " debug ")
    assert Config.from_env(env_file=None).log_level == "DEBUG"
    monkeypatch.setenv("LOG_LEVEL", "")
    assert Config.from_env(env_file=None).log_level == "INFO"


def test_help_says_what_each_command_does_and_names_every_setting(tmp_path: Path) -> None:
    for asked in ("--help", "-h", "help"):
        done = run_bot(tmp_path, asked)
        assert done.returncode == 0 and done.stderr == "", asked
        for word in ("run", "sync", "health", "clear-guild", *(name for name, _ in SETTINGS)):
            assert word in done.stdout, (asked, word)
    assert {name for name, _ in SETTINGS} == {
        "DISCORD_TOKEN",
        "ORCHARD_DB",
        "LOG_LEVEL",
        "DEV_GUILD_ID",
        "ORCHARD_SHARD_COUNT",
        "ORCHARD_SHARDS",
        "ORCHARD_CACHE",
    }
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(
    "command", ["run", "sync", "health", "clear-guild", "clear-global", "migrate-db"]
)
def test_each_command_has_its_own_help_needing_no_token_nor_database(
    tmp_path: Path, command: str
) -> None:
    """`orchard run --help` was a usage error (exit 2), `clear-guild --help` asked for a token."""
    for asked in ("--help", "-h"):
        done = run_bot(tmp_path, command, asked)
        assert (done.returncode, done.stderr) == (0, ""), done.stderr
        usage = done.stdout.splitlines()[0]
        assert usage.startswith("usage: orchard") and command in usage, usage
        assert "DISCORD_TOKEN" not in done.stdout or command.startswith("clear-")
    if command == "migrate-db":
        assert "the SQLite database file to copy" in done.stdout and "postgresql://" in done.stdout
    else:
        assert dict(COMMANDS)[command].split(";")[0] in " ".join(done.stdout.split())
    assert list(tmp_path.iterdir()) == [], "nothing is created"


def test_help_keeps_a_space_between_each_name_and_what_it_does(tmp_path: Path) -> None:
    """A name as long as its column ran into its text ("ORCHARD_SHARDSthe shards ...")."""
    shown = run_bot(tmp_path, "--help").stdout
    for name in [name for name, _ in SETTINGS] + ["clear-guild", "migrate-db"]:
        (line,) = [line for line in shown.splitlines() if line.startswith(f"  {name}")]
        assert line[2 + len(name)] == " ", line


SYSTEM_VARIABLES = {"XDG_CACHE_HOME"}  # the desktop's own, not Orchard's to explain


def test_every_variable_orchard_reads_is_in_help_and_the_example() -> None:
    """An operator learns the settings from --help and .env.example: a variable read anywhere
    in the bot but missing there is a setting nobody can find."""
    read = set()
    for path in [p for top in ("bot", "cogs", "db") for p in (ROOT / top).rglob("*.py")]:
        read |= set(re.findall(r"environ(?:\.get\(|\[)\s*\"([A-Z_]+)\"", path.read_text()))
    assert "ORCHARD_DB" in read and "DISCORD_TOKEN" in read  # the search finds them
    example = (ROOT / ".env.example").read_text()
    named = {name for name, _ in SETTINGS}
    for variable in sorted(read - SYSTEM_VARIABLES):
        assert variable in named, f"{variable} is read but not in --help (bot/config.py)"
        assert variable in example, f"{variable} is read but not in .env.example"


def test_a_quoted_token_from_docker_env_file_is_one_clear_line(tmp_path: Path) -> None:
    done = run_bot(tmp_path, DISCORD_TOKEN='"abc"')
    assert done.returncode == 2
    assert "--env-file" in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "base", ["http://127.0.0.1:9/api/v10", "http://discord.invalid/api/v10"], ids=["refused", "dns"]
)
def test_an_unreachable_discord_is_one_line_and_a_failure(tmp_path: Path, base: str) -> None:
    done = run_python(tmp_path, "-c", AT_DISCORD, base, DISCORD_TOKEN="abc", LOG_LEVEL="WARNING")
    assert done.returncode == 1
    assert done.stderr.startswith("Cannot reach Discord"), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr  # no voice warnings either


UNOPENABLE = {
    "a folder": lambda tmp: str(tmp),
    "under a file": lambda tmp: str(tmp / "notes.txt" / "orchard.db"),
    "not sqlite": lambda tmp: str(tmp / "notes.txt"),
    "bad port": lambda tmp: "postgresql://orchard:hunter22@localhost:notaport/orchard",
    "refused": lambda tmp: "postgresql://orchard:hunter22@127.0.0.1:9/orchard",
}


@pytest.mark.parametrize("case", UNOPENABLE)
def test_a_database_that_cannot_be_opened_is_one_line_before_any_login(
    tmp_path: Path, case: str
) -> None:
    """Each library fails in its own way (OSError, sqlite3, ValueError, asyncpg): a line
    naming ORCHARD_DB without its password, and exit 1. Discord here is unreachable: were the
    database opened after the login (as it was), that would be the line instead."""
    (tmp_path / "notes.txt").write_text("not a database\n")
    db = UNOPENABLE[case](tmp_path)
    base = "http://127.0.0.1:9/api/v10"
    env = {"DISCORD_TOKEN": "abc", "LOG_LEVEL": "WARNING", "ORCHARD_DB": db}
    done = run_python(tmp_path, "-c", AT_DISCORD, base, **env)
    assert done.returncode == 1, done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    line = done.stderr.strip()
    assert line.startswith(f"Cannot open the database ORCHARD_DB={db.replace(':hunter22', '')}: ")
    assert "hunter22" not in line


def test_a_database_url_is_shown_without_its_password() -> None:
    url = "postgresql://orchard:pw@db:5432/orchard?sslmode=require&password=pw"
    assert redacted(url) == "postgresql://orchard@db:5432/orchard?sslmode=require"
    assert redacted(Path("data/orchard.db")) == "data/orchard.db"


@pytest.mark.parametrize(
    "url",
    [
        "postgres:/localhost/orchard",
        "postgresql+asyncpg://orchard:hunter22@db/orchard",
        "mysql://orchard:hunter22@db/orchard",
        "sqlite:///orchard.db",
    ],
)
@pytest.mark.parametrize("command", ["run", "health"])
def test_a_url_orchard_cannot_use_is_refused_not_taken_for_a_file(
    tmp_path: Path, url: str, command: str
) -> None:
    """Such a value became a SQLite file of that name, and the bot ran on an empty database."""
    done = run_bot(tmp_path, command, DISCORD_TOKEN="abc", ORCHARD_DB=url)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert "is not a URL Orchard can use" in done.stderr and "hunter22" not in done.stderr
    assert list(tmp_path.iterdir()) == [], "no file was made"


def test_a_database_url_scheme_is_read_in_any_case_and_a_home_path_expanded(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ORCHARD_DB", "PostgreSQL://orchard@db/orchard")
    assert database() == "PostgreSQL://orchard@db/orchard"
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("ORCHARD_DB", "~/orchard.db")
    assert database() == tmp_path / "orchard.db"
    monkeypatch.setenv("ORCHARD_DB", "C:orchard.db")  # a drive letter, not a scheme
    assert database() == Path("C:orchard.db")


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


async def test_clear_guild_removes_the_dev_guild_copy_and_setting_it_again_copies_afresh(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    from bot.app import OrchardBot, command_hash_key

    fake_discord.add_guild(GUILD, [6001], [7001])
    config = Config("fake-token", tmp_path / "orchard.db", "INFO", dev_guild_id=GUILD)

    async def run_once() -> None:
        async with connected(OrchardBot(config, guild_ready_timeout=0.05), fake_discord):
            pass

    await run_once()
    assert fake_discord.guild_commands[GUILD] and fake_discord.commands is None
    base = f"{fake_discord.base_url}/api/v10"
    env = {
        "DISCORD_TOKEN": "fake-token",
        "DEV_GUILD_ID": str(GUILD),
        "ORCHARD_DB": str(config.database),
    }
    done = await asyncio.to_thread(
        run_python, tmp_path, "-c", AT_DISCORD, base, "clear-guild", **env
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert f"server {GUILD}" in done.stdout
    assert fake_discord.guild_commands[GUILD] == []
    store = await Store.open(config.database)
    assert await store.get_meta(command_hash_key(discord.Object(GUILD))) == ""
    await store.close()
    await run_once()
    assert fake_discord.guild_commands[GUILD], "DEV_GUILD_ID set again copies them again"


async def test_clear_global_removes_the_commands_a_run_without_dev_guild_id_gave_everyone(
    fake_discord: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A first run without DEV_GUILD_ID gives every server the commands; a run with it then
    copies them into its server, which lists each twice. That run says so, and how to mend
    it: `orchard clear-global` empties the global list, and the next run says nothing."""
    from bot.app import OrchardBot, command_hash_key

    fake_discord.add_guild(GUILD, [6001], [7001])
    everyone = Config("fake-token", tmp_path / "orchard.db", "INFO", dev_guild_id=None)
    dev = Config("fake-token", everyone.database, "INFO", dev_guild_id=GUILD)

    async def run_once(config: Config) -> list[str]:
        caplog.clear()
        async with connected(OrchardBot(config, guild_ready_timeout=0.05), fake_discord):
            pass
        return [r.getMessage() for r in caplog.records if "clear-global" in r.getMessage()]

    assert await run_once(everyone) == [] and fake_discord.commands
    (warned,) = await run_once(dev)
    assert f"server {GUILD} lists each twice" in warned, warned
    env = {"DISCORD_TOKEN": "fake-token", "ORCHARD_DB": str(everyone.database)}
    base = f"{fake_discord.base_url}/api/v10"
    done = await asyncio.to_thread(
        run_python, tmp_path, "-c", AT_DISCORD, base, "clear-global", **env
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "every server" in done.stdout and fake_discord.commands == []
    store = await Store.open(everyone.database)
    assert await store.get_meta(command_hash_key(None)) == ""
    await store.close()
    assert await run_once(dev) == []
    assert fake_discord.guild_commands[GUILD], "the server's copy stays"


def test_a_command_other_than_the_run_acts_on_ctrl_c_at_once(tmp_path: Path) -> None:
    """The `orchard` program holds signals while it starts (bot.launch), for the bot's run to
    stop in order. Any other command (`migrate-db` may copy for minutes) gives them back:
    a Ctrl-C that came meanwhile interrupts it, as it would have."""
    program = (
        "import os, signal, sys\n"
        "from bot import launch\n"
        "launch.hold()\n"
        "os.kill(os.getpid(), signal.SIGINT)  # held: the program is starting\n"
        "sys.argv = ['orchard', 'help']\n"
        "launch.main()\n"
        "print('not interrupted')\n"
    )
    done = run_python(tmp_path, "-c", program)
    assert "KeyboardInterrupt" in done.stderr and "not interrupted" not in done.stdout, done


def test_python_m_bot_starts_as_the_orchard_program_does(tmp_path: Path) -> None:
    """`python -m bot` (the README's first command) is the `orchard` program: its start is
    bot.launch's, which holds SIGTERM before discord.py's slow import (a lost `docker stop`)."""
    program = (
        "import runpy, sys\n"
        "from bot import launch\n"
        "launch.main = lambda: print('launched', 'discord' in sys.modules) or 0\n"
        "runpy.run_module('bot', run_name='__main__')\n"
    )
    done = run_python(tmp_path, "-c", program)
    assert done.stdout == "launched False\n" and done.returncode == 0, done


def test_the_readmes_first_command_keeps_an_existing_env_and_goes_on(tmp_path: Path) -> None:
    """Run a second time, its copy of .env.example stopped the `&&` chain: `cp -n` exits 1
    where .env exists on newer coreutils (as the `cp` put first on PATH here does)."""
    (copy,) = [step for step in first_command().split(" && ") if ".env.example" in step]
    (tmp_path / ".env.example").write_text("DISCORD_TOKEN=\n")
    strict = tmp_path / "bin" / "cp"
    strict.parent.mkdir()
    strict.write_text(
        f'#!/bin/sh\n[ "$1" = -n ] && [ -e "$3" ] && exit 1\nexec {shutil.which("cp")} "$@"\n'
    )
    strict.chmod(0o755)
    env = {**os.environ, "PATH": f"{strict.parent}{os.pathsep}{os.environ['PATH']}"}
    for token in ("", "abc"):
        done = subprocess.run(
            ["sh", "-c", f"{copy} && echo went on"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert (done.returncode, done.stdout) == (0, "went on\n"), done.stderr
        assert (tmp_path / ".env").read_text() == f"DISCORD_TOKEN={token}\n"
        (tmp_path / ".env").write_text("DISCORD_TOKEN=abc\n")  # the operator fills it in
