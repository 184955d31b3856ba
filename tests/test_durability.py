"""The connection the running bot writes through is WAL with synchronous=FULL.

What this holds: a move acknowledged to a player has been fsync'd, WAL frame and all, before
the answer left. The kill test (``tests/test_kill.py``) cannot tell: a SIGKILL leaves the
operating system's file cache intact, so a connection with synchronous=OFF survives it too;
only a power cut or a kernel crash would show the difference. So the settings are read back
from the live connection itself (``synchronous`` is per connection and not stored in the file).
"""

from pathlib import Path

from tests.botharness import ALICE, answered, new_game, orchard_bot, server
from tests.fakediscord import FakeDiscord
from tests.live_db import connections, pragma

FULL = 2  # PRAGMA synchronous: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA


async def test_the_live_connection_is_wal_and_full(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord, ALICE)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await new_game(fake_discord, "cheerio", ALICE, [])
        roll = fake_discord.find_button(board, lambda b: ":roll:" in (b.custom_id or ""))
        rolled = await answered(await fake_discord.click(ALICE, board, roll))
        assert rolled.type == 7, rolled.describe()
        live = connections(bot.orchard.store)
        assert live, "the store holds no SQLite connection"
        assert any(conn.total_changes > 0 for conn in live), "no connection found wrote the move"
        for conn in live:
            assert await pragma(conn, "journal_mode") == "wal"
            assert await pragma(conn, "synchronous") == FULL
