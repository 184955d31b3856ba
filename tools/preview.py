"""Look at Orchard's boards without Discord: play a scripted game of each kind against the test
fake, draw each board as Discord's dark theme would, and screenshot it with headless Chromium.

Run from the project folder with the test set-up (it uses the fake in ``tests/``) and Debian's
``chromium`` installed; it is not part of CI::

    .venv/bin/python tools/preview.py                # writes docs/boards/*.png
    .venv/bin/python tools/preview.py --html-only    # only the HTML pages, to open by hand

The pictures are what the fake stored: the real payloads, dice emojis and snake picture.
The page is an approximation of Discord's client (fonts, spacing), good enough to judge a
layout, not a pixel-exact copy.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import datetime
import html
import io
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot import lobby as lobby_rules
from bot.app import OrchardBot
from tests.botharness import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    answered,
    choose,
    new_game,
    orchard_bot,
    press,
    server,
    unpaced,
)
from tests.fakediscord import FakeDiscord, components_of

OUT = Path("docs/boards")
WIDTH = 440  # CSS pixels: a phone held upright, plus Discord's margins
STYLES = {1: "#5865f2", 2: "#4e5058", 3: "#248046", 4: "#da373c", 5: "#4e5058"}
PAGE = """<!doctype html><meta charset="utf-8"><style>
body {{ margin: 0; background: #313338; color: #dbdee1; width: {width}px;
  font: 15px/1.375 "gg sans", "Noto Sans", "Helvetica Neue", Arial, sans-serif; }}
.msg {{ display: flex; gap: 12px; padding: 12px 12px 16px; }}
.avatar {{ width: 40px; height: 40px; border-radius: 50%; background: #c62828; flex: none;
  color: white; font-weight: 700; display: flex; align-items: center; justify-content: center; }}
.name {{ color: #f2f3f5; font-weight: 600; }} .app {{ background: #5865f2; color: white;
  font-size: 10px; padding: 0 4px; border-radius: 3px; margin-left: 4px; vertical-align: 1px; }}
.box {{ border-left: 4px solid {accent}; background: #393a41; border-radius: 8px;
  padding: 12px 14px; margin-top: 4px; max-width: 360px; }}
h3 {{ margin: 0 0 2px; font-size: 18px; color: #f2f3f5; }}
.small {{ font-size: 12px; color: #949ba4; }}
hr {{ border: 0; border-top: 1px solid #4e5058; margin: 10px 0; }} .gap {{ height: 8px; }}
pre {{ background: #2b2d31; border: 1px solid #1e1f22; border-radius: 4px; padding: 6px;
  margin: 4px 0; font: 12.5px/1.35 "DejaVu Sans Mono", Consolas, monospace; overflow: hidden; }}
code {{ background: #2b2d31; border-radius: 3px; padding: 0 3px;
  font: 13px "DejaVu Sans Mono", monospace; }}
.t {{ background: #3f4147; border-radius: 3px; padding: 0 2px; }}
img.e {{ width: 22px; height: 22px; vertical-align: -6px; }}
.row {{ display: flex; flex-wrap: wrap; gap: 8px; margin-top: 8px; }}
.b {{ color: white; border-radius: 8px; padding: 6px 12px; font-size: 14px; font-weight: 500;
  display: flex; align-items: center; gap: 6px; }}
.b img {{ width: 20px; height: 20px; }} .off {{ opacity: .5; }}
.sel {{ flex: 1; background: #1e1f22; border: 1px solid #1e1f22; border-radius: 8px;
  padding: 9px 10px; color: #949ba4; font-size: 14px; }}
.gallery img {{ width: 100%; border-radius: 6px; margin-top: 6px; }} p {{ margin: 0; }}
</style><div class="msg"><div class="avatar">O</div><div>
<span class="name">Orchard</span><span class="app">APP</span>
<span class="small">Today at 20:15</span>{body}</div></div>"""


def emoji_images(fake: FakeDiscord) -> dict[str, str]:
    """Each application emoji's id, as a data URI of the picture the bot uploaded."""
    return {
        str(emoji_id): "data:image/png;base64," + base64.b64encode(png).decode()
        for emoji_id, png in fake.emoji_images.items()
    }


def relative(match: re.Match[str]) -> str:
    seconds = int(match[1]) - datetime.datetime.now(datetime.UTC).timestamp()
    minutes = max(1, round(seconds / 60))
    return f'<span class="t">in {minutes} minute{"s" * (minutes != 1)}</span>'


def inline(text: str, emojis: dict[str, str]) -> str:
    """Discord's inline markdown, as much as boards use: bold, strike, code, times, emojis."""
    text = html.escape(text, quote=False)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
    text = re.sub(r"~~(.+?)~~", r"<s>\1</s>", text)
    text = re.sub(r"&lt;t:(\d+):R&gt;", relative, text)
    return re.sub(
        r"&lt;a?:\w+:(\d+)&gt;",
        lambda m: f'<img class="e" src="{emojis.get(m[1], "")}">',
        text,
    )


def text_html(content: str, emojis: dict[str, str]) -> str:
    out, code = [], None
    for line in content.split("\n"):
        if line.startswith("```"):
            if code is None:
                code = []
            else:
                out.append("<pre>" + html.escape("\n".join(code)) + "</pre>")
                code = None
            continue
        if code is not None:
            code.append(line)
        elif line.startswith("### "):
            out.append(f"<h3>{inline(line[4:], emojis)}</h3>")
        elif line.startswith("-# "):
            out.append(f'<p class="small">{inline(line[3:], emojis)}</p>')
        else:
            out.append(f"<p>{inline(line, emojis)}</p>")
    return "".join(out)


def control_html(c: dict[str, Any], emojis: dict[str, str]) -> str:
    if c["type"] == 2:
        emoji = c.get("emoji") or {}
        picture = emojis.get(str(emoji.get("id")), "")
        icon = f'<img src="{picture}">' if picture else html.escape(emoji.get("name") or "")
        off = " off" if c.get("disabled") else ""
        colour = STYLES.get(c.get("style", 2), "#4e5058")
        label = html.escape(c.get("label") or "")
        return f'<span class="b{off}" style="background:{colour}">{icon}{label}</span>'
    return f'<span class="sel">{html.escape(c.get("placeholder") or "Choose…")} ⌄</span>'


def component_html(c: dict[str, Any], emojis: dict[str, str], files: dict[str, str]) -> str:
    kind = c["type"]
    if kind == 17:
        inner = "".join(component_html(x, emojis, files) for x in c["components"])
        return f'<div class="box">{inner}</div>'
    if kind == 10:
        return text_html(c["content"], emojis)
    if kind == 14:
        return "<hr>" if c.get("divider", True) else '<div class="gap"></div>'
    if kind == 1:
        inner = "".join(control_html(x, emojis) for x in c["components"])
        return f'<div class="row">{inner}</div>'
    if kind == 12:
        shown = [files.get(i["media"]["url"].removeprefix("attachment://"), "") for i in c["items"]]
        return '<div class="gallery">' + "".join(f'<img src="{s}">' for s in shown) + "</div>"
    return ""


def page(fake: FakeDiscord, message: dict[str, Any]) -> str:
    files = {}
    for attachment in message.get("attachments") or []:
        upload = fake._files.get(int(attachment["id"]))
        if upload is not None:
            data = base64.b64encode(upload.data).decode()
            files[attachment["filename"]] = f"data:image/png;base64,{data}"
    emojis = emoji_images(fake)
    body = "".join(component_html(c, emojis, files) for c in message["components"])
    accent = f"#{message['components'][0].get('accent_color', 0x5865F2):06x}"
    return PAGE.format(width=WIDTH, accent=accent, body=body)


def screenshot(chromium: str, html_path: Path, png_path: Path) -> None:
    """Render the page at phone width in a fresh profile, then trim the empty bottom."""
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                f"--user-data-dir={profile}",
                "--hide-scrollbars",
                f"--window-size={WIDTH},1600",
                f"--screenshot={png_path}",
                html_path.resolve().as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    image = Image.open(png_path).convert("RGB")
    background = image.getpixel((image.width - 1, image.height - 1))
    bottom = image.height
    while bottom > 1 and all(
        image.getpixel((x, bottom - 1)) == background for x in range(0, image.width, 4)
    ):
        bottom -= 1
    image = image.crop((0, 0, image.width, min(image.height, bottom + 8)))
    out = io.BytesIO()
    image.quantize(colors=128, dither=Image.Dither.NONE).save(out, "PNG", optimize=True)
    png_path.write_bytes(out.getvalue())


Script = Callable[[FakeDiscord, OrchardBot], Awaitable[int]]


async def state_of(bot: OrchardBot, kind: str) -> Any:
    (row,) = [g for g in await bot.orchard.store.open_games(GUILD) if g.kind == kind]
    return await bot.orchard.runner.load(row.id)


async def lobby(fake: FakeDiscord, bot: OrchardBot) -> int:
    opened = await answered(await fake.slash(ALICE, GUILD, CHANNEL, "cheerio new"))
    board = int(opened.original["id"])
    await press(fake, BOB, board, "Join")
    await choose(fake, ALICE, board, "lobby_addbot", ["hard"])
    return board


async def cheerio(fake: FakeDiscord, bot: OrchardBot) -> int:
    board = await new_game(fake, "cheerio", ALICE, [BOB, CAROL])
    for user in (ALICE, BOB, CAROL):
        live = await state_of(bot, "cheerio")
        select = next(c for c in components_of(fake.message(board)) if c.is_select)
        await choose(fake, user, board, "score", [select.options[0]])
    live = await state_of(bot, "cheerio")
    for die in sorted(set(live.state.dice))[-2:]:
        await press(fake, ALICE, board, f"Keep {die}")
    return board


async def applejack(fake: FakeDiscord, bot: OrchardBot) -> int:
    board = await new_game(fake, "applejack", ALICE, [BOB, CAROL])
    live = await state_of(bot, "applejack")
    caller = (ALICE, BOB, CAROL)[live.state.caller]
    await press(fake, caller, board, f"Reroll {live.state.dice[live.state.caller][0]}")
    await press(fake, caller, board, "Reroll 1 die")
    return board


async def hotscore(fake: FakeDiscord, bot: OrchardBot) -> int:
    board = await new_game(fake, "hotscore", ALICE, [BOB])
    for _ in range(40):
        live = await state_of(bot, "hotscore")
        if live.state.phase == "sign":
            break
        user = (ALICE, BOB)[live.state.turn]
        buttons = [c for c in components_of(fake.message(board)) if c.is_button]
        wanted = "Throw the Bonus" if live.state.phase == "choose" else ""
        button = next((b for b in buttons if (b.label or "").startswith(wanted)), buttons[0])
        await press(fake, user, board, button.label or "")
    return board


async def appletters(fake: FakeDiscord, bot: OrchardBot) -> int:
    opened = await answered(
        await fake.slash(ALICE, GUILD, CHANNEL, "appletters new", {"opponent": "orchard"})
    )
    board = int(opened.original["id"])
    game_id = (await state_of(bot, "appletters")).id  # read by id: the game may end meanwhile
    passes = 0
    for _ in range(200):
        live = await bot.orchard.runner.load(game_id)
        if live.row.status != "active" or (
            passes >= 2 and live.state.snake and not live.state.turn
        ):
            break
        if live.state.turn == 0 and live.state.phase == "play" and passes < 4:
            await press(fake, ALICE, board, "Pick 3 tiles and pass")
            passes += 1
        await asyncio.sleep(0.1)
    return board


SCRIPTS: dict[str, Script] = {
    "lobby": lobby,
    "cheerio": cheerio,
    "applejack": applejack,
    "hotscore": hotscore,
    "appletters": appletters,
}


SEED = 3
"""Every game's seed (the lobby draws one at random): the same pictures at every run."""


async def play(folder: Path) -> dict[str, str]:
    """Each scripted game's final board as an HTML page, by name."""
    pages = {}
    for name, script in SCRIPTS.items():
        lobby_rules.secrets.randbits = lambda bits: SEED  # type: ignore[attr-defined]
        async with FakeDiscord.running() as fake:
            unpaced(fake)
            server(fake)
            with tempfile.TemporaryDirectory() as db:
                async with orchard_bot(fake, Path(db) / "o.db", delay=0.3) as bot:
                    board = await script(fake, bot)
                    pages[name] = page(fake, fake.message(board))
    return pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where the pictures go")
    parser.add_argument("--html-only", action="store_true", help="write the pages, no pictures")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    pages = asyncio.run(play(args.out))
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with tempfile.TemporaryDirectory() as work:
        for name, text in pages.items():
            html_path = (args.out if args.html_only else Path(work)) / f"{name}.html"
            html_path.write_text(text, encoding="utf-8")
            if args.html_only:
                continue
            if chromium is None:
                sys.exit("chromium not found: install Debian's chromium, or use --html-only")
            png = args.out / f"{name}.png"
            screenshot(chromium, html_path, png)
            print(f"{png}: {png.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
