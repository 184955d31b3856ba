"""Ratings, boards, settings, forfeits and data removal: store, runner and through Discord."""

import asyncio
import itertools
import json
import logging
import re
import sqlite3
import time
from dataclasses import replace
from typing import Any, NamedTuple

import pytest

from bot.app import OrchardBot
from bot.daily import DailyChannel
from bot.games.cheerio import open_categories
from bot.model import Player, Viewer
from bot.ratings import MODEL, conservative, rate
from bot.settings import GuildSettings
from bot.specs import SPECS
from cogs.servers import HISTORY_OF_OTHERS
from db import results
from db.connection import Target
from db.daily import DailyStore
from db.store import SHARED_STANDINGS_SECONDS, Store
from tests.botharness import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    answered,
    choose,
    new_game,
    no_errors,
    orchard_bot,
    press,
    private,
    server,
    unpaced,
)
from tests.databases import fresh_schema, query, slowed_results, written
from tests.fakediscord import VIEW_CHANNEL, FakeDiscord, InteractionRecord, text_of
from tests.support import GUILD as HERE
from tests.support import Clock, finish_cheerio, orchard, player, started, until

MANAGE_GUILD = 1 << 5
MANAGE_MESSAGES = 1 << 13


def test_rate_moves_winner_up_loser_down_and_ties_together() -> None:
    start = MODEL.rating().mu
    after = rate({}, [(1, 1), (2, 2)])
    assert after[1][0] > start > after[2][0]
    tied = rate({}, [(1, 1), (2, 1)])
    assert tied[1] == tied[2]
    third = rate({}, [(1, 1), (2, 1), (3, 3)])
    assert third[1][0] > third[3][0]


rows = query


async def test_finished_games_update_ratings_and_solo_games_do_not(database: Target) -> None:
    o = await orchard(database)
    solo = await started(o, "cheerio", [1])
    await finish_cheerio(o, solo.id, {0: 1})
    assert await rows(database, "SELECT * FROM ratings") == []
    assert await rows(database, "SELECT won FROM results") == [(0,)], "a solo game is stored unwon"
    assert await o.store.leaderboard(100, "cheerio", "wins") == [], "a solo game has no place there"
    assert [user for user, _, _ in await o.store.leaderboard(100, "cheerio", "best")] == [1]

    duel = await started(o, "cheerio", [1, 2])
    live = await finish_cheerio(o, duel.id, {0: 1, 1: 2})
    results = {r.seat: r for r in o.runner.engine("cheerio").results(live.state)}
    rating = dict(await rows(database, "SELECT user_id, mu FROM ratings WHERE pool = 'people'"))
    if results[0].won and results[1].won:
        assert rating[1] == rating[2]
    else:
        winner, loser = (1, 2) if results[0].won else (2, 1)
        assert rating[winner] > MODEL.rating().mu > rating[loser]
    assert len(await rows(database, "SELECT * FROM rating_history WHERE game_id = ?", duel.id)) == 2
    by_rating = await o.store.leaderboard(100, "cheerio", "rating")
    assert next(user for user, _, _ in by_rating) == max(rating, key=lambda u: rating[u])
    await o.close()


async def test_games_with_orchard_are_rated_in_their_own_pool(database: Target) -> None:
    from bot.model import Player
    from bot.opponents import Opponents

    o = await orchard(database)
    Opponents(o.runner, delay=0)
    live = await o.lobby.open("cheerio", 100, 200, Player(0, 1, "Ann"))
    await o.lobby.add_seat(live.id, 1, Player(0, 9, "Orchard (Easy)", True, level="easy"))
    await o.lobby.start(live.id, 1)
    import asyncio

    for _ in range(2000):
        live = await o.runner.load(live.id)
        if live.row.status != "active":
            break
        if live.state.turn == 0:
            category = open_categories(live.state.cards[0])[0]
            await o.runner.act(live.id, 1, "score", category, version=live.row.version)
        await asyncio.sleep(0.005)
    assert live.row.status == "finished"
    pools = await rows(database, "SELECT pool, user_id FROM ratings ORDER BY user_id")
    assert pools == [("orchard", -1), ("orchard", 1)]
    assert await o.store.leaderboard(100, "cheerio", "rating") == []
    ((won,),) = await rows(database, "SELECT won FROM results WHERE user_id = 1")
    (stats,) = await o.store.user_stats(100, 1)
    assert (stats.orchard_games, stats.orchard_wins, stats.people_games) == (1, won, 0)
    assert stats.rating is None and stats.orchard_rating is not None
    await o.close()


async def test_wins_against_orchard_are_not_on_the_peoples_wins_board(database: Target) -> None:
    from bot.model import Player

    o = await orchard(database)
    live = await o.lobby.open("cheerio", 100, 200, Player(0, 1, "Ann"))
    await o.lobby.add_seat(live.id, 1, Player(0, 9, "Orchard (Easy)", True, level="easy"))
    await o.lobby.start(live.id, 1)
    await o.runner.forfeit(live.id, 9)  # Orchard leaves at once: Ann is sure to win
    await finish_cheerio(o, live.id, {0: 1})
    assert await rows(database, "SELECT user_id, won, orchard FROM results ORDER BY seat") == [
        (1, 1, 1),
        (9, 0, 1),
    ]
    assert await o.store.leaderboard(100, "cheerio", "wins") == [], "no game between people"
    (stats,) = await o.store.user_stats(100, 1)
    assert (stats.wins, stats.orchard_wins, stats.orchard_games) == (0, 1, 1)
    await o.close()


async def test_help_says_what_a_game_against_orchard_counts_for_on_the_boards(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """/help said games against Orchard "never count on the server's boards", but a score
    made against Orchard is on the boards by best and average score: only wins and ratings
    leave them out, as the README says."""
    server(fake_discord)
    await migrated(database)
    await finished_game(database, [Seat(ALICE, 250, won=True), Seat(0, 200, 2, is_bot=True)])
    async with orchard_bot(fake_discord, database):
        boards = {}
        for by in ("best", "wins"):
            board = await answered(
                await fake_discord.slash(
                    BOB, GUILD, CHANNEL, "leaderboard", {"game": "cheerio", "by": by}
                )
            )
            boards[by] = board.embeds[0]["description"]
        assert boards["best"].startswith(f"**1.** <@{ALICE}> · **best 250**"), boards
        assert str(ALICE) not in boards["wins"], boards
        told = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "help"))
        text = told.embeds[0]["description"]
        assert "never count on the server's boards" not in text, text
        assert (
            "Games against Orchard have a rating of their own, and count for no wins or"
            " ratings on the server's boards." in text
        ), text
        no_errors(fake_discord)


async def test_forget_me_removes_that_person_here_and_nothing_else(database: Target) -> None:
    o = await orchard(database)
    for users in ([1, 2], [1, 3]):
        game = await started(o, "cheerio", users)
        await finish_cheerio(o, game.id, dict(enumerate(users)))
    async with written(database) as tx:  # the same person's record in another server
        await tx.execute(
            "INSERT INTO results (game_id, seat, guild_id, kind, user_id, score, placement, won,"
            " seats, finished_at) VALUES (1, 9, 555, 'cheerio', 1, 10, 1, 1, 2, 0)"
        )
    before = await rows(
        database, "SELECT COUNT(*) FROM results WHERE user_id != 1 OR guild_id != 100"
    )
    removed = await o.store.forget_user(100, 1)
    assert removed == 2 + 1 + 2 + 2  # two results, one rating, two history rows, two seats
    for table in ("results", "ratings", "rating_history"):
        assert (
            await rows(database, f"SELECT * FROM {table} WHERE user_id = 1 AND guild_id = 100")
            == []
        )
    assert await rows(database, "SELECT COUNT(*) FROM results") == before
    assert await rows(database, "SELECT COUNT(*) FROM ratings WHERE user_id IN (2, 3)") == [(2,)]
    await o.close()


async def test_a_board_is_computed_once_until_results_change(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Repeating /leaderboard, in any order (wins, best, average, rating), reads the server's
    results once, until a game finishes here or someone is erased: the next board then shows
    it. On a shared store another process's results cannot be counted, so a board is kept
    there only a few seconds (see
    :func:`test_a_shared_store_keeps_a_board_a_few_seconds`)."""
    o = await orchard(database)
    computed: list[int] = []
    compute = results.records

    async def counted(*args: Any) -> Any:
        computed.append(args[1])
        return await compute(*args)

    monkeypatch.setattr(results, "records", counted)
    game = await started(o, "cheerio", [1, 2])
    await finish_cheerio(o, game.id, {0: 1, 1: 2})
    first = await o.store.leaderboard_with_records(HERE, "cheerio", "wins")
    assert await o.store.leaderboard_with_records(HERE, "cheerio", "wins") == first
    for by in ("best", "average", "rating"):
        await o.store.leaderboard_with_records(HERE, "cheerio", by)
    assert len(computed) == 1, "every order of a game's board ranks the one aggregate"
    game = await started(o, "cheerio", [1, 2])  # results written by the runner's own path
    await finish_cheerio(o, game.id, {0: 1, 1: 2})
    _, records = await o.store.leaderboard_with_records(HERE, "cheerio", "wins")
    assert records[1][1] == records[2][1] == 2, "both games counted"
    counted_before = len(computed)
    elsewhere = await o.lobby.open("cheerio", HERE + 1, 201, player(1))  # another server's
    await o.lobby.join(elsewhere.id, player(2))
    await o.lobby.start(elsewhere.id, 1)
    await finish_cheerio(o, elsewhere.id, {0: 1, 1: 2})
    await o.store.leaderboard_with_records(HERE, "cheerio", "wins")
    assert len(computed) == counted_before, (
        "a game ending in another server leaves this one's board as it was"
    )
    await o.orchard.forget(HERE, 2)
    _, records = await o.store.leaderboard_with_records(HERE, "cheerio", "wins")
    assert set(records) == {1}, "an erased person leaves the board at once"
    await o.close()


async def test_boards_asked_for_at_once_share_one_aggregate(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A burst of /leaderboard while no board is kept (the first after a game ended) runs
    one aggregate, not one each; an asker that gives up (its interaction gone) leaves it
    running for the others, and the board is kept all the same."""
    o = await orchard(database)
    game = await started(o, "cheerio", [1, 2])
    await finish_cheerio(o, game.id, {0: 1, 1: 2})
    computed: list[int] = []
    release = asyncio.Event()
    compute = results.records

    async def held(*args: Any) -> Any:
        computed.append(args[1])
        await release.wait()
        return await compute(*args)

    monkeypatch.setattr(results, "records", held)
    askers = [
        asyncio.create_task(o.store.leaderboard_with_records(HERE, "cheerio", "wins"))
        for _ in range(5)
    ]
    for _ in range(1000):  # until the aggregate has begun, all five waiting for it
        if computed:
            break
        await asyncio.sleep(0.005)
    askers[0].cancel()
    release.set()
    boards = await asyncio.gather(*askers[1:])
    assert computed == [HERE], "one aggregate for the five"
    assert all(board == boards[0] for board in boards) and set(boards[0][1]) == {1, 2}
    assert await o.store.leaderboard_with_records(HERE, "cheerio", "wins") == boards[0]
    assert computed == [HERE], "and kept"
    await o.close()


async def test_one_servers_burst_of_boards_leaves_the_read_connections_to_the_others(
    database: Target,
) -> None:
    """A big server's people open a board of every game at once, each aggregate slow (as at
    40,000 results): that server's aggregates run one at a time, so another server's board
    is read beside them, at once. Before, they held every read connection (SQLite's two,
    PostgreSQL's read slots), and the other server's board waited behind them."""
    store = await Store.open(database)
    await slowed_results(store, 0.4)
    kinds = ("cheerio", "applejack", "hotscore", "appletters", "turnover", "applescore")
    burst = [asyncio.create_task(store.leaderboard_with_records(1, kind, "wins")) for kind in kinds]
    await asyncio.sleep(0.05)  # the first of them is reading
    began = time.monotonic()
    assert await store.leaderboard_with_records(2, "cheerio", "wins") == ([], {})
    took = time.monotonic() - began
    assert await asyncio.gather(*burst) == [([], {})] * len(kinds)
    await store.close()
    assert took < 0.65, f"another server's board waited {took:.2f} s"


@pytest.mark.postgres
async def test_a_shared_store_keeps_a_board_a_few_seconds() -> None:
    """Someone repeating /leaderboard on a shared store costs one aggregate per board per
    SHARED_STANDINGS_SECONDS, and a game another process finishes is on the board by then."""
    async with fresh_schema() as url:
        clock = Clock()
        a, b = await orchard(url, clock), await orchard(url, clock)  # type: ignore[arg-type]
        game = await started(b, "cheerio", [1, 2])
        await finish_cheerio(b, game.id, {0: 1, 1: 2})
        first = await a.store.leaderboard_with_records(HERE, "cheerio", "wins")
        assert set(first[1]) == {1, 2}
        game = await started(b, "cheerio", [1, 3])
        await finish_cheerio(b, game.id, {0: 1, 1: 3})
        clock.now += SHARED_STANDINGS_SECONDS - 0.5
        assert await a.store.leaderboard_with_records(HERE, "cheerio", "wins") is first, "kept"
        clock.now += 0.5
        _, records = await a.store.leaderboard_with_records(HERE, "cheerio", "wins")
        assert set(records) == {1, 2, 3}, "another process's game is on the board"
        await a.close()
        await b.close()


async def test_departed_servers_are_purged_after_30_days_only(database: Target) -> None:
    o = await orchard(database)
    game = await started(o, "cheerio", [1, 2])
    await finish_cheerio(o, game.id, {0: 1, 1: 2})
    await o.store.guild_left(100, when=1000.0)
    assert await o.store.purge_departed(before=999.0) == []
    await o.store.guild_returned(100)
    assert await o.store.purge_departed(before=2000.0) == []
    await o.store.guild_left(100, when=1000.0)
    assert await o.store.purge_departed(before=2000.0) == [100]
    for table in ("games", "results", "ratings", "moves", "game_players"):
        assert await rows(database, f"SELECT COUNT(*) FROM {table}") == [(0,)], table
    await o.close()


async def test_a_purged_servers_game_ids_are_never_given_out_again(database: Target) -> None:
    """A server that removed Orchard is purged 30 days on, its games with it; SQLite would then
    give the next game the largest id deleted, and an old board's Review or Rematch button,
    still in a channel of that server once it is back, would name the new game."""
    o = await orchard(database)
    kept = await o.lobby.open("cheerio", GUILD + 1, CHANNEL + 9, player(1))  # another server
    purged = [(await o.lobby.open("cheerio", GUILD, CHANNEL + n, player(n))).id for n in (3, 4)]
    await o.store.guild_left(GUILD, when=1000.0)
    assert await o.store.purge_departed(before=2000.0) == [GUILD]
    fresh = await o.lobby.open("cheerio", GUILD, CHANNEL, player(5))
    assert fresh.id > max(purged) > kept.id
    await o.close()


async def test_a_game_a_departed_servers_last_interaction_started_ends_too(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server removes Orchard while a `/cheerio new opponent:orchard` of its is still
    being handled: the game starts after the departure ended the server's open games. Left
    open where nobody can click, the clock would time its player out and hand Orchard the
    win; it is ended with the rest a moment later. A server back by then keeps its game."""
    monkeypatch.setattr("bot.orchard.LEFT_AGAIN", 0.05)
    o = await orchard(database)
    for back in (False, True):
        await o.orchard.left_server(GUILD, o.clock())
        lobby = await o.lobby.open("cheerio", GUILD, CHANNEL, player(1))  # in flight
        await o.lobby.add_seat(lobby.id, 1, Player(0, 99, "Orchard", is_bot=True, level="easy"))
        game = await o.lobby.start(lobby.id, 1)
        if back:
            await o.store.guild_returned(GUILD)
        await asyncio.sleep(0.3)
        status = (await o.runner.load(game.id)).row.status
        assert status == ("active" if back else "abandoned"), (back, status)
    await o.close()


async def test_a_failed_purge_is_tried_again_at_the_next_turn(
    fake_discord: FakeDiscord, tmp_path: Any
) -> None:
    """The purge runs every 6 hours; one that fails (a database busy or reconnecting) must
    not end that loop, or no departed server is purged again until a restart, and their
    data outlives the 30 days /help promises."""
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        cog: Any = bot.get_cog("ServersCog")
        cog.purge.cancel()
        while cog.purge.is_running():
            await asyncio.sleep(0.01)
        calls: list[float] = []

        async def purge_departed(before: float) -> list[int]:
            calls.append(before)
            if len(calls) == 1:
                raise sqlite3.OperationalError("database is locked")
            return []

        bot.orchard.purge_departed = purge_departed  # type: ignore[method-assign]
        cog.purge.change_interval(seconds=0.01)
        cog.purge.start()
        deadline = asyncio.get_running_loop().time() + 5
        while len(calls) < 2 and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)
        cog.purge.cancel()
        assert len(calls) >= 2, "the purge loop ended at its first failure"


async def test_a_server_back_after_its_purge_starts_from_the_default_settings(
    database: Target,
) -> None:
    o = await orchard(database)
    await o.runner.settings.update(GUILD, turn_seconds=60)
    assert await o.runner.settings.turn_seconds(GUILD) == 60
    await o.store.guild_left(GUILD, when=1000.0)
    assert await o.store.purge_departed(before=2000.0) == [GUILD]
    assert await o.runner.settings.get(GUILD) == GuildSettings()
    await o.close()


async def migrated(database: Target) -> None:
    """A database at the newest schema, for rows written by hand."""
    await (await Store.open(database)).close()


class Seat(NamedTuple):
    """One seat's result in a game written by hand."""

    user: int
    score: int
    placement: int = 1
    won: bool = False
    is_bot: bool = False


async def finished_game(
    database: Target, seats: list[Seat], game_id: int = 500, channel: int = CHANNEL
) -> None:
    """A Cheerio game here over with these results, as Orchard would have left it (its board
    posted as message ``game_id`` + 10,000, finished at second ``game_id``): one seat of
    Orchard's makes it a game against Orchard."""
    orchard = any(seat.is_bot for seat in seats)
    async with written(database) as tx:
        await tx.execute(
            "INSERT INTO games (id, kind, guild_id, channel_id, host_id, status, seed,"
            " created_at, updated_at, message_id)"
            " VALUES (?, 'cheerio', ?, ?, 1, 'finished', 1, ?, ?, ?)",
            (game_id, GUILD, channel, game_id, game_id, game_id + 10_000),
        )
        for number, seat in enumerate(seats):
            await tx.execute(
                "INSERT INTO results (game_id, seat, guild_id, kind, user_id, is_bot, score,"
                " placement, won, seats, finished_at, orchard)"
                " VALUES (?, ?, ?, 'cheerio', ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    number,
                    GUILD,
                    seat.user,
                    int(seat.is_bot),
                    seat.score,
                    seat.placement,
                    int(seat.won),
                    len(seats),
                    game_id,
                    int(orchard),
                ),
            )


async def seed_results(database: Target, users: int) -> None:
    """Finished-game rows for many players, as earlier games would have left them."""
    players = [ALICE] + [80_000 + seat for seat in range(1, users)]
    await finished_game(database, [Seat(user, 300 - seat) for seat, user in enumerate(players)])


async def test_boards_page_ten_at_a_time_and_show_the_askers_rank(
    fake_discord: FakeDiscord, database: Target
) -> None:
    server(fake_discord)
    await migrated(database)
    await seed_results(database, 25)
    alices_rank = f"<@{ALICE}>: rank 1 of 25 (best 300)"
    async with orchard_bot(fake_discord, database):
        first = await answered(
            await fake_discord.slash(
                BOB, GUILD, CHANNEL, "leaderboard", {"game": "cheerio", "by": "best"}
            )
        )
        embed = first.embeds[0]
        assert embed["description"].count("\n") == 9 and embed["description"].startswith("**1.**")
        assert embed["footer"]["text"] == "Page 1 of 3"
        assert "rank" not in embed["description"], "Bob, who asked, is not on this board"
        board = int(first.original["id"])
        second = await answered(
            await fake_discord.click(ALICE, board, fake_discord.find_button(board, "Next ▶"))
        )
        page2 = second.original["embeds"][0]
        assert page2["description"].startswith("**11.**")
        assert "rank" not in page2["description"], "a page press does not put Alice's rank here"

        mine = await answered(
            await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio leaderboard", {"by": "best"})
        )
        assert mine.embeds[0]["description"].endswith("\n\n" + alices_rank), "even off page 2"
        alices = int(mine.original["id"])
        for presser, label in ((BOB, "Next ▶"), (CAROL, "Next ▶"), (BOB, "◀ Previous")):
            turned = await press(fake_discord, presser, alices, label)
            text = turned.original["embeds"][0]["description"]
            assert turned.type == 7 and text.endswith(alices_rank), (presser, label, text)
        assert fake_discord.message(alices)["embeds"][0]["footer"]["text"] == "Page 2 of 3"


async def test_every_leaderboard_command_ranks_by_rating_unless_told(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """/leaderboard ranked by rating by default but /<game> leaderboard by wins, so one game's
    board read two ways; both now rank by rating, and ``by:`` still picks another order."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database):
        for spec in SPECS:
            heading = f"{spec.main.title} · by "
            asks = (
                ("leaderboard", {"game": spec.main.kind}, "rating"),
                (f"{spec.command} leaderboard", {}, "rating"),
                (f"{spec.command} leaderboard", {"by": "wins"}, "wins"),
                ("leaderboard", {"game": spec.main.kind, "by": "best"}, "best"),
            )
            for command, options, by in asks:
                board = await answered(
                    await fake_discord.slash(ALICE, GUILD, CHANNEL, command, options)
                )
                assert board.embeds[0]["title"] == heading + by, (command, options)
        no_errors(fake_discord)


async def test_players_with_the_same_figure_share_a_rank(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """A board's rank follows the figure it shows: equal ones share a place (1, 1, 3), as on
    the daily board, so nobody reads second for an equal best only by a count of games."""
    server(fake_discord)
    await migrated(database)
    await finished_game(
        database, [Seat(BOB, 300), Seat(BOB, 250), Seat(ALICE, 300), Seat(CAROL, 290)]
    )
    async with orchard_bot(fake_discord, database):
        board = await answered(
            await fake_discord.slash(
                ALICE, GUILD, CHANNEL, "leaderboard", {"game": "cheerio", "by": "best"}
            )
        )
        lines = board.embeds[0]["description"].split("\n")
        assert [line.split(" · ")[:2] for line in lines[:3]] == [
            [f"**1.** <@{BOB}>", "**best 300**"],  # more games first, at the same rank
            [f"**1.** <@{ALICE}>", "**best 300**"],
            [f"**3.** <@{CAROL}>", "**best 290**"],
        ]
        assert lines[-1] == f"<@{ALICE}>: rank 1 of 3 (best 300)"
        no_errors(fake_discord)


async def test_forget_me_asks_first_and_its_button_survives_a_restart(
    fake_discord: FakeDiscord, database: Target
) -> None:
    server(fake_discord)
    await migrated(database)
    await seed_results(database, 3)
    async with orchard_bot(fake_discord, database):
        asked = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "forget-me"))
        assert asked.ephemeral and "Sure?" in asked.content
        confirm = int(asked.original["id"])
        assert await rows(database, f"SELECT COUNT(*) FROM results WHERE user_id = {ALICE}") == [
            (1,)
        ]
    async with orchard_bot(fake_discord, database):  # a restart between asking and confirming
        button = fake_discord.find_button(confirm, "Forget me here")
        other = await answered(await fake_discord.click(BOB, confirm, button))
        assert other.ephemeral and "Only the person who asked" in other.content
        done = await answered(await fake_discord.click(ALICE, confirm, button))
        assert done.ephemeral and done.content.startswith("Done: 1 record removed")
        again = await answered(await fake_discord.click(ALICE, confirm, button))
        assert again.content == "Done: nothing of yours was left to delete here."
    assert await rows(database, f"SELECT COUNT(*) FROM results WHERE user_id = {ALICE}") == [(0,)]
    assert await rows(database, "SELECT COUNT(*) FROM results") == [(2,)]


async def test_leaving_by_forget_me_is_not_announced_as_three_timeouts(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Bob uses /forget-me in the middle of a game: he leaves it (logged, like a seat the
    clock removes, with no user), but the channel is not told he timed out three turns in a
    row. Alice, who then does run out of time three turns in a row, is."""
    import time

    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB, CAROL])
        asked = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "forget-me"))
        confirm = int(asked.original["id"])
        button = fake_discord.find_button(confirm, "Forget me here")
        done = await answered(await fake_discord.click(BOB, confirm, button))
        assert done.content.startswith("Done"), done.content
        (row,) = await bot.orchard.store.open_games(GUILD)
        assert not (await bot.orchard.runner.load(row.id)).state.active[1], "Bob has left"

        def said(words: str) -> list[str]:
            texts = [str(m.get("content") or "") for m in fake_discord.channel_messages(CHANNEL)]
            return [text for text in texts if words in text]

        assert said("timed out") == []
        late = 0.0
        for timeouts in range(1, 4):  # Alice runs out of time; Carol plays her turn
            late += 301
            bot.orchard.runner.clock = lambda late=late: time.time() + late
            bot.orchard.scheduler.wake()
            await fake_discord.wait_for(
                lambda n=timeouts: len(said("Alice ")) == n, 5.0, "a timeout"
            )
            live = await bot.orchard.runner.load(row.id)
            if live.state.active[0]:
                await fake_discord.wait_for(  # the notice goes before the board's edit
                    lambda: "Carol's turn" in text_of(fake_discord.message(board)), 5.0, "Carol"
                )
                category = open_categories(live.state.cards[2])[0]
                await choose(fake_discord, CAROL, board, "score", [category])
        game = f"**Cheerio · game {row.id}**"
        assert len(said(f"Alice ran out of time in {game}, so the clock played for them.")) == 2
        (third,) = said("timed out three times")
        assert third == f"👋 Alice timed out three times in a row and has left {game}."


async def test_forget_me_in_a_dm_erases_the_person_in_every_server(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Someone who left a server can no longer use its commands, so /forget-me in a direct
    message with Orchard erases them in every server it holds rows of theirs in: results
    (here and in a server they left), a seat in a game over, a /pings choice alone. Bob's
    rows stay. Its button works after a restart, only for the asker, and only in the DM."""
    elsewhere, left, pinged = GUILD + 1, GUILD + 2, GUILD + 3
    server(fake_discord)
    await migrated(database)
    await seed_results(database, 3)
    async with written(database) as tx:
        for game, guild, seat in ((501, left, ALICE), (502, elsewhere, BOB)):
            await tx.execute(
                "INSERT INTO games (id, kind, guild_id, channel_id, host_id, status, seed,"
                " created_at, updated_at) VALUES (?, 'cheerio', ?, 1, ?, 'finished', 1, 0, 0)",
                (game, guild, seat),
            )
            await tx.execute(
                "INSERT INTO game_players (game_id, seat, user_id, name) VALUES (?, 0, ?, 'me')",
                (game, seat),
            )
        await tx.execute(
            "INSERT INTO results (game_id, seat, guild_id, kind, user_id, score, placement,"
            " won, seats, finished_at) VALUES (501, 0, ?, 'cheerio', ?, 99, 1, 1, 1, 0)",
            (left, ALICE),
        )
        for user in (ALICE, BOB):
            await tx.execute(
                "INSERT INTO ping_choices (guild_id, user_id, dm, updated_at) VALUES (?, ?, 1, 0)",
                (pinged, user),
            )
        for user in (ALICE, BOB, CAROL):  # Carol only joined the daily board across servers
            await tx.execute("INSERT INTO daily_world (user_id, joined_at) VALUES (?, 0)", (user,))
    async with orchard_bot(fake_discord, database):
        declared = next(c for c in fake_discord.commands if c["name"] == "forget-me")
        assert sorted(declared["contexts"]) == [0, 1], "offered in servers and Orchard's DMs"
        asked = await answered(await fake_discord.slash(ALICE, None, None, "forget-me"))
        assert (
            "in every server Orchard knows you from" in asked.content and "Sure?" in asked.content
        )
        confirm = int(asked.original["id"])
        assert await person_rows(database, ALICE) == [2, 1, 1, 1]
    async with orchard_bot(fake_discord, database):  # a restart between asking and confirming
        button = fake_discord.find_button(confirm, "Forget me everywhere")
        other = await answered(await fake_discord.click(BOB, confirm, button))
        assert "Only the person who asked" in other.content
        done = await answered(await fake_discord.click(ALICE, confirm, button))
        assert done.content == (
            "Done: 5 records removed in 3 servers, and your name is gone from their games"
            "; the boards that show it are redrawn without it over the next minutes."
        ), done.content
        asked = await answered(await fake_discord.slash(CAROL, None, None, "forget-me"))
        button = fake_discord.find_button(int(asked.original["id"]), "Forget me everywhere")
        done = await answered(await fake_discord.click(CAROL, int(asked.original["id"]), button))
        assert done.content == "Done: 1 record removed; Orchard held nothing else of yours."
    assert await person_rows(database, ALICE) == [0, 0, 0, 0]
    assert await person_rows(database, CAROL) == [0, 0, 0, 0]
    assert await person_rows(database, BOB) == [0, 1, 1, 1], "Bob's rows stay"
    assert await rows(database, "SELECT COUNT(*) FROM results") == [(2,)]


async def test_forget_me_counts_the_games_it_took_a_person_out_of(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Bob has no result here, only games: a Hot Score game in play and a lobby Carol hosted
    and cancelled, whose seat list still names him. /forget-me takes him out of both, so its
    answer says so, not that nothing of his was left to delete; asked again, nothing is.
    Carol, whose only trace is that lobby, is told the same from a direct message."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, database) as bot:
        await bot.orchard.settings.update(GUILD, open_games_per_channel=2)
        lobby = await answered(await fake.slash(CAROL, GUILD, CHANNEL, "cheerio new"))
        await press(fake, BOB, int(lobby.original["id"]), "Join")
        await press(fake, CAROL, int(lobby.original["id"]), "Cancel")
        await new_game(fake, "hotscore", ALICE, [BOB])
        asked = await answered(await fake.slash(BOB, GUILD, CHANNEL, "forget-me"))
        done = await press(fake, BOB, int(asked.original["id"]), "Forget me here")
        assert done.content == (
            "Done: 2 records removed, and your name is gone from this server's games"
            "; the boards that show it are redrawn without it over the next minutes."
        ), done.content
        again = await press(fake, BOB, int(asked.original["id"]), "Forget me here")
        assert again.content == "Done: nothing of yours was left to delete here."
        asked = await answered(await fake.slash(CAROL, None, None, "forget-me"))
        done = await press(fake, CAROL, int(asked.original["id"]), "Forget me everywhere")
        assert done.content == (
            "Done: 1 record removed in 1 server, and your name is gone from their games"
            "; the boards that show it are redrawn without it over the next minutes."
        ), done.content
        assert await person_rows(database, BOB) == await person_rows(database, CAROL) == [0] * 4
        no_errors(fake)


async def person_rows(database: Target, user: int) -> list[int]:
    """The person's results, named seats, /pings choices and place on the daily board across
    servers, in every server."""
    counted = []
    for table in ("results", "game_players", "ping_choices", "daily_world"):
        [(n,)] = await rows(database, f"SELECT COUNT(*) FROM {table} WHERE user_id = {user}")
        counted.append(int(n))
    return counted


async def test_settings_need_manage_server_and_are_validated(
    fake_discord: FakeDiscord, database: Target
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        declared = next(c for c in fake_discord.commands if c["name"] == "settings")
        assert int(declared["default_member_permissions"]) == MANAGE_GUILD
        with pytest.raises(PermissionError):
            await fake_discord.slash(BOB, GUILD, CHANNEL, "settings", {"hints": False})
        assert (await bot.orchard.settings.get(GUILD)).hints
        fake_discord.permissions[ALICE] = MANAGE_GUILD
        bad = await answered(
            await fake_discord.slash(ALICE, GUILD, CHANNEL, "settings", {"turn_minutes": 0.1})
        )
        assert bad.ephemeral and "between 30 seconds and 24 hours" in bad.content
        good = await answered(
            await fake_discord.slash(
                ALICE, GUILD, CHANNEL, "settings", {"turn_minutes": 2, "hints": False}
            )
        )
        assert good.ephemeral and "Saved." in good.content and "Hints: off" in good.content
        assert "Turn deadline: 2 min\n" in good.content
        assert (await bot.orchard.settings.get(GUILD)).turn_seconds == 120
        shown = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "settings"))
        assert "Saved" not in shown.content and "Hints: off" in shown.content
        half = await answered(
            await fake_discord.slash(ALICE, GUILD, CHANNEL, "settings", {"turn_minutes": 0.5})
        )
        assert "Turn deadline: 30 s\n" in half.content, half.content


async def test_settings_say_the_open_games_limit_is_per_kind(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """The limit of open games is per channel and per kind: with it at 1, a channel holds a
    Cheerio and a Hot Score game at once. /settings said "Open games per channel: 1", which
    reads as one game in all; it says "of one kind", as its option's description does."""
    server(fake_discord)
    fake_discord.permissions[ALICE] = MANAGE_GUILD
    async with orchard_bot(fake_discord, database) as bot:
        for kind in ("cheerio", "hotscore"):
            opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, f"{kind} new"))
            assert not opened.ephemeral, opened.describe()
        assert len(await bot.orchard.store.open_games(GUILD, CHANNEL)) == 2
        shown = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "settings"))
        assert "\n• Open games of one kind per channel: 1\n" in shown.content, shown.content
        bad = await answered(
            await fake_discord.slash(ALICE, GUILD, CHANNEL, "settings", {"open_games": 26})
        )
        assert bad.content == "Open games of one kind per channel must be between 1 and 25."
        no_errors(fake_discord)


async def test_settings_with_many_game_channels_list_what_fits_and_count_the_rest(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Game channels have no limit in number: a hundred of them would make /settings about
    2,600 characters, over the 2,000 Discord allows. The reply lists what fits, then how many
    more. With 17-digit ids (a server from Discord's first years) and these settings the list
    fills the reply to within a few characters, so the "Saved. " before it must be counted too."""
    channels = [10**16 + n for n in range(100)]
    server(fake_discord)
    fake_discord.add_guild(GUILD, [CHANNEL, *channels], [ALICE, BOB, CAROL])
    fake_discord.permissions[ALICE] = MANAGE_GUILD
    async with orchard_bot(fake_discord, database) as bot:
        await bot.orchard.settings.update(GUILD, game_channels=tuple(channels))
        for options in ({}, {"hints": False, "word_list": "family"}):
            said = await answered(
                await fake_discord.slash(ALICE, GUILD, CHANNEL, "settings", options)
            )
            text = said.content
            assert said.ephemeral and len(text) <= 2000, said.describe()
            assert text.startswith("Saved. " if options else "**Settings**")
            shown = re.findall(r"<#(\d+)>", text)
            assert shown == [str(c) for c in channels[: len(shown)]] and len(shown) > 70
            assert f", … and {100 - len(shown)} more channels\n• Open games" in text
            assert text.endswith("(a player's own /pings choice wins over it)")
        assert (await bot.orchard.settings.get(GUILD)).game_channels == tuple(channels)


async def test_forfeit_and_moderator_end(fake_discord: FakeDiscord, database: Target) -> None:
    from tests.botharness import new_game

    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB, CAROL])
        (row,) = await bot.orchard.store.open_games(GUILD)
        await bot.orchard.runner.act(row.id, ALICE, "score", "sixes", version=0)  # Alice leads
        gone = await answered(await fake_discord.slash(CAROL, GUILD, CHANNEL, "forfeit"))
        assert gone.ephemeral and "You left" in gone.content
        assert (await bot.orchard.runner.load(row.id)).state.active == (True, True, False)
        with pytest.raises(PermissionError):
            await fake_discord.slash(BOB, GUILD, CHANNEL, "end", {"game_id": row.id})
        fake_discord.permissions[CAROL] = MANAGE_MESSAGES
        ended = await answered(
            await fake_discord.slash(CAROL, GUILD, CHANNEL, "end", {"game_id": row.id})
        )
        assert "ended by a moderator" in ended.content
        assert (await bot.orchard.store.get_game(row.id)).status == "abandoned"
        assert await bot.orchard.store.leaderboard(GUILD, "cheerio", "wins") == []
        standings = text_of(fake_discord.message(board))
        assert "Game abandoned" in standings and "🏆" not in standings, "nobody won or lost"


async def test_a_lobby_a_moderator_ends_says_so(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """A lobby closed with /end reads as a moderator's doing, not as its host's cancel nor
    as its clock's."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        lobby = int(opened.original["id"])
        (row,) = await bot.orchard.store.open_games(GUILD)
        fake_discord.permissions[CAROL] = MANAGE_MESSAGES
        await answered(await fake_discord.slash(CAROL, GUILD, CHANNEL, "end", {"game_id": row.id}))
        await fake_discord.wait_for(
            lambda: "lobby closed" in text_of(fake_discord.message(lobby)), what="the lobby closed"
        )
        closed = text_of(fake_discord.message(lobby))
        assert "A moderator ended it." in closed, closed
        assert "cancelled" not in closed and "in time" not in closed
        no_errors(fake_discord)


async def test_end_refuses_a_game_in_a_channel_the_moderator_cannot_see(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """A moderator here is not one in every channel: Carol's /end of a game in a channel
    hidden from her, or in a thread of it, is refused privately, naming neither the game's
    kind, nor its players, nor its channel, and the game stays open. Bob, who sees that
    channel, ends both (the thread, not cached, asked of Discord); a game whose thread there
    was deleted unheard (a deletion heard ends its games) hides nothing, and nobody can play
    it: Carol ends that one."""
    secret = CHANNEL + 1
    thread, gone = secret + 100, secret + 200
    server(fake_discord)
    fake_discord.add_guild(GUILD, [CHANNEL, secret], [ALICE, BOB, CAROL])  # Alice owns it
    seen = [  # by @everyone (the server's id), no; by Bob and Orchard, yes
        {"id": str(user), "type": 1, "allow": str(VIEW_CHANNEL), "deny": "0"}
        for user in (BOB, fake_discord.bot_id)
    ]
    hidden = {"id": str(GUILD), "type": 0, "allow": "0", "deny": str(VIEW_CHANNEL)}
    fake_discord.channels[secret]["permission_overwrites"] = [hidden, *seen]
    fake_discord.add_thread(thread, secret)
    fake_discord.add_thread(gone, secret)
    async with orchard_bot(fake_discord, database) as bot:
        for channel in (secret, thread, gone):
            await answered(await fake_discord.slash(ALICE, GUILD, channel, "cheerio new"))
        ids = {r.channel_id: r.id for r in await bot.orchard.store.open_games(GUILD)}
        for moderator in (BOB, CAROL):
            fake_discord.permissions[moderator] = MANAGE_MESSAGES

        async def end(user: int, channel: int) -> InteractionRecord:
            return await answered(
                await fake_discord.slash(user, GUILD, CHANNEL, "end", {"game_id": ids[channel]})
            )

        for channel in (secret, thread):
            refused = await end(CAROL, channel)
            assert refused.ephemeral and refused.content == (
                f"Game {ids[channel]} is in a channel you cannot see, so you cannot end it."
            ), refused.describe()
            row = await bot.orchard.store.get_game(ids[channel])
            assert row is not None and row.status.is_open
        for channel in (secret, thread):
            assert "ended by a moderator" in (await end(BOB, channel)).content
        await fake_discord.delete_channel(gone, heard=False)
        assert "ended by a moderator" in (await end(CAROL, gone)).content
        assert await bot.orchard.store.open_games(GUILD) == []
        no_errors(fake_discord)


async def test_forfeit_in_a_lobby_points_to_its_leave_or_cancel_button(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Bob joined Alice's lobby, which has not started: /forfeit has no game to give up, and
    says his way out is the lobby's Leave button (Alice's, as its host, Cancel), linked.
    Nothing changes."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        assert opened.original is not None
        lobby = int(opened.original["id"])
        await press(fake_discord, BOB, lobby, "Join")
        (row,) = await bot.orchard.store.open_games(GUILD)
        linked = f"[Cheerio game {row.id}](https://discord.com/channels/{GUILD}/{CHANNEL}/{lobby})"
        none = "You have no game in play in this channel."
        bob = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "forfeit"))
        assert bob.ephemeral and bob.content == (
            f"{none} {linked} has not started yet: to leave it, press **Leave** on its lobby."
        ), bob.content
        alice = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "forfeit"))
        assert alice.content == (
            f"{none} {linked} has not started yet: you host it, so press **Cancel** on its "
            "lobby to close it."
        ), alice.content
        (still,) = await bot.orchard.store.open_games(GUILD)
        assert still.status == "lobby" and len(still.players) == 2
        no_errors(fake_discord)


async def test_forfeit_does_not_count_a_game_the_player_has_already_left(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Carol leaves a three-player game that Alice and Bob play on. Her /forfeit now finds no
    game of hers: it neither says she left again nor writes another leaving move (which would
    move the board on under the player to act), and it does not ask her to choose between
    that game and the one she is still playing here."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        await bot.orchard.settings.update(GUILD, open_games_per_channel=2)
        await new_game(fake_discord, "cheerio", ALICE, [BOB, CAROL])
        (cheerio,) = [g.id for g in await bot.orchard.store.open_games(GUILD)]
        left = await answered(await fake_discord.slash(CAROL, GUILD, CHANNEL, "forfeit"))
        assert left.content == f"You left Cheerio game {cheerio}."
        version = (await bot.orchard.runner.load(cheerio)).row.version
        again = await answered(await fake_discord.slash(CAROL, GUILD, CHANNEL, "forfeit"))
        assert again.ephemeral and again.content == "You have no game in play in this channel."
        assert (await bot.orchard.runner.load(cheerio)).row.version == version
        await new_game(fake_discord, "hotscore", CAROL, [ALICE])
        hotscore = max(g.id for g in await bot.orchard.store.open_games(GUILD))
        gone = await answered(await fake_discord.slash(CAROL, GUILD, CHANNEL, "forfeit"))
        assert gone.content == f"You left Hot Score game {hotscore}.", gone.content
        assert await forfeits(bot, [cheerio, hotscore]) == [cheerio, hotscore]


async def test_games_offers_no_repost_of_a_game_the_player_has_left(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Carol leaves a three-player game that Alice and Bob play on: /games still lists it
    (it is open here), but offers her no "Show again" button as if it were hers, and one
    from a list made before she left posts nothing. Alice is still offered hers."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, database) as bot:
        board = await new_game(fake, "cheerio", ALICE, [BOB, CAROL])
        (cheerio,) = [g.id for g in await bot.orchard.store.open_games(GUILD)]
        before = await answered(await fake.slash(CAROL, GUILD, CHANNEL, "games"))
        await answered(await fake.slash(CAROL, GUILD, CHANNEL, "forfeit"))
        listed = await answered(await fake.slash(CAROL, GUILD, CHANNEL, "games"))
        assert f"#{cheerio}" in listed.embeds[0]["description"]
        assert fake.components(int(listed.original["id"])) == [], listed.describe()
        assert not (listed.embeds[0].get("footer") or {}).get("text"), listed.describe()
        old = await press(fake, CAROL, int(before.original["id"]), f"Show #{cheerio} again")
        assert old.ephemeral and old.content == "You have left this game.", old.describe()
        assert (await bot.orchard.runner.load(cheerio)).row.message_id == board
        alice = await answered(await fake.slash(ALICE, GUILD, CHANNEL, "games"))
        assert fake.find_button(int(alice.original["id"]), f"Show #{cheerio} again")


async def test_games_names_only_the_players_still_in_each_game(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Carol leaves a three-player game that Alice and Bob play on: its line in /games names
    Alice and Bob, not her, for everyone asking; a lobby she then sits in still names her."""
    fake = fake_discord
    server(fake)
    async with orchard_bot(fake, database) as bot:
        await bot.orchard.settings.update(GUILD, open_games_per_channel=2)
        await new_game(fake, "cheerio", ALICE, [BOB, CAROL])
        (cheerio,) = [g.id for g in await bot.orchard.store.open_games(GUILD)]
        await answered(await fake.slash(CAROL, GUILD, CHANNEL, "forfeit"))
        await answered(await fake.slash(CAROL, GUILD, CHANNEL, "cheerio new"))
        for asker in (ALICE, CAROL):
            listed = await answered(await fake.slash(asker, GUILD, CHANNEL, "games"))
            lines = listed.embeds[0]["description"].splitlines()
            assert [line.split(" · ")[1] for line in lines] == ["Alice, Bob", "Carol"], lines
            assert lines[0].startswith(f"**Cheerio** #{cheerio} (in play)"), lines


async def forfeits(bot: OrchardBot, game_ids: list[int]) -> list[int]:
    """The games among ``game_ids`` that someone has given up."""
    return [g for g in game_ids for m in await bot.orchard.store.moves(g) if m.verb == "forfeit"]


async def test_forfeit_asks_which_game_when_the_player_has_two_here(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """The option says "if you play more than one here": without it, /forfeit names both games
    and gives up neither; with it, only the game chosen."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        await new_game(fake_discord, "cheerio", ALICE, [BOB])
        await new_game(fake_discord, "hotscore", ALICE, [BOB])
        cheerio, hotscore = [g.id for g in await bot.orchard.store.open_games(GUILD)]
        asked = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "forfeit"))
        assert asked.ephemeral and asked.content == (
            f"You play 2 games here: Cheerio game {cheerio} and Hot Score game {hotscore}. "
            "Nothing changed: say which with `/forfeit game:`."
        )
        assert await forfeits(bot, [cheerio, hotscore]) == []
        left = await answered(
            await fake_discord.slash(ALICE, GUILD, CHANNEL, "forfeit", {"game": "hotscore"})
        )
        assert left.content == f"You left Hot Score game {hotscore}."
        assert await forfeits(bot, [cheerio, hotscore]) == [hotscore]


async def test_forfeit_tells_two_games_of_one_kind_apart_by_number(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """With two open games of a kind allowed per channel, Alice hosts one Cheerio game and
    joins Bob's: /forfeit game:Cheerio cannot tell which she means, so it leaves both alone
    and asks for the number, which can."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        await bot.orchard.settings.update(GUILD, open_games_per_channel=2)
        await new_game(fake_discord, "cheerio", ALICE, [CAROL])
        await new_game(fake_discord, "cheerio", BOB, [ALICE])
        games = [g.id for g in await bot.orchard.store.open_games(GUILD)]
        asked = await answered(
            await fake_discord.slash(ALICE, GUILD, CHANNEL, "forfeit", {"game": "cheerio"})
        )
        assert asked.ephemeral and "Nothing changed" in asked.content, asked.content
        assert all(f"Cheerio game {g}" in asked.content for g in games), asked.content
        assert "`/forfeit number:`" in asked.content
        assert await forfeits(bot, games) == []
        options = {"game": "cheerio", "number": games[1]}
        left = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "forfeit", options))
        assert left.content == f"You left Cheerio game {games[1]}."
        assert await forfeits(bot, games) == [games[1]]
        none = await answered(
            await fake_discord.slash(ALICE, GUILD, CHANNEL, "forfeit", {"number": games[1] + 9})
        )
        assert none.content == f"You have no game {games[1] + 9} in play in this channel."


async def test_forfeit_of_another_game_than_the_one_played_here_says_which_is(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Alice plays Cheerio here. /forfeit game:Hot Score read "You have no game in play in
    this channel", and with her Cheerio game's number too "no game N": both untrue. It names
    the game asked for and, for a number, what that game is. Nothing changes."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        await new_game(fake_discord, "cheerio", ALICE, [BOB])
        (row,) = await bot.orchard.store.open_games(GUILD)
        for options, said in (
            ({"game": "hotscore"}, "You have no Hot Score game in play in this channel."),
            (
                {"game": "hotscore", "number": row.id},
                f"You have no Hot Score game {row.id} in play in this channel: game {row.id}"
                " here is Cheerio.",
            ),
        ):
            refused = await answered(
                await fake_discord.slash(ALICE, GUILD, CHANNEL, "forfeit", options)
            )
            assert refused.ephemeral and refused.content == said, refused.describe()
        assert await forfeits(bot, [row.id]) == []
        no_errors(fake_discord)


async def cheerio_played(fake: FakeDiscord, bot: Any) -> None:
    """A Cheerio game of Alice's and Bob's played to its end, as the only game here."""
    await new_game(fake, "cheerio", ALICE, [BOB])
    (row,) = await bot.orchard.store.open_games(GUILD)
    await play_out(bot, row.id, {0: ALICE, 1: BOB})


async def play_out(bot, game_id: int, users: dict[int, int]):
    """Score the first open category on each person's turn until the game ends (Orchard's
    seats play themselves)."""
    for _ in range(4000):
        live = await bot.orchard.runner.load(game_id)
        if live.row.status != "active":
            return live
        if live.state.turn in users:
            category = open_categories(live.state.cards[live.state.turn])[0]
            user = users[live.state.turn]
            await bot.orchard.runner.act(game_id, user, "score", category, version=live.row.version)
        else:
            await asyncio.sleep(0.005)
    raise AssertionError("the game did not end")


async def finished_at(path: Target, game_id: int, user: int) -> int:
    ((at,),) = await rows(
        path, "SELECT finished_at FROM results WHERE game_id = ? AND user_id = ?", game_id, user
    )
    return int(at)


async def test_stats_and_history_after_a_two_player_game(
    fake_discord: FakeDiscord, database: Target
) -> None:
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        (row,) = await bot.orchard.store.open_games(GUILD)
        await play_out(bot, row.id, {0: ALICE, 1: BOB})
        seats = await rows(
            database, "SELECT user_id, score, won FROM results ORDER BY placement, seat"
        )
        won = {user: bool(w) for user, _, w in seats}
        tie = all(won.values())  # equal scores: both placed first
        ((mu, sigma),) = await rows(
            database, "SELECT mu, sigma FROM ratings WHERE user_id = ? AND pool = 'people'", ALICE
        )

        stats = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "stats"))
        (field,) = stats.embeds[0]["fields"]
        rate = "100%" if won[ALICE] else "0%"
        assert field["name"] == "Cheerio"
        wins = "1 win" if won[ALICE] else "0 wins"
        assert f"1 game · {wins} ({rate})" in field["value"]
        # openskill's first game between newcomers: mu - 3 sigma 3.44 or -1.83, shown as
        # 1000 + 40 times that: 1138 for the winner, 927 for the loser, 1032 each for a tie
        rating = 1032 if tie else (1138 if won[ALICE] else 927)
        assert f"rating {rating} ·" in field["value"]
        assert round(1000 + 40 * conservative((mu, sigma))) == rating
        assert f"last played <t:{await finished_at(database, row.id, ALICE)}:R>" in field["value"]
        assert stats.embeds[0]["description"] == f"1 game · {wins}", 'no "of 1 kind"'

        history = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "history"))
        line = history.embeds[0]["description"]
        assert f"https://discord.com/channels/{GUILD}/{CHANNEL}/{board}" in line
        expected = ", ".join(
            f"<@{user}> {score}" + (" 🏆" if w else "") for user, score, w in seats
        )
        assert expected in line and line.startswith("**Cheerio** <t:")
        await fake_discord.wait_for(  # the last board edit follows the commit, and may wait
            lambda: "Game over" in text_of(fake_discord.message(board)),  # out the channel's
            15.0,  # limit of 5 edits per 5 s (fourteen moves were played at once)
            what="the final board",
        )
        standings = text_of(fake_discord.message(board))
        assert "Cheerio · Game over\n" in standings
        assert standings.count("🏆") == sum(won.values()) >= 1


async def seed_charts(database: Target) -> None:
    """Alice's earlier games here: three rated Cheerio games, two rated Hot Score games and
    two solo Apple Jack games (scores only), interleaved in time."""
    games = [  # id, kind, seats, score, mu (None: not rated), finished at
        (601, "cheerio", 2, 150, 25.0, 10),
        (602, "hotscore", 2, 100, 40.0, 20),
        (603, "applejack", 1, 150, None, 30),
        (604, "cheerio", 2, 170, 26.0, 40),
        (605, "hotscore", 2, 100, 45.0, 50),
        (606, "applejack", 1, 170, None, 60),
        (607, "cheerio", 2, 190, 27.0, 70),
    ]
    async with written(database) as tx:
        for game_id, kind, seats, score, mu, at in games:
            await tx.execute(
                "INSERT INTO games (id, kind, guild_id, channel_id, host_id, status, seed,"
                " created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'finished', 1, ?, ?)",
                (game_id, kind, GUILD, CHANNEL, ALICE, at, at),
            )
            await tx.execute(
                "INSERT INTO results (game_id, seat, guild_id, kind, user_id, score, placement,"
                " won, seats, finished_at) VALUES (?, 0, ?, ?, ?, ?, 1, 0, ?, ?)",
                (game_id, GUILD, kind, ALICE, score, seats, at),
            )
            if mu is not None:
                await tx.execute(
                    "INSERT INTO rating_history (game_id, user_id, guild_id, kind, pool, mu,"
                    " sigma, at) VALUES (?, ?, ?, ?, 'people', ?, 1.0, ?)",
                    (game_id, ALICE, GUILD, kind, mu, at),
                )


async def test_stats_charts_one_game_with_alt_text_naming_it(
    fake_discord: FakeDiscord, database: Target
) -> None:
    server(fake_discord)
    await migrated(database)
    await seed_charts(database)
    async with orchard_bot(fake_discord, database):
        for options, alt in (
            # mu - 3 sigma 22 to 24 reads 1000 + 40 times that; scores are shown as they are
            ({}, "Line chart of Cheerio rating over the last 3 games, from 1880 to 1960"),
            (
                {"game": "hotscore"},
                "Line chart of Hot Score rating over the last 2 games, from 2480 to 2680",
            ),
            (
                {"game": "applejack"},
                "Line chart of Apple Jack score over the last 2 games, from 150 to 170",
            ),
        ):
            stats = await answered(
                await fake_discord.slash(ALICE, GUILD, CHANNEL, "stats", options)
            )
            (chart,) = stats.original["attachments"]
            assert chart["filename"] == "chart.png" and chart["description"].startswith(alt)
            assert stats.embeds[0]["image"]["url"] == "attachment://chart.png"
            assert len(stats.embeds[0]["fields"]) == 3, "the record still covers every game"
            assert stats.embeds[0]["description"] == "7 games of 3 kinds · 0 wins"
        none = await answered(
            await fake_discord.slash(ALICE, GUILD, CHANNEL, "stats", {"game": "appletters"})
        )
        assert none.original["attachments"] == [] and "image" not in none.embeds[0]


async def test_stats_say_why_the_game_asked_for_has_no_chart(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """/stats game: names a game to chart: with fewer than two games of it here, the answer
    says so, rather than leaving out the chart without a word."""
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        await cheerio_played(fake_discord, bot)
        for game, said in (
            ("hotscore", "No finished Hot Score games here yet, so no chart."),
            ("cheerio", "One finished Cheerio game here: a chart needs two."),
        ):
            stats = await answered(
                await fake_discord.slash(ALICE, GUILD, CHANNEL, "stats", {"game": game})
            )
            embed = stats.embeds[0]
            assert "image" not in embed and embed["footer"]["text"] == said, embed
            assert [f["name"] for f in embed["fields"]] == ["Cheerio"]
        unasked = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "stats"))
        assert "footer" not in unasked.embeds[0], "no game asked for, no word of a chart"
        no_errors(fake_discord)


SEED = 1


async def test_stats_show_the_rating_against_orchard(
    fake_discord: FakeDiscord, database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On one seed (a draw, which random seeds sometimes dealt, moves the rating otherwise)."""
    monkeypatch.setattr("bot.lobby.secrets.randbits", lambda bits: SEED)
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        opened = await answered(
            await fake_discord.slash(
                ALICE, GUILD, CHANNEL, "cheerio new", {"opponent": "orchard", "level": "easy"}
            )
        )
        assert opened.original is not None, opened.describe()
        (row,) = await bot.orchard.store.open_games(GUILD)
        await play_out(bot, row.id, {0: ALICE})
        ((won, score),) = await rows(
            database, "SELECT won, score FROM results WHERE user_id = ?", ALICE
        )
        ((mu, sigma),) = await rows(
            database, "SELECT mu, sigma FROM ratings WHERE user_id = ? AND pool = 'orchard'", ALICE
        )
        stats = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "stats"))
        (field,) = stats.embeds[0]["fields"]
        shown_rating = 1138 if won else 927  # a first game of two newcomers, as above
        assert round(1000 + 40 * conservative((mu, sigma))) == shown_rating
        assert f"vs Orchard: rating {shown_rating} · {won} of 1 won" in field["value"]
        assert field["value"].startswith("1 game\n") and "\nunrated ·" in field["value"]
        versus = "1 win" if won else "0 wins"  # no wins among people said beside it
        assert stats.embeds[0]["description"] == f"1 game · {versus} vs Orchard"
        wins = await answered(
            await fake_discord.slash(
                BOB, GUILD, CHANNEL, "leaderboard", {"game": "cheerio", "by": "wins"}
            )
        )
        assert wins.embeds[0]["description"] == (
            "No games between people here yet: only they count for wins and ratings."
        ), "Alice's game against Orchard gives her no place among people by wins"
        rating = await answered(
            await fake_discord.slash(BOB, GUILD, CHANNEL, "cheerio leaderboard")
        )
        assert rating.embeds[0]["description"] == wins.embeds[0]["description"], "nor by rating"
        best = await answered(
            await fake_discord.slash(
                BOB, GUILD, CHANNEL, "leaderboard", {"game": "cheerio", "by": "best"}
            )
        )
        line = f"**1.** <@{ALICE}> · **best {score}** · 1 game · average {score:.1f}"
        assert best.embeds[0]["description"] == line


async def test_history_of_one_game_says_none_of_that_game_not_none_at_all(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """/history game: for a game Alice has not played here read "No finished games yet.",
    though she has seven of other games: it names the game asked for."""
    server(fake_discord)
    await migrated(database)
    await seed_charts(database)
    async with orchard_bot(fake_discord, database):
        for options, said in (
            ({"game": "appletters"}, "No finished Appletters games here yet."),
            ({"user": BOB}, "No finished games here yet."),
        ):
            history = await answered(
                await fake_discord.slash(ALICE, GUILD, CHANNEL, "history", options)
            )
            assert history.embeds[0]["description"] == said, history.describe()
        cheerio = await answered(
            await fake_discord.slash(ALICE, GUILD, CHANNEL, "history", {"game": "cheerio"})
        )
        assert cheerio.embeds[0]["description"].count("**Cheerio**") == 3
        no_errors(fake_discord)


def hidden_channel(fake: FakeDiscord) -> int:
    """A second channel in the server that only Orchard and Alice (the owner) can view."""
    secret = CHANNEL + 1
    server(fake)
    fake.add_guild(GUILD, [CHANNEL, secret], [ALICE, BOB, CAROL])  # Alice owns it
    fake.channels[secret]["permission_overwrites"] = [
        {"id": str(GUILD), "type": 0, "allow": "0", "deny": str(VIEW_CHANNEL)},
        {"id": str(fake.bot_id), "type": 1, "allow": str(VIEW_CHANNEL), "deny": "0"},
    ]
    return secret


async def test_history_reads_on_past_a_hundred_games_the_asker_cannot_see(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Alice's latest hundred games are in a channel hidden from Carol: Carol's /history of
    Alice still finds the older one she can see, not that there are none."""
    secret = hidden_channel(fake_discord)
    await migrated(database)
    await finished_game(database, [Seat(ALICE, 111)], 500)
    for n in range(100):
        await finished_game(database, [Seat(ALICE, 200)], 600 + n, secret)
    async with orchard_bot(fake_discord, database):
        answer = await answered(
            await fake_discord.slash(CAROL, GUILD, CHANNEL, "history", {"user": ALICE})
        )
        shown = answer.embeds[0]["description"]
        assert "111" in shown and "200" not in shown, shown
        no_errors(fake_discord)


async def test_history_of_someone_else_reads_a_bounded_number_of_pages(
    database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past a bound, Carol's /history of Alice stops reading through games hidden from her
    (a person may have 100,000, each page a read): within it, the game she can see is found."""
    monkeypatch.setattr(results, "HISTORY_SCAN", 2)
    monkeypatch.setattr(results, "HISTORY_PAGES", 3)
    secret = CHANNEL + 1
    await migrated(database)
    await finished_game(database, [Seat(ALICE, 111)], 500)
    for n in range(5):  # two pages and a half: the visible one is on the third
        await finished_game(database, [Seat(ALICE, 200)], 600 + n, secret)
    carol = Viewer(CAROL, lambda channel: channel != secret)
    store = await Store.open(database)
    try:
        assert [game.kind for game in await store.history(GUILD, ALICE, viewer=carol)]
        await finished_game(database, [Seat(ALICE, 200)], 700, secret)  # now on the fourth
        assert await store.history(GUILD, ALICE, viewer=carol) == []
    finally:
        await store.close()


async def test_stats_answers_its_asker_alone_and_charts_only_games_they_can_see(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Carol's /stats of Alice is private, and its chart of Alice's scores leaves out the
    game in a channel hidden from Carol: the channel's readers never see it, nor does she."""
    secret = hidden_channel(fake_discord)
    await migrated(database)
    for at, score in ((500, 111), (501, 122)):
        await finished_game(database, [Seat(ALICE, score)], at)
    await finished_game(database, [Seat(ALICE, 144)], 502, secret)
    async with orchard_bot(fake_discord, database):

        async def charted(asker: int) -> str:
            options = {"user": ALICE, "game": "cheerio"}
            answer = await answered(
                await fake_discord.slash(asker, GUILD, CHANNEL, "stats", options)
            )
            assert answer.ephemeral, answer.describe()
            assert answer.original is not None
            return str(answer.original["attachments"][0].get("description", ""))

        carol = await charted(CAROL)
        assert "from 111 to 122" in carol and "144" not in carol, carol
        assert "from 111 to 144" in await charted(ALICE)
        no_errors(fake_discord)


async def test_history_tells_only_of_games_the_asker_played_or_can_see(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """/history answers its asker alone, and of someone else's games lists only those in
    channels the asker can view or that they played in: Alice's duel with Bob and her solo game
    in a channel hidden from both stay out of Carol's answer (the channel, Bob, the scores);
    Bob is told of the duel he played, not of the solo game; Alice of all three."""
    secret = hidden_channel(fake_discord)
    await migrated(database)
    await finished_game(database, [Seat(ALICE, 111)], 701)
    await finished_game(database, [Seat(ALICE, 122), Seat(BOB, 133, 2)], 702, secret)
    await finished_game(database, [Seat(ALICE, 144)], 703, secret)
    async with orchard_bot(fake_discord, database):

        async def history(asker: int) -> Any:
            options = {} if asker == ALICE else {"user": ALICE}
            answer = await answered(
                await fake_discord.slash(asker, GUILD, CHANNEL, "history", options)
            )
            assert answer.ephemeral, answer.describe()
            return answer.embeds[0]

        carol = await history(CAROL)
        assert "111" in carol["description"] and str(secret) not in carol["description"]
        assert not any(score in carol["description"] for score in ("122", "133", "144"))
        assert f"<@{BOB}>" not in carol["description"], carol
        assert carol["footer"]["text"] == HISTORY_OF_OTHERS
        bob = (await history(BOB))["description"]
        assert "111" in bob and "122" in bob and "133" in bob and "144" not in bob, bob
        alice = await history(ALICE)
        assert all(s in alice["description"] for s in ("111", "122", "144")), alice
        assert "footer" not in alice, alice
        no_errors(fake_discord)


async def test_stats_and_history_of_a_bot_are_refused_plainly(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Orchard's seats are no person's record: /stats or /history of Orchard once read "No
    finished games yet." though it had just played. A bot is refused, and for Orchard the
    asker is pointed to where its games are: their own "vs Orchard" line."""
    unpaced(fake_discord)
    server(fake_discord)
    other_bot = 7999
    fake_discord.add_user(other_bot, "Dicebot", bot=True)
    async with orchard_bot(fake_discord, database) as bot:
        await answered(
            await fake_discord.slash(
                ALICE, GUILD, CHANNEL, "cheerio new", {"opponent": "orchard", "level": "easy"}
            )
        )
        (row,) = await bot.orchard.store.open_games(GUILD)
        await play_out(bot, row.id, {0: ALICE})
        orchard_itself = fake_discord.bot_id
        said = {
            (orchard_itself, "stats"): "Orchard keeps no record of its own here: how you do"
            ' against it is the "vs Orchard" line of your own /stats.',
            (orchard_itself, "history"): "Orchard keeps no history of its own here: your games"
            ' against it are in your own /history, and the "vs Orchard" line of your /stats.',
            (other_bot, "stats"): "Dicebot is a bot: only people have a record here.",
            (other_bot, "history"): "Dicebot is a bot: only people have a record here.",
        }
        for (user, command), text in said.items():
            reply = await answered(
                await fake_discord.slash(BOB, GUILD, CHANNEL, command, {"user": user})
            )
            private(reply)
            assert reply.content == text, reply.describe()
        no_errors(fake_discord)


async def test_stats_say_of_how_many_games_the_win_rate_is(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """The win rate counts games between people only: beside a count of every game, solo
    ones too, it says of how many, or "2 games · 1 win (100%)" would read as a sum gone wrong."""
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        for others, users in (([BOB], {0: ALICE, 1: BOB}), ([], {0: ALICE})):
            await new_game(fake_discord, "cheerio", ALICE, others)
            (row,) = [g for g in await bot.orchard.store.open_games(GUILD) if g.status == "active"]
            await play_out(bot, row.id, users)
        ((won,),) = await rows(
            database, "SELECT won FROM results WHERE user_id = ? AND seats = 2", ALICE
        )
        ((bob_won,),) = await rows(database, "SELECT won FROM results WHERE user_id = ?", BOB)
        stats = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "stats"))
        (field,) = stats.embeds[0]["fields"]
        wins = "1 win" if won else "0 wins"
        rate = "100%" if won else "0%"
        assert field["value"].startswith(f"2 games · {wins} in 1 game with people ({rate})\n")
        board = await answered(
            await fake_discord.slash(
                ALICE, GUILD, CHANNEL, "leaderboard", {"game": "cheerio", "by": "wins"}
            )
        )
        lines = {
            line.split(" · ")[0].split(" ", 1)[1]: line.split(" · ")[1:3]
            for line in board.embeds[0]["description"].split("\n")
            if line.startswith("**")
        }
        bobs = "1 win" if bob_won else "0 wins"  # equal scores: both won
        assert lines == {  # as /stats says: wins of games with people, and of how many
            f"<@{ALICE}>": [f"**{wins} in 1 game with people**", "2 games"],
            f"<@{BOB}>": [f"**{bobs}**", "1 game"],
        }, board.embeds[0]["description"]
        no_errors(fake_discord)


async def test_history_keeps_the_seat_of_a_player_who_was_forgotten_since(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """/forget-me deletes the person's results, but not their seat at the others' games: Alice's
    game with Bob still reads as a game of two, not as one alone with a trophy (solo games
    have none)."""
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        await cheerio_played(fake_discord, bot)
        ((score, won),) = await rows(
            database, "SELECT score, won FROM results WHERE user_id = ?", ALICE
        )
        asked = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "forget-me"))
        await press(fake_discord, BOB, int(asked.original["id"]), "Forget me here")
        history = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "history"))
        line = history.embeds[0]["description"]
        trophy = " 🏆" if won else ""
        assert f" · <@{ALICE}> {score}{trophy}, Former player · [Final board](" in line, line
        no_errors(fake_discord)


async def test_solo_games_have_no_trophy(fake_discord: FakeDiscord, database: Target) -> None:
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [])
        (row,) = await bot.orchard.store.open_games(GUILD)
        await play_out(bot, row.id, {0: ALICE})
        assert await rows(database, "SELECT seats, won FROM results") == [(1, 0)]
        await fake_discord.wait_for(  # the last board edit follows the commit, and may wait
            lambda: "Game over" in text_of(fake_discord.message(board)),  # out the channel's
            15.0,  # limit of 5 edits per 5 s (fourteen moves were played at once)
            what="the final board",
        )
        standings = text_of(fake_discord.message(board))
        assert "Cheerio · Game over\n" in standings and "🏆" not in standings
        history = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "history"))
        line = history.embeds[0]["description"]
        assert f"<@{ALICE}> " in line and "🏆" not in line


async def test_a_hinted_game_is_marked_in_its_standings_and_history(
    fake_discord: FakeDiscord, database: Target
) -> None:
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        hint = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio hint"))
        assert hint.ephemeral and "expected final score" in hint.content
        (row,) = await bot.orchard.store.open_games(GUILD)
        await play_out(bot, row.id, {0: ALICE, 1: BOB})
        assert await rows(database, "SELECT hinted FROM results") == [(1,), (1,)]
        standings = text_of(fake_discord.message(board))
        assert "Cheerio · Game over · 💡 hinted\n" in standings
        history = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "history"))
        assert "💡 hinted" in history.embeds[0]["description"]

        plain = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        (row,) = await bot.orchard.store.open_games(GUILD)
        await play_out(bot, row.id, {0: ALICE, 1: BOB})
        assert "hinted" not in text_of(fake_discord.message(plain))
        history = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "history"))
        newest, older = history.embeds[0]["description"].split("\n")
        assert "hinted" not in newest and "💡 hinted" in older


ATTACH_FILES = 1 << 15


async def test_settings_refuse_a_channel_it_cannot_post_in_or_remove_one_not_listed(
    fake_discord: FakeDiscord, database: Target
) -> None:
    no_files, fine, unseen = CHANNEL + 1, CHANNEL + 2, CHANNEL + 3
    server(fake_discord)
    fake_discord.add_guild(GUILD, [CHANNEL, no_files, fine], [ALICE, BOB, CAROL])
    fake_discord.channels[no_files]["permission_overwrites"] = [
        {
            "id": str(fake_discord.bot_id),
            "type": 1,
            "allow": "0",
            "deny": str(ATTACH_FILES | 1 << 14),
        }
    ]  # no Attach Files, no Embed Links
    fake_discord.permissions[ALICE] = MANAGE_GUILD
    async with orchard_bot(fake_discord, database) as bot:
        fake_discord.channels[unseen] = fake_discord.channels[fine] | {"id": str(unseen)}

        async def add(channel: int) -> str:
            said = await answered(
                await fake_discord.slash(
                    ALICE, GUILD, CHANNEL, "settings", {"add_channel": channel}
                )
            )
            assert said.ephemeral
            return said.content

        assert await add(no_files) == (
            f"I cannot post in <#{no_files}>: give me Embed Links and Attach Files there."
        )
        assert await add(unseen) == "I cannot see that channel: give me View Channel there."
        fake_discord.app_permissions &= ~ATTACH_FILES  # Discord's word for this very channel
        assert await add(CHANNEL) == f"I cannot post in <#{CHANNEL}>: give me Attach Files there."
        assert (await bot.orchard.settings.get(GUILD)).game_channels == ()
        assert (await add(fine)).startswith("Saved.")
        assert (await bot.orchard.settings.get(GUILD)).game_channels == (fine,)
        unlisted = await answered(
            await fake_discord.slash(
                ALICE, GUILD, CHANNEL, "settings", {"remove_channel": CHANNEL, "hints": False}
            )
        )
        assert unlisted.content == f"<#{CHANNEL}> is not a game channel: nothing changed."
        assert (await bot.orchard.settings.get(GUILD)).hints, "nothing, not even the rest"


def test_settings_show_each_choice_as_its_menu_names_it() -> None:
    """Stored values read as code ("family", "dm"); /settings names them as the menus do,
    and says a player's own /pings choice wins only while the server's pings are on."""
    from cogs.servers import settings_text

    shown = settings_text(GuildSettings(word_list="family", turn_pings="dm"))
    assert "• Word list: Family list (common words)\n" in shown
    assert "• Apple Turnover words: Unchecked (players challenge)\n" in shown
    assert shown.endswith("• Turn pings: By DM (a player's own /pings choice wins over it)")
    assert settings_text(GuildSettings(turn_pings="off")).endswith("• Turn pings: Off")


async def test_settings_refuse_adding_and_removing_one_channel_at_once(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """``add_channel`` and ``remove_channel`` naming one channel ask for opposites: it said
    the channel was no game channel (not listed) or removed it and said "Saved." (listed),
    and changed the other settings with it. It is refused, and nothing changes."""
    other = CHANNEL + 1
    server(fake_discord)
    fake_discord.add_guild(GUILD, [CHANNEL, other], [ALICE, BOB, CAROL])
    fake_discord.permissions[ALICE] = MANAGE_GUILD
    both = {"add_channel": other, "remove_channel": other, "hints": False}
    said = f"You asked to both add and remove <#{other}> as a game channel: nothing changed."
    async with orchard_bot(fake_discord, database) as bot:
        for listed in ((), (other,)):
            await bot.orchard.settings.update(GUILD, game_channels=listed)
            refused = await answered(
                await fake_discord.slash(ALICE, GUILD, CHANNEL, "settings", both)
            )
            assert refused.ephemeral and refused.content == said, refused.describe()
            kept = await bot.orchard.settings.get(GUILD)
            assert kept.game_channels == listed and kept.hints, "nothing, not even the rest"
        no_errors(fake_discord)


async def listed_once_settled(
    bot: OrchardBot, expected: tuple[int, ...], guild_id: int = GUILD
) -> None:
    """Wait (5 s at most) until the server's game channels are ``expected``: a listener's
    write sends Discord nothing, so ``fake.wait_for`` has no request to wake on."""
    deadline = time.monotonic() + 5
    while (listed := (await bot.orchard.settings.get(guild_id)).game_channels) != expected:
        assert time.monotonic() < deadline, f"listed {listed}, not {expected}"
        await asyncio.sleep(0.02)


async def test_a_deleted_game_channel_leaves_the_list(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Games were allowed in two channels, which the admins then deleted. Discord's channel
    picker offers no deleted channel, so /settings remove_channel could never take one out:
    games would stay refused, pointing at channels that are gone, and with none left never
    allowed anywhere again. Each deleted channel leaves the list, and only that one."""
    games, other = CHANNEL + 1, CHANNEL + 2
    server(fake_discord)
    fake_discord.add_guild(GUILD, [CHANNEL, games, other], [ALICE, BOB, CAROL])
    fake_discord.permissions[ALICE] = MANAGE_GUILD
    async with orchard_bot(fake_discord, database) as bot:
        for channel in (games, other):
            said = await answered(
                await fake_discord.slash(
                    ALICE, GUILD, CHANNEL, "settings", {"add_channel": channel}
                )
            )
            assert said.content.startswith("Saved."), said.content

        await fake_discord.delete_channel(games)
        await listed_once_settled(bot, (other,))
        refused = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        assert refused.content == f"Games can only be started in <#{other}> on this server."

        await fake_discord.delete_channel(other)
        await listed_once_settled(bot, ())
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        assert "Games can only be started" not in (opened.content or ""), opened.describe()
        assert len(await bot.orchard.store.open_games(GUILD, CHANNEL)) == 1


async def test_a_deleted_channel_or_thread_ends_its_games_at_once(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Nobody can see or play a game in a deleted channel or thread: it ends there and then
    (as a server's do when Orchard is removed: nobody losing, nothing shown), rather than
    stay in /games, out of /forfeit's reach, until the clock played it out unseen."""
    thread, doomed = CHANNEL + 10, CHANNEL + 1
    server(fake_discord)
    fake_discord.add_guild(GUILD, [CHANNEL, doomed], [ALICE, BOB, CAROL])
    fake_discord.add_thread(thread, CHANNEL)
    async with orchard_bot(fake_discord, database) as bot:
        for user, channel in ((ALICE, thread), (BOB, doomed), (CAROL, CHANNEL)):
            await new_game(fake_discord, "cheerio", user, [], channel=channel)
        store = bot.orchard.store

        async def open_in() -> set[int]:
            return {game.channel_id for game in await store.open_games(GUILD)}

        async def open_only_in(*channels: int) -> bool:
            return await open_in() == set(channels)

        await fake_discord.delete_channel(thread)
        await until(lambda: open_only_in(doomed, CHANNEL), 5.0)
        await fake_discord.delete_channel(doomed)
        await until(lambda: open_only_in(CHANNEL), 5.0)
        ended = [await store.get_game(game_id) for game_id in (1, 2)]
        assert [row.status for row in ended if row] == ["abandoned", "abandoned"]
        listed = await answered(await fake_discord.slash(CAROL, GUILD, CHANNEL, "games"))
        assert "#3" in listed.text and "#1" not in listed.text and "#2" not in listed.text


async def test_show_again_says_why_a_board_cannot_be_posted_again(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """/games' Show again, for a game whose channel was deleted while Orchard did not hear
    (it ends then, as one heard ends it), and for one in a channel Discord refuses Orchard's
    posts in (it names what to grant): an answer, not "something went wrong"."""
    gone = CHANNEL + 1
    server(fake_discord)
    fake_discord.add_guild(GUILD, [CHANNEL, gone], [ALICE, BOB, CAROL])
    async with orchard_bot(fake_discord, database) as bot:
        await new_game(fake_discord, "cheerio", ALICE, [], channel=gone)
        await new_game(fake_discord, "cheerio", ALICE, [], channel=CHANNEL)
        await fake_discord.delete_channel(gone, heard=False)

        async def show_again(game_id: int) -> str:
            listed = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "games"))
            shown = int(listed.original["id"])
            button = fake_discord.find_button(shown, f"Show #{game_id} again")
            return (await answered(await fake_discord.click(ALICE, shown, button))).content

        said = await show_again(1)
        assert said == "This game's channel was deleted, so the game has ended, without results."
        ended = await bot.orchard.store.get_game(1)
        assert ended is not None and ended.status == "abandoned"
        fake_discord.fail("POST", rf"/channels/{CHANNEL}/messages$", 403)
        # Orchard has every permission there, by Discord's word: yet its post was refused.
        assert await show_again(2) == (
            f"I may not post in <#{CHANNEL}> any more, so I cannot show this game there: ask "
            "someone who can to let me see it and post there (a private thread: add me to it)."
        )
        fake_discord.fail("POST", rf"/channels/{CHANNEL}/messages$", 400, code=50083)
        assert (
            await show_again(2) == f"<#{CHANNEL}> is locked: someone who can must unlock it first."
        )
        no_files = {"id": str(fake_discord.bot_id), "type": 1, "allow": "0", "deny": str(1 << 15)}
        fake_discord.channels[CHANNEL]["permission_overwrites"] = [no_files]  # Attach Files
        fake_discord.fail("POST", rf"/channels/{CHANNEL}/messages$", 403)
        assert (await show_again(2)).endswith("ask someone who can to give me Attach Files there.")
        no_errors(fake_discord)


async def _listed_then_deleted_unheard(fake: FakeDiscord, database: Target) -> int:
    """Two game channels listed, then one deleted while Orchard is down: the one kept."""
    gone, kept = CHANNEL + 1, CHANNEL + 2
    server(fake)
    fake.add_guild(GUILD, [CHANNEL, gone, kept], [ALICE, BOB, CAROL])
    async with orchard_bot(fake, database) as bot:
        await bot.orchard.settings.update(GUILD, add_channels=[gone, kept])
    await fake.delete_channel(gone, heard=False)
    return kept


async def test_a_game_channel_deleted_while_orchard_was_down_leaves_the_list(
    fake_discord: FakeDiscord, database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game channel deleted while Orchard was down: no CHANNEL_DELETE ever reaches it, and
    Discord's channel picker offers no deleted channel, so nobody could take it out of the
    list, and games would stay refused, pointing at it. Once the server's channels arrive at
    start-up, it leaves the list, and only it. A start-up with nothing missing writes
    nothing (it runs for every server, each time Orchard connects)."""
    kept = await _listed_then_deleted_unheard(fake_discord, database)
    async with orchard_bot(fake_discord, database) as bot:
        await listed_once_settled(bot, (kept,))
        refused = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        assert refused.content == f"Games can only be started in <#{kept}> on this server."

        written: list[int] = []

        async def noted(guild_id: int, *args: object, **kwargs: object) -> None:
            written.append(guild_id)
            raise AssertionError("written")

        monkeypatch.setattr(bot.orchard.store, "update_guild_settings", noted)
        guild = bot.get_guild(GUILD)
        assert guild is not None
        for cog in bot.cogs.values():  # as at the next start-up: nothing is missing
            heard = getattr(cog, "on_servers_available", None)
            if heard is not None:
                await heard([guild])
        assert written == []
        assert (await bot.orchard.settings.get(GUILD)).game_channels == (kept,)
        no_errors(fake_discord)


MANY_SERVERS = 40


def counted_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The SQL of every read (outside a transaction) made by a store opened from now on."""
    reads: list[str] = []
    opened = Store.open

    async def counting(target: Target) -> Store:
        store = await opened(target)
        for name in ("fetchall", "lookup"):
            read = getattr(store.db, name)

            async def counted(sql: str, params: Any = (), read: Any = read) -> Any:
                reads.append(sql)
                return await read(sql, params)

            monkeypatch.setattr(store.db, name, counted)
        return store

    monkeypatch.setattr(Store, "open", staticmethod(counting))
    return reads


async def test_servers_arriving_at_start_up_cost_one_read_of_each_kind(
    fake_discord: FakeDiscord, database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At start-up every server arrives at once: read one by one, a thousand servers' settings
    and daily channels would be two thousand queries before play. Each shard's servers are
    read in one query of each, whatever their number, and what is done with them is
    unchanged: each server's own settings are in force (and kept: no move reads them again
    on a store only this process writes), and the game channel and daily channel deleted
    while Orchard was down are let go, the other servers' kept."""
    servers = [GUILD + 1 + i for i in range(MANY_SERVERS)]
    games = {guild_id: CHANNEL + 1000 + 3 * i for i, guild_id in enumerate(servers)}
    daily = {guild_id: channel + 1 for guild_id, channel in games.items()}
    server(fake_discord)
    store = await Store.open(database)
    for i, guild_id in enumerate(servers):
        channels = [games[guild_id], daily[guild_id], games[guild_id] + 2]
        fake_discord.add_guild(guild_id, channels, [ALICE])
        stored = {"turn_seconds": 60 + i, "game_channels": [games[guild_id]]}
        await store.set_guild_settings(guild_id, stored)
        await DailyStore(store.db).set_channel(guild_id, daily[guild_id])
    await store.close()
    last = servers[-1]
    await fake_discord.delete_channel(games[last], heard=False)
    await fake_discord.delete_channel(daily[last], heard=False)
    reads = counted_reads(monkeypatch)

    async with orchard_bot(fake_discord, database) as bot:
        await _let_go(database, last)
        arrivals = [
            r for r in reads if re.search(r"FROM (guild_settings|daily_channels) WHERE guild_id", r)
        ]
        assert len(arrivals) == 2, f"{len(arrivals)} reads for {len(servers) + 1} servers"
        for i, guild_id in enumerate(servers):
            settings = await bot.orchard.settings.get(guild_id)
            assert settings.turn_seconds == 60 + i
            assert settings.game_channels == (() if guild_id == last else (games[guild_id],))
        if not bot.orchard.store.shared:
            settings_reads = [r for r in reads if "FROM guild_settings WHERE" in r]
            assert len(settings_reads) == 1, settings_reads  # (not the list of servers stored)
        chosen = await query(database, "SELECT guild_id, channel_id FROM daily_channels")
        assert sorted(chosen) == [(g, daily[g]) for g in servers if g != last]
        no_errors(fake_discord)


async def _let_go(database: Target, guild_id: int) -> None:
    """Wait (5 s at most) until the server has no game channel listed and no daily channel,
    read beside the store (whose reads are being counted)."""
    deadline = time.monotonic() + 5
    while True:
        stored = await query(
            database, "SELECT settings FROM guild_settings WHERE guild_id = ?", guild_id
        )
        chosen = await query(
            database, "SELECT channel_id FROM daily_channels WHERE guild_id = ?", guild_id
        )
        if not chosen and not json.loads(stored[0][0]).get("game_channels"):
            return
        assert time.monotonic() < deadline, f"still listed: {stored}, daily {chosen}"
        await asyncio.sleep(0.02)


async def test_a_server_in_an_outage_keeps_its_game_channels_until_they_arrive(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Orchard starts while Discord cannot send one server's channels (an outage): the
    server is known only by id, and none of its channels, so none may be taken for deleted.
    When the server becomes available, the one deleted meanwhile leaves the list."""
    kept = await _listed_then_deleted_unheard(fake_discord, database)
    fake_discord.outages.add(GUILD)
    async with orchard_bot(fake_discord, database) as bot:
        guild = bot.get_guild(GUILD)
        assert guild is not None and guild.unavailable and not guild.channels
        await fake_discord.end_outage(GUILD)
        await listed_once_settled(bot, (kept,))
        no_errors(fake_discord)


async def test_channels_deleted_in_an_outage_that_ends_while_orchard_runs_are_dropped(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Two servers go unavailable while Orchard runs (a Discord outage), and in each a game
    channel is deleted meanwhile, in the first the daily board's channel too: no
    CHANNEL_DELETE reaches Orchard. When the first is back, discord.py merges the channels
    its GUILD_CREATE brings into the server it kept, so the deleted ones stayed there and
    Orchard kept pointing at them until its next start. They leave Orchard's lists when
    the server is back; the channels still there stay, and the server still in its outage
    keeps its channels until they arrive."""
    gone, kept, daily_gone = CHANNEL + 1, CHANNEL + 2, CHANNEL + 3
    other = GUILD + 1
    other_gone, other_kept, other_daily = CHANNEL + 11, CHANNEL + 12, CHANNEL + 13
    server(fake_discord)
    fake_discord.add_guild(GUILD, [CHANNEL, gone, kept, daily_gone], [ALICE, BOB])
    fake_discord.add_guild(other, [CHANNEL + 10, other_gone, other_kept, other_daily], [ALICE])
    async with orchard_bot(fake_discord, database) as bot:
        dailies: Any = bot.get_cog("DailyCog")
        chosen = {GUILD: daily_gone, other: other_daily}
        for guild_id, channels in ((GUILD, [gone, kept]), (other, [other_gone, other_kept])):
            await bot.orchard.settings.update(guild_id, add_channels=channels)
            await dailies.dailies.choose_channel(guild_id, chosen[guild_id])
            await fake_discord.begin_outage(guild_id)
        await fake_discord.wait_for(
            lambda: all(g.unavailable for g in bot.guilds), 5, "both servers unavailable"
        )
        for channel in (gone, daily_gone, other_gone):
            await fake_discord.delete_channel(channel)

        async def daily_channel(guild_id: int) -> int | None:
            chosen = await bot.orchard.store.daily_channel(guild_id)
            return None if chosen is None else chosen.channel_id

        await fake_discord.end_outage(GUILD)
        await listed_once_settled(bot, (kept,))
        deadline = time.monotonic() + 5
        while await daily_channel(GUILD) is not None:
            assert time.monotonic() < deadline, "the deleted daily channel is still chosen"
            await asyncio.sleep(0.02)

        listed = (await bot.orchard.settings.get(other)).game_channels
        assert sorted(listed) == [other_gone, other_kept], "unknown while unavailable"
        assert await daily_channel(other) == other_daily
        await fake_discord.end_outage(other)
        await listed_once_settled(bot, (other_kept,), other)
        guild = bot.get_guild(other)
        assert guild is not None and not guild.unavailable
        for cog in bot.cogs.values():  # run to their end: the daily channel still there stays
            heard = getattr(cog, "on_guild_available", None)
            if heard is not None:
                await heard(guild)
        assert await daily_channel(other) == other_daily
        assert (await bot.orchard.settings.get(other)).game_channels == (other_kept,)
        no_errors(fake_discord)


async def test_board_and_forget_me_buttons_apologise_for_unexpected_errors(
    fake_discord: FakeDiscord, database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    server(fake_discord)
    await migrated(database)
    await seed_results(database, 12)
    async with orchard_bot(fake_discord, database) as bot:
        shown_board = await answered(
            await fake_discord.slash(
                ALICE, GUILD, CHANNEL, "leaderboard", {"game": "cheerio", "by": "best"}
            )
        )
        asked = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "forget-me"))

        async def broken(*args: object, **kwargs: object) -> None:
            raise RuntimeError("the disk is on fire")

        monkeypatch.setattr(bot.orchard.store, "leaderboard_with_records", broken)
        monkeypatch.setattr(bot.orchard.store, "forget_user", broken)
        for message, label in (
            (int(shown_board.original["id"]), "Next ▶"),
            (int(asked.original["id"]), "Forget me here"),
        ):
            sorry = await press(fake_discord, ALICE, message, label)
            assert sorry.ephemeral and "Sorry, something went wrong" in sorry.content, label
            assert re.search(r"\(error [0-9a-f]{8}\)", sorry.content)
        assert await rows(database, f"SELECT COUNT(*) FROM results WHERE user_id = {ALICE}") == [
            (1,)
        ]


def test_a_board_line_shows_wins_games_best_and_average_with_the_ranked_one_first() -> None:
    from cogs.leaderboards import board_figures

    record = (5, 9, 245.0, 187.3, 9)
    assert board_figures("best", 245.0, record) == "**best 245** · 5 wins · 9 games · average 187.3"
    assert board_figures("wins", 5.0, record) == "**5 wins** · 9 games · best 245 · average 187.3"
    rating = board_figures("rating", 31.25, record)  # 1000 + 40 x 31.25
    assert rating.startswith("**rating 2250** · 5 wins · 9 games")
    assert (
        board_figures("wins", 1.0, (1, 1, 9.0, 9.0, 1))
        == "**1 win** · 1 game · best 9 · average 9.0"
    )
    some_alone = (2, 5, 245.0, 187.3, 3)  # two of the five games were solo or Orchard's
    assert board_figures("wins", 2.0, some_alone) == (
        "**2 wins in 3 games with people** · 5 games · best 245 · average 187.3"
    )
    assert board_figures("best", 245.0, some_alone).startswith(
        "**best 245** · 2 wins in 3 games with people · 5 games ·"
    )


def test_two_orchard_seats_at_one_level_still_rate_the_people() -> None:
    from bot.games.base import SeatResult
    from bot.model import GameRow, Player
    from bot.runner import _rating

    easy = Player(1, 9, "Orchard (Easy)", is_bot=True, level="easy")
    seats = (Player(0, 1, "Ann"), easy, replace(easy, seat=2), Player(3, 2, "Bo"))
    row = GameRow(1, "cheerio", "", 100, 200, None, 1, "finished", 7, {}, None, 5, None, 0, 0)
    ranked = [SeatResult(2, 90, 1, True), SeatResult(0, 80, 2, False)]
    ranked += [SeatResult(1, 70, 3, False), SeatResult(3, 60, 4, False)]
    update = _rating(replace(row, players=seats), ranked)
    assert update is not None and update.pool == "orchard"
    assert list(update.places) == [(-1, 1), (1, 2), (2, 4)]
    new = update.rate({}, update.places)
    assert new[-1][0] > new[1][0] > new[2][0], "places with a gap rate in order"


def test_a_refused_daily_board_names_what_to_grant_or_that_all_is_granted() -> None:
    """/settings names what Orchard lacks in the daily channel now; all it needs when it
    cannot tell (a channel it cannot see); and, once granted, that the next board goes."""
    from cogs.servers import daily_channel_text

    refused = DailyChannel(CHANNEL, refused_day=20_000)
    start = f"<#{CHANNEL}> ⚠️ the board of 3 October was not posted"  # day 20,000: 3 October 2080
    assert daily_channel_text(None) == "none"
    assert daily_channel_text(DailyChannel(CHANNEL), []) == f"<#{CHANNEL}>"
    assert daily_channel_text(refused, ["Embed Links"]) == (
        f"{start}: Orchard may not post there. Give it Embed Links in that channel,"
        " or choose another"
    )
    assert "Give it View Channel, Send Messages and Embed Links" in daily_channel_text(refused)
    assert daily_channel_text(refused, []) == (
        f"{start}; Orchard may post there now, so the next board goes there"
    )


async def test_appletters_scores_are_said_to_be_tiles_left(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """An Appletters score counts the tiles left, fewest wins: /history, /stats and the
    leaderboard say so, or a winner's score below the loser's reads as a slip."""
    unpaced(fake_discord)
    server(fake_discord)
    async with orchard_bot(fake_discord, database):
        await new_game(fake_discord, "appletters", ALICE, [BOB])
        await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "forfeit"))
        history = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "history"))
        line = history.embeds[0]["description"]
        assert re.search(rf"<@{ALICE}> \d+ 🏆, <@{BOB}> \d+ \(tiles left\) · ", line), line
        stats = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "stats"))
        (field,) = stats.embeds[0]["fields"]
        assert re.search(r"best \d+ · average [0-9.]+ \(tiles left\)\n", field["value"]), field
        board = await answered(
            await fake_discord.slash(ALICE, GUILD, CHANNEL, "leaderboard", {"game": "appletters"})
        )
        footer = board.embeds[0]["footer"]["text"]
        assert footer == "Page 1 of 1 · scores are tiles left: fewer is better", footer
        cheerio = await answered(
            await fake_discord.slash(ALICE, GUILD, CHANNEL, "leaderboard", {"game": "cheerio"})
        )
        assert cheerio.embeds[0]["footer"]["text"] == "Page 1 of 1"
        no_errors(fake_discord)


async def test_one_server_s_failed_write_at_start_up_leaves_the_others_checked(
    fake_discord: FakeDiscord, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shard's servers are checked together at start-up: one whose write fails (its
    deleted channels cannot be let go) is logged, and the servers after it are still
    checked, as when each was checked on its own."""
    from bot.dailies import Dailies
    from bot.settings import Settings

    database = tmp_path / "orchard.db"
    servers = [GUILD + 1, GUILD + 2, GUILD + 3]
    games = {guild_id: CHANNEL + 100 + 2 * i for i, guild_id in enumerate(servers)}
    server(fake_discord)
    store = await Store.open(database)
    for guild_id in servers:
        fake_discord.add_guild(guild_id, [games[guild_id], games[guild_id] + 1], [ALICE])
        await store.set_guild_settings(guild_id, {"game_channels": [games[guild_id]]})
        await DailyStore(store.db).set_channel(guild_id, games[guild_id] + 1)
    await store.close()
    for guild_id in servers:
        await fake_discord.delete_channel(games[guild_id], heard=False)
        await fake_discord.delete_channel(games[guild_id] + 1, heard=False)
    failing = servers[0]
    update, gone = Settings.update, Dailies.channel_gone

    async def failing_update(self: Settings, guild_id: int, **changes: Any) -> Any:
        if guild_id == failing:
            raise sqlite3.OperationalError("disk I/O error")
        return await update(self, guild_id, **changes)

    async def failing_gone(self: Dailies, guild_id: int, channel_id: int) -> bool:
        if guild_id == failing:
            raise sqlite3.OperationalError("disk I/O error")
        return await gone(self, guild_id, channel_id)

    monkeypatch.setattr(Settings, "update", failing_update)
    monkeypatch.setattr(Dailies, "channel_gone", failing_gone)
    async with orchard_bot(fake_discord, database):
        for guild_id in servers[1:]:
            await _let_go(database, guild_id)
        logged = [r.getMessage() for r in fake_discord.errors]
        assert any(f"server {failing}'s game channels" in m for m in logged), logged
        assert any(f"server {failing}'s deleted daily channel" in m for m in logged), logged


async def test_channels_deleted_while_orchard_was_out_of_a_server_go_when_it_is_back(
    fake_discord: FakeDiscord, tmp_path: Any
) -> None:
    """A server's admins remove Orchard, delete its game channel and the daily board's
    channel, and invite it back: nothing told it of the deletions, and the server keeps its
    settings for 30 days. Left listed, the deleted game channel would confine every game to a
    channel that is gone, and Discord's channel picker offers no deleted channel to take it
    out. The server's channels as it joins again are its channels: the deleted ones go."""
    database = tmp_path / "orchard.db"
    gone, kept, daily_gone = CHANNEL + 1, CHANNEL + 2, CHANNEL + 3
    server(fake_discord)
    fake_discord.add_guild(GUILD + 1, [gone, kept, daily_gone], [ALICE])
    async with orchard_bot(fake_discord, database) as bot:
        dailies: Any = bot.get_cog("DailyCog")
        await bot.orchard.settings.update(GUILD + 1, add_channels=[gone, kept])
        await dailies.dailies.choose_channel(GUILD + 1, daily_gone)
        await fake_discord.remove_bot(GUILD + 1)
        await fake_discord.wait_for(lambda: bot.get_guild(GUILD + 1) is None, 5, "removed")
        for channel in (gone, daily_gone):
            await fake_discord.delete_channel(channel)
        await fake_discord.add_bot(GUILD + 1)
        await listed_once_settled(bot, (kept,), GUILD + 1)
        deadline = time.monotonic() + 5
        while await bot.orchard.store.daily_channel(GUILD + 1) is not None:
            assert time.monotonic() < deadline, "the deleted daily channel is still chosen"
            await asyncio.sleep(0.02)
        no_errors(fake_discord)


async def test_a_server_that_invited_orchard_back_while_it_was_down_is_not_purged(
    fake_discord: FakeDiscord, tmp_path: Any
) -> None:
    """Orchard is removed, and invited back while it is down: at the restart the server
    arrives as available, never as joined. Its departure goes all the same, or 30 days on
    the purge would delete every game, result and setting of a server Orchard plays in."""
    database = tmp_path / "orchard.db"
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        await bot.orchard.settings.update(GUILD, hints=False)
        await fake_discord.remove_bot(GUILD)
        await fake_discord.wait_for(lambda: bot.get_guild(GUILD) is None, 5, "removed")
        deadline = time.monotonic() + 5
        while await rows(database, "SELECT guild_id FROM guild_departures") != [(GUILD,)]:
            assert time.monotonic() < deadline, "the departure was never recorded"
            await asyncio.sleep(0.02)
    fake_discord.removed.discard(GUILD)  # invited back while Orchard is down
    async with orchard_bot(fake_discord, database) as bot:
        deadline = time.monotonic() + 5
        while await rows(database, "SELECT guild_id FROM guild_departures") != []:
            assert time.monotonic() < deadline, "still due for the purge"
            await asyncio.sleep(0.02)
        assert await bot.orchard.purge_departed(time.time() + 31 * 86400) == []
        assert not (await bot.orchard.settings.get(GUILD)).hints


async def test_a_server_that_removed_orchard_while_it_was_down_is_found_at_the_restart(
    fake_discord: FakeDiscord, tmp_path: Any
) -> None:
    """Orchard is removed while it is down: no removal is ever heard. At the restart its shard
    lists the servers Orchard is in, and a server with rows here that is not among them is
    left then: its 30 days start (else its data stayed for good), its open games end."""
    database = tmp_path / "orchard.db"
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        await bot.orchard.settings.update(GUILD, hints=False)
        await new_game(fake_discord, "cheerio", ALICE, [BOB])
        (game,) = await bot.orchard.store.open_games(GUILD)
    fake_discord.removed.add(GUILD)  # removed while Orchard is down
    async with orchard_bot(fake_discord, database) as bot:
        deadline = time.monotonic() + 5
        # Leaving records the departure, then ends the games: wait for the last of the two.
        while (await bot.orchard.runner.load(game.id)).row.status != "abandoned":
            assert time.monotonic() < deadline, "its open game never ended"
            await asyncio.sleep(0.02)
        assert await rows(database, "SELECT guild_id FROM guild_departures") == [(GUILD,)]
        assert await bot.orchard.purge_departed(time.time() + 31 * 86400) == [GUILD]


async def test_a_server_that_removes_orchard_has_its_games_ended_with_no_result(
    fake_discord: FakeDiscord, tmp_path: Any
) -> None:
    """Nobody can click a game in a server that removed Orchard: left open, the clock would
    play it out, remove its players one by one and hand the last a win and a rating. It ends
    as /end does, nobody losing; a daily game, played in private from any server, goes on."""
    database = tmp_path / "orchard.db"
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        await new_game(fake_discord, "cheerio", ALICE, [BOB])
        await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "daily"))
        (game,) = [g for g in await bot.orchard.store.open_games(GUILD) if g.players[1:]]
        await fake_discord.remove_bot(GUILD)
        deadline = time.monotonic() + 5
        while (await bot.orchard.runner.load(game.id)).row.status.is_open:
            assert time.monotonic() < deadline, "the game is still open"
            await asyncio.sleep(0.02)
        assert (await bot.orchard.runner.load(game.id)).row.status == "abandoned"
        while game.id in bot.orchard.runner._writes:  # shown nowhere, so forgotten at once
            assert time.monotonic() < deadline, "kept in memory for good"
            await asyncio.sleep(0.02)
        assert game.id not in bot.orchard.runner.undrawn(), "nor queued to be drawn anew"
        (daily,) = await bot.orchard.store.open_games(GUILD)
        assert daily.status == "active" and daily.id != game.id
        assert await rows(database, "SELECT COUNT(*) FROM results") == [(0,)]
        no_errors(fake_discord)


def logged(caplog: pytest.LogCaptureFixture, words: str) -> list[str]:
    """The INFO lines logged so far that contain ``words``."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.INFO and words in r.getMessage()
    ]


async def until_logged(caplog: pytest.LogCaptureFixture, words: str) -> str:
    deadline = time.monotonic() + 5
    while not logged(caplog, words):
        assert time.monotonic() < deadline, f"never logged: {words}"
        await asyncio.sleep(0.02)
    (line,) = logged(caplog, words)
    return line


async def test_the_operator_reads_at_info_when_orchard_is_ready_joins_leaves_and_purges(
    fake_discord: FakeDiscord, tmp_path: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """At INFO an operator never learned that the bot served, nor which servers it joined,
    left or forgot: one line each, by server id (no person's name, no message)."""
    caplog.set_level(logging.INFO)
    server(fake_discord)
    fake_discord.add_guild(GUILD + 1, [CHANNEL + 1], [ALICE])
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        ready = await until_logged(caplog, "Orchard is ready as")
        assert "in 2 servers" in ready and f"client_id={fake_discord.application_id}" in ready
        await new_game(fake_discord, "cheerio", ALICE, [BOB])
        await fake_discord.remove_bot(GUILD)
        left = await until_logged(caplog, f"left server {GUILD}")
        assert "ended 1 open game(s)" in left
        await fake_discord.add_bot(GUILD)
        await until_logged(caplog, f"joined server {GUILD}")
        await bot.orchard.store.guild_left(GUILD + 1, time.time() - 31 * 86400)
        cog: Any = bot.get_cog("ServersCog")
        await cog._purge()
        purged = await until_logged(caplog, "removed every row of 1 server(s)")
        assert purged.endswith(str(GUILD + 1))
    names = [str(ALICE), str(BOB)]  # the fake names each person user<id>
    assert not [r for r in caplog.records for n in names if n in r.getMessage()]


async def test_nobody_joins_a_lobby_from_outside_its_channel(
    fake_discord: FakeDiscord, tmp_path: Any
) -> None:
    """Carol cannot see the channel of Alice's lobby. A Join press forged from a message she
    can see (game ids are easy to guess) would seat her: its DMs, its links, its moves. A
    lobby's buttons count only from its own channel, where its message is."""
    hidden = CHANNEL + 1
    server(fake_discord)
    fake_discord.add_guild(GUILD, [CHANNEL, hidden], [ALICE, BOB, CAROL])
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        await answered(await fake_discord.slash(ALICE, GUILD, hidden, "cheerio new"))
        (lobby,) = await bot.orchard.store.open_games(GUILD)
        mine = await answered(await fake_discord.slash(CAROL, GUILD, CHANNEL, "hotscore new"))
        assert mine.original is not None
        forged = f"orc:{lobby.id}:0:lobby_join:"
        refused = await answered(await fake_discord.forge(CAROL, int(mine.original["id"]), forged))
        assert refused.ephemeral, refused.describe()
        assert (await bot.orchard.runner.load(lobby.id)).row.seat_of(CAROL) is None
        no_errors(fake_discord)


async def forget_me(fake_discord: FakeDiscord, user_id: int) -> str:
    """``user_id``'s /forget-me in the server, confirmed: the answer's text."""
    asked = await answered(await fake_discord.slash(user_id, GUILD, CHANNEL, "forget-me"))
    confirm = int(asked.original["id"])
    button = fake_discord.find_button(confirm, "Forget me here")
    return str((await answered(await fake_discord.click(user_id, confirm, button))).content)


async def forget_me_everywhere(fake_discord: FakeDiscord, user_id: int) -> None:
    """``user_id``'s /forget-me in a DM with Orchard, confirmed for every server."""
    asked = await answered(await fake_discord.slash(user_id, None, None, "forget-me"))
    done = await press(fake_discord, user_id, int(asked.original["id"]), "Forget me everywhere")
    assert done.content.startswith("Done"), done.content


async def test_a_lobby_its_host_left_by_forget_me_says_so_not_that_they_cancelled_it(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Alice hosts a lobby, then uses /forget-me: the lobby closes, and its message says its
    host left Orchard's games, not that the host cancelled it (she pressed nothing), and no
    longer names her. A redraw from the store (after a restart) says the same."""
    server(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        opened = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
        lobby = int(opened.original["id"])
        await press(fake_discord, BOB, lobby, "Join")
        (row,) = await bot.orchard.store.open_games(GUILD)
        assert (await forget_me(fake_discord, ALICE)).startswith("Done")
        closed = text_of(fake_discord.message(lobby))
        assert "lobby closed" in closed and "Its host left Orchard's games" in closed, closed
        assert "cancelled" not in closed and "Alice" not in closed, closed
        no_errors(fake_discord)
    async with orchard_bot(fake_discord, database) as bot:
        redrawn = (await bot.boards.render(await bot.orchard.runner.load(row.id))).board.status
        assert redrawn == "Its host left Orchard's games, so it closed.", "read from the store"


async def test_forget_me_redraws_the_posted_boards_of_finished_games_without_the_name(
    fake_discord: FakeDiscord, database: Target
) -> None:
    """Carol played a game to its end and sat in a lobby its host cancelled: both messages,
    posted long ago, name her. After her /forget-me they are drawn anew without her name (as
    the prompt says), in the background. A board someone deleted stays deleted; a game she
    never played is left alone."""
    server(fake_discord)
    unpaced(fake_discord)  # the game is played to its end by calling the runner
    async with orchard_bot(fake_discord, database) as bot:
        bot.boards.anew_pause = 0.0
        board = await new_game(fake_discord, "cheerio", ALICE, [CAROL])
        (played,) = await bot.orchard.store.open_games(GUILD)
        await finish_cheerio(bot.orchard, played.id, {0: ALICE, 1: CAROL})
        opened = await answered(await fake_discord.slash(BOB, GUILD, CHANNEL, "hotscore new"))
        lobby = int(opened.original["id"])
        await press(fake_discord, CAROL, lobby, "Join")
        await press(fake_discord, BOB, lobby, "Cancel")
        gone = await new_game(fake_discord, "cheerio", BOB, [CAROL])
        (deleted,) = await bot.orchard.store.open_games(GUILD)
        await finish_cheerio(bot.orchard, deleted.id, {0: BOB, 1: CAROL})
        fake_discord._delete_message(gone)  # by a moderator
        other = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        assert "Game over" in text_of(fake_discord.message(board))
        assert "Carol" in text_of(fake_discord.message(board))
        assert "Carol" in text_of(fake_discord.message(lobby))
        untouched = len(fake_discord.versions[other])

        asked = await answered(await fake_discord.slash(CAROL, GUILD, CHANNEL, "forget-me"))
        assert "daily boards that show you, are redrawn without your name" in asked.content
        assert "other messages that name you, such as a game's end, stay" in asked.content
        done = await press(fake_discord, CAROL, int(asked.original["id"]), "Forget me here")
        assert done.content.endswith(
            "your name is gone from this server's games; the boards that show it are redrawn"
            " without it over the next minutes."
        ), done.content
        await fake_discord.wait_for(
            lambda: all("Carol" not in text_of(fake_discord.message(m)) for m in (board, lobby)),
            what="the boards drawn anew without Carol",
        )
        assert "Former player" in text_of(fake_discord.message(board))
        assert "The host cancelled it." in text_of(fake_discord.message(lobby))
        assert gone not in fake_discord.messages
        boards = [m for m in fake_discord.channel_messages(CHANNEL) if m.get("components")]
        assert len(boards) == 3, "a deleted board is not posted again"
        assert len(fake_discord.versions[other]) == untouched
        no_errors(fake_discord)


async def test_forget_me_redraws_the_rest_of_the_boards_after_a_restart(
    fake_discord: FakeDiscord, database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Carol played three games to their end here, then used /forget-me in a direct message.
    Orchard stops after drawing one of their boards anew; started again on the same
    database, it draws the other two without her name, from the queue the erasure stored
    (game ids only, emptied as they are drawn)."""
    server(fake_discord)
    unpaced(fake_discord)  # the games are played to their end by calling the runner
    monkeypatch.setattr("bot.boards.ANEW_PAUSE", 3600.0)  # stopped in the first pause
    boards: list[int] = []

    def naming_carol() -> list[int]:
        return [b for b in boards if "Carol" in text_of(fake_discord.message(b))]

    async with orchard_bot(fake_discord, database) as bot:
        for _ in range(3):
            boards.append(await new_game(fake_discord, "cheerio", ALICE, [CAROL]))
            (played,) = await bot.orchard.store.open_games(GUILD)
            await finish_cheerio(bot.orchard, played.id, {0: ALICE, 1: CAROL})
        assert naming_carol() == boards
        await forget_me_everywhere(fake_discord, CAROL)
        await fake_discord.wait_for(lambda: len(naming_carol()) == 2, what="one board drawn")
    queued = await rows(database, "SELECT * FROM boards_to_draw")
    assert 2 <= len(queued) <= 3 and all(count == 1 for _, count in queued), queued
    assert len(naming_carol()) == 2, "the stop cut the redraws short"
    monkeypatch.setattr("bot.boards.ANEW_PAUSE", 0.0)
    async with orchard_bot(fake_discord, database) as bot:
        await fake_discord.wait_for(lambda: naming_carol() == [], what="every board drawn anew")
        assert all("Former player" in text_of(fake_discord.message(b)) for b in boards)
        assert bot.boards._drawing_anew is not None
        await asyncio.wait_for(bot.boards._drawing_anew, 5.0)  # ends once the queue is empty
        no_errors(fake_discord)
    assert await rows(database, "SELECT COUNT(*) FROM boards_to_draw") == [(0,)]


async def test_a_board_discord_keeps_refusing_to_draw_anew_is_tried_less_and_less_often(
    fake_discord: FakeDiscord, database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Carol's /forget-me queues her board, which Discord refuses to edit three times. It
    is tried again after a wait that doubles at each failure (here from 0.4 s), not at
    every check of the leader's (here every 0.05 s), and drawn at the fourth try."""
    server(fake_discord)
    unpaced(fake_discord)  # the game is played to its end by calling the runner
    monkeypatch.setattr("bot.leader.RETRY", 0.05)
    monkeypatch.setattr("bot.boards.ANEW_PAUSE", 0.0)
    monkeypatch.setattr("bot.boards.ANEW_BACKOFF", 0.4)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [CAROL])
        (played,) = await bot.orchard.store.open_games(GUILD)
        await finish_cheerio(bot.orchard, played.id, {0: ALICE, 1: CAROL})
        await fake_discord.wait_for(lambda: "Game over" in text_of(fake_discord.message(board)))
        path = rf"^/channels/{CHANNEL}/messages/{board}$"
        before = len(fake_discord.requests_matching("PATCH", path))
        fake_discord.fail("PATCH", path, 400, times=3)
        await forget_me_everywhere(fake_discord, CAROL)
        await fake_discord.wait_for(
            lambda: "Carol" not in text_of(fake_discord.message(board)),
            what="the board drawn anew",
            timeout=10,
        )
        tries = [r.at for r in fake_discord.requests_matching("PATCH", path)[before:]]
        waits = [b - a for a, b in itertools.pairwise(tries)]
        assert len(tries) == 4, waits
        assert waits[0] >= 0.4 and waits[1] >= 0.8 and waits[2] >= 1.6, waits
        assert await rows(database, "SELECT COUNT(*) FROM boards_to_draw") == [(0,)]


async def test_a_board_in_a_thread_discord_archived_is_drawn_anew_all_the_same(
    fake_discord: FakeDiscord, database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game over in a thread: Discord archives the thread after a quiet spell, and
    refuses any edit there (50083) until it is reopened (only a post reopens one by
    itself). Carol's /forget-me redraws the board: Orchard reopens the thread (Send Messages
    in Threads will do) and edits it. Before, the edit failed at every try, an hour apart
    at most, for good, and the board kept her name."""
    thread = CHANNEL + 100
    server(fake_discord)
    fake_discord.add_thread(thread, CHANNEL)
    unpaced(fake_discord)  # the game is played to its end by calling the runner
    monkeypatch.setattr("bot.boards.ANEW_PAUSE", 0.0)
    async with orchard_bot(fake_discord, database) as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [CAROL], channel=thread)
        (played,) = await bot.orchard.store.open_games(GUILD)
        await finish_cheerio(bot.orchard, played.id, {0: ALICE, 1: CAROL})
        await fake_discord.wait_for(
            lambda: (
                [str(board) in text_of(m) for m in fake_discord.channel_messages(thread)]
                == [False, True]
            ),
            what="the final board, its end announced, the last turn message gone",
        )
        await fake_discord.archive_thread(thread)
        await forget_me_everywhere(fake_discord, CAROL)
        await fake_discord.wait_for(
            lambda: "Carol" not in text_of(fake_discord.message(board)),
            what="the board drawn anew",
        )
        assert not fake_discord.channels[thread]["thread_metadata"]["archived"]
        assert await rows(database, "SELECT COUNT(*) FROM boards_to_draw") == [(0,)]
        no_errors(fake_discord)


async def test_a_game_in_a_thread_a_moderator_locked_ends_as_in_a_deleted_channel(
    fake_discord: FakeDiscord, database: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A moderator closes and locks a thread with a game going on in it. Orchard may not
    reopen it (that needs Manage Threads), so no board there can change again, and the clock
    would play the game out unseen, a timeout at a time towards each player's removal. At
    the first board Discord refuses, the game ends unrecorded, as one in a deleted channel
    does; a board of a game over there, queued to be drawn anew, is passed over for good."""
    thread = CHANNEL + 100
    server(fake_discord)
    fake_discord.add_thread(thread, CHANNEL)
    monkeypatch.setattr("bot.boards.ANEW_PAUSE", 0.0)
    async with orchard_bot(fake_discord, database) as bot:
        await new_game(fake_discord, "cheerio", ALICE, [CAROL], channel=thread)
        (played,) = await bot.orchard.store.open_games(GUILD)
        await fake_discord.archive_thread(thread, locked=True)
        bot.orchard.runner.clock = lambda: time.time() + 301
        bot.orchard.scheduler.wake()

        async def ended() -> bool:
            return (await bot.orchard.runner.load(played.id)).row.status == "abandoned"

        await until(ended, 5.0)
        assert fake_discord.channels[thread]["thread_metadata"]["locked"]
        assert await bot.orchard.store.open_games(GUILD) == []
        await forget_me_everywhere(fake_discord, CAROL)  # its board queued to be drawn anew

        async def passed_over() -> bool:
            return await rows(database, "SELECT COUNT(*) FROM boards_to_draw") == [(0,)]

        await until(passed_over, 5.0)
        no_errors(fake_discord)


@pytest.mark.postgres
async def test_only_the_leading_process_draws_the_boards_forget_me_queued(
    fake_discord: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes share a PostgreSQL store and another one leads. Carol's /forget-me,
    answered by the one on Discord, queues her two boards, which it leaves to the leader:
    two processes working one queue would edit each board twice. Once the leader is gone,
    this process takes the lead at its next check and draws each board once; one Discord
    refused is drawn again at the check after, with no new /forget-me."""
    server(fake_discord)
    unpaced(fake_discord)  # the games are played to their end by calling the runner
    monkeypatch.setattr("bot.leader.RETRY", 0.2)
    monkeypatch.setattr("bot.boards.ANEW_PAUSE", 0.0)
    monkeypatch.setattr("bot.boards.ANEW_BACKOFF", 0.2)
    async with fresh_schema() as url:
        leader = await orchard(url)  # type: ignore[arg-type]
        assert await leader.store.try_lead()
        async with orchard_bot(fake_discord, url) as bot:
            assert not bot.orchard.leader.leading
            boards = []
            for _ in range(2):
                boards.append(await new_game(fake_discord, "cheerio", ALICE, [CAROL]))
                (played,) = await bot.orchard.store.open_games(GUILD)
                await finish_cheerio(bot.orchard, played.id, {0: ALICE, 1: CAROL})
            drawn = [len(fake_discord.versions[b]) for b in boards]
            asked = await answered(await fake_discord.slash(CAROL, None, None, "forget-me"))
            done = await press(
                fake_discord, CAROL, int(asked.original["id"]), "Forget me everywhere"
            )
            assert done.content.startswith("Done"), done.content
            await asyncio.sleep(1.0)  # five of this process's checks
            assert [len(fake_discord.versions[b]) for b in boards] == drawn, "left to the leader"
            assert await rows(url, "SELECT COUNT(*) FROM boards_to_draw") == [(2,)]

            fake_discord.fail("PATCH", rf"/channels/{CHANNEL}/messages/{boards[0]}", 400)
            await leader.close()  # its session, and the leader's lock with it, ends
            await fake_discord.wait_for(
                lambda: all("Carol" not in text_of(fake_discord.message(b)) for b in boards),
                what="both boards drawn anew",
            )
            assert bot.orchard.leader.leading
            assert [len(fake_discord.versions[b]) for b in boards] == [n + 1 for n in drawn]
            assert await rows(url, "SELECT COUNT(*) FROM boards_to_draw") == [(0,)]
