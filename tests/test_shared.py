"""Two Orchards on one PostgreSQL database, as two processes would be: the game lock holds
across them, due games are claimed once, the leader's lock passes on, IDENTIFYs take turns,
and a game's board ends on its latest version whichever process's edit lands last.

Each Orchard has its own store (its own pool of connections), so they share nothing but the
database, exactly like processes; they run in this one test process only to keep it fast.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from bot.model import Due, GameRow
from bot.opponents import Opponents
from bot.ratings import rate
from bot.runner import Display, Runner, Snapshot
from bot.scheduler import BUSY_RETRY
from bot.settings import SHARED_KEPT_SECONDS
from db import results, shared
from db.postgres import POOL_SIZE
from db.shared import IDENTIFY_EVERY, LEADER
from tests.databases import fresh_schema
from tests.support import (
    CHANNEL,
    GUILD,
    Clock,
    Table,
    finish_cheerio,
    orchard,
    player,
    started,
    until,
)
from tests.test_opponents import game_with_orchard

pytestmark = pytest.mark.postgres


@pytest.fixture
async def url() -> AsyncIterator[str]:
    async with fresh_schema() as fresh:
        yield fresh


async def two(url: str, clock: Clock) -> tuple[Table, Table]:
    return await orchard(url, clock), await orchard(url, clock)  # type: ignore[arg-type]


async def waiting_for_a_lock(o: Table) -> int:
    rows = await o.store.db.fetchall(
        "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
    )
    return int(rows[0][0])


async def solo(o: Table, channel: int) -> Snapshot:
    """A solo Cheerio game started in its own channel (one open game a channel)."""
    lobby = await o.lobby.open("cheerio", GUILD, channel, player(channel))
    return await o.lobby.start(lobby.id, channel)


async def test_a_move_waits_while_another_process_holds_the_game(url: str) -> None:
    clock = Clock()
    a, b = await two(url, clock)
    live = await started(a, "cheerio", [1])
    async with a.store.game(live.id):  # A loads, applies... and has not committed yet
        clicking = asyncio.create_task(b.runner.act(live.id, 1, "roll", version=0))

        async def b_waits() -> bool:
            return await waiting_for_a_lock(a) == 1

        await until(b_waits)
        assert not clicking.done()
    moved = await clicking
    assert moved.row.version == 1
    await a.close()
    await b.close()


async def test_two_processes_clicking_the_same_board_move_once(url: str) -> None:
    clock = Clock()
    a, b = await two(url, clock)
    live = await started(a, "cheerio", [1])
    for version in range(2):  # the rolls a turn has left after the first
        done = await asyncio.gather(
            a.runner.act(live.id, 1, "roll", version=version),
            b.runner.act(live.id, 1, "roll", version=version),
            return_exceptions=True,
        )
        assert sorted(type(d).__name__ for d in done) == ["Snapshot", "Stale"], done
    assert len(await b.store.moves(live.id)) == 2
    assert await b.runner.replay(live.id) == (await a.runner.load(live.id)).state
    await a.close()
    await b.close()


async def test_due_deadlines_fire_once_over_two_claimers(url: str) -> None:
    clock = Clock()
    a, b = await two(url, clock)
    games = [(await solo(a, channel)).id for channel in range(1, 41)]
    clock.now += 301
    fired = await asyncio.gather(a.scheduler.run_due(), b.scheduler.run_due())
    assert sum(fired) == len(games), fired
    for game_id in games:
        (move,) = await a.store.moves(game_id)
        assert move.source == "timeout"
    assert await a.scheduler.run_due() == await b.scheduler.run_due() == 0
    await a.close()
    await b.close()


async def test_a_claimer_passes_over_a_game_a_click_holds(url: str) -> None:
    """The claim never waits for a game's lock (that could deadlock with the click holding
    it): the game stays due and fires on the next pass."""
    clock = Clock()
    a, b = await two(url, clock)
    live = await started(a, "cheerio", [1])
    clock.now += 301
    async with a.store.game(live.id):
        assert await b.scheduler.run_due() == 0
    assert await b.scheduler.run_due() == 1
    await a.close()
    await b.close()


async def test_orchard_s_pending_move_is_played_by_another_process(url: str) -> None:
    """A commits a move that hands the turn to Orchard, and plays no Orchard seats (as if it
    died at once): B finds the move due in the database and plays it."""
    clock = Clock()
    a, b = await two(url, clock)
    game_id = await game_with_orchard(a, [1])
    live = await a.lobby.start(game_id, 1)
    live = await a.runner.act(game_id, 1, "score", "cheerio", version=live.row.version)
    opponents = Opponents(b.runner, delay=1.0)
    assert opponents.claims is not None
    assert await opponents.claims.run_due() == 0, "Orchard's pause has not passed yet"
    clock.now += 1.0
    assert await opponents.claims.run_due() == 1
    after = await b.runner.load(game_id)
    moves = await b.store.moves(game_id)
    assert moves[-1].source == "bot" and after.row.version == live.row.version + 1
    assert await b.runner.replay(game_id) == after.state
    assert await b.store.next_due(Due.ORCHARD) is None or after.state.turn == 1
    await opponents.stop()
    await a.close()
    await b.close()


async def test_a_turn_time_set_in_one_process_sets_the_deadlines_of_the_others(url: str) -> None:
    """A /settings change is taken by the process of the server's shard, while deadlines and
    Orchard's moves set deadlines in any process: within SHARED_KEPT_SECONDS of the change
    the others set deadlines with the new turn time (the changer at once). Each move scores,
    so each starts a turn, and a clock (moves within a turn keep its deadline)."""
    clock = Clock()
    a, b = await two(url, clock)
    live = await started(a, "cheerio", [1])
    moved = await b.runner.act(live.id, 1, "score", "ones", version=0)  # B reads the settings
    assert moved.row.deadline == clock.now + 300
    await a.runner.settings.update(GUILD, turn_seconds=60)
    moved = await a.runner.act(live.id, 1, "score", "twos", version=1)
    assert moved.row.deadline == clock.now + 60
    clock.now += SHARED_KEPT_SECONDS
    moved = await b.runner.act(live.id, 1, "score", "threes", version=2)
    assert moved.row.deadline == clock.now + 60, "B still uses the old turn time"
    await a.close()
    await b.close()


async def test_settings_changed_at_once_in_two_processes_both_stick(url: str) -> None:
    """Two processes each change another setting of one server at once, many times over
    (the first time creates its row): each update locks the row it reads, so every change
    sticks."""
    a, b = await two(url, Clock())
    try:
        for guild in range(GUILD, GUILD + 10):
            await asyncio.gather(
                a.runner.settings.update(guild, hints=False, add_channels=[1]),
                b.runner.settings.update(guild, turn_seconds=60, add_channels=[2]),
            )
            stored = await a.store.guild_settings(guild)
            assert (stored["hints"], stored["turn_seconds"]) == (False, 60), guild
            assert stored["game_channels"] == [1, 2], guild
    finally:
        await a.close()
        await b.close()


async def test_the_leader_s_lock_passes_on_when_its_holder_goes(url: str) -> None:
    clock = Clock()
    a, b = await two(url, clock)
    assert await a.store.try_lead()
    assert not await b.store.try_lead()
    assert await a.store.still_leading()
    await a.close()  # its session ends, as when a process dies
    assert await b.store.try_lead()
    assert await b.store.still_leading()
    await b.close()


async def test_a_leader_whose_session_ended_knows_it_no_longer_leads(url: str) -> None:
    """The server ends the leader's session (a restart, a failover, an operator): the lock is
    gone, another process takes it, and the old leader must say it no longer leads rather
    than fail the check (its chores would run beside the new leader's), and close cleanly."""
    clock = Clock()
    a, b = await two(url, clock)
    assert await a.store.try_lead()
    assert a.store.locks is not None
    rows = await a.store.db.fetchall(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted"
        " AND classid::bigint = ? AND objid::bigint = ?",
        (a.store.locks.namespace % 2**32, LEADER),
    )
    await b.store.db.fetchall("SELECT pg_terminate_backend(?)", (rows[0][0],))
    for _ in range(100):  # the backend ends, and its locks go, a moment after it is told to
        if await b.store.try_lead():
            break
        await asyncio.sleep(0.05)
    assert await b.store.try_lead(), "the lock went with the session"
    assert not await a.store.still_leading()
    await a.close()
    await b.close()


async def test_a_silent_leader_is_replaced_and_a_live_one_is_not(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A leader frozen (SIGSTOP, a stall) or cut off without its connection being reset sends
    nothing more, and the server would keep its session, and the lock, for hours: the purge
    of departed servers and /forget-me's redraws would stop. Its session ends once silent for
    LEADER_SILENCE, and another process takes over; a live leader's checks keep it."""
    monkeypatch.setattr(shared, "LEADER_SILENCE", 1.5)
    clock = Clock()
    a, b = await two(url, clock)
    assert await a.store.try_lead()
    for _ in range(6):  # checking every 0.5 s, as the leader does every RETRY
        await asyncio.sleep(0.5)
        assert await a.store.still_leading()
        assert not await b.store.try_lead(), "a live leader lost its lock"
    for _ in range(100):  # now silent
        if await b.store.try_lead():
            break
        await asyncio.sleep(0.1)
    assert await b.store.try_lead(), "a silent leader kept its lock"
    assert not await a.store.still_leading()
    await a.close()
    await b.close()


async def test_a_due_game_another_process_holds_does_not_spin_the_loop(url: str) -> None:
    """Process A holds a due game's claim (deciding Orchard's move; or frozen, for up to the
    minute a transaction may idle). B's claim skips the row, so finds nothing, yet the game
    is still the soonest due: B's loop must wait between passes, not run them back to back."""
    clock = Clock()
    a, b = await two(url, clock)
    live = await started(a, "cheerio", [1])
    clock.now += 301
    passes = 0
    next_due = b.store.next_due

    async def counted(due: Due) -> float | None:
        nonlocal passes
        passes += 1
        return await next_due(due)

    b.store.next_due = counted  # type: ignore[method-assign]
    async with a.store.claim(Due.DEADLINE, clock.now, set()) as held:
        assert held is not None and held.game_id == live.id
        b.scheduler.start()
        await asyncio.sleep(1.0)
        await b.scheduler.stop()
    assert passes <= 1.0 / BUSY_RETRY + 1, f"{passes} passes in a second"
    await a.close()
    await b.close()


async def test_identifies_take_turns_per_bucket(url: str) -> None:
    """One IDENTIFY per bucket per 5 s over every process; other buckets do not wait."""
    clock = Clock()
    a, b = await two(url, clock)
    assert await a.store.identify_turn(0) == 0.0
    assert await b.store.identify_turn(1) == 0.0
    waited = await b.store.identify_turn(0)
    assert IDENTIFY_EVERY - 1.0 < waited <= IDENTIFY_EVERY
    await a.close()
    await b.close()


async def test_shards_waiting_to_identify_leave_connections_to_moves(url: str) -> None:
    """After a gateway outage every shard of a process IDENTIFYs again, all in one bucket:
    each waits its turn 5.5 s after the last, and a move of the process in the meantime
    goes through at once (a turn waited for inside a transaction held one of the pool's
    connections per shard, until every move waited for the shards)."""
    clock = Clock()
    a, b = await two(url, clock)
    live = await started(b, "cheerio", [1])
    assert await a.store.identify_turn(0) == 0.0  # another process IDENTIFYs just now
    shards = [asyncio.create_task(b.store.identify_turn(0)) for _ in range(POOL_SIZE)]
    await asyncio.sleep(0.5)  # they wait for their turns
    moved = await asyncio.wait_for(b.runner.act(live.id, 1, "roll", version=0), 2.0)
    assert moved.row.version == 1
    assert not any(shard.done() for shard in shards)
    for shard in shards:
        shard.cancel()
    await asyncio.gather(*shards, return_exceptions=True)
    await a.close()
    await b.close()


def edits(
    runner: Runner,
    landed: list[Any],
    entered: asyncio.Event | None = None,
    release: asyncio.Event | None = None,
    shows: Callable[[GameRow], Any] = lambda row: row.version,
) -> Display:
    """A process's edits of a game's one message, as Discord applies them: ``landed`` is what
    each drawn edit ``shows`` (its version), in the order the edits landed. A version
    ``runner`` knows is outdated is not drawn (as :meth:`bot.boards.Boards.display`); with
    ``release`` given, the first edit hangs (a slow channel) until it is set."""

    async def draw(snapshot: Snapshot) -> None:
        if runner.outdated(snapshot):
            return
        if entered is not None and release is not None and not entered.is_set():
            entered.set()
            await release.wait()
        landed.append(shows(snapshot.row))

    return draw


@pytest.mark.parametrize("via", ["board", "click"])
async def test_the_last_edit_of_a_board_shows_the_latest_version(url: str, via: str) -> None:
    """A commits version 1 and its edit (of the board, or a click's reply) hangs; meanwhile a
    click routed to B commits version 2, and B's edit lands. A's edit of version 1 lands last,
    so A then draws the newest version: players never keep seeing an outdated board until
    the next move (with a deadline of minutes, or Orchard's seat, to wait for)."""
    clock = Clock()
    a, b = await two(url, clock)
    live = await started(a, "cheerio", [1])
    landed: list[int] = []
    entered, release = asyncio.Event(), asyncio.Event()
    slow = edits(a.runner, landed, entered, release)
    a.runner.board = slow if via == "board" else edits(a.runner, landed)
    b.runner.board = edits(b.runner, landed)
    version = live.row.version
    first = asyncio.create_task(
        a.runner.act(live.id, 1, "roll", version=version, display=None if via == "board" else slow)
    )
    await asyncio.wait_for(entered.wait(), 10)
    second = await b.runner.act(live.id, 1, "roll", version=version + 1)
    release.set()
    await first
    stored = await a.store.get_game(live.id)
    assert stored is not None and stored.version == second.row.version
    assert landed[-1] == stored.version, f"edits landed in this order: {landed}"
    await a.close()
    await b.close()


async def test_no_edit_is_sent_for_a_version_another_process_overtook(url: str) -> None:
    """A commits version 1 while an earlier edit of the game is still in flight there (its
    displays' lock held); meanwhile B commits version 2 and draws it. When A's turn to draw
    version 1 comes, the store already holds version 2: A sends no edit for it."""
    clock = Clock()
    a, b = await two(url, clock)
    live = await started(a, "cheerio", [1])
    landed: list[int] = []
    a.runner.board = edits(a.runner, landed)
    b.runner.board = edits(b.runner, landed)
    version = live.row.version
    async with a.runner.showing(live.id):
        first = asyncio.create_task(a.runner.act(live.id, 1, "roll", version=version))

        async def committed() -> bool:
            stored = await b.store.get_game(live.id)
            return stored is not None and stored.version == version + 1

        await until(committed)
        await b.runner.act(live.id, 1, "roll", version=version + 1)
    await first
    assert landed == [version + 2], "only the latest version is drawn"
    await a.close()
    await b.close()


def seen(
    runner: Runner,
    landed: list[tuple[int, str, int]],
    entered: asyncio.Event | None = None,
    release: asyncio.Event | None = None,
) -> Display:
    """As :func:`edits`, recording what each edit shows: the version, status and seat count
    (a change that keeps the version still changes what the board shows)."""

    def shows(row: GameRow) -> tuple[int, str, int]:
        return row.version, str(row.status), len(row.players)

    return edits(runner, landed, entered, release, shows)


async def stored_as_shown(o: Table, game_id: int) -> tuple[int, str, int]:
    row = await o.store.get_game(game_id)
    assert row is not None
    return row.version, str(row.status), len(row.players)


@pytest.mark.parametrize("change", ["end", "join"])
async def test_a_change_that_keeps_the_version_still_ends_on_the_board(
    url: str, change: str
) -> None:
    """A's edit (a move, or a lobby join) hangs; meanwhile B commits a change that keeps the
    version (a moderator's /end, another join) and draws it. A's older edit lands last, so A
    must see that the store moved on and draw the game as it now is: an ended game never
    stays up as in play, nor a lobby with a seat too few."""
    clock = Clock()
    a, b = await two(url, clock)
    if change == "end":
        live = await started(a, "cheerio", [1, 2])
    else:
        live = await a.lobby.open("cheerio", GUILD, CHANNEL, player(1))
    landed: list[tuple[int, str, int]] = []
    entered, release = asyncio.Event(), asyncio.Event()
    a.runner.board = seen(a.runner, landed, entered, release)
    b.runner.board = seen(b.runner, landed)
    if change == "end":
        first = asyncio.create_task(a.runner.act(live.id, 1, "roll", version=0))
        await asyncio.wait_for(entered.wait(), 10)
        await b.runner.abandon(live.id)
    else:
        first = asyncio.create_task(a.lobby.join(live.id, player(2)))
        await asyncio.wait_for(entered.wait(), 10)
        await b.lobby.join(live.id, player(3))
    release.set()
    await first
    assert landed[-1] == await stored_as_shown(a, live.id), f"edits landed so: {landed}"
    await a.close()
    await b.close()


@pytest.mark.parametrize("write", ["hint", "message", "postpone"])
async def test_a_write_no_board_draws_leaves_the_latest_drawn_version_news(
    url: str, write: str
) -> None:
    """A commits a move while an earlier edit of the game is still in flight there; before
    A draws it, B writes what no board draws (a hint mark, a reposted message's id, a due
    time put off). A's move is still the latest drawn: its edit is sent, not skipped as if
    another process had overtaken it (nobody would then draw the game as it is)."""
    clock = Clock()
    a, b = await two(url, clock)
    live = await started(a, "cheerio", [1])
    landed: list[tuple[int, str, int]] = []
    a.runner.board = seen(a.runner, landed)
    b.runner.board = seen(b.runner, landed)
    async with a.runner.showing(live.id):
        moving = asyncio.create_task(a.runner.act(live.id, 1, "roll", version=0))

        async def committed() -> bool:
            return (await stored_as_shown(b, live.id))[0] == 1

        await until(committed)
        if write == "hint":
            await b.runner.mark_hinted(live.id)
        elif write == "message":
            await b.runner.record_message(live.id, 4242)
        else:
            await b.runner.postpone(live.id, clock.now + 60)
    await moving
    assert landed == [await stored_as_shown(a, live.id)], "the move's edit was sent"
    await a.close()
    await b.close()


async def test_two_games_ending_at_once_rate_a_newcomer_one_after_the_other(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A and B each end a game of the same two newcomers. A has written their first ratings
    and not yet committed when B rates its game: B must start from A's ratings, as SQLite's
    one writer makes it, not from a newcomer's (A's game would then count for nothing)."""
    clock = Clock()
    a, b = await two(url, clock)
    games = []
    for o, channel in ((a, 1), (b, 2)):
        lobby = await o.lobby.open("cheerio", GUILD, channel, player(1))
        await o.lobby.join(lobby.id, player(2))
        games.append(await o.lobby.start(lobby.id, 1))
    first, second = games
    rated, release = asyncio.Event(), asyncio.Event()
    original = results._update_ratings

    async def held_open(tx: Any, game_id: int, update: Any, now: float) -> None:
        await original(tx, game_id, update, now)
        if game_id == first.id:
            rated.set()
            await release.wait()  # A's transaction stays open, its ratings uncommitted

    monkeypatch.setattr(results, "_update_ratings", held_open)
    ending = asyncio.create_task(finish_cheerio(a, first.id, {0: 1, 1: 2}))
    await asyncio.wait_for(rated.wait(), 10)
    other = asyncio.create_task(finish_cheerio(b, second.id, {0: 1, 1: 2}))

    async def b_waits() -> bool:
        rows = await a.store.db.fetchall("SELECT COUNT(*) FROM pg_locks WHERE NOT granted")
        return int(rows[0][0]) > 0 or other.done()

    await until(b_waits)
    release.set()
    await asyncio.gather(ending, other)

    async def history(game_id: int) -> dict[int, tuple[float, float]]:
        rows = await a.store.db.fetchall(
            "SELECT user_id, mu, sigma FROM rating_history WHERE game_id = ?", (game_id,)
        )
        return {r[0]: (r[1], r[2]) for r in rows}

    def flat(ratings: dict[int, tuple[float, float]]) -> dict[tuple[int, int], float]:
        """Each player's mu and sigma as numbers of their own, for ``pytest.approx``."""
        return {(user, k): value for user, pair in ratings.items() for k, value in enumerate(pair)}

    places = [
        (r[0], r[1])
        for r in await a.store.db.fetchall(
            "SELECT user_id, placement FROM results WHERE game_id = ? ORDER BY placement, seat",
            (second.id,),
        )
    ]
    expected = rate(await history(first.id), places)
    # Compared to within a millionth of themselves: the rounding that read 7.812317052 against
    # 7.812317053 is far below the gap between a newcomer's rating and a rated one's.
    assert flat(await history(second.id)) == pytest.approx(flat(expected)), "a newcomer's"
    stored = await a.store.db.fetchall("SELECT user_id, mu, sigma, games FROM ratings")
    assert flat({r[0]: (r[1], r[2]) for r in stored}) == pytest.approx(flat(expected))
    assert {r[0]: r[3] for r in stored} == dict.fromkeys(expected, 2)
    await a.close()
    await b.close()


async def test_games_another_process_ended_are_forgotten_here(url: str) -> None:
    """A moves each game once, B plays them to their end (its clock, its clicks): A never hears
    of the ends, so what it kept for their displays stayed until a restart, a month's games
    of memory. Its sweep forgets them, and keeps a game still open, and one whose last write
    here is still to be drawn."""
    clock = Clock()
    a, b = await two(url, clock)
    try:
        ended = []
        for channel in range(CHANNEL, CHANNEL + 3):
            live = await solo(a, channel)
            await a.runner.act(live.id, channel, "roll", version=live.row.version)
            await finish_cheerio(b, live.id, {0: channel})
            ended.append(live.id)
        still = await solo(a, CHANNEL + 3)
        pending = await solo(a, CHANNEL + 4)
        await a.runner.act(pending.id, CHANNEL + 4, "roll", version=pending.row.version)
        a.runner._undrawn.add(pending.id)  # its display still to come
        await finish_cheerio(b, pending.id, {0: CHANNEL + 4})
        assert set(ended) <= set(a.runner._writes)
        assert await a.runner.forget_ended() == 3
        assert set(a.runner._writes) == {still.id, pending.id}
        assert not set(ended) & (set(a.runner._drawn) | set(a.runner._messages))
    finally:
        await a.close()
        await b.close()
