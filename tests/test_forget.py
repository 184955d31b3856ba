"""/forget-me on a real database file: the person's name and id leave that server's rows and
the files themselves, while their open games and their rows in other servers stay."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bot.games.cheerio import open_categories
from bot.model import FORMER_PLAYER, NOBODY, GameChange, GameStatus, Player
from db import settings
from db.connection import Target, Transaction
from tests.databases import query, table_columns
from tests.support import Table, orchard

HERE, THERE = 100, 555  # two servers
PERSON = 918273645546372819  # a Discord-sized id
NAME = "Zoë Quixbramble 🍏"
BO, CY = 2, 3


def me() -> Player:
    return Player(0, PERSON, NAME)


def other(user_id: int) -> Player:
    return Player(0, user_id, f"user{user_id}")


def file_bytes(path: Path) -> bytes:
    """The database and -wal files, where an erased row must not survive."""
    wal = path.with_name(path.name + "-wal")
    return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def copies(path: Path, value: str | int) -> int:
    """How often ``value`` is in the files: a name as UTF-8, an id as SQLite stores it."""
    needle = value.encode() if isinstance(value, str) else value.to_bytes(8, "big")
    return file_bytes(path).count(needle)


def rows(path: Path, sql: str, *params: object) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, params).fetchall()


async def mentions(database: Target, guild: int) -> dict[str, int]:
    """Per table, the rows of ``guild`` (in games that are over) holding the person's name or
    id in any column: every table, so one added later is checked too. Values are compared as
    text, which both backends can do to any column."""
    over = "SELECT id FROM games WHERE guild_id = ? AND status NOT IN ('lobby', 'active')"
    found = {}
    for table, columns in (await table_columns(database)).items():
        if table == "games":
            scope, params = f"id IN ({over})", [guild]
        elif "game_id" in columns:
            scope, params = f"game_id IN ({over})", [guild]
        else:
            scope, params = ("guild_id = ?", [guild]) if "guild_id" in columns else ("1 = 1", [])
        hit = " OR ".join(f"CAST({c} AS TEXT) IN (?, ?)" for c in columns)
        params += [value for _ in columns for value in (str(PERSON), NAME)]
        ((found[table],),) = await query(
            database, f"SELECT COUNT(*) FROM {table} WHERE {scope} AND ({hit})", *params
        )
    return found


async def played(o: Table, guild: int, channel: int, host: Player, guest: Player) -> int:
    """A finished, rated Cheerio game: each scores the first open box, turn by turn."""
    live = await o.lobby.open("cheerio", guild, channel, host)
    await o.lobby.join(live.id, guest)
    live = await o.lobby.start(live.id, host.user_id)
    users = (host.user_id, guest.user_id)
    while live.row.status == "active":
        turn = live.state.turn
        box = open_categories(live.state.cards[turn])[0]
        live = await o.runner.act(live.id, users[turn], "score", box, version=live.row.version)
    assert live.row.status == "finished"
    return live.id


async def lobby(o: Table, channel: int, *, start: bool) -> int:
    live = await o.lobby.open("cheerio", HERE, channel, me())
    await o.lobby.join(live.id, other(CY))
    if start:
        live = await o.lobby.start(live.id, PERSON)
        await o.runner.act(live.id, PERSON, "roll", version=live.row.version)
    return live.id


async def snapshot(o: Table, game_ids: list[int]) -> list[object]:
    return [(await o.store.get_game(g), await o.store.moves(g)) for g in game_ids]


async def test_forget_me_erases_the_person_from_that_servers_games_and_files(
    tmp_path: Path,
) -> None:
    path = tmp_path / "o.db"
    o = await orchard(path)
    hosted = await played(o, HERE, 1, me(), other(BO))
    joined = await played(o, HERE, 2, other(BO), me())
    await o.store.note_tile_dm(hosted, PERSON, "QUIXOTE", closed=False)  # left behind
    elsewhere = [await played(o, THERE, 3, me(), other(BO))]
    still_open = [await lobby(o, 4, start=False), await lobby(o, 5, start=True)]
    kept = await snapshot(o, still_open + elsewhere)
    held = await mentions(path, HERE)
    assert {t for t, n in held.items() if n} == {
        "games",
        "game_players",
        "moves",
        "results",
        "ratings",
        "rating_history",
        "tile_dms",
    }

    removed = await o.store.forget_user(HERE, PERSON)

    # results, one rating, rating history, the two seats, the tile-DM note
    assert removed == 2 + 1 + 2 + 2 + 1
    assert set((await mentions(path, HERE)).values()) == {0}
    for game_id, host, seat in ((hosted, NOBODY, 0), (joined, BO, 1)):
        game = await o.store.get_game(game_id)
        assert game is not None and game.host_id == host
        assert game.players[seat] == Player(seat, NOBODY, FORMER_PLAYER), "the seat stays"
        assert len(await o.store.moves(game_id)) == game.version, "the moves stay"
    assert await snapshot(o, still_open + elsewhere) == kept, "open games and THERE untouched"
    assert [s.games for s in await o.store.user_stats(THERE, PERSON)] == [1]
    # The name is left only where a row still holds it: the open games here, and THERE.
    seats = rows(path, "SELECT COUNT(*) FROM game_players WHERE name = ?", NAME)
    assert seats == [(len(still_open) + len(elsewhere),)]
    assert copies(path, NAME) == len(still_open) + len(elsewhere)
    assert path.with_name("o.db-wal").stat().st_size == 0, "the -wal file is checkpointed"
    await o.close()


async def test_forget_me_leaves_no_row_of_that_server_naming_the_person(database: Target) -> None:
    """On either backend: after /forget-me no row of that server's finished games, nor of its
    results, ratings or ping choices, holds the person's id or name (the files are SQLite's
    matter, above: PostgreSQL keeps dead rows until VACUUM reuses their space)."""
    o = await orchard(database)
    await played(o, HERE, 1, me(), other(BO))
    await played(o, HERE, 2, other(BO), me())
    await o.store.set_ping_choice(HERE, PERSON, dm=True)
    assert sum((await mentions(database, HERE)).values()) > 0
    await o.store.forget_user(HERE, PERSON)
    assert set((await mentions(database, HERE)).values()) == {0}
    await o.close()


async def test_two_forgotten_people_share_a_table_and_then_nothing_is_left(tmp_path: Path) -> None:
    path = tmp_path / "o.db"
    o = await orchard(path)
    games = [await played(o, HERE, 1, me(), other(BO)), await played(o, THERE, 2, me(), other(BO))]
    waiting = await lobby(o, 3, start=True)
    assert await o.store.forget_user(HERE, PERSON) > 0
    assert await o.store.forget_user(HERE, BO) > 0  # two nobodies at one table
    game = await o.store.get_game(games[0])
    assert game is not None and {p.user_id for p in game.players} == {NOBODY}
    # The runner ends an open game before forgetting; then the person is gone everywhere.
    ended = GameChange(waiting, from_status=GameStatus.ACTIVE, status=GameStatus.ABANDONED)
    assert await o.store.write(ended)
    for guild in (HERE, THERE):
        await o.store.forget_user(guild, PERSON)
    await o.close()
    assert rows(path, "SELECT COUNT(*) FROM game_players WHERE user_id = ?", PERSON) == [(0,)]
    assert (copies(path, NAME), copies(path, PERSON)) == (0, 0)


async def test_forget_me_everywhere_erases_every_server_in_one_transaction(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/forget-me in a DM erases the person in every server at once: when the erasure fails
    in one server, the server erased before it is rolled back too, so the person is never
    told something went wrong with part of it done and part not; asking again does it all."""
    o = await orchard(database)
    for guild in (HERE, THERE):  # HERE's erasure comes first (servers in order)
        await played(o, guild, 1, me(), other(BO))
    erase = settings.forget

    async def refused_there(tx: Transaction, guild_id: int, user_id: int) -> int:
        if guild_id == THERE:
            raise RuntimeError("the disk is full")
        return await erase(tx, guild_id, user_id)

    monkeypatch.setattr(settings, "forget", refused_there)
    with pytest.raises(RuntimeError, match="the disk is full"):
        await o.orchard.forget_everywhere(PERSON)
    for guild in (HERE, THERE):
        assert (await mentions(database, guild))["results"] == 1, "nothing erased anywhere"
    monkeypatch.undo()
    # a result, rating, history and seat
    assert await o.orchard.forget_everywhere(PERSON) == (2, 2 * 4)
    for guild in (HERE, THERE):
        assert set((await mentions(database, guild)).values()) == {0}
    await o.close()


async def test_the_purge_of_a_departed_server_leaves_nothing_of_it_in_the_files(
    tmp_path: Path,
) -> None:
    path = tmp_path / "o.db"
    o = await orchard(path)
    await played(o, HERE, 1, me(), other(BO))
    await played(o, THERE, 2, other(BO), other(CY))
    await o.store.guild_left(HERE, when=1000.0)
    assert await o.store.purge_departed(before=2000.0) == [HERE]
    assert rows(path, "SELECT DISTINCT guild_id FROM games") == [(THERE,)]
    assert (copies(path, NAME), copies(path, PERSON)) == (0, 0)
    await o.close()


async def test_forget_me_takes_the_person_out_of_open_games_first(tmp_path: Path) -> None:
    """What /forget-me does: the runner takes the person out of every open game (a lobby they
    host closes, one they joined loses their seat, a game in play goes on without them), then
    the store forgets them; the others finish, and the files hold nothing of them."""
    path = tmp_path / "o.db"
    o = await orchard(path)
    hosted = await lobby(o, 4, start=False)
    joined = (await o.lobby.open("cheerio", HERE, 6, other(BO))).id
    await o.lobby.join(joined, me())
    live = await o.lobby.open("cheerio", HERE, 7, other(BO))
    for guest in (me(), other(CY)):
        await o.lobby.join(live.id, guest)
    in_play = (await o.lobby.start(live.id, BO)).id
    users = (BO, PERSON, CY)
    for _ in range(2):  # Bo scores, then the person rolls and scores: they have moves
        live = await o.runner.load(in_play)
        turn = live.state.turn
        box = open_categories(live.state.cards[turn])[0]
        await o.runner.act(in_play, users[turn], "score", box, version=live.row.version)

    await o.orchard.forget(HERE, PERSON)

    closed = await o.store.get_game(hosted)
    assert closed is not None and closed.status is GameStatus.CANCELLED
    assert closed.host_id == NOBODY and closed.players[0] == Player(0, NOBODY, FORMER_PLAYER)
    still = await o.store.get_game(joined)
    assert still is not None and still.status is GameStatus.LOBBY
    assert [p.user_id for p in still.players] == [BO]
    live = await o.runner.load(in_play)
    assert live.row.players[1] == Player(1, NOBODY, FORMER_PLAYER)
    assert live.row.status is GameStatus.ACTIVE and not live.state.active[1]
    while live.row.status is GameStatus.ACTIVE:  # Bo and Cy play on to the end
        turn = live.state.turn
        box = open_categories(live.state.cards[turn])[0]
        live = await o.runner.act(in_play, users[turn], "score", box, version=live.row.version)
    assert live.row.status is GameStatus.FINISHED
    assert await o.runner.replay(in_play) == live.state
    assert (await o.store.records(HERE, "cheerio")).keys() == {BO, CY}, "no row for nobody"
    ratings = rows(path, "SELECT user_id FROM ratings WHERE guild_id = ? ORDER BY user_id", HERE)
    assert ratings == [(BO,), (CY,)]
    assert set((await mentions(path, HERE)).values()) == {0}
    # nothing of theirs in the files, though the game wrote on after the forget
    assert copies(path, NAME) == 0 and copies(path, PERSON) == 0
    await o.close()


@pytest.mark.parametrize("everywhere", [False, True], ids=["here", "in-a-dm"])
async def test_a_rematch_pressed_during_their_forget_me_never_seats_the_person(
    tmp_path: Path, everywhere: bool
) -> None:
    """Bo presses Rematch on a game of theirs while /forget-me runs (its seats read before
    the erasure): its lobby seats them only once the erasure is over, and then not at all,
    since their seat in that game is a former player's now. Before, a rematch seating them
    after /forget-me's last look put their name and id back."""
    path = tmp_path / "o.db"
    o = await orchard(path)
    played = await lobby(o, 4, start=True)  # a server holding their rows, and a game of theirs
    name = "forget_everywhere" if everywhere else "forget_user"
    erase = getattr(o.store, name)
    rematches: list[asyncio.Task[int]] = []

    async def rematch() -> int:
        place = (HERE, 8, None)
        seats = (me(), other(CY))
        async with o.lobby.opened("cheerio", place, other(BO), {}, "", seats, played) as opened:
            return opened.snapshot.id

    async def rematch_meanwhile(*args: int) -> object:
        if not rematches:
            rematches.append(asyncio.create_task(rematch()))
            await asyncio.sleep(0.05)  # it waits for the erasure, under the person's lock
        return await erase(*args)

    setattr(o.store, name, rematch_meanwhile)
    if everywhere:
        await o.orchard.forget_everywhere(PERSON)
    else:
        await o.orchard.forget(HERE, PERSON)
    rematched = await o.store.get_game(await rematches[0])
    assert rematched is not None and [p.user_id for p in rematched.players] == [BO, CY]
    await o.close()
    assert copies(path, NAME) == 0 and copies(path, PERSON) == 0


async def test_the_runner_reads_a_forgotten_persons_games_afresh_once_erased(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runner keeps each game as it last committed it, and /forget-me rewrites the
    finished ones behind its back: from the moment that erasure is committed (before the
    -wal file is emptied, which can take a while), the runner reads them afresh."""
    o = await orchard(tmp_path / "o.db")
    game_id = await played(o, HERE, 5, me(), other(BO))  # the runner keeps it, names and all
    seen: list[Player] = []
    checkpoint = o.store.db.checkpoint

    async def looking_first() -> None:
        async with o.runner.held(game_id) as held:
            seen.append(held.snapshot.row.players[0])
        await checkpoint()

    monkeypatch.setattr(o.store.db, "checkpoint", looking_first)
    await o.orchard.forget(HERE, PERSON)
    assert seen == [Player(0, NOBODY, FORMER_PLAYER)]
    await o.close()
