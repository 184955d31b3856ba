"""Bad input through discord.py against the fake: forged buttons, odd options, other servers.

Every property test reuses one bot and one fake for all its examples (pytest-asyncio runs a
``@given`` coroutine's examples in the test's own loop, after the async fixtures). Each
example must be answered, privately, with nothing changed in any game and nothing logged at
ERROR level (the apology path logs a traceback, so an apology fails the test too).
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bot.app import OrchardBot
from bot.boards import LOBBY_VERBS
from bot.cli import serve
from bot.components import OURS
from bot.games.cheerio import CATEGORIES
from cogs.appletters import MODAL
from tests.botharness import config, new_game, no_errors, private, snapshot
from tests.fakediscord import ADMINISTRATOR, FakeDiscord, InteractionRecord, run_bot

GUILD_X, GUILD_Y = 5001, 5002
CHANNEL_A, CHANNEL_B, CHANNEL_Y = 6001, 6002, 6003
ALICE, BOB, CAROL, DAVE = 7001, 7002, 7003, 7004
TOKEN = "MTIzNDU2Nzg5.Gsecret.orchard-token-never-logged"
ANSWER_TIMEOUT = 2.0

PROPERTY = settings(
    max_examples=75,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@dataclass
class Table:
    """Two servers and three games: A (Alice, Bob) and B (Carol) in X, Y (Dave) in Y."""

    fake: FakeDiscord
    bot: OrchardBot
    a: int
    b: int
    y: int
    board_a: int
    board_b: int
    board_y: int

    async def snapshot(self) -> list[Any]:
        return await snapshot(self.bot, self.a, self.b, self.y)

    async def version(self, game_id: int) -> int:
        row = await self.bot.orchard.store.get_game(game_id)
        assert row is not None
        return row.version


def two_servers(fake: FakeDiscord) -> None:
    for user, name in ((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")):
        fake.add_user(user, name)
    fake.add_guild(GUILD_X, [CHANNEL_A, CHANNEL_B], [ALICE, BOB, CAROL])
    fake.add_guild(GUILD_Y, [CHANNEL_Y], [DAVE, ALICE])


async def answer(record: InteractionRecord) -> InteractionRecord:
    return await record.wait(ANSWER_TIMEOUT)


async def cheerio(fake: FakeDiscord, host: int, guild: int, channel: int, *others: int) -> int:
    return await new_game(fake, "cheerio", host, list(others), guild=guild, channel=channel)


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    async with FakeDiscord.running() as fake:
        two_servers(fake)
        bot = OrchardBot(config(tmp_path / "o.db"), guild_ready_timeout=0.05)
        async with run_bot(bot, fake, token=TOKEN):
            board_a = await cheerio(fake, ALICE, GUILD_X, CHANNEL_A, BOB)
            board_b = await cheerio(fake, CAROL, GUILD_X, CHANNEL_B)
            board_y = await cheerio(fake, DAVE, GUILD_Y, CHANNEL_Y)
            ids = {row.channel_id: row.id for row in await bot.orchard.store.open_games()}
            yield Table(
                fake,
                bot,
                ids[CHANNEL_A],
                ids[CHANNEL_B],
                ids[CHANNEL_Y],
                board_a,
                board_b,
                board_y,
            )


# --------------------------------------------------------------------------- strategies

KINDS = st.sampled_from(
    [
        "roll",
        "hold",
        "score",
        "rematch",
        *LOBBY_VERBS,
        "ui_tiles",
        "ui_",
        "forfeit",
        "x",
    ]
)
ARGS = st.one_of(
    st.sampled_from(["", "0", "4", "5", "-1", "99", "ones", "cheerio", "chance", "normal"]),
    st.from_regex(r"[A-Za-z0-9_+\-]{0,40}", fullmatch=True),
)


@st.composite
def structured_ids(draw: st.DrawFn, table: Table) -> str:
    """Well-formed ids naming real games (ours, another channel's, another server's) or none."""
    prefix = draw(st.sampled_from(["orc", "orcs", "orcb", "orcm", "orcx"]))
    game = draw(
        st.one_of(
            st.sampled_from([table.a, table.b, table.y, 0, 999_999, 10**18 - 1]),
            st.integers(0, 10**18 - 1),
        )
    )
    version = draw(st.integers(0, 10**9 - 1))
    return f"{prefix}:{game}:{version}:{draw(KINDS)}:{draw(ARGS)}"


GARBAGE = st.one_of(
    st.text(max_size=100),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=100, max_size=100),
    st.from_regex(r"orc[a-z]?:[^\n]{0,90}", fullmatch=True),
    st.sampled_from(["orc:", "orcs:", "orc:1:2:3", "orc:١:٠:roll:", "ORC:1:0:roll:"]),
)


async def legit(table: Table, custom: str, user: int) -> bool:
    """Whether ``custom`` is a move ``user`` may really make now (those change the game)."""
    match = OURS.fullmatch(custom)
    if match is None or int(match["game"]) != table.a or user not in (ALICE, BOB):
        return False
    return int(match["version"]) == await table.version(table.a) or match["verb"] == "repost"


# --------------------------------------------------------------------------- forged clicks


@PROPERTY
@given(data=st.data())
async def test_forged_custom_ids_are_refused_privately_and_change_nothing(
    table: Table, data: st.DataObject
) -> None:
    custom = data.draw(st.one_of(GARBAGE, structured_ids(table)), label="custom_id")
    user = data.draw(st.sampled_from([ALICE, BOB, CAROL]), label="user")
    board = data.draw(st.sampled_from([table.board_a, table.board_b]), label="board")
    as_select = data.draw(st.booleans(), label="as_select")
    assume(not await legit(table, custom, user))
    before = await table.snapshot()
    values = ["ones"] if as_select else None
    if as_select:
        # a select's value is a move argument: keep it invalid for this game
        values = data.draw(st.lists(st.text(max_size=20), max_size=3), label="values")
    reply = await answer(await table.fake.forge(user, board, custom, values=values))
    private(reply)
    assert await table.snapshot() == before
    no_errors(table.fake)


@PROPERTY
@given(data=st.data())
async def test_stale_versions_are_already_played(table: Table, data: st.DataObject) -> None:
    current = await table.version(table.a)
    version = data.draw(st.integers(0, 10**9 - 1).filter(lambda v: v != current), label="ver")
    kind, arg = data.draw(st.sampled_from([("roll", ""), ("hold", "0"), ("hold", "4")]))
    before = await table.snapshot()
    custom = f"orc:{table.a}:{version}:{kind}:{arg}"
    reply = await answer(await table.fake.forge(ALICE, table.board_a, custom))
    private(reply)
    assert "already played" in reply.content
    assert await table.snapshot() == before
    no_errors(table.fake)


@PROPERTY
@given(
    values=st.lists(
        st.one_of(st.sampled_from([*CATEGORIES, "chance", ""]), st.text(max_size=100)),
        max_size=7,
    )
)
async def test_arbitrary_select_values_are_refused(table: Table, values: list[str]) -> None:
    live = await table.bot.orchard.runner.load(table.a)
    card = live.state.cards[live.state.turn]
    chosen = "".join(sorted(values)) if len(values) > 1 else (values or [""])[0]
    assume(not any(c == chosen and p is None for c, p in zip(CATEGORIES, card, strict=True)))
    custom = f"orcs:{table.a}:{live.row.version}:score:"
    player = ALICE if live.state.turn == 0 else BOB
    before = await table.snapshot()
    reply = await answer(await table.fake.forge(player, table.board_a, custom, values=values))
    private(reply)
    assert await table.snapshot() == before
    no_errors(table.fake)


@pytest.mark.parametrize(
    "custom",
    [
        "orc:",
        "orcb:x",
        "orcz:1:0:roll:",
        "orcm:1:0:play:",
        "orcf:7001",
        "orcf:7001:all",
        "orcb:wins:x:0",
    ],
)
async def test_lookalike_ids_are_answered(table: Table, custom: str) -> None:
    before = await table.snapshot()
    reply = await (await table.fake.forge(ALICE, table.board_a, custom)).wait(0.5)
    private(reply)
    assert "not one Orchard knows" in reply.content
    assert await table.snapshot() == before


async def test_a_button_id_sent_as_a_select_is_answered(table: Table) -> None:
    roll = table.fake.find_button(table.board_a, lambda c: ":roll:" in (c.custom_id or ""))
    before = await table.snapshot()
    forged = await table.fake.forge(ALICE, table.board_a, roll.custom_id or "", values=["x"])
    reply = await forged.wait(0.5)
    private(reply)
    assert await table.snapshot() == before


async def test_a_control_clicked_on_another_games_message_moves_only_its_own_board(
    table: Table,
) -> None:
    """Game A's roll, sent from game B's message: A moves, B's message is left as it was."""
    roll = table.fake.find_button(table.board_a, lambda c: ":roll:" in (c.custom_id or ""))
    live = await table.bot.orchard.runner.load(table.a)
    player = ALICE if live.state.turn == 0 else BOB
    b_before = table.fake.message(table.board_b)
    reply = await answer(await table.fake.forge(player, table.board_b, roll.custom_id or ""))
    private(reply)
    assert await table.version(table.a) == live.row.version + 1
    assert table.fake.message(table.board_b) == b_before
    ids = [c.custom_id or "" for c in table.fake.components(table.board_a)]
    assert ids and all(f"orc:{table.a}:{live.row.version + 1}:" in i for i in ids if ":roll:" in i)
    no_errors(table.fake)


async def test_a_click_is_answered_without_rebuilding_or_reading_back_the_board(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Orchard reads a click's custom_id itself: discord.py neither keeps a view per board nor
    rebuilds, nor even parses, the clicked message's whole Components V2 tree (Orchard notes
    the control's type on it as the click arrives); and the answer's edit asks for nothing
    back."""
    rebuilt: list[object] = []
    parsed: list[object] = []
    factory = discord.message._component_factory  # type: ignore[attr-defined]

    def parsing(data: Any) -> Any:
        parsed.append(data)
        return factory(data)

    monkeypatch.setattr(discord.message, "_component_factory", parsing)
    from_message = discord.ui.view.BaseView.from_message.__func__  # type: ignore[attr-defined]

    def counted(cls: type[discord.ui.view.BaseView], *args: Any, **kwargs: Any) -> Any:
        rebuilt.append(args[0])
        return from_message(cls, *args, **kwargs)

    monkeypatch.setattr(discord.ui.view.BaseView, "from_message", classmethod(counted))
    roll = table.fake.find_button(table.board_a, lambda c: ":roll:" in (c.custom_id or ""))
    live = await table.bot.orchard.runner.load(table.a)
    player = ALICE if live.state.turn == 0 else BOB
    reply = await answer(await table.fake.click(player, table.board_a, roll))
    assert reply.type == 7, reply.describe()
    assert await table.version(table.a) == live.row.version + 1
    assert rebuilt == [] and parsed == []
    store = table.bot._connection._view_store
    assert not store._views and not store.persistent_views
    # Nor is the edited board sent back to be parsed: Discord answers such a callback 204.
    (callback,) = [r for r in table.fake.requests if reply.token in r.path]
    assert callback.path.endswith("/callback") and callback.status == 204
    assert "with_response" not in callback.query
    assert not [key for key in table.bot.http._buckets if "interactions" in key]  # none kept
    no_errors(table.fake)


async def test_forms_reach_their_cog_through_the_one_handler(table: Table) -> None:
    """No cog listens to every interaction (a task more for each click): a form goes from the
    client's own handler to the cog that registered its id, and a cog unloaded takes its
    form with it."""
    assert not table.bot.extra_events.get("on_interaction")
    assert [form.pattern for form in table.bot.forms] == [MODAL.pattern]
    await table.bot.unload_extension("cogs.appletters")
    assert not table.bot.forms


@pytest.mark.parametrize("custom", ["", "orcm:", "orcm:1:0:dance:", "orc:1:0:roll:", "x" * 100])
async def test_forged_forms_are_answered(table: Table, custom: str) -> None:
    before = await table.snapshot()
    forged = await table.fake.submit_modal(
        ALICE, CHANNEL_A, custom, {"word": "ROLL"}, message_id=table.board_a
    )
    reply = await answer(forged)
    private(reply)
    assert "not one Orchard knows" in reply.content
    assert await table.snapshot() == before
    no_errors(table.fake)


# --------------------------------------------------------------------------- slash options

# Discord's number and integer options carry values between -2^53 and 2^53.
NUMBER = st.floats(-(2.0**53), 2.0**53, allow_nan=False, allow_infinity=False)
INTEGER = st.integers(-(2**53), 2**53)


@PROPERTY
@given(minutes=NUMBER)
async def test_settings_turn_minutes_saves_or_refuses(table: Table, minutes: float) -> None:
    settings_now = table.bot.orchard.settings
    before = await settings_now.get(GUILD_X)
    games = await table.snapshot()
    reply = await answer(
        await table.fake.slash(
            ALICE,
            GUILD_X,
            CHANNEL_A,
            "settings",
            {"turn_minutes": minutes},
            permissions=ADMINISTRATOR,
        )
    )
    private(reply)
    after = await settings_now.get(GUILD_X)
    if 30 <= round(minutes * 60) <= 24 * 3600:
        assert after.turn_seconds == round(minutes * 60) and "Saved" in reply.content
    else:
        assert after == before and "between 30 seconds and 24 hours" in reply.content
    assert await table.snapshot() == games
    no_errors(table.fake)


@PROPERTY
@given(game_id=st.one_of(INTEGER, st.sampled_from([0, -1, 2**53, -(2**53)])), data=st.data())
async def test_end_with_any_number_touches_no_other_server(
    table: Table, game_id: int, data: st.DataObject
) -> None:
    assume(game_id not in (table.a, table.b))  # ending this server's own games is the point
    before = await table.snapshot()
    reply = await answer(
        await table.fake.slash(
            ALICE, GUILD_X, CHANNEL_A, "end", {"game_id": game_id}, permissions=ADMINISTRATOR
        )
    )
    private(reply)
    assert f"no open game {game_id}" in reply.content
    assert await table.snapshot() == before
    no_errors(table.fake)


@PROPERTY
@given(
    user=st.one_of(st.sampled_from([ALICE, DAVE]), st.integers(1, 2**53)),
    game=st.one_of(st.none(), st.sampled_from(["cheerio", "hotscore", "appletters"])),
)
async def test_history_for_anyone_answers(table: Table, user: int, game: str | None) -> None:
    options: dict[str, Any] = {"user": user}
    if game is not None:
        options["game"] = game
    before = await table.snapshot()
    reply = await answer(await table.fake.slash(BOB, GUILD_X, CHANNEL_A, "history", options))
    assert reply.type == 4 and reply.embeds, reply.describe()
    assert await table.snapshot() == before
    no_errors(table.fake)


# --------------------------------------------------------------------------- who may act


async def test_a_player_of_one_game_cannot_move_in_another(table: Table) -> None:
    fake = table.fake
    before = await table.snapshot()
    roll = fake.find_button(table.board_b, lambda c: ":roll:" in (c.custom_id or ""))
    for user in (ALICE, BOB):
        reply = await answer(await fake.click(user, table.board_b, roll))
        private(reply)
        assert "not playing" in reply.content
    # and not by carrying game B's live button to game A's board either
    reply = await answer(await fake.forge(BOB, table.board_a, roll.custom_id or ""))
    private(reply)
    assert "not playing" in reply.content
    assert await table.snapshot() == before
    no_errors(fake)


async def test_bad_input_is_logged_at_debug_level_only(
    table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    """Refusals are routine: a busy server's log must not fill with them."""
    caplog.set_level(logging.DEBUG)
    fake = table.fake
    live = await table.bot.orchard.runner.load(table.a)
    mover, waiting = (ALICE, BOB) if live.state.turn == 0 else (BOB, ALICE)
    roll = fake.find_button(table.board_a, lambda c: ":roll:" in (c.custom_id or ""))
    score = f"orcs:{table.a}:{live.row.version}:score:"
    clicks = [
        fake.click(waiting, table.board_a, roll),  # out of turn
        fake.click(CAROL, table.board_a, roll),  # not a player
        fake.forge(mover, table.board_a, f"orc:{table.a}:{live.row.version + 5}:roll:"),
        fake.forge(mover, table.board_a, "orc:1:2:3"),  # malformed
        fake.forge(mover, table.board_a, score, values=["chance"]),  # not a category
        fake.submit_modal(mover, CHANNEL_A, "orcm:", {"word": "x"}, message_id=table.board_a),
        fake.slash(ALICE, None, None, "forfeit", unoffered=True),  # needs a server
    ]
    for click in clicks:
        private(await answer(await click))
    ours = [r for r in caplog.records if r.name.split(".")[0] in ("bot", "cogs", "db")]
    assert any("refused" in r.getMessage() for r in ours)
    assert [r.getMessage() for r in ours if r.levelno > logging.DEBUG] == []


async def test_nobody_reaches_a_game_of_another_server(table: Table) -> None:
    fake = table.fake
    before = await table.snapshot()
    live_a = fake.find_button(table.board_a, lambda c: ":roll:" in (c.custom_id or ""))
    live_y = fake.find_button(table.board_y, lambda c: ":roll:" in (c.custom_id or ""))
    # Alice plays game A in server X; from server Y her button for A is refused
    from_y = await answer(await fake.forge(ALICE, table.board_y, live_a.custom_id or ""))
    private(from_y)
    assert "another server" in from_y.content
    # Dave, who plays Y, cannot press Y's button from server X (Alice's does not help him)
    from_x = await answer(await fake.forge(ALICE, table.board_a, live_y.custom_id or ""))
    private(from_x)
    assert "another server" in from_x.content
    # /end from server X does not end Y's game, even for an admin
    ended = await answer(
        await fake.slash(
            ALICE, GUILD_X, CHANNEL_A, "end", {"game_id": table.y}, permissions=ADMINISTRATOR
        )
    )
    private(ended)
    assert await table.snapshot() == before
    no_errors(fake)


async def test_only_the_host_starts_or_cancels_a_lobby(table: Table) -> None:
    fake = table.fake
    opened = await answer(await fake.slash(BOB, GUILD_X, CHANNEL_B, "hotscore new"))
    assert opened.original is not None
    lobby = int(opened.original["id"])
    addbot = next(c for c in fake.components(lobby) if c.is_select)  # offered until it is full
    reply = await answer(await fake.select(CAROL, lobby, addbot, ["hard"]))
    private(reply)
    assert "Only the host" in reply.content
    joined = await answer(await fake.click(CAROL, lobby, fake.find_button(lobby, "Join")))
    assert joined.type == 7, "no Orchard seat took her place"
    (row,) = [g for g in await table.bot.orchard.store.open_games(GUILD_X) if g.status == "lobby"]
    for label in ("Start", "Cancel"):
        reply = await answer(await fake.click(CAROL, lobby, fake.find_button(lobby, label)))
        private(reply)
        assert "Only the host" in reply.content
    after = await table.bot.orchard.store.get_game(row.id)
    assert after is not None and after.status == "lobby" and after.players == row.players
    started = await answer(await fake.click(BOB, lobby, fake.find_button(lobby, "Start")))
    assert started.type == 7
    no_errors(fake)


async def test_settings_and_end_need_the_permission(table: Table) -> None:
    fake = table.fake
    before = await table.snapshot()
    with pytest.raises(PermissionError):
        await fake.slash(BOB, GUILD_X, CHANNEL_A, "settings", {"turn_minutes": 1.0})
    with pytest.raises(PermissionError):
        await fake.slash(BOB, GUILD_X, CHANNEL_A, "end", {"game_id": table.a})
    manage_guild, manage_messages = 1 << 5, 1 << 13
    with pytest.raises(PermissionError):  # Manage Messages does not open /settings
        await fake.slash(
            BOB, GUILD_X, CHANNEL_A, "settings", {"hints": False}, permissions=manage_messages
        )
    saved = await answer(
        await fake.slash(
            BOB, GUILD_X, CHANNEL_A, "settings", {"hints": False}, permissions=manage_guild
        )
    )
    private(saved)
    assert not (await table.bot.orchard.settings.get(GUILD_X)).hints
    assert await table.snapshot() == before
    with pytest.raises(PermissionError):  # declared for servers only: no DM offers it
        await fake.slash(BOB, None, None, "games")
    in_dm = await answer(await fake.slash(BOB, None, None, "games", unoffered=True))
    private(in_dm)
    no_errors(fake)


# --------------------------------------------------------------------------- secrets


def _leaks(text: str) -> bool:
    return TOKEN in text or TOKEN.split(".")[-1] in text


async def test_the_token_never_reaches_logs_errors_or_bodies(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)
    headers: list[str] = []
    async with FakeDiscord.running() as fake:
        rest = fake._rest

        async def recording(request: Any) -> Any:
            headers.append(request.headers.get("Authorization", ""))
            return await rest(request)

        # the fake does not record headers; wrap its handler (routes are bound at start)
        for route in fake._runner.app.router.routes() if fake._runner else []:
            if getattr(route.handler, "__name__", "") == "_rest":
                route._handler = recording  # type: ignore[attr-defined]
        two_servers(fake)
        bot = OrchardBot(config(tmp_path / "o.db"), guild_ready_timeout=0.05)
        async with run_bot(bot, fake, token=TOKEN):
            board = await cheerio(fake, CAROL, GUILD_X, CHANNEL_B)
            (row,) = await bot.orchard.store.open_games(GUILD_X)
            while (live := await bot.orchard.runner.load(row.id)).row.status == "active":
                select = next(c for c in fake.components(board) if c.is_select)
                await answer(await fake.select(CAROL, board, select, [select.options[0]]))
            await answer(await fake.forge(CAROL, board, "orc:1:0:roll:"))  # a refusal
            fake.fail("PATCH", r"/channels/\d+/messages/\d+", 403)
            await bot.orchard.runner.display(live)  # a logged warning with a traceback
        assert live.row.status == "finished"
        fake.fail("GET", r"/users/@me$", 401, code=0, message="401: Unauthorized")
        assert await serve(OrchardBot(config(tmp_path / "o2.db")), TOKEN) == 1
        requests = fake.requests
        identifies = fake.identifies
    assert headers and all(h in ("", f"Bot {TOKEN}") for h in headers)
    assert [i.get("token") for i in identifies] == [TOKEN]  # the one place it belongs
    for record in caplog.records:
        text = record.getMessage() + (
            logging.Formatter().formatException(record.exc_info) if record.exc_info else ""
        )
        assert not _leaks(text), record.getMessage()
    for request in requests:
        assert not _leaks(f"{request.path} {request.query} {request.json!r}"), request.path
    captured = capsys.readouterr()
    assert not _leaks(captured.out + captured.err)
    assert not re.search(r"Bot \S{20,}", caplog.text)
