"""REST routes for application commands: the bot's sync is kept so ``slash`` can check options."""

from __future__ import annotations

from aiohttp import web

from tests.fakediscord.protocol import json_response
from tests.fakediscord.routing import Call, Route
from tests.fakediscord.state import State


class CommandRoutes(State):
    def _command_routes(self) -> list[Route]:
        return [
            Route("GET", "/applications/{app}/commands", self._get_commands),
            Route("PUT", "/applications/{app}/commands", self._put_commands),
            Route("GET", "/applications/{app}/guilds/{guild}/commands", self._get_commands),
            Route("PUT", "/applications/{app}/guilds/{guild}/commands", self._put_commands),
        ]

    async def _get_commands(self, call: Call) -> web.Response:
        if "guild" in call.params:
            return json_response(self.guild_commands.get(call.id("guild"), []))
        return json_response(self.commands or [])

    async def _put_commands(self, call: Call) -> web.Response:
        """Bulk overwrite: echo with ids, keeping ids of commands that already existed."""
        guild_id = call.id("guild") if "guild" in call.params else None
        old = self.commands if guild_id is None else self.guild_commands.get(guild_id)
        old_ids = {c["name"]: c["id"] for c in old or []}
        echoed = []
        for command in call.body or []:
            item = dict(command)
            item.update(
                id=old_ids.get(command["name"]) or str(self.next_id()),
                application_id=str(self.application_id),
                version=str(self.next_id()),
            )
            item.setdefault("description", "")
            item.setdefault("type", 1)
            if guild_id is not None:
                item["guild_id"] = str(guild_id)
            echoed.append(item)
        if guild_id is None:
            self.commands = echoed
        else:
            self.guild_commands[guild_id] = echoed
        return json_response(echoed)
