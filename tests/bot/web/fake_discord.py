"""A fake of the parts of Discord's HTTP API an Activity's sign-in uses, on 127.0.0.1, and
a fake of Discord's client frame that embeds the Activity.

The API (Discord's Developer Documentation: "OAuth2", "Users", "Application"): ``POST
/oauth2/token`` exchanges a code (single use, for this app's id and client secret) for an
access token; ``GET /users/@me`` with ``Bearer <token>`` names the user; ``GET
/applications/<app>/activity-instances/<id>`` with ``Bot <bot token>`` says where an
Activity's instance runs and who is in it. Anything else: Discord's error JSON.

The frame (:func:`parent_page`) answers the Embedded App SDK's protocol as Discord's
client does: opcode 0 (the handshake: version 1, JSON, this app's id and the frame id it
was given) answered by the ``READY`` dispatch; an ``AUTHORIZE`` command (``client_id``,
``response_type: "code"``, the scopes) answered with a code, or, with none to give, an
``ERROR`` for its nonce. It keeps what the Activity posted in ``window.__got``.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl


class FakeDiscord:
    """Discord's OAuth2 token endpoint, ``/users/@me`` and activity instances."""

    def __init__(self, client_id: str, client_secret: str, bot_token: str) -> None:
        self.client_id = client_id
        self.client_secret = client_secret
        self.bot_token = bot_token
        self.codes: dict[str, str] = {}  # code -> user id
        self.tokens: dict[str, str] = {}  # access token -> user id
        self.instances: dict[str, dict[str, Any]] = {}
        self.calls: list[tuple[str, str]] = []
        #: Rate-limited: every call answered 429, as Discord asks an app to wait.
        self.busy = False
        self._server: ThreadingHTTPServer | None = None

    def code(self, code: str, user: int | str) -> None:
        self.codes[code] = str(user)

    def instance(self, iid: str, channel: str, guild: str, users: list[int | str]) -> None:
        self.instances[iid] = {
            "application_id": self.client_id,
            "instance_id": iid,
            "launch_id": "1",
            "location": {
                "id": f"gc-{guild}-{channel}",
                "kind": "gc",
                "channel_id": channel,
                "guild_id": guild,
            },
            "users": [str(u) for u in users],
        }

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/api/v10"

    def start(self) -> FakeDiscord:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self, status: int, body: object) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                fake.calls.append(("POST", self.path))
                if fake.busy:
                    return self._answer(
                        429,
                        {
                            "message": "You are being rate limited.",
                            "retry_after": 1.0,
                            "global": False,
                        },
                    )
                size = int(self.headers.get("Content-Length") or 0)
                form = dict(parse_qsl(self.rfile.read(size).decode()))
                if self.path != "/api/v10/oauth2/token":
                    return self._answer(404, {"message": "404: Not Found", "code": 0})
                client = (form.get("client_id"), form.get("client_secret"))
                if client != (fake.client_id, fake.client_secret):
                    return self._answer(401, {"error": "invalid_client"})
                user = fake.codes.pop(form.get("code", ""), None)  # a code is used once
                if form.get("grant_type") != "authorization_code" or user is None:
                    return self._answer(400, {"error": "invalid_grant"})
                token = f"access-{user}"
                fake.tokens[token] = user
                return self._answer(
                    200,
                    {"access_token": token, "token_type": "Bearer", "scope": "identify"},
                )

            def do_GET(self) -> None:
                fake.calls.append(("GET", self.path))
                auth = self.headers.get("Authorization", "")
                if self.path == "/api/v10/users/@me":
                    user = fake.tokens.get(auth.removeprefix("Bearer "))
                    if not auth.startswith("Bearer ") or user is None:
                        return self._answer(401, {"message": "401: Unauthorized", "code": 0})
                    name = f"user{user}"
                    return self._answer(200, {"id": user, "username": name, "global_name": name})
                prefix = f"/api/v10/applications/{fake.client_id}/activity-instances/"
                if self.path.startswith(prefix):
                    if auth != f"Bot {fake.bot_token}":
                        return self._answer(401, {"message": "401: Unauthorized", "code": 0})
                    found = fake.instances.get(self.path[len(prefix) :])
                    if found is None:
                        return self._answer(404, {"message": "Unknown Activity", "code": 0})
                    return self._answer(200, found)
                return self._answer(404, {"message": "404: Not Found", "code": 0})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


#: Discord's client around the Activity: the iframe, and the SDK protocol's answers.
_PARENT = """<!doctype html>
<html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>html, body { margin: 0; height: 100%; } iframe { border: 0; width: 100%; height: 100%; }
</style></head>
<body><iframe name="activity" src="__SRC__"></iframe>
<script>
window.__got = [];
const CLIENT = "__CLIENT__", FRAME = "__FRAME__", CODE = "__CODE__";
window.addEventListener("message", (e) => {
  const app = document.querySelector("iframe").contentWindow;
  if (e.source !== app) return;
  window.__got.push(e.data);
  const [op, m] = e.data;
  if (op === 0) {
    if (m.v === 1 && m.encoding === "json" && m.client_id === CLIENT && m.frame_id === FRAME)
      app.postMessage([1, { cmd: "DISPATCH", evt: "READY", nonce: null, data: { v: 1,
        config: { cdn_host: "cdn.discordapp.com", api_endpoint: "//discord.com/api",
                  environment: "production" } } }], "*");
    else app.postMessage([2, { code: 4000, message: "Invalid Client ID" }], "*");
  } else if (op === 1 && m.cmd === "AUTHORIZE") {
    const a = m.args || {};
    const asked = a.client_id === CLIENT && a.response_type === "code"
      && JSON.stringify(a.scope) === '["identify"]';
    app.postMessage([1, asked && CODE
      ? { cmd: "AUTHORIZE", evt: null, nonce: m.nonce, data: { code: CODE } }
      : { cmd: "AUTHORIZE", evt: "ERROR", nonce: m.nonce,
          data: { code: 5000, message: "OAuth2 Error: access_denied" } }], "*");
  }
});
</script></body></html>
"""


def parent_page(src: str, client_id: str, frame_id: str, code: str) -> str:
    """Discord's client frame around the Activity at ``src``, giving ``code`` when asked
    to authorize (``""``: the person refuses)."""
    return (
        _PARENT.replace("__SRC__", src)
        .replace("__CLIENT__", client_id)
        .replace("__FRAME__", frame_id)
        .replace("__CODE__", code)
    )
