"""SIGTERM and SIGINT to the real bot process (``tests.bot_process``, which runs ``serve``).

It must finish the move in flight, turn new clicks away with a word, close the gateway with a
close frame (the fake records the close code: 1000, not 1006 for a dropped connection), close
the store and exit 0 within 10 s, also as PID 1, where the kernel drops any signal the process
has no handler for. After a restart the game it was playing goes on.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot.cli import RESTARTING
from bot.components import OURS
from bot.health import after_a_crash, heartbeat_key, start_key, stop_key
from bot.shards import ShardPlan
from db.migrate import newest
from tests.bot_process import ROOT
from tests.bot_process import BotProcess as Bot
from tests.botharness import (
    ALICE,
    BOB,
    CHANNEL,
    GUILD,
    answered,
    choose,
    new_game,
    select_of,
    server,
)
from tests.fakediscord import FakeDiscord, components_of
from tests.support import orchard, started
from tests.test_cli import run_bot

CLOSE_FRAME = 1000  # what discord.py's Client.close() sends
CALLBACK = r"/interactions/\d+/[^/]+/callback"
STOPPING = "stopping: finishing the moves in flight"  # bot.cli logs it at SIGTERM


def roll(fake: FakeDiscord, board: int):
    return fake.find_button(board, lambda b: (b.label or "").startswith("Roll") and not b.disabled)


async def exit_status(proc: asyncio.subprocess.Process, began: float) -> tuple[int, float]:
    """The process's exit status and seconds from ``began``; killed if not gone in 10 s."""
    try:
        status = await asyncio.wait_for(proc.wait(), 10.0)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    return status, time.monotonic() - began


async def terminate(bot: Bot, sig: int = signal.SIGTERM) -> tuple[int, float]:
    assert bot.proc is not None
    began = time.monotonic()
    bot.proc.send_signal(sig)
    return await exit_status(bot.proc, began)


async def stopping(log: Path) -> None:
    """Until the bot has taken the SIGTERM (it logs so, then at once turns clicks away); 10 s
    at most."""
    deadline = time.monotonic() + 10.0
    while STOPPING not in log.read_text():
        assert time.monotonic() < deadline, "the bot never began to stop"
        await asyncio.sleep(0.02)


async def healthy(db: Path, within: float = 10.0) -> subprocess.CompletedProcess[str]:
    """``orchard health`` once it answers 0 (the first heartbeat follows ready), or its last
    answer."""
    deadline = time.monotonic() + within
    while True:
        done = await asyncio.to_thread(run_bot, db.parent, "health", ORCHARD_DB=str(db))
        if done.returncode == 0 or time.monotonic() > deadline:
            return done
        await asyncio.sleep(0.2)


async def test_sigterm_finishes_the_move_in_flight_closes_cleanly_and_the_game_goes_on(
    tmp_path: Path,
) -> None:
    async with FakeDiscord.running() as fake:
        server(fake)
        bot = Bot(fake, tmp_path / "orchard.db", tmp_path / "bot.log")
        await bot.start()
        try:
            board = await new_game(fake, "cheerio", ALICE, [])
            assert (await healthy(bot.db)).returncode == 0, "a fresh heartbeat is healthy"
            # The move's answer waits 1.5 s for Discord (a 429): in flight when SIGTERM comes.
            fake.fail("POST", CALLBACK, 429, retry_after=1.5)
            move = await fake.click(ALICE, board, roll(fake, board))
            await fake.wait_for(lambda: fake.pending_faults == 0, 5.0, "the answer to wait")
            assert bot.proc is not None
            began = time.monotonic()
            bot.proc.send_signal(signal.SIGTERM)
            await stopping(bot.log)  # the move's answer is still held up meanwhile
            late = await fake.click(BOB, board, roll(fake, board))  # after SIGTERM: told
            status, seconds = await exit_status(bot.proc, began)
            assert status == 0, (tmp_path / "bot.log").read_text()[-2000:]
            assert seconds < 10.0
            assert move.type == 7, "the move in flight was finished and shown"
            assert late.ephemeral and late.content == RESTARTING
            assert fake.close_codes == [CLOSE_FRAME], "a close frame, not a dropped connection"

            await bot.start()
            again = await (await fake.click(ALICE, board, roll(fake, board))).wait()
            assert again.type == 7, "the button of the game started before SIGTERM still works"
            assert "0 rolls left" in again.text, again.data
        finally:
            await bot.stop()


def stored_version(db: Path) -> tuple[int, int]:
    """The one game's version, and how many of Orchard's seat's turns it has scored."""
    with sqlite3.connect(db) as conn:
        ((game, version),) = conn.execute("SELECT id, version FROM games").fetchall()
        ((scored,),) = conn.execute(
            "SELECT count(*) FROM moves WHERE game_id = ? AND source = 'bot' AND verb = 'score'",
            (game,),
        ).fetchall()
    return version, scored


def drawn_version(fake: FakeDiscord, board: int) -> int:
    """The version of the game the board's controls were drawn for."""
    ids = [c.custom_id or "" for c in components_of(fake.message(board))]
    return max(int(i.split(":")[2]) for i in ids if OURS.match(i))


async def test_boards_a_crash_left_a_version_behind_are_drawn_anew_a_clean_stop_left_none(
    tmp_path: Path,
) -> None:
    """A crash cuts off the drawing of the moves it committed last, and no stop queues those
    boards (as an orderly one does): the restart draws anew the boards of the games changed
    since a minute before the last heartbeat. After an orderly stop it draws none."""
    async with FakeDiscord.running() as fake:
        server(fake)
        bot = Bot(fake, tmp_path / "orchard.db", tmp_path / "bot.log")
        await bot.start()
        try:
            new = {"opponent": "orchard", "level": "easy"}
            opened = await answered(await fake.slash(ALICE, GUILD, CHANNEL, "cheerio new", new))
            board = int(opened.original["id"])
            assert (await healthy(bot.db)).returncode == 0, "a heartbeat is recorded"

            await bot.stop()
            edits = rf"/channels/{CHANNEL}/messages/{board}$"
            before = len(fake.requests_matching("PATCH", edits))
            await bot.start()
            await asyncio.sleep(3.0)  # a board queued would be drawn at once
            assert len(fake.requests_matching("PATCH", edits)) == before, "nothing to draw"
            assert (await healthy(bot.db)).returncode == 0

            released = fake.hold("PATCH", edits)  # Orchard's turn is drawn by editing the board
            menu = select_of(fake, board, "score")
            await choose(fake, ALICE, board, "score", [menu.options[0]])
            await fake.wait_for(lambda: stored_version(bot.db)[1] == 1, 20.0, "Orchard's turn")
            version, _ = stored_version(bot.db)
            assert drawn_version(fake, board) < version, "the board shows Alice's turn still"
            await bot.kill()
            released.set()
            await bot.start()
            await fake.wait_for(lambda: drawn_version(fake, board) == version, 10.0, "a redraw")
        finally:
            await bot.stop()


async def test_a_crash_before_the_first_heartbeat_is_found_by_its_start_note(
    tmp_path: Path,
) -> None:
    """A run that started after an orderly stop, played (the backlog of its downtime, say)
    and died before its first heartbeat: its start note, newer than the stop's, tells the
    next start; the games it changed are queued, and the next stop is noted only once the
    look is done."""
    o = await orchard(tmp_path / "o.db")
    try:
        bot = SimpleNamespace(orchard=o.orchard, config=SimpleNamespace(shards=ShardPlan()))
        key = heartbeat_key(ShardPlan())
        await after_a_crash(bot)  # type: ignore[arg-type]  # a first start: nothing to find
        assert await o.store.next_to_draw() is None and len(o.orchard.on_stopped) == 1
        await o.store.set_meta(stop_key(key), str(o.clock.now - 100))
        await o.store.set_meta(start_key(key), str(o.clock.now - 50))  # no beat since
        live = await started(o, "cheerio", [1])  # changed at o.clock.now
        await after_a_crash(bot)  # type: ignore[arg-type]
        assert await o.store.next_to_draw() == (live.id, 1)
        assert len(o.orchard.on_stopped) == 2
    finally:
        await o.close()


async def test_a_sigterm_while_it_still_imports_stops_it_in_order(tmp_path: Path) -> None:
    """`docker stop` right after `docker start`: importing discord.py and the rest takes most
    of a second, and as PID 1 a signal with no handler is dropped (Docker then SIGKILLs). The
    `orchard` program holds it from its first instant (bot.launch), and the bot, once
    started, stops in order: exit 0, in time."""
    async with FakeDiscord.running() as fake:
        server(fake)
        log = tmp_path / "bot.log"
        with log.open("ab") as sink:
            proc = await asyncio.create_subprocess_exec(
                *(sys.executable, "-m", "tests.bot_launch", str(fake.port)),
                str(tmp_path / "orchard.db"),
                cwd=ROOT,
                stdout=asyncio.subprocess.PIPE,
                stderr=sink,
            )
        assert proc.stdout is not None
        assert (await asyncio.wait_for(proc.stdout.readline(), 10.0)).strip() == b"held"
        began = time.monotonic()
        proc.send_signal(signal.SIGTERM)  # while it imports discord.py
        status, seconds = await exit_status(proc, began)
        assert status == 0, log.read_text()[-2000:]
        assert seconds < 10.0
        assert "a signal came while starting" in log.read_text()


@pytest.mark.parametrize(
    ("kind", "held_posts", "control"),
    [
        pytest.param(
            "appletters",
            rf"^/channels/(?!{CHANNEL}/)\d+/messages$",
            lambda fake, board: fake.find_button(board, "My tiles"),
            id="tile-dm",
        ),
        pytest.param("cheerio", rf"^/channels/{CHANNEL}/messages$", roll, id="turn-ping"),
    ],
)
async def test_work_held_when_the_close_runs_out_of_time_ends_quietly(
    tmp_path: Path, kind: str, held_posts: str, control: Any
) -> None:
    """An Appletters tile DM, or a turn ping, waits on a slow Discord at SIGTERM, and an
    interaction in flight takes the whole drain, so the close runs out of time while it
    waits for them. Their task is cancelled and waited for, not left to fail once the HTTP
    session is closed (logged at ERROR, or "Task exception was never retrieved"); the
    process still exits 0 within 10 s."""
    async with FakeDiscord.running() as fake:
        server(fake)
        log = tmp_path / "bot.log"
        bot = Bot(fake, tmp_path / "orchard.db", log)
        await bot.start()
        try:
            held = fake.hold("POST", held_posts)  # not answered while the bot runs
            board = await new_game(fake, kind, ALICE, [BOB])
            await fake.wait_for(
                lambda: any(r.status == 0 for r in fake.requests_matching("POST", held_posts)),
                10.0,
                "a DM or ping to be held",
            )
            answer = fake.hold("POST", CALLBACK)
            await fake.click(ALICE, board, control(fake, board))
            await fake.wait_for(
                lambda: any(r.status == 0 for r in fake.requests_matching("POST", CALLBACK)),
                10.0,
                "the click's answer to be held: the click is in flight",
            )
            assert bot.proc is not None
            began = time.monotonic()
            bot.proc.send_signal(signal.SIGTERM)
            await asyncio.sleep(3.3)  # past the drain: the close has 5 s, they want 5 s
            answer.set()
            status, seconds = await exit_status(bot.proc, began)
            said = log.read_text()
            assert "closing took too long" in said, "the close ran out of time"
            assert (status, " ERROR " in said) == (0, False), said[-3000:]
            assert seconds < 10.0
        finally:
            held.set()  # else the fake's server waits a minute for the handler at its close
            await bot.stop()


def hung(module: str, owner: str, method: str) -> tuple[str, str]:
    """The bot process (its program's arguments) where ``module.owner.method`` never ends."""
    return (
        "-c",
        "import asyncio, importlib, sys\n"
        "from tests.bot_process import main\n"
        "async def hung(*args, **kwargs):\n"
        "    await asyncio.sleep(60)\n"
        f"setattr(getattr(importlib.import_module({module!r}), {owner!r}), {method!r}, hung)\n"
        "sys.exit(main(sys.argv[1:]))\n",
    )


@pytest.mark.parametrize(
    "stuck",
    [
        pytest.param(("discord.gateway", "DiscordWebSocket", "close"), id="gateway-close-frame"),
        pytest.param(("bot.orchard", "Orchard", "stop"), id="orchard-stop"),
    ],
)
async def test_a_close_that_never_ends_still_exits_0_in_time(
    tmp_path: Path, stuck: tuple[str, str, str]
) -> None:
    """The close runs out of time: inside discord.py's own (the gateway's close frame is never
    answered), or before it began (Orchard's own stop hangs). The process still closes its
    store and exits 0 within 10 s: no traceback of discord.py's cancelled close, no second
    close without a time limit, and no reader thread of an open store keeping it alive."""
    async with FakeDiscord.running() as fake:
        server(fake)
        log = tmp_path / "bot.log"
        bot = Bot(fake, tmp_path / "orchard.db", log, program=hung(*stuck))
        await bot.start()
        try:
            status, seconds = await terminate(bot)
            said = log.read_text()
            assert "closing took too long" in said, "the close ran out of time"
            assert (status, "Traceback" in said, " ERROR " in said) == (0, False, False), said
            assert seconds < 10.0
        finally:
            await bot.stop()


def migrated_by_a_newer_orchard(db: Path) -> int:
    """Record the migration a newer Orchard would apply next, as it would; its number."""
    newer = newest() + 1
    with sqlite3.connect(db) as conn:
        conn.execute(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)",
            (newer, f"{newer:03}_newer.sql"),
        )
    return newer


async def test_a_newer_orchard_migrating_the_database_stops_this_one_cleanly(
    tmp_path: Path,
) -> None:
    """An upgrade starts the new version on the database while the old one still runs: the
    old one stops (in order, exit 1, one line why) rather than write rows the new one reads,
    and started again on that database it refuses at once."""
    async with FakeDiscord.running() as fake:
        server(fake)
        log = tmp_path / "bot.log"
        bot = Bot(fake, tmp_path / "orchard.db", log)
        await bot.start()
        try:
            await new_game(fake, "cheerio", ALICE, [])
            newer = migrated_by_a_newer_orchard(bot.db)
            assert bot.proc is not None
            status, _ = await exit_status(bot.proc, time.monotonic())
            said = f"schema is at migration {newer}, newer than this Orchard knows"
            assert (status, fake.close_codes) == (1, [CLOSE_FRAME]), log.read_text()[-2000:]
            assert said in log.read_text()
            assert "Traceback" not in log.read_text()

            await bot.start(wait=False)
            assert bot.proc is not None
            assert (await exit_status(bot.proc, time.monotonic()))[0] == 1
            assert log.read_text().count(said) == 2, "refused at start, in the same line"
            assert "Traceback" not in log.read_text()
        finally:
            await bot.stop()


async def test_sigterm_while_a_shard_still_connects_finishes_the_move_and_turns_clicks_away(
    tmp_path: Path,
) -> None:
    """With several shards, discord.py connects them 5 s apart, and the first takes clicks
    before the bot is ready. A SIGTERM then is still an orderly stop: the move in flight is
    finished and shown, a click after it is told Orchard is restarting, and it exits 0."""
    async with FakeDiscord.running(shard_count=2) as fake:
        server(fake)
        assert fake.shard_of(GUILD) == 0, "the game's server is on the shard connected first"
        log = tmp_path / "bot.log"
        bot = Bot(fake, tmp_path / "orchard.db", log, shards=ShardPlan((0, 1), 2))
        await bot.start(wait=False)
        try:
            await fake.wait_for(lambda: fake.connected(0), 30.0, "the first shard")
            board = await new_game(fake, "cheerio", ALICE, [])
            fake.fail("POST", CALLBACK, 429, retry_after=1.5)  # the move's answer, held up
            move = await fake.click(ALICE, board, roll(fake, board))
            await fake.wait_for(lambda: fake.pending_faults == 0, 5.0, "the answer to wait")
            assert not fake.connected(1), "the second shard is still to connect"
            began = time.monotonic()
            assert bot.proc is not None
            bot.proc.send_signal(signal.SIGTERM)
            await stopping(log)
            late = await fake.click(ALICE, board, roll(fake, board))
            status, seconds = await exit_status(bot.proc, began)
            assert status == 0, log.read_text()[-2000:]
            assert seconds < 10.0
            assert move.type == 7, "the move in flight was finished and shown"
            assert late.ephemeral and late.content == RESTARTING
            assert "Traceback" not in log.read_text()
        finally:
            await bot.stop()


async def test_ctrl_c_is_a_clean_stop_too(tmp_path: Path) -> None:
    async with FakeDiscord.running() as fake:
        server(fake)
        bot = Bot(fake, tmp_path / "orchard.db", tmp_path / "bot.log")
        await bot.start()
        try:
            status, seconds = await terminate(bot, signal.SIGINT)
        finally:
            await bot.stop()
        assert (status, fake.close_codes) == (0, [CLOSE_FRAME]), (tmp_path / "bot.log").read_text()
        assert seconds < 10.0


def can_unshare() -> bool:
    probe = ["unshare", "--pid", "--fork", "--map-root-user", "--kill-child", "true"]
    try:
        return subprocess.run(probe, capture_output=True, timeout=10, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def child_of(pid: int) -> int:
    """The one process whose parent is ``pid`` (read from /proc)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                return int(entry.name)
    raise LookupError(f"no child of {pid}")


@pytest.mark.skipif(not can_unshare(), reason="needs unprivileged PID namespaces (unshare)")
async def test_as_pid_1_docker_stop_is_a_clean_stop(tmp_path: Path) -> None:
    """`docker stop` sends SIGTERM to PID 1 from outside its PID namespace: as here."""
    async with FakeDiscord.running() as fake:
        server(fake)
        with (tmp_path / "bot.log").open("ab") as sink:
            proc = await asyncio.create_subprocess_exec(
                *("unshare", "--pid", "--fork", "--map-root-user", "--kill-child", sys.executable),
                *("-m", "tests.bot_process", str(fake.port), str(tmp_path / "orchard.db")),
                cwd=ROOT,
                stdout=sink,
                stderr=sink,
            )
        try:
            await fake.wait_for(lambda: fake.connected(0), 60.0, "the bot to connect")
            bot = child_of(proc.pid)
            status = (Path("/proc") / str(bot) / "status").read_text()
            assert status.split("NSpid:")[1].splitlines()[0].split()[-1] == "1", "PID 1 inside"
            began = time.monotonic()
            os.kill(bot, signal.SIGTERM)
            status, seconds = await exit_status(proc, began)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        assert (status, fake.close_codes) == (0, [CLOSE_FRAME]), (tmp_path / "bot.log").read_text()
        assert seconds < 10.0
