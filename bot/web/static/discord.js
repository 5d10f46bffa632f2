// The board as a Discord Activity: the Embedded App SDK's postMessage protocol, spoken by
// the page itself (no SDK bundle, nothing loaded from elsewhere): the handshake to the
// parent frame, Discord's READY, then AUTHORIZE (scope identify) for an OAuth2 code, which
// the server exchanges with Discord for who the player is and where the Activity runs.
"use strict";
(function () {
  const body = document.body;
  const q = new URLSearchParams(location.search);
  const client = body.dataset.discord;
  const frame = q.get("frame_id");
  const instance = q.get("instance_id");

  function inDiscord() {
    return Boolean(client && frame && instance && window.parent !== window);
  }

  // Discord's client: the parent frame (or, in a pop-out window, the one that opened it).
  const parent = window.parent.opener || window.parent;
  const origin = document.referrer ? new URL(document.referrer).origin : "*";
  const waiting = new Map();
  let sent = 0;
  let ready = null;
  const isReady = new Promise((resolve) => (ready = resolve));

  window.addEventListener("message", (e) => {
    // Only Discord's frames speak to the page; a frame message is [opcode, payload].
    if (e.source !== parent || !Array.isArray(e.data) || e.data[0] !== 1) return;
    const m = e.data[1] || {};
    if (m.cmd === "DISPATCH" && m.evt === "READY") ready();
    else if (typeof m.nonce === "string" && waiting.has(m.nonce)) {
      waiting.get(m.nonce)(m);
      waiting.delete(m.nonce);
    }
  });

  function command(cmd, args) {
    const nonce = "genial-" + ++sent;
    return new Promise((resolve) => {
      waiting.set(nonce, resolve);
      parent.postMessage([1, { cmd: cmd, args: args, nonce: nonce }], origin);
    });
  }

  // The table and the seat token ({table, seat}; seat "" for a watcher), or {error}.
  async function signIn() {
    parent.postMessage([0, { v: 1, encoding: "json", client_id: client, frame_id: frame }], origin);
    await isReady;
    const answer = await command("AUTHORIZE", {
      client_id: client,
      response_type: "code",
      state: "",
      prompt: "none",
      scope: ["identify"],
    });
    const code = answer.evt !== "ERROR" && answer.data ? answer.data.code : null;
    if (typeof code !== "string" || !code) return { error: body.dataset.refused };
    const res = await fetch("/activity/token", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code: code, instance_id: instance }),
    });
    const data = await res.json().catch(() => ({ error: res.statusText }));
    return res.ok ? data : { error: data.error };
  }

  window.GenialDiscord = { inDiscord: inDiscord, signIn: signIn };
})();
