"""Appletters, Applescore and Apple Turnover in Discord: one /appletters group for all three.

The public message draws the snake and counts tiles, and never shows a letter in anyone's
hand: each player gets their own tiles by DM after every change, and privately from the
"My tiles" button (for closed DMs). Words are typed in modals whose submissions this cog
handles itself (custom_id ``orcm:game:version:play|turnover:``), so they work after a restart.
"""

from __future__ import annotations

import io
import logging
import re
from collections import Counter
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands, ui

from bot.answers import acknowledge, answer_publicly, answered, send, send_form
from bot.boards import Draw, Part, Rendered, Row, message_link, names, status
from bot.components import (
    MAX_OPTIONS,
    OURS,
    Control,
    DrawnRows,
    GameButton,
    GameSelect,
    data_of,
)
from bot.games.appletters import (
    MAX_WORD,
    PICK,
    ROOM_SHOWN,
    VARIANTS,
    AppState,
    View,
    bad_apple_swaps,
    check_spelling,
    claim_pending,
    public_view,
    room,
    view_for,
)
from bot.games.base import BadInput, MoveError
from bot.interface import answering, open_lobby, orchard_seat, reply_display
from bot.model import GameStatus
from bot.runner import Display, Refusal, Snapshot, check_server
from bot.specs import APPLETTERS, title
from bot.wording import joined, not_your_turn, plural
from cogs.appletters_picture import draw_snake, last_word
from cogs.appletters_tiles import TileDMs, tiles_message, tiles_text
from cogs.game import LEVEL_HELP, OPPONENT_HELP, GameCog, opponent_chosen
from cogs.leaderboards import DEFAULT_ORDER, By, send_board

if TYPE_CHECKING:
    from bot.app import OrchardBot

log = logging.getLogger(__name__)

Level = Literal["easy", "normal", "hard"]
TypedWord = app_commands.Range[str, 2, MAX_WORD]
KINDS: dict[str, str] = {v.option: v.kind for v in APPLETTERS.variants}
"""The /appletters variant option's values, and the kind each one plays."""
VARIANT_CHOICES = [app_commands.Choice(name=v.title, value=v.option) for v in APPLETTERS.variants]
TURNOVER_KINDS = tuple(kind for kind in KINDS.values() if VARIANTS[kind].turnovers)
"""The kinds /appletters turnover can play in."""
MODAL = re.compile(r"orcm:(?P<game>[0-9]{1,18}):(?P<version>[0-9]{1,9}):(?P<verb>play|turnover):")
END_WORDS = {
    **dict.fromkeys(("start", "s", "first"), "start"),
    **dict.fromkeys(("end", "e", "last"), "end"),
}

RULES = """\
**Appletters** (2 to 6 players): together you grow one long, thin snake of words. Use up \
every tile in your hand first to win: "HOW DO YOU LIKE THEM APPLES!"
• Your tiles are secret: I send them to you by DM, and **My tiles** shows them too.
• The first word lies flat. Every other word hooks onto the snake's first or last letter, \
starting or ending with it, and runs across the word it touches. It pays with your tiles, \
except the shared letter. The snake stays one tile wide: no touching other tiles.
• Can't (or won't) play? **Pick and pass**: take 3 tiles from the core (the tiles nobody \
holds yet, face down).
• The core empty and a whole round without a word: fewest tiles left wins.
**Applescore**: a point per tile you lay, +5 for 8 letters or more, +5 for a word that reads \
the same backwards (TOOT) or spells another word (DOG/GOD), +5 for going out. Most points wins.
**Apple Turnover**: hands of 21 (15 with five or six players). **Turn over** someone else's \
end word with a longer one (their tiles go back to them). Once a game, swap one tile for the \
core's next on the **Bad Apple** pile: that is your turn. Words \
are not checked (unless this server's /settings check them on entry): **Challenge** the last \
word before the next move; wrong challengers miss a turn, and a word not in the list goes \
back to its player, who misses a turn."""


def modal_values(components: list[Any]) -> dict[str, str]:
    """Text inputs of a modal submission, found in action rows (1) or labels (18)."""
    found: dict[str, str] = {}
    for c in components:
        inner = list(c.get("components") or [])
        if isinstance(c.get("component"), dict):
            inner.append(c["component"])
        if inner:
            found |= modal_values(inner)
        elif c.get("custom_id"):
            found[str(c["custom_id"])] = str(c.get("value") or "")
    return found


def parse_end(text: str) -> str | None:
    text = text.strip().lower()
    if not text:
        return None
    if text not in END_WORDS:
        raise Refusal("For the end, write start or end (or leave it empty).")
    return END_WORDS[text]


def letter_groups(hand: str) -> list[str]:
    """A hand's letters, once each, in the groups Discord lets a select offer (25 options):
    one, or A to M and N to Z for a hand grown by picks to hold every letter."""
    letters = "".join(sorted(set(hand)))
    if len(letters) <= MAX_OPTIONS:
        return [letters]
    first = "".join(letter for letter in letters if letter < "N")
    return [first, letters[len(first) :]]


def form_text(state: AppState, seat: int) -> str:
    """The word form's reminder, for its player only: their tiles, the ends and their room."""
    view = view_for(state, seat)
    lines = [f"Your tiles ({len(view.hand or '')}): {tiles_text(view.hand or '')}"]
    if view.snake:
        lines += [ends_line(view, words=True), *room_lines(view)]
    return "\n".join(lines)


def ends_line(view: View, words: bool = False) -> str:
    """The snake's open ends (and, with ``words``, the words they belong to)."""
    ends: dict[str, str] = {e: letter for e, _, letter in view.open_ends}
    of = {"start": view.snake[0].text, "end": view.snake[-1].text}
    shown = [f"**{ends[e]}** ({e}, of {of[e]})" if words else f"**{ends[e]}** ({e})" for e in of]
    return f"Open ends: {shown[0]} and {shown[1]}"


def room_lines(view: View) -> list[str]:
    """Each open end's room in words: what the picture shows of where a word still fits, for
    players who cannot see it (a screen reader, pictures turned off)."""
    found = room(view.snake)
    lines = []
    for end, _, letter in view.open_ends:
        begins, ends = fits(found[end, "begins"]), fits(found[end, "ends"])
        if begins == ends:
            lines.append(f"Room at the {end} ({letter}): {begins} either way")
        else:
            lines.append(
                f"Room at the {end} ({letter}): {begins} beginning with {letter}, {ends} ending "
                f"with {letter}"
            )
    return lines


def fits(longest: int) -> str:
    """How long a word may be (see :func:`bot.games.appletters.room`)."""
    if not longest:
        return "none"
    return f"at least {ROOM_SHOWN} letters" if longest >= ROOM_SHOWN else f"up to {longest} letters"


def pick_label(core_count: int) -> str:
    """What the pick button takes: 3 tiles, fewer once the core runs low, none when empty."""
    taken = min(PICK, core_count)
    return f"Pick {plural(taken, 'tile')} and pass" if taken else "Pass: the core is empty"


def which_game(games: list[Snapshot], yours: bool, button: str, by_variant: bool) -> str:
    """Several of the caller's word games here fit a typed word: Orchard does not guess,
    but names them (linked to their boards) and says how to choose."""
    named = []
    for game in games:
        row, text = game.row, f"{title(game.row.kind)} game {game.id}"
        shown = message_link(text, row.guild_id, row.channel_id, row.message_id)
        named.append(shown if row.message_id else text)
    if not yours:
        return f"You play {joined(named)} here, and it is your turn in none of them."
    if by_variant and len({game.row.kind for game in games}) == len(games):
        how = "Say which with the command's `variant` option."
    else:
        how = f"Press **{button}** on the board of the one you mean."
    return f"It is your turn in {joined(named)}. {how}"


def custom_version(interaction: discord.Interaction[Any]) -> int | None:
    """The version a clicked component was drawn for, so a stale choice is refused."""
    match = OURS.fullmatch(str(data_of(interaction).get("custom_id", "")))
    return None if match is None else int(match["version"])


class WordModal(ui.Modal):
    """Type a word (and which end); submitted to :meth:`AppLettersCog.on_form`."""

    def __init__(self, game_id: int, version: int, verb: str, told: str) -> None:
        """``told``: what the player needs in view as they type (on a phone the form covers
        the board): their tiles, the ends. Only they see the form."""
        title = "Turn over a word" if verb == "turnover" else "Play a word"
        super().__init__(title=title, custom_id=f"orcm:{game_id}:{version}:{verb}:", timeout=None)
        self.add_item(ui.TextDisplay(told))
        word = ui.TextInput[Any](custom_id="word", min_length=2, max_length=MAX_WORD)
        end = ui.TextInput[Any](custom_id="end", required=False, placeholder="start or end")
        self.add_item(ui.Label(text="Your word", component=word))
        self.add_item(ui.Label(text="Start or end? (only if it fits both)", component=end))


class AppLettersCog(GameCog, group_name="appletters", group_description="Appletters word games"):
    spec = APPLETTERS
    rules_text = RULES
    accent = 0xC62828  # apple red

    def __init__(self, bot: OrchardBot) -> None:
        super().__init__(bot)
        bot.forms[MODAL] = self.on_form
        self.tiles = TileDMs(bot, bot.orchard, self.spec.kinds)

    async def cog_load(self) -> None:
        self.tiles.start()

    async def cog_unload(self) -> None:
        self.bot.forms.pop(MODAL, None)
        await self.tiles.stop()

    # Slash commands.

    @app_commands.command(name="new", description="Open a lobby for a new word game here")
    @app_commands.describe(
        variant="Appletters, Apple Turnover (steal words) or Applescore",
        opponent=OPPONENT_HELP,
        level=LEVEL_HELP,
    )
    @app_commands.choices(variant=VARIANT_CHOICES)
    async def new(  # type: ignore[override]
        self,
        interaction: discord.Interaction[Any],
        variant: str = APPLETTERS.main.option,
        opponent: Literal["orchard"] | None = None,
        level: Level | None = None,
    ) -> None:
        """The shared ``new`` (cogs/game.py) plus a variant, which picks the engine's kind."""
        against, chosen = opponent_chosen(opponent, level)
        if (
            variant not in KINDS
            or against not in (None, "orchard")
            or chosen not in self.spec.levels
        ):
            raise Refusal("Choose a variant, and Orchard at easy, normal or hard.")
        if interaction.guild_id is None:
            raise Refusal("Games are played in a server channel, not in direct messages.")
        answer_publicly(interaction)  # before any read: a slow one is deferred in public
        options = await self.options_for(interaction.guild_id)
        seats = (orchard_seat(interaction, chosen),) if against else ()
        await open_lobby(interaction, KINDS[variant], options, players=seats, start=bool(seats))

    @app_commands.command(name="leaderboard", description="This server's best players")
    @app_commands.describe(
        variant="Which game", by="Rank by rating (the default), wins, best or average score"
    )
    @app_commands.choices(variant=VARIANT_CHOICES)
    async def leaderboard(  # type: ignore[override]
        self,
        interaction: discord.Interaction[Any],
        variant: str = APPLETTERS.main.option,
        by: By = DEFAULT_ORDER,
    ) -> None:
        if variant not in KINDS:
            raise Refusal("Choose one of the word games.")
        await send_board(interaction, KINDS[variant], by)

    @app_commands.command(name="play", description="Lay a word on the snake in your game here")
    @app_commands.describe(
        word="Your word",
        end="Which end of the snake, if it fits both",
        variant="Which game, if it is your turn in more than one here",
    )
    @app_commands.choices(variant=VARIANT_CHOICES)
    async def play(
        self,
        interaction: discord.Interaction[Any],
        word: TypedWord,
        end: Literal["start", "end"] | None = None,
        variant: str | None = None,
    ) -> None:
        if variant is not None and variant not in KINDS:
            raise Refusal("Choose one of the word games.")
        kinds = (KINDS[variant],) if variant else tuple(KINDS.values())
        snapshot = await self._game_here(interaction, kinds, "Play a word", by_variant=True)
        await self._submit(interaction, snapshot, "play", word, end or "", None)

    @app_commands.command(name="turnover", description="Apple Turnover: replace an end word")
    @app_commands.describe(word="Your longer word", end="Which end word to turn over")
    async def turnover(
        self,
        interaction: discord.Interaction[Any],
        word: TypedWord,
        end: Literal["start", "end"] | None = None,
    ) -> None:
        snapshot = await self._game_here(interaction, TURNOVER_KINDS, "Turn over a word")
        await self._submit(interaction, snapshot, "turnover", word, end or "", None)

    async def options_for(self, guild_id: int) -> dict[str, Any]:
        """``check_words`` only matters in Apple Turnover; the engine ignores it elsewhere."""
        settings = await self.bot.orchard.settings.get(guild_id)
        return {
            "easy_letters": settings.easy_letters,
            "word_list": settings.word_list,
            "check_words": settings.turnover_words == "checked",
        }

    async def _game_here(
        self,
        interaction: discord.Interaction[Any],
        kinds: tuple[str, ...],
        button: str,
        *,
        by_variant: bool = False,
    ) -> Snapshot:
        """The caller's game of ``kinds`` in play in this channel (not one they have left).
        A word goes in on one's turn, so of several it is the one theirs to move; between two
        such Orchard never guesses, but asks (``button`` on a board, or ``variant`` if
        ``by_variant`` tells them apart)."""
        if interaction.guild_id is None or interaction.channel_id is None:
            raise Refusal("Words are played in your game's channel.")
        user = interaction.user.id
        rows = [
            row
            for kind in kinds
            for row in await self.bot.orchard.store.open_games(
                interaction.guild_id, interaction.channel_id, kind
            )
            if row.status is GameStatus.ACTIVE and row.seat_of(user) is not None
        ]
        runner = self.bot.orchard.runner
        games = [g for g in await runner.load_many([r.id for r in rows]) if runner.plays(g, user)]
        if not games:  # none, or only games they have left
            name = title(kinds[0]) if len(kinds) == 1 else "word"
            raise Refusal(f"You have no {name} game in play in this channel.")
        mine = [g for g in games if g.row.seat_of(user) == g.state.turn]
        fits = mine or games
        if len(fits) > 1:
            raise Refusal(which_game(fits, bool(mine), button, by_variant))
        return fits[0]

    # Words: from a modal, a slash command, or a "which way?" button.

    async def on_form(self, interaction: discord.Interaction[Any], match: re.Match[str]) -> None:
        """Every modal ``orcm:`` submission, including ones opened before a restart."""
        data = data_of(interaction)
        game_id = int(match["game"])
        async with answering(interaction, game_id):
            snapshot = await self.bot.orchard.runner.load(game_id)
            check_server(snapshot.row, interaction.guild_id or 0)
            if snapshot.row.kind not in self.spec.kinds:  # a forged form naming another game's id
                raise Refusal("That is not a word game, so there is no word to play in it.")
            values = modal_values(list(data.get("components") or []))
            message = interaction.message
            on_board = message is not None and message.id == snapshot.row.message_id
            display = reply_display(interaction) if on_board else None
            word, end = values.get("word", ""), values.get("end", "")
            await self._submit(interaction, snapshot, match["verb"], word, end, display)

    async def _submit(
        self,
        interaction: discord.Interaction[Any],
        snapshot: Snapshot,
        verb: str,
        word: str,
        end_text: str,
        display: Display | None,
    ) -> None:
        """Play (or turn over with) ``word``; the engine asks which way when it fits several.

        Acknowledged first: checking the word and drawing the snake can outlast Discord's 3 s
        (and a check holds the event loop, so no later deferral could be sent meanwhile).
        No version check: the word was typed for this player's turn, and the engine's turn
        check keeps order even if the board moved for another reason meanwhile.
        """
        end = parse_end(end_text)
        text = word.strip().upper()
        if ":" in text:  # the way is added after a ":": one typed in would read as a way
            try:
                check_spelling(text)
            except BadInput as err:
                raise Refusal(str(err)) from err
        await acknowledge(interaction)
        await self.bot.orchard.runner.act(
            snapshot.id,
            interaction.user.id,
            verb,
            f"{text}:{end}" if end else text,
            guild_id=interaction.guild_id or 0,
            display=display,
        )
        if not answered(interaction):
            said = "Turned over with" if verb == "turnover" else "Played"
            await send(interaction, f"{said} {text}.")

    # Buttons that only show something, or open a modal or a private choice.

    async def on_ui(
        self, interaction: discord.Interaction[Any], snapshot: Snapshot, verb: str, arg: str
    ) -> None:
        if verb == "ui_tiles":
            await self._show_tiles(interaction, snapshot)
        elif verb in ("ui_play", "ui_turnover"):
            seat = self._check_turn(snapshot, interaction.user.id)
            told = form_text(snapshot.state, seat)
            modal = WordModal(snapshot.id, snapshot.row.version, verb.removeprefix("ui_"), told)
            modal.stop()  # never stored: the cog's listener answers it, even after a restart
            await send_form(interaction, modal)
        elif verb == "ui_badapple":
            await self._offer_bad_apple(interaction, snapshot)
        elif verb == "ui_throw":
            await self._throw(interaction, snapshot, arg)
        else:
            raise Refusal("That button does nothing in this game.")

    def _check_turn(self, snapshot: Snapshot, user_id: int) -> int:
        """The caller's seat, or a refusal a child understands."""
        seat = snapshot.row.seat_of(user_id)
        if snapshot.row.status is not GameStatus.ACTIVE:
            raise Refusal("This game is not being played right now.")
        if seat is None:
            raise Refusal("You are not playing in this game.")
        state: AppState = snapshot.state
        if not state.active[seat]:  # as a move says: never "not your turn", which never comes
            raise Refusal("You are no longer playing in this game.")
        if state.phase == "claim":
            raise Refusal(claim_pending(state, seat))
        if seat != state.turn:
            raise Refusal(not_your_turn([snapshot.row.players[state.turn].name]))
        return seat

    async def _show_tiles(self, interaction: discord.Interaction[Any], snapshot: Snapshot) -> None:
        seat = snapshot.row.seat_of(interaction.user.id)
        if seat is None or snapshot.state is None:
            raise Refusal("You are not playing in this game, so you have no tiles.")
        await send(interaction, tiles_message(snapshot, snapshot.state.hands[seat]))

    async def _offer_bad_apple(
        self, interaction: discord.Interaction[Any], snapshot: Snapshot
    ) -> None:
        seat = self._check_turn(snapshot, interaction.user.id)
        state: AppState = snapshot.state
        engine = self.bot.orchard.runner.engine(snapshot.row.kind)
        try:  # refused before a choice the throw would refuse: used, or a last tile kept
            engine.apply(state, engine.parse(seat, "badapple", state.hands[seat][:1]))
        except MoveError as err:
            raise Refusal(str(err)) from err
        groups = letter_groups(state.hands[seat])
        selects = [
            GameSelect(
                snapshot.id,
                snapshot.row.version,
                "ui_throw",
                [discord.SelectOption(label=letter, value=letter) for letter in group],
                placeholder="Throw…" if len(groups) == 1 else f"Throw {group[0]} to {group[-1]}…",
                arg="" if len(groups) == 1 else group[0] + group[-1],
            )
            for group in groups
        ]
        if bad_apple_swaps(state):
            back = "You take the core's next tile in its place"
        else:
            back = "The core is empty, so no tile" if not state.core else "No tile"
            back += " comes back in its place"
        await send(
            interaction,
            "Which tile goes on the Bad Apple pile? It lies face down: only you know which. "
            f"{back}, and that is your turn.",
            view=DrawnRows(selects),
        )

    async def _throw(
        self, interaction: discord.Interaction[Any], snapshot: Snapshot, arg: str
    ) -> None:
        """A tile chosen in a private message: the board is edited; the tile thrown and the
        one drawn in its place are said privately."""
        fresh = await self.bot.orchard.runner.act(
            snapshot.id,
            interaction.user.id,
            "badapple",
            arg,
            version=custom_version(interaction),
            guild_id=interaction.guild_id or 0,
        )
        seat = snapshot.row.seat_of(interaction.user.id)
        drawn = ""
        if seat is not None:  # what is new in the hand; the rest may be empty (a last tile)
            kept = Counter(snapshot.state.hands[seat]) - Counter(arg)
            drawn = "".join((Counter(fresh.state.hands[seat]) - kept).elements())
        got = f" and drew {drawn} from the core" if drawn else ": the core is empty"
        if not drawn and snapshot.state.core:  # a game of the first edition: thrown away
            got = ": no tile comes back in its place"
        await send(interaction, f"You threw {arg} on the Bad Apple pile{got}.")

    # The public message.

    def render(self, snapshot: Snapshot) -> Rendered:
        view = public_view(snapshot.state)
        players = names(snapshot)
        recent = [
            e.text if e.seat is None else f"{players[e.seat]} {e.text}" for e in view.log[-3:]
        ]
        happened = recent[-1] if recent else ""
        earlier = "\n".join(f"-# {line}" for line in recent[:-1])
        body: list[Part] = [self._describe(view, players)]
        draw = self._picture(view, body)
        body += [self._table(view, players)] + ([earlier] if earlier else [])
        if snapshot.row.status is not GameStatus.ACTIVE:
            return self._finished(snapshot, happened, body, draw)
        turn = snapshot.row.players[view.turn]
        layout = self.layout(
            snapshot,
            title(snapshot.row.kind),
            status(snapshot, [turn], happened),
            body,
            self._controls(snapshot, view),
        )
        return Rendered(layout, draw=draw)

    def _describe(self, view: View, players: list[str]) -> str:
        """The snake in words (for screen readers and images turned off)."""
        lines = []
        if view.phase == "claim" and view.challengeable is not None:
            seat, word = view.challengeable
            others = [
                players[s] for s, on in enumerate(view.active) if on and s not in (seat, view.turn)
            ]
            also = f"; {joined(others)} may challenge it too" if others else ""
            lines.append(
                f"**{players[seat]} used every tile with {word}!** {players[view.turn]}: "
                f"accept it or challenge it{also}."
            )
        if view.snake:
            lines += [ends_line(view), *room_lines(view)]
        else:
            lines.append("No words yet: the first word lies flat anywhere.")
        if view.challengeable is not None and view.phase == "play":
            seat, word = view.challengeable
            lines.append(f"{players[seat]}'s {word} may be challenged until the next move.")
        if view.snake:  # last: a long snake's is what is cut short
            lines.append("Words, start to end: " + " → ".join(w.text for w in view.snake))
        return "\n".join(lines)[:1500]  # a board's texts share 4,000 characters

    def _table(self, view: View, players: list[str]) -> str:
        lines = []
        for seat, name in enumerate(players):
            arrow = "▶ " if seat == view.turn and view.phase != "over" else ""
            if not view.active[seat]:
                lines.append(f"{name}: left the game (tiles set aside)")
                continue
            line = f"{arrow}**{name}**: {plural(view.tile_counts[seat], 'tile')}"
            if view.scores is not None:
                line += f" · {plural(view.scores[seat], 'point')}"
            if view.skips[seat] == 1:
                line += " · misses a turn"
            elif view.skips[seat]:
                line += f" · misses {view.skips[seat]} turns"
            lines.append(line)
        core = f"Core: {plural(view.core_count, 'tile')}"
        if view.kind == "appleturnover":
            core += f" · Bad Apple pile: {plural(view.bad_apple_count, 'tile')}, face down"
        lines.append(core)
        return "\n".join(lines)[:1024]

    def _picture(self, view: View, body: list[Part]) -> Draw | None:
        """Show the snake picture in the board; drawing it is left to :func:`render`."""
        if not view.snake:
            return None
        words = ", ".join(w.text for w in view.snake)
        ends = " and ".join(f"{letter} at the {e}" for e, _, letter in view.open_ends)
        last = last_word(view)
        alt = f"The word snake. Open ends: {ends}. {'. '.join(room_lines(view))}."
        if last is not None:
            alt += f" Last word: {last.text}."
        alt += f" Words, start to end: {words}."
        gallery: ui.MediaGallery[ui.LayoutView] = ui.MediaGallery()
        gallery.add_item(media="attachment://snake.png", description=alt[:1000])
        body.append(gallery)
        return lambda: [
            discord.File(io.BytesIO(draw_snake(view)), "snake.png", description=alt[:1000])
        ]

    def _controls(self, snapshot: Snapshot, view: View) -> list[Row]:
        gid, ver = snapshot.id, snapshot.row.version
        primary = discord.ButtonStyle.primary
        tiles = GameButton(gid, ver, "ui_tiles", label="My tiles")
        items: list[Control] = []
        if view.phase == "claim":
            items.append(GameButton(gid, ver, "accept", label="Accept the word", style=primary))
        else:
            items.append(GameButton(gid, ver, "ui_play", label="Play a word", style=primary))
            if view.kind == "appleturnover":
                early = len(view.snake) < 2  # nothing to turn over before the second word
                items.append(
                    GameButton(gid, ver, "ui_turnover", label="Turn over a word", disabled=early)
                )
            items.append(GameButton(gid, ver, "pick", label=pick_label(view.core_count)))
            if view.kind == "appleturnover":
                used = view.bad_apple_used[view.turn]
                label = "Bad Apple: used" if used else "Toss a tile on the Bad Apple"
                items.append(GameButton(gid, ver, "ui_badapple", label=label, disabled=used))
        rows: list[Row] = [items, [tiles]]
        if view.challengeable is not None:
            word = view.challengeable[1]
            danger = discord.ButtonStyle.danger
            label = f"Challenge {word}"[:80]
            rows[1] = [tiles, GameButton(gid, ver, "challenge", label=label, style=danger)]
        return rows

    def _finished(
        self,
        snapshot: Snapshot,
        happened: str,
        body: list[Part],
        draw: Draw | None,
    ) -> Rendered:
        """Standings in points (Applescore) or tiles left, the snake kept, and Rematch."""
        state: AppState = snapshot.state
        words = " → ".join(w.text for w in state.snake)
        unit = "point" if state.scored else "tile"
        pictures = [part for part in body if not isinstance(part, str)]
        kept: list[Part] = [*pictures, f"The snake: {words or 'no words yet'}"[:1500]]
        board = self.finished(snapshot, happened, kept, unit=unit)
        return Rendered(board, draw=draw)


async def setup(bot: OrchardBot) -> None:
    await bot.add_cog(AppLettersCog(bot))
