"""Orchard's seats play their own turns through the runner, and resume after a restart."""

import asyncio
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot import specs
from bot.ai import hotscore_players as hotscore
from bot.ai.applejack_players import exact_tables as applejack_tables
from bot.ai.cheerio_players import exact_tables as cheerio_tables
from bot.games.hotscore import Throw
from bot.model import GameStatus, Player
from bot.opponents import Opponents
from bot.runner import TIMEOUTS_TO_FORFEIT, Snapshot
from db.connection import Target
from tests.support import CHANNEL, GUILD, Clock, Table, orchard, player, until

BOT_USER = 999


async def game_with_orchard(o: Table, humans: list[int], level: str = "hard") -> int:
    live = await o.lobby.open("cheerio", GUILD, CHANNEL, player(humans[0]))
    for user in humans[1:]:
        await o.lobby.join(live.id, player(user))
    seat = Player(0, BOT_USER, f"Orchard ({level})", is_bot=True, level=level)
    await o.lobby.add_seat(live.id, humans[0], seat)
    return live.id


async def test_orchard_plays_its_turn_and_hands_back(database: Target) -> None:
    o = await orchard(database)
    Opponents(o.runner, delay=0)
    game_id = await game_with_orchard(o, [1])
    live = await o.lobby.start(game_id, 1)
    live = await o.runner.act(game_id, 1, "score", "cheerio", version=live.row.version)

    async def back_to_human() -> bool:
        now = await o.runner.load(game_id)
        return now.state.turn == 0

    await until(back_to_human)
    moves = await o.store.moves(game_id)
    bot_moves = [m for m in moves if m.seat == 1]
    assert bot_moves and all(m.source == "bot" and m.user_id is None for m in bot_moves)
    assert bot_moves[-1].verb == "score"
    assert await o.runner.replay(game_id) == (await o.runner.load(game_id)).state
    await o.close()


async def test_a_stranger_cannot_move_for_orchard(database: Target) -> None:
    import pytest

    from bot.runner import Refusal

    o = await orchard(database)
    game_id = await game_with_orchard(o, [1])
    live = await o.lobby.start(game_id, 1)
    await o.runner.act(game_id, 1, "score", "ones", version=live.row.version)
    with pytest.raises(Refusal, match="not playing"):
        await o.runner.act(game_id, 2, "roll", version=live.row.version + 1)
    await o.close()


async def test_orchard_resumes_its_turn_after_a_restart(database: Target) -> None:
    o = await orchard(database)
    game_id = await game_with_orchard(o, [1], level="easy")
    live = await o.lobby.start(game_id, 1)
    await o.runner.act(game_id, 1, "score", "sixes", version=live.row.version)
    await o.close()  # no Opponents were running: Orchard's turn is pending

    o = await orchard(database)
    o.orchard.orchard_delay = 0
    await o.orchard.start()  # as the app starts: Orchard's seats pick up where they were

    async def back_to_human() -> bool:
        return (await o.runner.load(game_id)).state.turn == 0

    await until(back_to_human)
    await o.close()


async def test_a_turn_of_orchard_s_that_ran_out_while_it_was_down_is_its_own_to_play(
    database: Target,
) -> None:
    """Orchard was down longer than a turn while one of its seats was to move: at start-up
    the clock does not play that turn for it (weaker than its level), announce it ran out of
    time, or count a timeout. The seat gets a fresh deadline and plays its own move."""
    clock = Clock()
    o = await orchard(database, clock)
    game_id = await game_with_orchard(o, [1])  # Orchard is seat 1
    live = await o.lobby.start(game_id, 1)
    await o.runner.act(game_id, 1, "score", "sixes", version=live.row.version)
    await o.close()  # down, with Orchard's turn pending
    clock.now += 3600

    o = await orchard(database, clock)
    await o.scheduler.run_due()
    waiting = await o.runner.load(game_id)
    assert waiting.state.turn == 1, "the clock played Orchard's turn"
    assert waiting.row.players[1].timeouts == 0
    assert waiting.row.deadline == clock.now + 300, "a fresh turn clock"
    await Opponents(o.runner, delay=0).resume()

    async def back_to_human() -> bool:
        return (await o.runner.load(game_id)).state.turn == 0

    await until(back_to_human)
    sources = {m.source for m in await o.store.moves(game_id) if m.seat == 1}
    assert sources == {"bot"}
    await o.close()


async def test_a_persons_turn_that_ran_out_while_orchard_was_down_starts_afresh(
    database: Target,
) -> None:
    """Orchard was down when a person's turn ran out: nobody could click meanwhile, so at
    start-up the clock plays nothing for them and counts no timeout. Their turn gets a fresh
    deadline, and only if that runs out too is it played for them. Before, the clock played
    it at once: a person with 10 s of their 5 minutes used when Orchard went down was timed
    out on its return, a step towards being removed."""
    clock = Clock()
    o = await orchard(database, clock)
    live = await o.lobby.open("cheerio", GUILD, CHANNEL, player(1))
    await o.lobby.join(live.id, player(2))
    live = await o.lobby.start(live.id, 1)
    await o.close()  # down, with the first person's turn pending
    clock.now += 3600

    o = await orchard(database, clock)
    assert await o.scheduler.run_due() == 1
    waiting = await o.runner.load(live.id)
    assert waiting.state == live.state and await o.store.moves(live.id) == []
    assert [p.timeouts for p in waiting.row.players] == [0, 0]
    assert waiting.row.deadline == clock.now + 300, "a fresh turn clock"
    clock.now += 300
    assert await o.scheduler.run_due() == 1
    timed_out = await o.runner.load(live.id)
    assert timed_out.state.turn == 1 and timed_out.row.players[0].timeouts == 1
    await o.close()


async def test_after_downtime_neither_a_person_nor_orchard_is_thrown_for(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hot Score's challenge throw awaits both seats at once. Its deadline passed while
    Orchard was down: at start-up the clock throws for nobody. The person gets a fresh
    deadline, and Orchard's seat throws its own dice."""
    from tests.test_runner import _challenged_in_round_one

    seed = next(s for s in range(1, 10_000) if _challenged_in_round_one(s))
    monkeypatch.setattr("bot.lobby.secrets.randbits", lambda bits: seed)
    clock = Clock()
    o = await orchard(database, clock)
    lobby = await o.lobby.open("hotscore", GUILD, CHANNEL, player(1))
    await o.lobby.add_seat(lobby.id, 1, Player(0, BOT_USER, "Orchard", is_bot=True))
    live = await o.lobby.start(lobby.id, 1)
    engine = o.runner.engine("hotscore")
    moves = [("throw", ""), ("stick", ""), ("throw", ""), ("bonus", ""), ("sign", "+")]
    for verb, arg in [*moves, ("throw", "")]:  # the last one calls the challenge
        seat = live.state.turn
        if live.row.players[seat].is_bot:

            def decide(snapshot: Snapshot, seat: int = seat, verb: str = verb) -> Any:
                return engine.parse(seat, verb, "")

            moved = await o.runner.act_for_seat(live.id, seat, live.row.version, decide)
            assert moved is not None
            live = moved
        else:
            live = await o.runner.act(live.id, 1, verb, arg, version=live.row.version)
    orchard_seat = next(p.seat for p in live.row.players if p.is_bot)
    assert live.state.phase == "challenge" and len(engine.to_act(live.state)) == 2
    await o.close()
    clock.now += 3600

    o = await orchard(database, clock)
    await o.scheduler.run_due()
    live = await o.runner.load(live.id)
    assert len(engine.to_act(live.state)) == 2, "dice thrown by the clock"
    assert [p.timeouts for p in live.row.players] == [0, 0]
    assert live.row.deadline == clock.now + 300, "a fresh turn clock"
    await Opponents(o.runner, delay=0).resume()

    async def thrown() -> bool:
        return orchard_seat not in engine.to_act((await o.runner.load(live.id)).state)

    await until(thrown)
    sources = {m.source for m in await o.store.moves(live.id) if m.seat == orchard_seat}
    assert sources == {"bot"}
    await o.close()


@pytest.mark.parametrize("kind", ["cheerio", "applejack"])
async def test_a_game_everyone_left_but_orchard_ends_as_it_stands(
    database: Target, kind: str
) -> None:
    """A person seats Orchard five times, starts, and gives up: Orchard would play its seats
    against each other to the end, seen by nobody, a move a second for minutes (and again in
    every channel). The game ends at once, as it stands, with the leaver last."""
    o = await orchard(database)
    Opponents(o.runner, delay=0)
    live = await o.lobby.open(kind, GUILD, CHANNEL, player(1))
    for n in range(5):
        await o.lobby.add_seat(live.id, 1, Player(0, BOT_USER, f"Orchard {n}", is_bot=True))
    live = await o.lobby.start(live.id, 1)
    left = await o.runner.forfeit(live.id, 1)
    await asyncio.sleep(0.3)
    assert left.row.status == "finished"
    person = left.row.seat_of(1)
    ranked = o.runner.engine(kind).results(left.state)
    assert person is not None and not ranked[person].won
    assert (await o.runner.load(live.id)).row.version == left.row.version, "Orchard played on"
    await o.close()


async def test_a_failed_move_is_tried_again_and_none_starts_once_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a store only this process writes, a seat's move that failed (the database busy,
    say) is tried again after a while, as a claimed one is on a shared store: before, it
    waited for the turn's deadline and counted as Orchard's timeout. Once the seats are
    stopped (at shutdown), a commit that outlasted the stop starts no move."""
    from bot import opponents

    monkeypatch.setattr(opponents, "RETRY_SECONDS", 0.05)
    o = await orchard(tmp_path / "o.db")
    seats = Opponents(o.runner, delay=0)
    act_for_seat, failures = o.runner.act_for_seat, [sqlite3.OperationalError("locked")]

    async def fails_once(*args: Any) -> Any:
        if failures:
            raise failures.pop()
        return await act_for_seat(*args)

    monkeypatch.setattr(o.runner, "act_for_seat", fails_once)
    game_id = await game_with_orchard(o, [1])
    live = await o.lobby.start(game_id, 1)
    live = await o.runner.act(game_id, 1, "score", "ones", version=live.row.version)

    async def back_to_human() -> bool:
        return (await o.runner.load(game_id)).state.turn == 0

    await until(back_to_human, timeout=5.0)
    assert not failures, "the first try failed"
    await seats.stop()
    live = await o.runner.load(game_id)
    live = await o.runner.act(game_id, 1, "score", "twos", version=live.row.version)
    await asyncio.sleep(0.3)
    assert (await o.runner.load(game_id)).state.turn == 1, "no move after the stop"
    await o.close()


async def test_orchard_s_own_move_clears_its_timeouts_as_a_person_s_does(
    database: Target,
) -> None:
    """Timeouts count in a row (TIMEOUTS_TO_FORFEIT): Orchard's own move clears its seat's
    count as a person's does, so turns it missed far apart (deadlines fired at start-up after
    a downtime longer than a turn) never add up to a forfeit."""
    from tests.test_runner import _first_open

    clock = Clock()
    o = await orchard(database, clock)
    game_id = await game_with_orchard(o, [1])  # Orchard is seat 1
    live = await o.lobby.start(game_id, 1)
    engine = o.runner.engine("cheerio")

    def scores_first_open(snapshot: Snapshot) -> Any:
        return engine.parse(1, "score", _first_open(snapshot))

    for missed in range(TIMEOUTS_TO_FORFEIT):
        live = await o.runner.act(game_id, 1, "score", _first_open(live), version=live.row.version)
        clock.now += 301
        assert await o.scheduler.run_due() == 1, "Orchard's turn timed out"
        live = await o.runner.load(game_id)
        assert live.row.players[1].timeouts == 1, f"timeouts in a row, after {missed} moves"
        live = await o.runner.act(game_id, 1, "score", _first_open(live), version=live.row.version)
        moved = await o.runner.act_for_seat(game_id, 1, live.row.version, scores_first_open)
        assert moved is not None and moved.row.players[1].timeouts == 0
        live = moved
    assert live.row.status == "active" and live.state.active == (True, True)
    assert (await o.runner.load(game_id)).row.players[1].timeouts == 0, "as stored"
    await o.close()


async def test_each_move_of_orchard_s_own_turn_gives_it_a_fresh_clock(database: Target) -> None:
    """A person's toggles keep their turn's deadline, but a turn only Orchard awaits is
    timed move by move, as ever: a whole turn of its moves, each after a pause, is not
    held to one deadline (and Orchard never stalls a game)."""
    clock = Clock()
    o = await orchard(database, clock)
    game_id = await game_with_orchard(o, [1])  # Orchard is seat 1
    live = await o.lobby.start(game_id, 1)
    live = await o.runner.act(game_id, 1, "score", "ones", version=live.row.version)
    engine = o.runner.engine("cheerio")
    for die in range(3):
        clock.now += 120

        def holds(snapshot: Snapshot, die: int = die) -> Any:
            return engine.parse(1, "hold", str(die))

        moved = await o.runner.act_for_seat(game_id, 1, live.row.version, holds)
        assert moved is not None
        live = moved
        assert (await o.runner.load(game_id)).row.deadline == clock.now + 300
    await o.close()


async def test_orchard_seats_can_fill_a_whole_game(database: Target) -> None:
    o = await orchard(database)
    opponents = Opponents(o.runner, delay=0)
    game_id = await game_with_orchard(o, [1], level="normal")
    live = await o.lobby.start(game_id, 1)
    for _ in range(7):  # the human scores each turn; Orchard answers each time
        await until(lambda: _turn_is(o, game_id, 0))
        live = await o.runner.load(game_id)
        from bot.games.cheerio import open_categories

        category = open_categories(live.state.cards[0])[0]
        live = await o.runner.act(game_id, 1, "score", category, version=live.row.version)

    async def over() -> bool:
        return (await o.runner.load(game_id)).row.status == "finished"

    await until(over)
    board = await o.store.leaderboard(GUILD, "cheerio", "best")
    assert [row[0] for row in board] == [1], "Orchard's seat is not on the people's board"
    assert await o.store.leaderboard(GUILD, "cheerio", "wins") == [], "nor a game with it, by wins"
    await opponents.stop()
    await o.close()


async def _turn_is(o: Table, game_id: int, seat: int) -> bool:
    live = await o.runner.load(game_id)
    return live.row.status != "active" or live.state.turn == seat


async def appletters_against_orchard(
    database: Target, monkeypatch: pytest.MonkeyPatch, strategy: specs.Strategy
) -> tuple[Table, Snapshot]:
    """Appletters between player 1 and an Orchard seat choosing by ``strategy``, started with
    Orchard to play: a first turn of the person's is picked and passed."""
    monkeypatch.setitem(specs.SPEC_OF, "appletters", replace(specs.APPLETTERS, strategy=strategy))
    o = await orchard(database)
    Opponents(o.runner, delay=0)
    live = await o.lobby.open("appletters", GUILD, CHANNEL, player(1))
    await o.lobby.add_seat(live.id, 1, Player(0, BOT_USER, "Orchard", is_bot=True, level="hard"))
    live = await o.lobby.start(live.id, 1)
    if live.state.turn == 0:
        await o.runner.act(live.id, 1, "pick", version=live.row.version)
    return o, live


async def test_orchard_sees_only_its_own_tiles(database: Target, monkeypatch) -> None:
    from bot.games.appletters import View

    seen: list[object] = []
    real = specs.APPLETTERS.strategy
    assert real is not None

    def spy(view, seat, level, seed):
        seen.append(view)
        return real(view, seat, level, seed)

    o, live = await appletters_against_orchard(database, monkeypatch, spy)

    async def orchard_moved() -> bool:  # its first word may use its whole hand: game over
        now = await o.runner.load(live.id)
        return bool(seen) and (now.state.turn == 0 or now.row.status is not GameStatus.ACTIVE)

    await until(orchard_moved)
    assert all(isinstance(v, View) and v.seat == 1 for v in seen)
    assert not any(hasattr(v, "hands") or hasattr(v, "core") for v in seen)
    await o.close()


async def test_an_illegal_move_of_orchard_s_is_logged_without_its_tiles(
    database: Target, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A word Orchard's seat chose that the rules refuse is an error worth logging, but not
    the word nor the engine's reason (the letters it lacks): both show Orchard's hidden tiles."""
    from bot.games.appletters import Play

    tried: list[str] = []

    def lacking(view, seat, level, seed):  # its own tiles and one it does not hold
        absent = next(c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in view.hand)
        tried.append(view.hand[:4] + absent)
        return Play(seat, tried[-1])

    o, live = await appletters_against_orchard(database, monkeypatch, lacking)

    async def refused() -> bool:
        return any("Orchard chose an illegal" in r.getMessage() for r in caplog.records)

    await until(refused)
    assert tried and tried[0] not in caplog.text and tried[0][:4] not in caplog.text
    assert f"game {live.id}: Orchard chose an illegal play (IllegalMove)" in caplog.text
    await o.close()


async def test_orchard_fills_every_seat_but_one_and_plays_them_all(database: Target) -> None:
    """Five Orchard seats at three levels beside one person: each plays its own turns."""
    from bot.games.cheerio import open_categories

    o = await orchard(database)
    opponents = Opponents(o.runner, delay=0)
    live = await o.lobby.open("cheerio", GUILD, CHANNEL, player(1))
    for level in ("easy", "normal", "hard", "hard", "easy"):
        seat = Player(0, BOT_USER, f"Orchard ({level})", is_bot=True, level=level)
        await o.lobby.add_seat(live.id, 1, seat)
    game_id = (await o.lobby.start(live.id, 1)).id
    assert len((await o.runner.load(game_id)).row.players) == 6
    for _ in range(7):
        await until(lambda: _turn_is(o, game_id, 0))
        live = await o.runner.load(game_id)
        if live.row.status != "active":
            break
        category = open_categories(live.state.cards[0])[0]
        await o.runner.act(game_id, 1, "score", category, version=live.row.version)
    await until(lambda: _turn_is(o, game_id, -1))
    live = await o.runner.load(game_id)
    assert live.row.status == "finished"
    moves = await o.store.moves(game_id)
    assert {m.seat for m in moves if m.source == "bot"} == {1, 2, 3, 4, 5}
    assert all(m.user_id is None for m in moves if m.source == "bot")
    assert await o.runner.replay(live.id) == live.state
    await opponents.stop()
    await o.close()


HOT_SCORE_CACHES = (
    hotscore.answer_sign_values,
    hotscore.answer_values,
    hotscore.reply_value,
    hotscore.starter_sign_values,
    hotscore.starter_values,
)


def hot_score_misses() -> int:
    return sum(cached.cache_info().misses for cached in HOT_SCORE_CACHES)


def every_hot_score_decision() -> None:
    """Hard's values for every throw to beat (or none) and every two or three dice."""
    pairs = [d for d, _ in hotscore.TWO_DICE]
    firsts = [None, *(Throw(d) for d in pairs)]
    firsts += [t for a, b in pairs for c in hotscore.FACES for t in signed((a, b, c))]
    for first in firsts:
        for a, b in pairs:
            for dice in ((a, b), *((a, b, c) for c in hotscore.FACES)):
                hotscore.option_values(first, dice)


def signed(dice: tuple[int, int, int]) -> list[Throw]:
    return list(hotscore.signed_throws(dice).values())


async def test_every_exact_table_is_warmed_a_while_after_start_up(tmp_path: Path) -> None:
    """Neither a review nor Orchard's own move computes an exact player's values (cold, a
    six-player Cheerio review took ~50 ms, a Hot Score Hard decision up to 60 ms): once
    started, Orchard computes all of Hot Score Hard's and every card of both dice games, a
    slice at a time."""
    o = await orchard(tmp_path / "o.db")
    tables = [cheerio_tables(), applejack_tables()]
    for t in tables:
        t._rolls.clear()  # as in a process just started (other tests may have warmed them)
    for cached in HOT_SCORE_CACHES:
        cached.cache_clear()
    o.orchard.warm_after = 0.0
    await o.orchard.start()
    try:
        await asyncio.wait_for(o.orchard.warmed.wait(), 60)
    finally:
        await o.orchard.close()
    assert all(len(t._rolls) == t.full for t in tables)
    warmed = hot_score_misses()
    assert warmed > 0
    every_hot_score_decision()
    assert hot_score_misses() == warmed
