"""Run the real OrchardBot against the fake Discord, and small steps for playing through it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from bot.app import OrchardBot
from bot.config import Config
from bot.pacing import PER_SECOND, Pacer, traced
from db.connection import Target
from tests.fakediscord import Component, FakeDiscord, InteractionRecord, components_of, run_bot

GUILD, CHANNEL = 5001, 6001
ALICE, BOB, CAROL = 7001, 7002, 7003


def config(database: Target) -> Config:
    return Config(token="fake-token", database=database, log_level="INFO", dev_guild_id=None)


def server(fake: FakeDiscord, *users: int) -> None:
    for user, name in ((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol")):
        fake.add_user(user, name)
    fake.add_guild(GUILD, [CHANNEL], list(users or (ALICE, BOB, CAROL)))


def unpaced(fake: FakeDiscord) -> None:
    """Lift Discord's per-channel limits (5 messages or edits per 5 s) for a test that moves
    faster than any table can: Orchard without its 1 s pause, moves made by calling the runner
    (a player's click is answered through its interaction, which those limits spare), or a
    whole game of tiles DMs in a second. The global limit and the 3 s deadline stay."""
    fake.route_limits = ()


def hastened(fake: FakeDiscord, times: float) -> dict[str, Any]:
    """Discord's global limit and Orchard's own pace under it (:mod:`bot.pacing`), both
    ``times`` as fast, for a test whose whole games take their time at that limit (40 requests
    a second: an Apple Jack game of three took 12 s): the same burst, the same margin under
    the limit, Orchard's backlog behind its other requests as before, in a fraction of the
    time. Before the bot starts; the options for :func:`orchard_bot`."""
    limit, per = fake.global_limit
    fake.global_limit = (limit, per / times)
    return {"http_trace": traced(Pacer(per_second=PER_SECOND * times))}


@asynccontextmanager
async def orchard_bot(
    fake: FakeDiscord, database: Target, delay: float = 0.0, **options: Any
) -> AsyncIterator[OrchardBot]:
    """The unchanged bot, connected to ``fake``, on the database ``database`` names;
    ``options`` go to :class:`OrchardBot` (discord.py's client options)."""
    bot = OrchardBot(config(database), guild_ready_timeout=0.05, **options)
    async with run_bot(bot, fake):
        assert bot.orchard.opponents is not None
        bot.orchard.opponents.delay = delay
        yield bot


async def answered(record: InteractionRecord) -> InteractionRecord:
    return await record.wait()


async def press(fake: FakeDiscord, user: int, message_id: int, label: str) -> InteractionRecord:
    return await answered(await fake.click(user, message_id, fake.find_button(message_id, label)))


def select_of(fake: FakeDiscord, message_id: int, kind: str) -> Component:
    """The select whose custom_id names action ``kind``."""
    for component in components_of(fake.message(message_id)):
        if component.is_select and (component.custom_id or "").split(":")[3] == kind:
            return component
    raise LookupError(f"no {kind} select on {message_id}")


async def choose(
    fake: FakeDiscord, user: int, message_id: int, kind: str, values: list[str]
) -> InteractionRecord:
    menu = select_of(fake, message_id, kind)
    return await answered(await fake.select(user, message_id, menu, values))


async def new_game(
    fake: FakeDiscord,
    kind: str,
    host: int,
    others: list[int],
    *,
    guild: int = GUILD,
    channel: int = CHANNEL,
    **options: object,
) -> int:
    """Open a lobby with /<kind> new, let ``others`` join, start it; the board's message id."""
    opened = await answered(await fake.slash(host, guild, channel, f"{kind} new", options))
    assert opened.original is not None, opened.describe()
    board = int(opened.original["id"])
    for user in others:
        joined = await press(fake, user, board, "Join")
        assert joined.type == 7, joined.describe()
    started = await press(fake, host, board, "Start")
    assert started.type == 7, started.describe()
    return board


async def snapshot(bot: OrchardBot, *game_ids: int) -> list[Any]:
    """Everything a move could change in these games (not the message id: a repost moves it)."""
    seen = []
    for game_id in game_ids:
        row = await bot.orchard.store.get_game(game_id)
        assert row is not None
        moves = await bot.orchard.store.moves(game_id)
        seen.append((row.version, row.status, row.state, row.players, len(moves)))
    return seen


def private(reply: InteractionRecord) -> None:
    """A clear private answer: a new ephemeral message with text Discord accepts, sent at once
    (type 4) or completing a deferral (a word play is acknowledged first)."""
    assert reply.type in (4, 5, 6) and reply.ephemeral, reply.describe()
    assert reply.content.strip(), reply.describe()
    assert len(reply.content) <= 2000, len(reply.content)


def no_errors(fake: FakeDiscord) -> None:
    """Nothing logged at ERROR: an apology logs its traceback, so it counts too."""
    assert not fake.errors, [r.getMessage() for r in fake.errors]
