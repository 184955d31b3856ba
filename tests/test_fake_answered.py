"""``InteractionRecord.answered``: a wait woken by the interaction's own callback alone."""

import time
from pathlib import Path

import pytest

from tests.botharness import ALICE, CHANNEL, GUILD, orchard_bot, server
from tests.fakediscord import FakeDiscord, InteractionRecord


async def test_answered_wakes_on_the_callback_and_times_it(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    server(fake_discord, ALICE)
    async with orchard_bot(fake_discord, tmp_path / "o.db"):
        began = time.monotonic()
        record = await fake_discord.slash(ALICE, GUILD, CHANNEL, "cheerio rules")
        assert record.answered_at is None
        assert await record.called_back(5.0) is record
        assert record.callback is not None and record.answered_at is not None
        assert began <= record.answered_at <= time.monotonic()
        assert await record.called_back(0.0) is record  # already answered: returns at once


async def test_answered_times_out_while_unanswered(fake_discord: FakeDiscord) -> None:
    record = InteractionRecord(
        fake=fake_discord,
        id=1,
        token="itoken-1",
        kind=3,
        payload={},
        user_id=ALICE,
        channel_id=CHANNEL,
        guild_id=GUILD,
        message_id=None,
    )
    with pytest.raises(TimeoutError):
        await record.called_back(0.05)
    record.callback = {"type": 6}
    record.note_answered()
    assert await record.called_back(0.05) is record
