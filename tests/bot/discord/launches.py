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

:func:`install` patches SimCord once; :func:`launched` lists what the bot launched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import simcord
import simcord.http.routes.interactions as routes
from simcord.backend import errors
from simcord.backend.errors import BackendError
from simcord.http import router

#: Discord's interaction callback type that launches the app's Activity.
LAUNCH_ACTIVITY = 12
#: Interaction types that may be answered so: an application command, a component.
_LAUNCHABLE = (2, 3)

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


def install() -> None:
    """Patch SimCord's interaction callback route once to answer type 12."""
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
    _installed = True
