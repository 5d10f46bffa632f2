"""SimCord with the contexts Discord has beyond servers: the bot's DM as Discord tells it,
group DMs the bot is not a member of, and apps installed by a person (a user install).

What it adds, each as Discord documents it (Developer Documentation, "Application
Commands" and "Receiving and Responding", "Installation contexts"):

- Every interaction carries ``authorizing_integration_owners``: ``"0"`` (a guild install)
  is the server's id in a server (SimCord's bot is in every server it creates) and
  ``"0"`` in the bot's own DM; ``"1"`` (a user install) is the person's id when they
  installed the app for themselves. Its ``context`` is 0 in a server, 1 in the bot's DM
  and 2 in a group DM.
- A group DM (channel type 3) with its people and no bot: the bot cannot read, post or
  edit there (403 Missing Access, code 50001, like any channel it has no access to); it
  can only answer interactions, through their token, for 15 minutes (SimCord's own
  interaction records). A command shows there only if it allows context 2 and the user
  install (integration type 1), and the person has installed the app.
- The application's ``integration_types_config`` (which installs it offers), read with
  ``GET /oauth2/applications/@me`` and changed with ``PATCH /applications/@me``; a new
  app offers the guild install only, as the Developer Portal makes it.

:func:`install` patches SimCord once (the conftest does it for every Discord test); the
functions below are what a test uses: :func:`group_dm`, :func:`install_app`,
:func:`slash`, :func:`click`, :func:`history`.
"""

from __future__ import annotations

from typing import Any

import discord
import simcord
import simcord.actors
import simcord.backend.access
import simcord.backend.ops.commands
import simcord.backend.serializers
import simcord.http.routes.application
import simcord.http.routes.messages
import simcord.interactions
from simcord.backend import errors
from simcord.backend.command_access import Access
from simcord.http import router

#: Discord's channel type of a group DM.
GROUP_DM = 3
#: Interaction contexts and installation types (Discord's numbers).
GUILD, BOT_DM, PRIVATE_CHANNEL = 0, 1, 2
GUILD_INSTALL, USER_INSTALL = "0", "1"

_installed = False


def _installs(backend: Any) -> set[int]:
    """The people who installed the app for themselves."""
    found: set[int] | None = getattr(backend, "genial_user_installs", None)
    if found is None:
        found = set()
        backend.genial_user_installs = found
    return found


def _config(backend: Any) -> dict[str, Any]:
    """The application's installation contexts: a new app has the guild install only."""
    found: dict[str, Any] | None = getattr(backend, "genial_integration_types", None)
    if found is None:
        found = {GUILD_INSTALL: {}}  # no install link set up yet
        backend.genial_integration_types = found
    return found


def _is_group(backend: Any, channel_id: int) -> bool:
    channel = backend.channels.get(channel_id)
    return channel is not None and int(channel.type) == GROUP_DM


def install() -> None:
    """Patch SimCord once for the contexts above."""
    global _installed
    if _installed:
        return
    _installed = True

    base_payload = simcord.interactions.base_payload

    def payload(backend: Any, **kw: Any) -> tuple[Any, dict[str, Any]]:
        record, body = base_payload(backend, **kw)
        channel = backend.get_channel(kw["channel_id"])
        owners: dict[str, str] = {}
        if kw["guild_id"] is not None:
            owners[GUILD_INSTALL] = str(kw["guild_id"])
        elif int(channel.type) != GROUP_DM:
            owners[GUILD_INSTALL] = "0"  # the bot's own DM
        if kw["user_id"] in _installs(backend):
            owners[USER_INSTALL] = str(kw["user_id"])
        body["authorizing_integration_owners"] = owners
        if int(channel.type) == GROUP_DM:
            body["context"] = PRIVATE_CHANNEL
        return record, body

    simcord.interactions.base_payload = payload

    command_access = simcord.backend.ops.commands.command_access

    def access(backend: Any, command: dict[str, Any], *, user_id: int, channel_id: int) -> Access:
        if not _is_group(backend, channel_id):
            return command_access(backend, command, user_id=user_id, channel_id=channel_id)
        channel = backend.get_channel(channel_id)
        if user_id not in channel.recipient_ids or command.get("guild_id") is not None:
            return Access(False, "scope")
        if PRIVATE_CHANNEL not in (command.get("contexts") or ()):
            return Access(False, "context")
        if 1 not in (command.get("integration_types") or ()) or user_id not in _installs(backend):
            return Access(False, "install")
        return Access(True, None)

    simcord.backend.ops.commands.command_access = access
    simcord.actors.command_access = access

    accessible = simcord.backend.access.channel_accessible

    def channel_accessible(backend: Any, channel_id: int, viewer_id: int, **kw: Any) -> bool:
        if _is_group(backend, channel_id):
            # Its people, never the bot (who is not a member).
            return viewer_id in backend.get_channel(channel_id).recipient_ids
        return accessible(backend, channel_id, viewer_id, **kw)

    simcord.backend.access.channel_accessible = channel_accessible

    check_dm = simcord.actors._check_user_dm_channel

    def check_user_channel(actor: Any, channel_id: int) -> None:
        backend = actor._env.backend
        if (
            _is_group(backend, channel_id)
            and actor.id in backend.get_channel(channel_id).recipient_ids
        ):
            return
        check_dm(actor, channel_id)

    simcord.actors._check_user_dm_channel = check_user_channel

    channel_payload = simcord.backend.serializers.channel_payload

    def group_payload(backend: Any, channel: Any) -> Any:
        if int(channel.type) != GROUP_DM:
            return channel_payload(backend, channel)
        users = simcord.backend.serializers.user_payload
        return {
            "id": str(channel.id),
            "type": GROUP_DM,
            "name": channel.name,
            "icon": None,
            "owner_id": str(channel.owner_id),
            "recipients": [dict(users(backend.users[uid])) for uid in channel.recipient_ids],
            "last_message_id": None,
        }

    simcord.backend.serializers.channel_payload = group_payload

    # The bot's own requests on a group DM's channel: no access (it is not a member).
    for method, routes in router._ROUTES.items():
        for n, (template, handler) in enumerate(routes):
            if template[:2] == ["channels", "{channel_id}"]:
                routes[n] = (template, _members_only(handler))
        del method

    info = simcord.http.routes.application.application_info

    def application_info(ctx: Any) -> Any:
        return {**info(ctx), "integration_types_config": _config(ctx.backend)}

    for n, (template, handler) in enumerate(router._ROUTES["GET"]):
        if handler is info:
            router._ROUTES["GET"][n] = (template, application_info)

    @router.route("PATCH", "/applications/@me")
    def edit_application(ctx: Any) -> Any:
        body = ctx.body()
        config = body.get("integration_types_config")
        if config is not None:
            _config(ctx.backend).clear()
            _config(ctx.backend).update(config)
        backend = ctx.backend
        backend.genial_application_edits = getattr(backend, "genial_application_edits", 0) + 1
        return application_info(ctx)


def _members_only(handler: Any) -> Any:
    def guarded(ctx: Any) -> Any:
        if _is_group(ctx.backend, ctx.int_arg("channel_id")):
            raise errors.missing_access()
        return handler(ctx)

    return guarded


# --- what a test uses -----------------------------------------------------------------


def group_dm(env: simcord.Env, name: str, *people: Any) -> simcord.ChannelHandle:
    """A group DM of ``people`` (UserHandles; the first owns it), without the bot."""
    backend = env.backend
    channel = backend.create_channel(None, name, type=GROUP_DM, announce=False)
    channel.recipient_ids = [p.id for p in people]
    channel.owner_id = people[0].id
    return simcord.ChannelHandle(env, None, channel)


def install_app(env: simcord.Env, user: Any) -> None:
    """``user`` installs the app for themselves (a user install)."""
    _installs(env.backend).add(user.id)


def integration_types(env: simcord.Env) -> dict[str, Any]:
    """The installation contexts the application offers now."""
    return dict(_config(env.backend))


def application_edits(env: simcord.Env) -> int:
    """How often the bot changed its application (``PATCH /applications/@me``)."""
    return int(getattr(env.backend, "genial_application_edits", 0))


async def slash(
    user: Any, channel: simcord.ChannelHandle, name: str, **options: Any
) -> simcord.InteractionResult:
    """``user`` runs ``/name`` in ``channel`` (their DM with the bot, or a group DM)."""
    env = user._env
    env._begin_operation("slash")
    try:
        return await simcord.actors._slash(user, channel, name, options)
    finally:
        env._end_operation()


def visible(user: Any, channel: simcord.ChannelHandle) -> tuple[str, ...]:
    """The slash commands ``user``'s menu offers in ``channel``."""
    commands = user._env.backend.visible_commands(user_id=user.id, channel_id=channel.id)
    return tuple(sorted(c["name"] for c in commands))


async def click(user: Any, message: Any, label: str) -> simcord.InteractionResult:
    """``user`` presses the button ``label`` on ``message`` (in a group DM)."""
    env = user._env
    env._begin_operation("click")
    try:
        return await simcord.actors._component_click(user, message, label=label, custom_id=None)
    finally:
        env._end_operation()


def history(channel: simcord.ChannelHandle, viewer: Any) -> list[discord.Message]:
    """What ``viewer`` sees in ``channel`` (ephemeral messages for others left out)."""
    return channel.history(viewer=viewer)
