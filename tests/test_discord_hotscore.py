"""Hot Score's board through discord.py against the fake Discord: what each button says."""

from pathlib import Path

import pytest

from tests.botharness import (
    ALICE,
    BOB,
    CHANNEL,
    GUILD,
    new_game,
    no_errors,
    orchard_bot,
    press,
    server,
)
from tests.fakediscord import FakeDiscord, text_of
from tests.test_discord_dice_duels import USERS, live_game


def labels(fake: FakeDiscord, board: int) -> list[str]:
    return [b.label or "" for b in fake.components(board) if b.is_button]


@pytest.mark.parametrize(
    ("seed", "start", "stick", "signs"),
    [
        # 6+1 = 7 on two dice to beat: 1+5 = 6 loses; the Bonus Die 5 makes 11 (the other HOT
        # on three dice forces a challenge) or 1 (three dice lose to two).
        (
            27,
            ["Throw 2 dice", "Stick on 7 · HOT · 15 pts"],
            "Stick on 6 · NEAR · you lose the round",
            ["+5 → 11 · HOT · a challenge (±10)", "−5 → 1 · FAR · you lose the round"],
        ),
        # 5+4 = 9 FAR to beat: 3+4 = 7 HOT wins 15.
        (2, ["Throw 2 dice", "Stick on 9 · FAR · 10 pts"], "Stick on 7 · HOT · you win 15 pts", []),
        # 6+1 = 7 to beat: 5+2 = 7, the same bracket on as many dice, is a challenge.
        (
            4,
            ["Throw 2 dice", "Stick on 7 · HOT · 15 pts"],
            "Stick on 7 · HOT · a challenge (±10)",
            [],
        ),
        # 6,6,6 (three of a kind) to beat: a HOT against it is a double challenge.
        (
            265,
            ["Throw 2 dice", "Throw the Bonus Die: add or subtract it"],
            "Stick on 7 · HOT · a double challenge (±20)",
            [],
        ),
    ],
)
async def test_the_answers_buttons_say_what_each_choice_decides(
    fake_discord: FakeDiscord,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    seed: int,
    start: list[str],
    stick: str,
    signs: list[str],
) -> None:
    """The starter's buttons say what a throw is worth if it wins; the answer's say what it
    decides against the throw to beat (worked out by hand from seeds/hotscore.md's rules), not
    points a losing or challenged throw would never score."""
    monkeypatch.setattr("bot.lobby.secrets.randbits", lambda bits: seed)
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await new_game(fake_discord, "hotscore", ALICE, [BOB])
        starter = (await live_game(bot, "hotscore")).state.starter
        for label in start:
            assert (await press(fake_discord, USERS[starter], board, label)).type == 7
        answer = USERS[1 - starter]
        await press(fake_discord, answer, board, "Throw 2 dice")
        assert labels(fake_discord, board) == [stick, "Throw the Bonus Die: add or subtract it"]
        if signs:
            await press(fake_discord, answer, board, "Throw the Bonus Die: add or subtract it")
            assert labels(fake_discord, board) == signs
        no_errors(fake_discord)


async def test_a_challenge_says_how_it_is_won_and_counts_each_throw(
    fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """6+1 against 5+2 (seed 4) is a challenge. Before the die that sets odd or even, the
    board says who throws it and what both then aim for; after it, how the three dice are
    compared and what a tie leads to; after a player's three dice, how many match and
    their sum. Once the game is over (the starter leaves) the dice stay, the rule goes."""
    monkeypatch.setattr("bot.lobby.secrets.randbits", lambda bits: 4)
    server(fake_discord)
    async with orchard_bot(fake_discord, tmp_path / "o.db") as bot:
        board = await new_game(fake_discord, "hotscore", ALICE, [BOB])
        starter = (await live_game(bot, "hotscore")).state.starter
        names = {ALICE: "Alice", BOB: "Bob"}
        first, answer = USERS[starter], USERS[1 - starter]
        sticks = {first: "15 pts", answer: "a challenge (±10)"}
        for user, stick in sticks.items():
            await press(fake_discord, user, board, "Throw 2 dice")
            await press(fake_discord, user, board, f"Stick on 7 · HOT · {stick}")
        shown = text_of(fake_discord.message(board))
        assert "**Challenge ×1** · stakes ±10\n" in shown
        # Each score line begins with who and how many: a screen reader reads the bar out
        # block by block. Nothing is scored until the round is settled.
        assert "\n**Alice** 0/100 `░░░░░░░░░░`\n**Bob** 0/100 `░░░░░░░░░░`\n" in shown
        assert (
            f"{names[first]} throws one die for odd or even; then you both throw three dice, "
            "and more dice of that kind win." in shown
        )
        await press(fake_discord, first, board, "Throw the parity die (odd or even)")
        parity = (await live_game(bot, "hotscore")).state.parity
        shown = text_of(fake_discord.message(board))
        assert f"**Challenge ×1** · stakes ±10 · **{parity.upper()}**\n" in shown
        assert (
            f"More {parity} dice win; with as many, the lower sum of them wins. "
            "Equal again: thrown again for ±20." in shown
        )
        await press(fake_discord, answer, board, "Throw 3 challenge dice")
        dice = (await live_game(bot, "hotscore")).state.challenge_dice[1 - starter]
        matching = [d for d in dice if d % 2 == (parity == "odd")]
        shown = text_of(fake_discord.message(board))
        assert f" · {len(matching)} {parity}, sum {sum(matching)}\n" in shown
        assert f"\n{names[first]}: …" in shown
        await (await fake_discord.slash(first, GUILD, CHANNEL, "forfeit")).wait()
        shown = text_of(fake_discord.message(board))
        assert "Game over" in shown and f" {parity}, sum {sum(matching)}\n" in shown
        assert "dice win" not in shown, "no rule to follow on a finished board"
        assert "…" not in shown, "nor dice to wait for"
        no_errors(fake_discord)
