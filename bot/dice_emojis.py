"""Dice as pictures in Discord: Orchard's application emojis, uploaded at start-up when missing.

The faces are drawn by :mod:`bot.dice_faces`. Any face not (yet) available, because the upload
failed or the application's emojis cannot be read, is written as text instead: a die is
always shown, only less prettily.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import discord

from bot.dice_faces import all_faces, emoji_name

log = logging.getLogger(__name__)


def text_face(face: int, held: bool) -> str:
    """A die without its picture: held dice are boxed and bold, so they still stand out."""
    return f"**[{face}]**" if held else f"`{face}`"


class DiceEmojis:
    """The dice emojis Orchard has, by name; empty until :meth:`upload` has run."""

    def __init__(self) -> None:
        self.known: dict[str, discord.PartialEmoji] = {}

    async def upload(self, client: discord.Client, timeout: float = 30.0) -> None:
        """Reuse the application's dice emojis and create the missing ones; never raises, and
        gives up after ``timeout`` seconds (start-up waits for it)."""
        try:
            async with asyncio.timeout(timeout):
                await self._upload(client)
        except Exception as err:  # pictures are optional: nothing here may stop the bot
            log.warning("dice emojis unavailable (%r): dice are shown as text", err)

    async def _upload(self, client: discord.Client) -> None:
        await self._fetch(client)
        for name, png in all_faces().items():
            if name in self.known:
                continue
            try:
                made = await client.create_application_emoji(name=name, image=png)
            except discord.HTTPException as err:
                # Orchard's other processes start together and share the application's
                # emojis: one of them may have made this one since we looked.
                await self._fetch(client)
                if err.status != 400 or name not in self.known:
                    raise
                continue
            self.known[name] = discord.PartialEmoji(name=made.name, id=made.id)

    async def _fetch(self, client: discord.Client) -> None:
        for emoji in await client.fetch_application_emojis():
            self.known[emoji.name] = discord.PartialEmoji(name=emoji.name, id=emoji.id)

    def emoji(self, face: int, held: bool = False) -> discord.PartialEmoji | None:
        return self.known.get(emoji_name(face, held))

    def face(self, face: int, held: bool = False) -> str:
        """One die in a text line: its picture, or its number as text."""
        emoji = self.emoji(face, held)
        return str(emoji) if emoji is not None else text_face(face, held)

    def line(self, dice: Sequence[int], held: Sequence[bool] | None = None) -> str:
        marks = held if held is not None else [False] * len(dice)
        return " ".join(self.face(d, h) for d, h in zip(dice, marks, strict=True))
