"""SimCord with Discord's ``LAUNCH_ACTIVITY`` answer to an interaction (callback type 12),
which SimCord 3.2.1 refuses as an unknown type.

As Discord documents it (Developer Documentation, "Receiving and Responding", interaction
callback types): ``{"type": 12}`` with no data answers an application command or a
component interaction by launching the app's Activity where the interaction happened; it
is the interaction's one answer (a second gets 40060, "already acknowledged"), and with
``with_response`` the callback's answer names the Activity instance it launched
(``resource.activity_instance.id``, also ``interaction.activity_instance_id``). An app
without Activities is refused with a 400; the fake's message for it is its own, Discord's
exact code is not modelled (:func:`activities_off`).

And the app's Entry Point command (application command type 4, "Application Commands":
"Entry Point Commands"): Discord makes one (``launch``, handler 2: Discord launches the
Activity itself) when Activities are switched on in the Developer Portal
(:func:`portal_entry_point`), and refuses a bulk overwrite of the global commands that
leaves it out (50240, "You cannot remove this app's Primary Entry Point command"); one
sent along is kept with its ``handler``, which SimCord's own commands do not know.

:func:`install` patches SimCord once; :func:`launched` lists what the bot launched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import simcord
import simcord.http.routes.commands as command_routes
import simcord.http.routes.interactions as routes
from simcord.backend import errors
from simcord.backend.errors import BackendError
from simcord.http import router

#: Discord's interaction callback type that launches the app's Activity.
LAUNCH_ACTIVITY = 12
#: Interaction types that may be answered so: an application command, a component.
_LAUNCHABLE = (2, 3)
#: The application command type of an Entry Point, and its handler "Discord launches it".
PRIMARY_ENTRY_POINT, DISCORD_LAUNCH_ACTIVITY = 4, 2
_ENTRY_FIELDS = (
    "id",
    "type",
    "name",
    "name_localizations",
    "description",
    "description_localizations",
    "handler",
    "integration_types",
    "contexts",
    "default_member_permissions",
    "nsfw",
)

_installed = False


@dataclass(frozen=True)
class Launch:
    """One Activity launched in answer to an interaction."""

    interaction: int
    channel: int
    user: int
    instance: str


def launched(env: simcord.Env) -> list[Launch]:
    """Every Activity the bot launched, in order."""
    found: list[Launch] | None = getattr(env.backend, "genial_launches", None)
    if found is None:
        found = env.backend.genial_launches = []
    return found


def activities_off(env: simcord.Env) -> None:
    """The app has no Activity (not switched on in the Developer Portal): every launch is
    refused with a 400."""
    env.backend.genial_no_activity = True


def portal_entry_point(env: simcord.Env) -> dict[str, Any]:
    """Activities switched on in the Developer Portal: the app's default Entry Point
    command, as Discord makes it."""
    backend = env.backend
    entry = {
        "id": str(backend.snowflake()),
        "application_id": str(backend.application_id),
        "type": PRIMARY_ENTRY_POINT,
        "name": "launch",
        "description": "",
        "handler": DISCORD_LAUNCH_ACTIVITY,
        "integration_types": [0, 1],
        "contexts": [0, 1, 2],
        "options": [],
        "default_member_permissions": None,
        "dm_permission": True,
    }
    backend.commands.setdefault(None, {})[("launch", PRIMARY_ENTRY_POINT)] = entry
    return entry


def _bulk_overwrite(original: Any) -> Any:
    """The global commands' bulk overwrite, with the Entry Point as Discord keeps it."""

    def overwrite(ctx: Any) -> Any:
        backend = ctx.backend
        sent = [c for c in (ctx.json or []) if isinstance(c, dict)]
        entries = [c for c in sent if c.get("type") == PRIMARY_ENTRY_POINT]
        had = [
            c for c in backend.commands.get(None, {}).values() if c["type"] == PRIMARY_ENTRY_POINT
        ]
        if had and not entries:
            raise BackendError(
                400, 50240, "You cannot remove this app's Primary Entry Point command."
            )
        if len(entries) > 1:
            raise errors.invalid_form_body("an app has one Entry Point command")
        ctx.json = [c for c in sent if c.get("type") != PRIMARY_ENTRY_POINT]
        registered = list(original(ctx))
        for sent_entry in entries:
            unknown = sorted(set(sent_entry) - set(_ENTRY_FIELDS))
            if unknown:
                raise errors.invalid_form_body(f"unknown Entry Point fields {unknown}")
            entry = {**(had[0] if had else {}), **sent_entry}
            entry.setdefault("id", str(backend.snowflake()))
            entry["application_id"] = str(backend.application_id)
            backend.commands[None][(entry["name"], PRIMARY_ENTRY_POINT)] = entry
            registered.append(entry)
        return registered

    return overwrite


def install() -> None:
    """Patch SimCord's interaction callback route once to answer type 12, and its global
    commands' bulk overwrite to keep the Entry Point as Discord does."""
    global _installed
    if _installed:
        return
    original = routes.interaction_callback

    def callback(ctx: Any) -> Any:
        body = ctx.body()
        if body.get("type") != LAUNCH_ACTIVITY:
            return original(ctx)
        backend = ctx.backend
        record = backend.interactions.get(ctx.int_arg("interaction_id"))
        if record is None or record.token != ctx.args["token"]:
            raise errors.unknown_interaction()
        if record.responded:
            raise errors.already_acknowledged()
        ctx.fields("type")  # LAUNCH_ACTIVITY carries no data
        if record.type not in _LAUNCHABLE:
            raise errors.invalid_form_body("LAUNCH_ACTIVITY answers commands and components")
        if getattr(backend, "genial_no_activity", False):
            raise BackendError(400, 0, "this application has no Activity")
        record.responded = True
        where = f"gc-{record.guild_id}" if record.guild_id else "pc"
        instance = f"i-{backend.snowflake()}-{where}-{record.channel_id}"
        found: list[Launch] | None = getattr(backend, "genial_launches", None)
        if found is None:
            found = backend.genial_launches = []
        found.append(Launch(record.id, record.channel_id, record.user_id, instance))
        return {
            "interaction": {
                "id": str(record.id),
                "type": record.type,
                "activity_instance_id": instance,
                "response_message_id": None,
                "response_message_loading": False,
                "response_message_ephemeral": False,
            },
            "resource": {"type": LAUNCH_ACTIVITY, "activity_instance": {"id": instance}},
        }

    for n, (template, handler) in enumerate(router._ROUTES["POST"]):
        if handler is original:
            router._ROUTES["POST"][n] = (template, callback)
    bulk = command_routes.bulk_upsert_global_commands
    for n, (template, handler) in enumerate(router._ROUTES["PUT"]):
        if handler is bulk:
            router._ROUTES["PUT"][n] = (template, _bulk_overwrite(bulk))
    _installed = True
