"""Kill the bot at random moments mid-game and prove nothing acknowledged is lost.

    python bench/kill.py [--kills 20] [--games 8] [--tables 2] [--words 1] [--seed 1]

A fake Discord runs in this process; the real bot runs in a subprocess
(``python -m tests.bot_process PORT DB``). Solo Cheerio players (one per channel), Hot Score
tables (two players in one channel: the guest joins the lobby, the host starts, both throw)
and Appletters tables (two players taking turns: a word typed in the Play word form when the
hand can lay one, found from the stored state, else Pick and pass) play concurrently through
interactions while the process is SIGKILLed and restarted on the same database. Afterwards:
every move whose interaction was answered (callback received) is in the move log, every game's
stored state equals the replay of its log, every open game plays on, and every enabled control
on every open game's board answers: pressed by the player to act, by the other player and by
someone not in the game, each press gets an edit, a private reply or (Play word) a form. And no
public message the bot ever sent shows a hand the way the owner's DM shows it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import signal
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.boards import LOBBY_VERBS  # noqa: E402
from bot.games import appletters  # noqa: E402
from bot.games.appletters import (  # noqa: E402
    AppState,
    Placement,
    placements_for,
    public_view,
    word_set,
)
from bot.model import GameRow  # noqa: E402
from bot.runner import Runner  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.specs import ENGINES  # noqa: E402
from cogs.appletters import MODAL, tiles_text  # noqa: E402
from db.store import Store  # noqa: E402
from tests.fakediscord import (  # noqa: E402
    EPHEMERAL,
    Component,
    FakeDiscord,
    InteractionRecord,
    components_of,
)

GUILD = 5001
FIRST_CHANNEL, FIRST_USER = 6001, 7001
STRANGER = 7999  # a member of the server who plays in no game: every control must answer him
ANSWER_SECONDS = 3.0
POSTED = re.compile(r"/(\d+)$")
MENTION = re.compile(r"<@!?(\d+)>")
SEATED = re.compile(r"Players \((\d+)\)")
NOT_MOVES = (*LOBBY_VERBS, "rematch", "repost")
DONE = ("rematch", "repost")  # controls of a game no longer in play, or of /games
MOVED_ELSEWHERE = "Done:"  # a move made from an older copy of the board: applied, said privately
PLAYED_ELSEWHERE = "Played "  # a word typed in a form opened on an older copy of the board
WORD_KINDS = frozenset(engine.kind for engine in appletters.ENGINES)
WORD_CHANCE = 0.85  # how often a player who can lay a word does (else picks and passes)
LONGEST = 5  # tiles from the hand in a word looked for (the search stays a few milliseconds)
SHOWN_TILES = re.compile(r"(?=(`[A-Z]`(?: `[A-Z]`)*))")  # tiles_text runs, at every start
DM_TILES = re.compile(r"Your tiles \(\d+\): (.*)")


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

    def lines(self) -> list[str]:
        starts = sorted(self.restart_seconds)
        median = starts[len(starts) // 2] if starts else 0.0
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(self.kinds.items()))
        return [
            f"kills: {self.kills}",
            f"moves acknowledged: {len(self.acked)} (by {len({a.user_id for a in self.acked})} "
            "players)",
            f"moves lost: {len(self.lost)}",
            f"interactions unanswered (bot was down or killed mid-way): {self.unanswered}",
            f"clicks refused (stale boards after a kill, or the other player was quicker): "
            f"{self.refused}",
            f"games: {self.games} ({self.finished} finished; {kinds})",
            f"games whose state differs from the replay of their log: {len(self.mismatched)}",
            f"open games that played on after the last restart: {self.continued} of "
            f"{self.open_games}",
            f"buttons pressed: {self.pressed}",
            f"buttons unanswered: {len(self.dead)}",
            f"Appletters words played through the form (acknowledged): {self.words}",
            f"public messages showing a hand: {len(self.leaks)} ({self.hands} hands looked for "
            f"in {self.public} public message bodies)",
            f"restart to ready: median {median:.2f} s, max {max(starts, default=0.0):.2f} s",
        ]


class Bot:
    """The bot subprocess, restarted on the same database after every kill."""

    def __init__(self, fake: FakeDiscord, db: Path, log: Path) -> None:
        self.fake, self.db, self.log = fake, db, log
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self, wait: bool = True) -> float:
        began = time.monotonic()
        before = len(self.fake.identifies)
        with self.log.open("ab") as sink:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tests.bot_process",
                str(self.fake.port),
                str(self.db),
                cwd=ROOT,
                stdout=sink,
                stderr=sink,
            )
        if wait:
            await self.ready(before)
        return time.monotonic() - began

    async def ready(self, identifies_before: int) -> None:
        await self.fake.wait_for(
            lambda: len(self.fake.identifies) > identifies_before and self.fake.connected(0),
            60.0,
            "the bot process to connect",
        )

    async def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)
            await self.proc.wait()
        await self.fake.wait_for(lambda: not self.fake.connected(0), 10.0, "the socket to close")

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 10.0)
            except TimeoutError:
                self.proc.send_signal(signal.SIGKILL)
                await self.proc.wait()


def parts(component: Component) -> tuple[int, int, str, str]:
    """``game id, version, action, argument`` of one of the bot's controls."""
    _, game, version, kind, arg = (component.custom_id or "").split(":", 4)
    return int(game), int(version), kind, arg


def action_of(component: Component) -> str | None:
    custom = component.custom_id or ""
    return parts(component)[2] if custom.startswith("orc") and custom.count(":") == 4 else None


def controls(message: dict[str, Any]) -> list[Component]:
    """The bot's enabled buttons and selects on a message, in display order."""
    return [
        c
        for c in components_of(message)
        if (c.is_button or c.is_select) and not c.disabled and action_of(c) is not None
    ]


def find(message: dict[str, Any], action: str) -> Component | None:
    for c in controls(message):
        if action_of(c) == action:
            return c
    return None


def is_move(component: Component) -> bool:
    action = action_of(component)
    return action is not None and action not in NOT_MOVES and not action.startswith("ui_")


def mentioned(message: dict[str, Any]) -> list[int]:
    """Whose turn it is: the game's message mentions the players it waits for."""
    return [int(m) for m in MENTION.findall(str(message.get("content") or ""))]


def seated(message: dict[str, Any]) -> int:
    """How many players a lobby message lists."""
    for embed in message.get("embeds") or []:
        for item in embed.get("fields") or []:
            found = SEATED.search(str(item.get("name") or ""))
            if found:
                return int(found[1])
    return 0


class Driver:
    """Players of one channel's games, pressing buttons through the fake like people would."""

    kind = ""

    def __init__(self, fake: FakeDiscord, report: Report, users: list[int], channel: int) -> None:
        self.fake, self.report, self.users, self.channel = fake, report, users, channel
        self.host = users[0]
        self.board: int | None = None
        self.rng = random.Random(self.host)

    async def run(self, stop: asyncio.Event) -> None:
        raise NotImplementedError

    async def step(self, user: int) -> None:
        raise NotImplementedError

    async def loop(self, user: int, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.step(user)
            except (TimeoutError, LookupError, KeyError, AssertionError, RuntimeError):
                self.board = None
                await asyncio.sleep(0.05)
            await asyncio.sleep(self.rng.uniform(0.0, 0.02))

    async def answer(self, record: InteractionRecord) -> InteractionRecord | None:
        try:
            return await record.wait(ANSWER_SECONDS)
        except TimeoutError:
            self.report.unanswered += 1
            return None

    async def press(
        self, user: int, board: int, component: Component, value: str | None
    ) -> InteractionRecord | None:
        """Click a button or choose ``value`` in a select; a move answered is acknowledged."""
        if value is None:
            record = await self.fake.click(user, board, component)
        else:
            record = await self.fake.select(user, board, component, [value])
        answered = await self.answer(record)
        if answered is not None and is_move(component):
            applied = answered.type == 7 or (
                answered.type == 4
                and answered.ephemeral
                and answered.content.startswith(MOVED_ELSEWHERE)
            )
            if applied:
                game, version, kind, arg = parts(component)
                self.report.acked.append(Ack(game, version, kind, value or arg, user))
        return answered

    async def move(self, user: int, component: Component, value: str | None) -> bool:
        """A move from the board in play; False (and the board forgotten) unless it was made."""
        assert self.board is not None
        answered = await self.press(user, self.board, component, value)
        if answered is None:
            self.board = None
            return False
        if answered.type != 7:  # refused, or made from an older copy and answered privately
            self.report.refused += not answered.content.startswith(MOVED_ELSEWHERE)
            return False
        return True

    async def recover(self) -> int | None:
        """The host finds the game with /games and posts it again, or opens a new one."""
        fake, user = self.fake, self.host
        listed = await self.answer(await fake.slash(user, GUILD, self.channel, "games"))
        if listed is None:
            return None
        shown = listed.original
        again = [c for c in components_of(shown or {}) if ":repost:" in (c.custom_id or "")]
        if shown is not None and again:
            posted = await self.answer(await fake.click(user, int(shown["id"]), again[0]))
            found = POSTED.search(posted.content) if posted is not None else None
            return int(found[1]) if found else None
        opened = await self.answer(await fake.slash(user, GUILD, self.channel, f"{self.kind} new"))
        if opened is None or opened.original is None or opened.ephemeral:
            return None
        return int(opened.original["id"])


class Player(Driver):
    """One person with one channel, playing Cheerio game after game through interactions."""

    kind = "cheerio"

    async def run(self, stop: asyncio.Event) -> None:
        await self.loop(self.host, stop)

    async def step(self, user: int) -> None:
        if self.board is None or self.board not in self.fake.messages:
            self.board = await self.recover()
            return
        message = self.fake.messages[self.board]
        start = find(message, "lobby_start")
        roll = find(message, "roll")
        score = find(message, "score")
        if start is not None:
            started = await self.answer(await self.fake.click(user, self.board, start))
            if started is None or started.type != 7:
                self.board = None
        elif roll is not None and (score is None or self.rng.random() < 0.7):
            if not await self.move(user, roll, None):
                self.board = None
        elif score is not None:
            if not await self.move(user, score, self.rng.choice(score.options)):
                self.board = None
        else:  # finished (Rematch only) or closed: start another game
            self.board = None


class Table(Driver):
    """Two people at one channel playing Hot Score: the guest joins, the host starts, and
    whoever the board mentions throws, sticks or picks the Bonus Die's sign. Both press at
    once, so in a challenge (both throw) one of them is sometimes a moment too late."""

    kind = "hotscore"

    def __init__(self, fake: FakeDiscord, report: Report, users: list[int], channel: int) -> None:
        super().__init__(fake, report, users, channel)
        self.guest = users[1]
        self.misses = 0
        self.finding = asyncio.Lock()

    async def run(self, stop: asyncio.Event) -> None:
        await asyncio.gather(*(self.loop(user, stop) for user in self.users))

    async def step(self, user: int) -> None:
        board = self.board
        if board is None or board not in self.fake.messages:
            if user == self.host:  # the host finds the table's game; the guest waits for it
                async with self.finding:
                    self.board, self.misses = await self.recover(), 0
            else:
                await asyncio.sleep(0.05)
            return
        message = self.fake.messages[board]
        join, start = find(message, "lobby_join"), find(message, "lobby_start")
        if start is not None:
            if user == self.guest and join is not None and seated(message) < 2:
                await self.lobby(user, board, join)
            elif user == self.host and seated(message) >= 2:
                await self.lobby(user, board, start)
            else:
                await asyncio.sleep(0.02)
            return
        moves = [c for c in controls(message) if is_move(c)]
        if not moves:  # finished (Rematch only) or closed: the host opens the next game
            if user == self.host:
                self.board = None
            else:
                await asyncio.sleep(0.05)
        elif user in mentioned(message):
            if await self.turn(user, message, moves):
                self.misses = 0
            else:
                self.miss()
        else:
            await asyncio.sleep(0.02)

    async def turn(self, user: int, message: dict[str, Any], moves: list[Component]) -> bool:
        """The player the board waits for moves; True if the board in play shows the move."""
        return await self.move(user, self.rng.choice(moves), None)

    async def lobby(self, user: int, board: int, button: Component) -> None:
        answered = await self.answer(await self.fake.click(user, board, button))
        if answered is None:
            self.board = None
        elif answered.type != 7:
            self.miss()

    def miss(self) -> None:
        """A refused click: usually the other player was quicker and the board follows;
        three in a row mean the board is stale, so the host posts the game again."""
        self.misses += 1
        if self.misses >= 3:
            self.board, self.misses = None, 0


class WordTable(Table):
    """Two people at one channel playing Appletters, the guest joining and the host starting
    as at a Hot Score table. On their turn a player reads the game from the database
    (read-only, as Discord would never show it: the hand is secret) and, if the hand can lay
    a listed word, usually types it in the Play word form, naming the end when the word fits
    both; otherwise presses Pick and pass."""

    kind = "appletters"

    def __init__(
        self, fake: FakeDiscord, report: Report, users: list[int], channel: int, db: Path
    ) -> None:
        super().__init__(fake, report, users, channel)
        self.db = db

    async def turn(self, user: int, message: dict[str, Any], moves: list[Component]) -> bool:
        play = find(message, "ui_play")
        found = None
        if play is not None and self.rng.random() < WORD_CHANCE:
            game, version, _, _ = parts(play)
            # in a thread: a read that waits on the database must not stall the fake Discord
            found = await asyncio.to_thread(word_to_play, self.db, game, version, user, self.rng)
        if play is None or found is None:
            pick = find(message, "pick")
            return await self.move(user, pick or self.rng.choice(moves), None)
        return await self.type_word(user, play, found)

    async def type_word(self, user: int, button: Component, way: Placement) -> bool:
        """Open the form from the board and submit ``way``'s word; a word the bot answered
        is acknowledged as the move ``play`` with the argument the cog passes the runner
        (the placement's ``arg``, since the end given leaves exactly this one way)."""
        assert self.board is not None
        game, version, _, _ = parts(button)
        opened = await self.answer(await self.fake.click(user, self.board, button))
        if opened is None:
            self.board = None
            return False
        form = MODAL.fullmatch(str((opened.modal or {}).get("custom_id") or ""))
        if form is None or int(form["version"]) != version:
            self.report.refused += 1  # not this player's turn after all, or the board moved
            return False
        fields = {"word": way.word.lower(), "end": way.end or ""}
        sent = await self.fake.submit_modal(user, self.channel, form[0], dict(fields))
        answered = await self.answer(sent)
        if answered is None:
            self.board = None
            return False
        if answered.type == 7:  # the board edited to the version the word made
            made = version_of(answered.data)
            at = version if made is None else made - 1
            self.report.acked.append(Ack(game, at, "play", way.arg, user))
            self.report.words += 1
            return True
        if answered.ephemeral and answered.content.startswith(PLAYED_ELSEWHERE):
            # made from an older copy of the board: no version in the answer, but the form
            # was drawn at ``version`` on this player's turn, and only they can move then
            self.report.acked.append(Ack(game, version, "play", way.arg, user))
            self.report.words += 1
            return False
        self.report.refused += 1
        return False


def version_of(payload: dict[str, Any]) -> int | None:
    """The game version a board (message or edit) was drawn for, from its controls."""
    shown = [c for c in components_of(payload) if action_of(c) is not None]
    return parts(shown[0])[1] if shown else None


def read_game(db: Path, game_id: int, user: int) -> tuple[int, AppState, int] | None:
    """``version, state, seat`` of ``user`` in word game ``game_id``, read-only from the
    database file the bot writes (WAL: readers never block it); None if not in play."""
    try:
        conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=0.5)
    except sqlite3.Error:
        return None
    try:
        game = conn.execute(
            "SELECT kind, status, version, state FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        seat = conn.execute(
            "SELECT seat FROM game_players WHERE game_id = ? AND user_id = ?", (game_id, user)
        ).fetchone()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    if game is None or seat is None or game[0] not in WORD_KINDS or game[1] != "active":
        return None
    if not game[3]:
        return None
    state: AppState = ENGINES[game[0]].load(json.loads(game[3])["state"])
    return int(game[2]), state, int(seat[0])


@lru_cache(maxsize=2)
def anagrams(word_list: str) -> dict[str, tuple[str, ...]]:
    """Short words of a list by their sorted letters (upper case)."""
    found: dict[str, list[str]] = {}
    for word in word_set(word_list):
        if 2 <= len(word) <= LONGEST + 1 and word.isascii() and word.isalpha():
            text = word.upper()
            found.setdefault("".join(sorted(text)), []).append(text)
    return {key: tuple(sorted(words)) for key, words in found.items()}


def bags(hand: str, most: int) -> Iterator[str]:
    """Every distinct multiset of at most ``most`` tiles of ``hand``, as sorted letters."""
    counts = sorted(Counter(hand).items())

    def grow(i: int, taken: str) -> Iterator[str]:
        if i == len(counts):
            yield taken
            return
        letter, have = counts[i]
        for n in range(min(have, most - len(taken)) + 1):
            yield from grow(i + 1, taken + letter * n)

    yield from grow(0, "")


def word_to_play(
    db: Path, game_id: int, version: int, user: int, rng: random.Random
) -> Placement | None:
    """A legal word for ``user`` in the game as the board (at ``version``) shows it, with
    exactly one way at its end, or None (not their turn, board stale, no word found)."""
    read = read_game(db, game_id, user)
    if read is None:
        return None
    stored, state, seat = read
    if stored != version or state.phase != "play" or state.turn != seat:
        return None
    index = anagrams(state.word_list)
    hand = state.hands[seat]
    ends = public_view(state).open_ends  # the letters a word may hook onto
    shared = sorted({letter for _, _, letter in ends}) if state.snake else [""]
    words: set[str] = set()
    for bag in bags(hand, LONGEST):
        for letter in shared:
            words.update(index.get("".join(sorted(bag + letter)), ()))
    ordered = sorted(words)
    rng.shuffle(ordered)
    for word in ordered:
        ways = placements_for(state, seat, word)
        for way in ways:
            if sum(other.end == way.end for other in ways) == 1:
                return way
    return None


Key = tuple[int, str, str]  # a control by what it does: component type, action, argument


def key_of(component: Component) -> Key:
    _, _, kind, arg = parts(component)
    return component.type, kind, arg


async def press_all(
    driver: Driver, board: int, report: Report, *, lobby: bool = False, idle: int = 4
) -> None:
    """Press every enabled control on ``board``: first as everyone not to act (each option of
    a select), then as the player to act. Every press must be answered with an edit, a
    private reply or a form (Play word, for the player to act), never with silence.

    A move redraws the board, so it is read again before every press and only controls still
    on it are pressed; controls that appear later are pressed the same way, and while none is
    new the player to act moves on (at most ``idle`` times in a row) to bring up more. In a
    lobby nobody joins who is not of the game, and the host does not start, cancel or add
    seats: :func:`drive` starts it.
    """
    fake = driver.fake

    def current(key: Key) -> Component | None:
        for c in controls(fake.messages.get(board) or {}):
            if key_of(c) == key:
                return c
        return None

    async def check(user: int, component: Component, value: str | None) -> None:
        report.pressed += 1
        try:
            answered = await driver.press(user, board, component, value)
        except (TimeoutError, LookupError, AssertionError) as err:
            answered, problem = None, f"{type(err).__name__}: {str(err).splitlines()[0]}"
        else:
            problem = "no answer" if answered is None else answered.describe()
        if answered is None or not (
            answered.type == 7
            or (answered.type == 4 and answered.ephemeral)
            or MODAL.fullmatch(str((answered.modal or {}).get("custom_id") or "")) is not None
        ):
            report.dead.append(f"{component.custom_id}={value} by {user}: {problem}")

    tried: set[Key] = set()
    quiet = 0
    while quiet <= idle:
        message = fake.messages.get(board) or {}
        waiting = [u for u in mentioned(message) if u in driver.users]
        actor = waiting[0] if waiting else driver.host
        shown = [c for c in controls(message) if action_of(c) not in DONE]
        key = next((key_of(c) for c in shown if key_of(c) not in tried), None)
        if key is None:  # nothing new: the player to act moves on, to bring up other controls
            moves = [c for c in shown if is_move(c)]
            if lobby or not moves:
                return
            quiet += 1
            if isinstance(driver, WordTable) and actor in mentioned(message):
                await word_turn(driver, board, actor, message, moves)
                continue
            step = driver.rng.choice(moves)
            await check(actor, step, driver.rng.choice(step.options) if step.is_select else None)
            continue
        quiet = 0
        tried.add(key)
        kind = key[1]
        for user in [*(u for u in driver.users if u != actor), STRANGER]:
            if lobby and user == STRANGER and kind == "lobby_join":
                continue
            first = current(key)
            values: list[str | None] = [None]
            if first is not None and first.is_select:
                values = list(first.options)
            for value in values if first is not None else []:
                component = current(key)  # a move by the other player redraws the board
                if component is not None and (value is None or value in component.options):
                    await check(user, component, value)
        component = current(key)
        if component is None or (lobby and kind not in ("lobby_join", "lobby_leave")):
            continue
        await check(
            actor, component, driver.rng.choice(component.options) if component.is_select else None
        )


async def word_turn(
    driver: WordTable, board: int, actor: int, message: dict[str, Any], moves: list[Component]
) -> None:
    """The player to act takes an Appletters turn as in play (a word through the form when
    the hand has one): every click and form on the way must be answered."""
    report = driver.report
    before, pressed = report.unanswered, len(report.acked)
    driver.board = board
    await driver.turn(actor, message, moves)
    report.pressed += 1
    if report.unanswered > before:
        report.dead.append(f"game board {board}: {actor}'s turn went unanswered")
    elif len(report.acked) == pressed:
        report.dead.append(f"game board {board}: {actor}'s turn was refused")


async def drive(driver: Driver, store: Store, game_id: int, moved: Any, rounds: int = 4) -> bool:
    """Let the table's players take their turns until ``moved(row)`` holds."""
    for _ in range(rounds):
        for user in driver.users:
            await driver.step(user)
            row = await store.get_game(game_id)
            if row is not None and moved(row):
                return True
    return False


async def find_board(driver: Driver) -> int | None:
    for _ in range(3):
        try:
            board = await driver.recover()
        except (TimeoutError, LookupError, KeyError):
            board = None
        if board is not None:
            return board
        await asyncio.sleep(0.5)
    return None


async def play_on(driver: Driver, store: Store, row: GameRow, report: Report) -> None:
    """A game open after the last restart: post it again, press every control, play on."""
    driver.board = await find_board(driver)
    if driver.board is None:
        report.dead.append(f"game {row.id}: its board could not be posted again")
        return
    if row.status == "lobby":
        await press_all(driver, driver.board, report, lobby=True)
        await drive(driver, store, row.id, lambda now: now.status != "lobby")
    now = await store.get_game(row.id)
    if now is not None and now.status == "active" and driver.board is not None:
        await press_all(driver, driver.board, report)
        now = await store.get_game(row.id)
        if now is not None and (now.status, now.version) == ("active", row.version):
            await drive(driver, store, row.id, lambda later: later.version > row.version)
    now = await store.get_game(row.id)
    if now is not None and (now.status, now.version) != (row.status, row.version):
        report.continued += 1


async def verify(bot: Bot, report: Report, drivers: list[Driver]) -> None:
    """Play every open game on and press its controls, then (bot stopped) compare the
    acknowledged moves with the log and replay every game."""
    store = await Store.open(bot.db)
    try:
        open_rows = await store.open_games(GUILD)
        report.open_games = len(open_rows)
        by_host = {d.host: d for d in drivers}
        for row in open_rows:
            await play_on(by_host[row.host_id], store, row, report)
    finally:
        await store.close()
    await bot.stop()  # nothing may move while the log is compared with the state
    store = await Store.open(bot.db)
    runner = Runner(store, ENGINES, Settings(store))
    try:
        logs: dict[int, list[Any]] = {}
        for ack in report.acked:
            if ack.game_id not in logs:
                logs[ack.game_id] = await store.moves(ack.game_id)
            # Usually move number version + 1; where seats act side by side (Hot Score's
            # challenge throw) the runner also takes a click drawn before another seat moved,
            # so it is this player's first move from there on.
            later = logs[ack.game_id][ack.version :]
            move = next((m for m in later if m.user_id == ack.user_id), None)
            if move is None or (move.verb, move.arg, move.user_id) != (
                ack.kind,
                ack.arg,
                ack.user_id,
            ):
                report.lost.append(ack)
        rows = await store._fetchall("SELECT id, status, kind FROM games WHERE state IS NOT NULL")
        report.games = len(rows)
        report.finished = sum(status == "finished" for _, status, _ in rows)
        hands: set[str] = set()
        for game_id, _, kind in rows:
            report.kinds[kind] = report.kinds.get(kind, 0) + 1
            live = await runner.load(game_id)
            if await runner.replay(game_id) != live.state:
                report.mismatched.append(game_id)
            if kind in WORD_KINDS:
                hands |= await every_hand(runner, live.row, await store.moves(game_id))
    finally:
        await store.close()
    check_hands_private(bot.fake, hands, report)


async def every_hand(runner: Runner, row: GameRow, moves: list[Any]) -> set[str]:
    """Every hand any seat held in a word game, replaying its log move by move."""
    engine = runner.engine(row.kind)
    state = engine.new(row.seed, len(row.players), row.options)
    held = set(state.hands)
    for move in moves:
        if move.verb == "forfeit":
            state = engine.forfeit(state, move.seat)
        else:
            state = engine.apply(state, engine.parse(move.seat, move.verb, move.arg))
        held |= set(state.hands)
    return held


def public_bodies(fake: FakeDiscord) -> Iterator[tuple[str, str]]:
    """``path, JSON text`` of every request the bot made that shows something to the whole
    channel: messages posted or edited in a server channel, interaction responses and
    follow-ups without the ephemeral flag, and edits of interaction messages that are public.
    DMs, forms (shown to one user) and anything ephemeral are left out."""
    dm = set(fake.dm_channels.values())
    records = {r.token: r for r in fake.interactions.values()}
    followed: Counter[str] = Counter()

    def shown_to_all(message_id: int | None) -> bool:  # a message not known counts as public
        versions = fake.versions.get(message_id or 0) or []
        return not versions or not int(versions[0]["flags"]) & EPHEMERAL

    for request in fake.requests:
        body = request.json
        if not isinstance(body, dict):
            continue
        path, public = request.path, False
        flags = int((body.get("data") or body).get("flags") or 0)
        channel = re.fullmatch(r"/channels/(\d+)/messages(?:/\d+)?", path)
        callback = re.fullmatch(r"/interactions/\d+/([^/]+)/callback", path)
        hook = re.fullmatch(r"/webhooks/\d+/([^/]+)(?:/messages/(@original|\d+))?", path)
        if channel is not None:
            public = int(channel[1]) not in dm
        elif callback is not None:
            record = records.get(callback[1])
            kind = int(body.get("type") or 0)
            if kind in (4, 5):
                public = not flags & EPHEMERAL
            elif kind == 7:  # an update of the message the component was on
                public = shown_to_all(record.message_id if record is not None else None)
        elif hook is not None and request.method in ("POST", "PATCH"):
            record = records.get(hook[1])
            if request.method == "PATCH" and record is not None:
                target = record.original_id if hook[2] == "@original" else int(hook[2] or 0)
                public = shown_to_all(target)
            elif request.method == "POST":
                followed[hook[1]] += 1
                deferred = record is not None and record.type == 5 and followed[hook[1]] == 1
                # the first follow-up of a deferred answer keeps the defer's ephemeral choice
                public = not flags & EPHEMERAL and not (
                    deferred and not shown_to_all(record.original_id if record else None)
                )
        if public:
            yield path, json.dumps(body)


def check_hands_private(fake: FakeDiscord, hands: set[str], report: Report) -> None:
    """No public message shows a hand as :func:`cogs.appletters.tiles_text` shows it to its
    owner. The hands are every one held (replayed from the logs) and every one DMed."""
    shown = {tiles_text(hand) for hand in hands if hand}
    dm = {str(channel) for channel in fake.dm_channels.values()}
    for versions in fake.versions.values():
        for message in versions:
            if message["channel_id"] in dm:
                for found in DM_TILES.finditer(str(message.get("content") or "")):
                    if found[1] != tiles_text(""):
                        shown.add(found[1])
    report.hands = len(shown)
    for path, text in public_bodies(fake):
        report.public += 1
        for run in SHOWN_TILES.finditer(text):  # every tile run, from every tile on
            tiles = run[1]
            for end in range(3, len(tiles) + 1, 4):  # each run's first 1, 2, 3... tiles
                if tiles[:end] in shown:
                    report.leaks.append(f"{path}: {tiles[:end]}")


async def chaos(
    kills: int = 20,
    games: int = 8,
    seed: int = 1,
    folder: Path | None = None,
    quiet: bool = False,
    tables: int = 2,
    words: int = 1,
) -> Report:
    """Run the whole experiment; returns the figures (asserting is left to the caller).

    ``games`` solo Cheerio players, ``tables`` two-player Hot Score tables and ``words``
    two-player Appletters tables, each in its own channel, play at once.
    """
    rng = random.Random(seed)
    report = Report()
    with tempfile.TemporaryDirectory() as tmp:
        where = folder or Path(tmp)
        fake = FakeDiscord()
        await fake.start()
        seats = [[FIRST_USER + i] for i in range(games)]
        pairs = [FIRST_USER + games + 2 * i for i in range(tables + words)]
        seats += [[first, first + 1] for first in pairs]
        channels = [FIRST_CHANNEL + i for i in range(len(seats))]
        users = [user for group in seats for user in group] + [STRANGER]
        for user in users:
            fake.add_user(user, f"player{user}")
        fake.add_guild(GUILD, channels, users)
        bot = Bot(fake, where / "orchard.db", where / "bot.log")
        try:
            report.restart_seconds.append(await bot.start())
            stop = asyncio.Event()
            drivers: list[Driver] = [
                Player(fake, report, group, channel)
                if n < games
                else Table(fake, report, group, channel)
                if n < games + tables
                else WordTable(fake, report, group, channel, bot.db)
                for n, (group, channel) in enumerate(zip(seats, channels, strict=True))
            ]
            tasks = [asyncio.create_task(d.run(stop)) for d in drivers]
            for n in range(kills):
                if rng.random() < 0.25:  # during start-up (migrations, sync, connect)
                    await asyncio.sleep(rng.uniform(0.0, 0.6))
                else:
                    await asyncio.sleep(rng.uniform(0.1, 1.5))
                await bot.kill()
                report.kills += 1
                if not quiet:
                    print(f"kill {n + 1}: {len(report.acked)} moves acknowledged so far")
                before = len(fake.identifies)
                began = time.monotonic()
                await bot.start(wait=False)
                if n + 1 < kills and rng.random() < 0.25:
                    continue  # the next kill may land before this start finished
                await bot.ready(before)
                report.restart_seconds.append(time.monotonic() - began)
            if not fake.connected(0):
                await bot.ready(len(fake.identifies) - 1)
            await asyncio.sleep(1.0)
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            await verify(bot, report, drivers)
        finally:
            await bot.stop()
            await fake.close()
            if folder is None and (report.lost or report.dead or report.leaks) and not quiet:
                print((where / "bot.log").read_text()[-4000:])
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--games", type=int, default=8, help="solo Cheerio games at once")
    parser.add_argument("--tables", type=int, default=2, help="two-player Hot Score tables")
    parser.add_argument("--words", type=int, default=1, help="two-player Appletters tables")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    # /games lists 25 games: every player's open game must be among them to be posted again
    tables = min(args.tables, 25)
    words = min(args.words, 25 - tables)
    games = min(args.games, 25 - tables - words)
    began = time.monotonic()
    report = asyncio.run(chaos(args.kills, games, args.seed, tables=tables, words=words))
    print("\n".join(report.lines()))
    for ack in report.lost[:10]:
        print(f"  lost: {ack}")
    for problem in report.dead[:10]:
        print(f"  unanswered: {problem}")
    for leak in report.leaks[:10]:
        print(f"  hand shown publicly: {leak}")
    print(f"wall time: {time.monotonic() - began:.1f} s")
    if (
        report.lost
        or report.mismatched
        or report.continued < report.open_games
        or report.dead
        or report.leaks
    ):
        sys.exit(1)


if __name__ == "__main__":
    main()
