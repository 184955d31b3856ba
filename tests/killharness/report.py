"""What the kill experiment counts: ``bench/kill.py`` prints it, ``tests/test_kill.py`` asserts."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Ack:
    """A move the bot answered: its player's first move in the log from number ``version + 1``."""

    game_id: int
    version: int
    kind: str
    arg: str
    user_id: int


@dataclass
class Report:
    kills: int = 0
    acked: list[Ack] = field(default_factory=list)
    unanswered: int = 0
    refused: int = 0
    lost: list[Ack] = field(default_factory=list)
    games: int = 0
    finished: int = 0
    kinds: dict[str, int] = field(default_factory=dict)
    mismatched: list[int] = field(default_factory=list)
    open_games: int = 0
    continued: int = 0
    pressed: int = 0
    dead: list[str] = field(default_factory=list)  # presses after the last restart unanswered
    restart_seconds: list[float] = field(default_factory=list)
    words: int = 0  # Appletters words acknowledged (typed in the Play word form)
    hands: int = 0  # distinct Appletters hands looked for in public messages
    public: int = 0  # public message bodies the bot sent (requests), searched for hands
    leaks: list[str] = field(default_factory=list)  # a hand shown in a public message
