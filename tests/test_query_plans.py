"""Every query the store makes has an index for its shape: each one's plan, on a real file.

The store's statements are recorded (SQLite's trace callback, on the writer and the readers)
while Orchard does all it does: lobbies, moves, a finished rated game, Orchard's seats, every
board, /stats, /history, deadlines, /forget-me (in a server and in a DM, and the boards it
queues to draw anew, as a stop and a crash do) and the purge of a departed server. Then
each statement is explained.
Without ANALYZE statistics SQLite plans the same for ten rows as for ten million, so these
plans are the ones a busy server gets.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.games.cheerio import open_categories
from bot.model import Due, Player, Viewer
from tests.support import CHANNEL, GUILD, Table, orchard, player, started

PLAYER_TABLES = ("results", "ratings", "rating_history")


async def workload(o: Table) -> None:
    live = await started(o, "cheerio", [1, 2])
    while live.row.status == "active":
        turn = live.state.turn
        box = open_categories(live.state.cards[turn])[0]
        live = await o.runner.act(live.id, (1, 2)[turn], "score", box, version=live.row.version)
    lobby = await o.lobby.open("hotscore", GUILD, CHANNEL, player(3))
    await o.lobby.add_seat(lobby.id, 3, Player(0, 99, "Orchard", is_bot=True, level="hard"))
    await o.lobby.start(lobby.id, 3)
    store = o.store
    await store.open_games(GUILD)
    await store.open_games(GUILD, CHANNEL, "cheerio")
    await store.games_waiting_on_bots()
    await store.due_games(o.clock.now + 10_000)
    await store.next_due(Due.DEADLINE)
    await store.next_due(Due.ORCHARD)
    for by in ("rating", "wins", "best", "average"):
        await store.leaderboard_with_records(GUILD, "cheerio", by)
    await store.user_stats(GUILD, 1)
    await store.history(GUILD, 1)
    await store.history(GUILD, 1, "cheerio")
    await store.history(GUILD, 1, viewer=Viewer(2, lambda channel: True))  # someone else's
    await store.rating_history(GUILD, 1, "cheerio")
    await store.tile_dms(live.id)
    await store.revision(live.id)  # a shared store's check before and after a board edit
    await store.open_among([live.id, lobby.id])  # a shared store's look for games ended elsewhere
    await store.guilds_settings([GUILD, GUILD + 1])  # a shard's servers at start-up
    await store.daily_channels([GUILD, GUILD + 1])
    await store.guild_left(GUILD + 1, 0)
    await store.purge_departed(10)
    await o.orchard.forget(GUILD, 2)
    await o.orchard.forget_everywhere(1)  # /forget-me in a DM: finds their servers first
    await store.next_to_draw()  # the boards they queued, drawn anew one at a time
    await store.next_to_draw(1)
    await store.drawn_anew(1, 1)
    await store.queue_boards([live.id, lobby.id])  # a stop's boards left undrawn
    await store.queue_changed_since(o.clock.now - 60)  # what a crash may have left undrawn


def plans(path: Path, statements: list[str]) -> dict[str, list[str]]:
    """Each distinct statement (as run, its values in place) and its query plan."""
    found: dict[str, list[str]] = {}
    with sqlite3.connect(path) as conn:
        for sql in dict.fromkeys(statements):
            if sql.lstrip().split(" ", 1)[0].upper() in ("SELECT", "UPDATE", "DELETE", "INSERT"):
                found[sql] = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql)]
    return found


def shown(found: dict[str, list[str]]) -> str:
    return "\n".join(f"{sql}\n    {' | '.join(plan)}" for sql, plan in found.items())


async def test_every_query_has_an_index_for_its_shape(tmp_path: Path) -> None:
    path = tmp_path / "o.db"
    o = await orchard(path)
    statements: list[str] = []
    o.store.db.conn.set_trace_callback(statements.append)
    o.store.db.glance.set_trace_callback(statements.append)
    for reader in o.store.db.readers:
        await reader.set_trace_callback(statements.append)
    await workload(o)
    await o.close()
    found = plans(path, statements)
    print(shown(found))  # pytest -s shows every plan
    assert len(found) > 40, "the workload reaches every kind of query"
    scans = {sql: plan for sql, plan in found.items() if any(p.startswith("SCAN") for p in plan)}
    assert scans == {}, "a query reads a whole table:\n" + shown(scans)
    loose = {
        sql: plan
        for sql, plan in found.items()
        if "user_id = " in sql
        and any(f"FROM {t} " in sql + " " for t in PLAYER_TABLES)
        and not any("user_id=?" in p for p in plan)
    }
    assert loose == {}, "one player's rows are found by scanning the server's:\n" + shown(loose)
    boards = {sql: plan for sql, plan in found.items() if "GROUP BY user_id" in sql}
    assert boards and all("COVERING INDEX results_board" in " ".join(p) for p in boards.values()), (
        "a leaderboard's aggregate reads the results table row by row:\n" + shown(boards)
    )


async def test_a_move_in_play_leaves_the_indexes_on_status_alone(tmp_path: Path) -> None:
    """A move in play does not write the status its guard holds, so SQLite opens none of the
    three indexes on status (two partial ones among them): fewer B-tree writes a move. The
    deadline's index, whose column every move sets, shows what an opened one looks like; so
    would games_ended's, on the time every move sets, though it holds only games over."""
    path = tmp_path / "o.db"
    o = await orchard(path)
    live = await started(o, "cheerio", [1, 2])
    statements: list[str] = []
    o.store.db.conn.set_trace_callback(statements.append)
    await o.runner.act(live.id, 1, "roll", version=live.row.version)
    await o.close()
    (update,) = [sql for sql in statements if sql.startswith("UPDATE games ")]
    with sqlite3.connect(path) as conn:
        names = dict(
            conn.execute("SELECT rootpage, name FROM sqlite_master WHERE tbl_name = 'games'")
        )
        opened = {names.get(r[3]) for r in conn.execute("EXPLAIN " + update) if r[1] == "OpenWrite"}
    on_status = {"games_open", "games_guild", "games_open_status"}
    assert on_status <= set(names.values())
    assert "games_deadline" in opened and not opened & on_status, (update, opened)


async def test_a_channels_open_games_are_read_inline_a_servers_on_a_reader(tmp_path: Path) -> None:
    """Opening a lobby (or a rematch) checks the channel's open games: a few rows by index,
    read on the loop rather than through a reader's thread (two trips for each check). A
    server's list (/games) may be thousands of rows, so it still goes to a reader."""
    o = await orchard(tmp_path / "o.db")
    await o.lobby.open("cheerio", GUILD, CHANNEL, player(1))
    inline: list[str] = []
    threaded: list[str] = []
    o.store.db.glance.set_trace_callback(inline.append)
    for reader in o.store.db.readers:
        await reader.set_trace_callback(threaded.append)
    here = await o.store.open_games(GUILD, CHANNEL, "cheerio")
    assert [(g.host_id, [p.user_id for p in g.players]) for g in here] == [(1, [1])]
    assert len(inline) == 2 and threaded == [], (inline, threaded)
    inline.clear()
    assert [g.host_id for g in await o.store.open_games(GUILD)] == [1]
    assert inline == [] and len(threaded) == 2, (inline, threaded)
    await o.close()
