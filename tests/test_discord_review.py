"""The Review button through discord.py and the fake Discord: each player's own review,
privately, once the game is over."""

from __future__ import annotations

import re
import sqlite3
from itertools import pairwise
from pathlib import Path
from typing import Any

from bot.ai.applejack_players import choose as applejack_choose
from bot.ai.appletters_players import choose as appletters_choose
from bot.ai.cheerio_players import hard as cheerio_hard
from bot.ai.hotscore_players import choose as hotscore_choose
from bot.app import OrchardBot
from bot.reviews import MESSAGE_LIMIT, pages
from bot.runner import no_display
from bot.specs import ENGINES, SPEC_OF
from tests.botharness import (
    ALICE,
    BOB,
    CAROL,
    GUILD,
    answered,
    new_game,
    no_errors,
    orchard_bot,
    press,
    private,
    server,
    unpaced,
)
from tests.fakediscord import FakeDiscord
from tests.killharness.controls import action_of, controls, is_move

USERS = (ALICE, BOB)


async def game_id_of(bot: OrchardBot, kind: str) -> int:
    (row,) = [g for g in await bot.orchard.store.open_games(GUILD) if g.kind == kind]
    return row.id


async def play_out(
    bot: OrchardBot, game_id: int, decide: Any, users: tuple[int, ...] = USERS
) -> None:
    """Every player plays (through the runner, as their clicks would) until the game ends;
    only the finished board is drawn (a long game's every board would take seconds)."""
    runner = bot.orchard.runner
    live = await runner.load(game_id)
    while live.row.status == "active":
        engine = ENGINES[live.row.kind]
        seat = min(engine.to_act(live.state))
        verb, arg = engine.format(decide(engine, live.state, seat))
        live = await runner.act(game_id, users[seat], verb, arg, display=no_display)
    await runner.display_in_order(live)


async def finished_game(
    fake: FakeDiscord, bot: OrchardBot, kind: str, decide: Any, users: tuple[int, ...] = USERS
) -> tuple[int, int]:
    """A game of ``kind`` between ``users`` played to its end by ``decide``: its board's
    message and its id."""
    board = await new_game(fake, kind, users[0], list(users[1:]))
    game_id = await game_id_of(bot, kind)
    await play_out(bot, game_id, decide, users)
    return board, game_id


def cheerio_move(engine: Any, state: Any, seat: int) -> Any:
    return cheerio_hard(state, seat)


def applejack_easy(engine: Any, state: Any, seat: int) -> Any:
    return applejack_choose(state, seat, "easy", 0)


def hotscore_easy_and_hard(engine: Any, state: Any, seat: int) -> Any:
    return hotscore_choose(state, seat, ("easy", "hard")[seat], 0)


def appletters_move(engine: Any, state: Any, seat: int) -> Any:
    return appletters_choose(engine.view_for(state, seat), seat, "easy", 0)


async def test_each_player_gets_their_own_review_privately(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    unpaced(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [BOB])
        game_id = await game_id_of(bot, "cheerio")
        early = await answered(await fake_discord.forge(ALICE, board, f"orc:{game_id}:1:review:"))
        assert early.ephemeral and "once it is over" in early.content
        await play_out(bot, game_id, cheerio_move)
        shown = controls(fake_discord.message(board))
        assert {action_of(c) for c in shown} == {"rematch", "review"}
        assert not any(map(is_move, shown)), "the benches' players would play Review forever"
        row = await bot.orchard.store.get_game(game_id)
        assert row is not None
        moves = await bot.orchard.store.moves(game_id)
        review = SPEC_OF["cheerio"].review
        assert review is not None
        for seat, user in enumerate(USERS):
            reply = await press(fake_discord, user, board, "Review")
            private(reply)
            assert reply.content == review("cheerio", row.seed, 2, row.options, moves, seat)
            assert "accuracy 100%" in reply.content  # Hard played both seats
        outsider = await press(fake_discord, CAROL, board, "Review")
        assert outsider.ephemeral and "Only the players" in outsider.content
        no_errors(fake_discord)


async def test_a_review_that_failed_is_computed_again_at_the_next_press(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """The store fails once while Alice's review reads the moves (a locked database, a
    dropped connection): she is told privately that something went wrong, and her next
    press computes the review afresh. Reviews are kept once computed, so a failure kept
    the same way would answer every later press with the same apology."""
    server(fake_discord)
    unpaced(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board, game_id = await finished_game(fake_discord, bot, "cheerio", cheerio_move)
        expected = await expected_review(bot, game_id, 0)
        store = bot.orchard.store
        moves = store.moves
        failures = [sqlite3.OperationalError("database is locked")]

        async def failing_once(game: int) -> Any:
            if failures:
                raise failures.pop()
            return await moves(game)

        store.moves = failing_once  # type: ignore[method-assign]
        failed = await press(fake_discord, ALICE, board, "Review")
        private(failed)
        assert failed.content.startswith("Sorry, something went wrong on our side")
        assert len(fake_discord.errors) == 1, "the apology logs its traceback"
        again = await press(fake_discord, ALICE, board, "Review")
        private(again)
        assert again.content == expected


async def test_an_appletters_review_reads_only_the_askers_tiles(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord)
    unpaced(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board, game_id = await finished_game(fake_discord, bot, "appletters", appletters_move)
        row = await bot.orchard.store.get_game(game_id)
        assert row is not None and row.status == "finished"
        reply = await press(fake_discord, ALICE, board, "Review")
        private(reply)
        assert reply.content.startswith("**Your review**") and "Turn 1:" in reply.content
        state = ENGINES["appletters"].load(row.state)
        moves = await bot.orchard.store.moves(game_id)
        bobs_words = {
            m.arg.split("-")[0].upper() for m in moves if m.seat == 1 and m.verb == "play"
        }
        alices_words = {
            m.arg.split("-")[0].upper() for m in moves if m.seat == 0 and m.verb == "play"
        }
        assert all(f": {w} ·" not in reply.content for w in bobs_words - alices_words)
        shown = set(re.findall(r"[A-Z]{2,}", reply.content))  # words, not a lone letter
        assert state.hands[1] not in shown  # Bob's tiles left are never a word shown
        no_errors(fake_discord)


async def whole_review(fake: FakeDiscord, user: int, board: int, expected: str) -> list[str]:
    """Press Review as ``user``: every private message of the answer, once all are sent."""
    reply = await press(fake, user, board, "Review")
    private(reply)
    count = len(pages(expected))
    await fake.wait_for(lambda: len(reply.followups) == count - 1, what="the review's pages")
    shown = [reply.content, *(str(m["content"]) for m in reply.followups)]
    assert all(int(m["flags"]) & 64 for m in reply.followups)  # each one private too
    return shown


async def expected_review(bot: OrchardBot, game_id: int, seat: int) -> str:
    row = await bot.orchard.store.get_game(game_id)
    assert row is not None and row.status == "finished"
    review = SPEC_OF[row.kind].review
    assert review is not None
    moves = await bot.orchard.store.moves(game_id)
    return review(row.kind, row.seed, len(row.players), row.options, moves, seat)


def test_pages_split_between_lines_and_keep_everything() -> None:
    lines = [f"line {n} " + "x" * (n % 70) for n in range(300)]
    text = "\n".join(lines)
    found = pages(text)
    assert len(found) > 3 and all(len(p) <= MESSAGE_LIMIT for p in found)
    assert "\n".join(found) == text and all(p.split("\n")[0] in lines for p in found)
    # Each page is full: the next page's first line would not have fitted on it.
    assert all(len(a) + 1 + len(b.split("\n")[0]) > MESSAGE_LIMIT for a, b in pairwise(found))
    assert pages("short") == ["short"] and pages("y" * 4500) == ["y" * 2000, "y" * 2000, "y" * 500]


async def test_an_applejack_review_shows_every_costly_choice_in_several_messages(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Three Easy players: a review too long for one message comes whole, in private pages
    of at most 2,000 characters, the three costliest choices first."""
    server(fake_discord)
    unpaced(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        three = (ALICE, BOB, CAROL)
        board, game_id = await finished_game(fake_discord, bot, "applejack", applejack_easy, three)
        expected = await expected_review(bot, game_id, 1)
        assert len(expected) > MESSAGE_LIMIT and "Every choice that gave something up" in expected
        shown = await whole_review(fake_discord, BOB, board, expected)
        assert len(shown) >= 2 and "\n".join(shown) == expected
        assert shown[0].splitlines()[2] == "Costliest choices (expected final score given up):"
        assert all(0 < len(page) <= MESSAGE_LIMIT for page in shown)
        no_errors(fake_discord)


async def test_a_hotscore_review_through_the_button(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Easy (Alice) against Hard (Bob): Alice's review names what her sticks gave up, Bob's
    says all his decisions were the best there was (not that "the rest" gave up 0)."""
    server(fake_discord)
    unpaced(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board, game_id = await finished_game(fake_discord, bot, "hotscore", hotscore_easy_and_hard)
        for seat, user in enumerate(USERS):
            expected = await expected_review(bot, game_id, seat)
            assert "\n".join(await whole_review(fake_discord, user, board, expected)) == expected
        hard = await expected_review(bot, game_id, 1)
        assert hard.startswith("**Your review** · All ") and "of your decisions were" in hard
        no_errors(fake_discord)
