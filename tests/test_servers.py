"""Ratings, boards, settings, forfeits and data removal: store, runner and through Discord."""

import sqlite3
from pathlib import Path

import pytest

from bot.games.cheerio import open_categories
from bot.ratings import MODEL, rate
from tests.botharness import ALICE, BOB, CAROL, CHANNEL, GUILD, answered, orchard_bot, server
from tests.fakediscord import FakeDiscord
from tests.support import orchard, started

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


async def finish(o, game_id: int, users: dict[int, int]):
    live = await o.runner.load(game_id)
    while live.row.status == "active":
        user = users[live.state.turn]
        category = open_categories(live.state.cards[live.state.turn])[0]
        live = await o.runner.act(game_id, user, "score", category, version=live.row.version)
    return live


def rows(path: Path, sql: str, *params) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, params).fetchall()


async def test_finished_games_update_ratings_and_solo_games_do_not(tmp_path: Path) -> None:
    path = tmp_path / "o.db"
    o = await orchard(path)
    solo = await started(o, "cheerio", [1])
    await finish(o, solo.id, {0: 1})
    assert rows(path, "SELECT * FROM ratings") == []
    assert await o.store.board(100, "cheerio", "wins") == [(1, 0.0, 1)], "a solo win is no win"

    duel = await started(o, "cheerio", [1, 2])
    live = await finish(o, duel.id, {0: 1, 1: 2})
    results = {r.seat: r for r in o.runner.engine("cheerio").results(live.state)}
    rating = dict(rows(path, "SELECT user_id, mu FROM ratings WHERE pool = 'people'"))
    if results[0].won and results[1].won:
        assert rating[1] == rating[2]
    else:
        winner, loser = (1, 2) if results[0].won else (2, 1)
        assert rating[winner] > MODEL.rating().mu > rating[loser]
    assert len(rows(path, "SELECT * FROM rating_history WHERE game_id = ?", duel.id)) == 2
    by_rating = await o.store.board(100, "cheerio", "rating")
    assert next(user for user, _, _ in by_rating) == max(rating, key=lambda u: rating[u])
    await o.close()


async def test_games_with_orchard_are_rated_in_their_own_pool(tmp_path: Path) -> None:
    from bot.opponents import Opponents
    from db.store import Player

    path = tmp_path / "o.db"
    o = await orchard(path)
    Opponents(o.runner, delay=0)
    live = await o.lobby.open("cheerio", 100, 200, Player(0, 1, "Ann"))
    await o.lobby.add_seat(live.id, 1, Player(0, 9, "Orchard (easy)", True, level="easy"))
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
    pools = rows(path, "SELECT pool, user_id FROM ratings ORDER BY user_id")
    assert pools == [("orchard", -1), ("orchard", 1)]
    assert await o.store.board(100, "cheerio", "rating") == []
    await o.close()


async def test_forget_me_removes_that_person_here_and_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "o.db"
    o = await orchard(path)
    for users in ([1, 2], [1, 3]):
        game = await started(o, "cheerio", users)
        await finish(o, game.id, dict(enumerate(users)))
    with sqlite3.connect(path) as conn:  # the same person's record in another server
        conn.execute(
            "INSERT INTO results (game_id, seat, guild_id, kind, user_id, score, placement, won,"
            " seats, finished_at) VALUES (1, 9, 555, 'cheerio', 1, 10, 1, 1, 2, 0)"
        )
    before = rows(path, "SELECT COUNT(*) FROM results WHERE user_id != 1 OR guild_id != 100")
    removed = await o.store.forget_user(100, 1)
    assert removed == 2 + 1 + 2  # two results, one rating, two history rows
    for table in ("results", "ratings", "rating_history"):
        assert rows(path, f"SELECT * FROM {table} WHERE user_id = 1 AND guild_id = 100") == []
    assert rows(path, "SELECT COUNT(*) FROM results") == before
    assert rows(path, "SELECT COUNT(*) FROM ratings WHERE user_id IN (2, 3)") == [(2,)]
    await o.close()


async def test_departed_servers_are_purged_after_30_days_only(tmp_path: Path) -> None:
    path = tmp_path / "o.db"
    o = await orchard(path)
    game = await started(o, "cheerio", [1, 2])
    await finish(o, game.id, {0: 1, 1: 2})
    await o.store.guild_left(100, when=1000.0)
    assert await o.store.purge_departed(before=999.0) == []
    await o.store.guild_returned(100)
    assert await o.store.purge_departed(before=2000.0) == []
    await o.store.guild_left(100, when=1000.0)
    assert await o.store.purge_departed(before=2000.0) == [100]
    for table in ("games", "results", "ratings", "moves", "game_players"):
        assert rows(path, f"SELECT COUNT(*) FROM {table}") == [(0,)], table
    await o.close()


def seed_results(path: Path, users: int) -> None:
    """Finished-game rows for many players, as earlier games would have left them."""
    with sqlite3.connect(path) as conn:
        conn.execute(
            "INSERT INTO games (id, kind, guild_id, channel_id, host_id, status, seed,"
            " created_at, updated_at) VALUES (500, 'cheerio', ?, ?, 1, 'finished', 1, 0, 0)",
            (GUILD, CHANNEL),
        )
        for seat in range(users):
            conn.execute(
                "INSERT INTO results (game_id, seat, guild_id, kind, user_id, score, placement,"
                " won, seats, finished_at) VALUES (500, ?, ?, 'cheerio', ?, ?, 1, 0, 2, 0)",
                (seat, GUILD, ALICE if seat == 0 else 80_000 + seat, 300 - seat),
            )


async def test_boards_page_ten_at_a_time_and_show_my_rank(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    path = tmp_path / "o.db"
    async with orchard_bot(fake_discord, path):
        pass
    seed_results(path, 25)
    async with orchard_bot(fake_discord, path):
        first = await answered(
            await fake_discord.slash(
                BOB, GUILD, CHANNEL, "leaderboard", {"game": "cheerio", "by": "best"}
            )
        )
        embed = first.embeds[0]
        assert embed["description"].count("\n") == 9 and embed["description"].startswith("**1.**")
        assert embed["footer"]["text"] == "Page 1 of 3"
        board = int(first.original["id"])
        second = await answered(
            await fake_discord.click(ALICE, board, fake_discord.find_button(board, "Next ▶"))
        )
        page2 = second.original["embeds"][0]
        assert page2["description"].startswith("**11.**")
        assert "your rank: 1 of 25 (300)" in page2["footer"]["text"]
        shortcut = await answered(
            await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio leaderboard")
        )
        assert "your rank" in shortcut.embeds[0]["footer"]["text"]


async def test_forget_me_asks_first_and_its_button_survives_a_restart(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    path = tmp_path / "o.db"
    async with orchard_bot(fake_discord, path):
        pass
    seed_results(path, 3)
    async with orchard_bot(fake_discord, path):
        asked = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "forget-me"))
        assert asked.ephemeral and "Sure?" in asked.content
        confirm = int(asked.original["id"])
        assert rows(path, f"SELECT COUNT(*) FROM results WHERE user_id = {ALICE}") == [(1,)]
    async with orchard_bot(fake_discord, path):  # a restart between asking and confirming
        button = fake_discord.find_button(confirm, "Delete my results")
        other = await answered(await fake_discord.click(BOB, confirm, button))
        assert other.ephemeral and "Only the person who asked" in other.content
        done = await answered(await fake_discord.click(ALICE, confirm, button))
        assert done.ephemeral and done.content == "Done: 1 record removed."
    assert rows(path, f"SELECT COUNT(*) FROM results WHERE user_id = {ALICE}") == [(0,)]
    assert rows(path, "SELECT COUNT(*) FROM results") == [(2,)]


async def test_settings_need_manage_server_and_are_validated(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        declared = next(c for c in fake_discord.commands if c["name"] == "settings")
        assert int(declared["default_member_permissions"]) == MANAGE_GUILD
        with pytest.raises(PermissionError):
            await fake_discord.slash(BOB, GUILD, CHANNEL, "settings", {"hints": False})
        assert (await bot.settings.get(GUILD)).hints
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
        assert "2 min 0 s" in good.content
        assert (await bot.settings.get(GUILD)).turn_seconds == 120
        shown = await answered(await fake_discord.slash(ALICE, GUILD, CHANNEL, "settings"))
        assert "Saved" not in shown.content and "Hints: off" in shown.content


async def test_forfeit_and_moderator_end(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    from tests.botharness import new_game

    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        await new_game(fake_discord, "cheerio", ALICE, [BOB, CAROL])
        (row,) = await bot.store.open_games(GUILD)
        gone = await answered(await fake_discord.slash(CAROL, GUILD, CHANNEL, "forfeit"))
        assert gone.ephemeral and "You left" in gone.content
        assert (await bot.runner.load(row.id)).state.active == (True, True, False)
        with pytest.raises(PermissionError):
            await fake_discord.slash(BOB, GUILD, CHANNEL, "end", {"game_id": row.id})
        fake_discord.permissions[CAROL] = MANAGE_MESSAGES
        ended = await answered(
            await fake_discord.slash(CAROL, GUILD, CHANNEL, "end", {"game_id": row.id})
        )
        assert "ended by a moderator" in ended.content
        assert (await bot.store.get_game(row.id)).status == "abandoned"
        assert await bot.store.board(GUILD, "cheerio", "wins") == []
