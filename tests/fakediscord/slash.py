"""Running a slash command as a user, checked against the bot's sync as Discord's client does."""

from __future__ import annotations

from typing import Any

from tests.fakediscord.interactions import Interactions
from tests.fakediscord.protocol import ADMINISTRATOR, DEFAULT_MEMBER_PERMISSIONS, JSON
from tests.fakediscord.record import InteractionRecord


class Slash(Interactions):
    """``slash``: the synced command's options type the values; unknown options are refused."""

    def _find_command(self, name: str, guild_id: int | None) -> tuple[JSON | None, int | None]:
        if guild_id is not None:
            for command in self.guild_commands.get(guild_id, []):
                if command["name"] == name:
                    return command, guild_id
        for command in self.commands or []:
            if command["name"] == name:
                return command, None
        return None, None

    def _encode_options(
        self, declared: list[JSON] | None, values: dict[str, Any], guild_id: int | None
    ) -> tuple[list[JSON], JSON]:
        """Typed option payloads plus ``resolved`` for user options, checked against the sync."""
        by_name = {o["name"]: o for o in declared or []}
        if declared is not None:
            unknown = set(values) - set(by_name)
            missing = {n for n, o in by_name.items() if o.get("required") and n not in values}
            if unknown or missing:
                raise ValueError(
                    f"options {sorted(unknown)} unknown / {sorted(missing)} missing; "
                    f"the command declares {sorted(by_name)}"
                )
        options: list[JSON] = []
        resolved: JSON = {}
        for name, value in values.items():
            kind = by_name[name]["type"] if name in by_name else self._infer_type(value)
            if kind in (6, 9):  # user / mentionable
                user_id = int(value)
                resolved.setdefault("users", {})[str(user_id)] = self.user(user_id)
                member = self.guild_members.get(guild_id or 0, {}).get(user_id)
                if member is not None:
                    entry = {k: v for k, v in member.items() if k != "user"}
                    entry["permissions"] = str(self.permissions.get(user_id, 0))
                    resolved.setdefault("members", {})[str(user_id)] = entry
                value = str(user_id)
            elif kind == 7:  # channel
                channel = self.channels[int(value)]
                resolved.setdefault("channels", {})[str(value)] = channel | {"permissions": "0"}
                value = str(value)
            elif kind == 4:
                value = int(value)
            elif kind == 10:
                value = float(value)
            elif kind == 3:
                value = str(value)
            options.append({"name": name, "type": kind, "value": value})
        return options, resolved

    @staticmethod
    def _infer_type(value: Any) -> int:
        if isinstance(value, bool):
            return 5
        if isinstance(value, int):
            return 4
        if isinstance(value, float):
            return 10
        return 3

    @staticmethod
    def _check_context(command: JSON | None, guild_id: int | None) -> None:
        """Discord's client does not offer a command where its ``contexts`` do not include
        the place: a server (0) or the bot's own DM (1). Absent, a command is offered in both
        (Discord's default). A refused attempt raises PermissionError."""
        contexts = (command or {}).get("contexts")
        place = 0 if guild_id is not None else 1
        if contexts is not None and place not in contexts:
            name = command and command["name"]
            raise PermissionError(f"/{name} is not offered here (contexts {contexts})")

    def _check_command_permission(
        self, command: JSON | None, user_id: int, guild_id: int | None, permissions: int | None
    ) -> None:
        """Discord's client will not even send a command the member may not use.

        A command's ``default_member_permissions`` must all be held (Administrator holds
        every one); a refused attempt raises PermissionError, as nothing reaches the bot.
        """
        required = (command or {}).get("default_member_permissions")
        if guild_id is None or required is None:
            return
        held = self.permissions.get(user_id, DEFAULT_MEMBER_PERMISSIONS)
        held = held if permissions is None else permissions
        if held & ADMINISTRATOR or int(required) & held == int(required):
            return
        raise PermissionError(f"user {user_id} lacks {required} for /{command and command['name']}")

    async def slash(
        self,
        user_id: int,
        guild_id: int | None,
        channel_id: int | None,
        name: str,
        options: dict[str, Any] | None = None,
        subcommand: str | None = None,
        *,
        permissions: int | None = None,
        command_guild_id: int | None = None,
        locale: str = "en-US",
        unoffered: bool = False,
    ) -> InteractionRecord:
        """Run a chat-input command as ``user_id``; guild_id None means in the bot's DMs.

        ``name`` may hold the path (``"cheerio new"``) or use ``subcommand`` (``"new"`` or
        ``"group sub"``). Option types come from the last synced commands when known (user
        options get ``resolved``), else from the Python values. ``command_guild_id`` names the
        guild a command was registered to when the bot skipped syncing this run.
        ``unoffered`` sends it where Discord would not offer it (its ``contexts``), as only
        a forged request could: a test of the bot's own refusal.
        """
        path = name.split() + (subcommand.split() if subcommand else [])
        root, subs = path[0], path[1:]
        command, registered_in = self._find_command(root, guild_id)
        if not unoffered:
            self._check_context(command, guild_id)
        self._check_command_permission(command, user_id, guild_id, permissions)
        if command_guild_id is not None:
            registered_in = command_guild_id
        declared: list[JSON] | None = None if command is None else command.get("options", [])
        for sub in subs:
            if declared is None:
                break
            step = next((o for o in declared if o["name"] == sub and o["type"] in (1, 2)), None)
            if step is None:
                raise ValueError(f"/{' '.join(path)}: no subcommand {sub!r} in the synced command")
            declared = step.get("options", [])
        leaf, resolved = self._encode_options(declared, options or {}, guild_id)
        for depth in range(len(subs) - 1, -1, -1):
            kind = 1 if depth == len(subs) - 1 else 2
            leaf = [{"name": subs[depth], "type": kind, "options": leaf}]
        data: JSON = {
            "id": str(command["id"]) if command else str(self.next_id()),
            "name": root,
            "type": 1,
            "options": leaf,
        }
        if resolved:
            data["resolved"] = resolved
        if registered_in is not None:
            data["guild_id"] = str(registered_in)
        payload, channel_id = self._interaction_base(
            2, data, user_id, channel_id, guild_id, permissions=permissions, locale=locale
        )
        return await self._interact(payload, user_id, channel_id, guild_id, None)
