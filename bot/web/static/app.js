// The table's web page: the board, the scores, the moves, live; on a seat's page the rack,
// tap to place, the points it would score, confirm; swap, keep and hint.
// Names and every other text from the server are set as text, never as HTML.
"use strict";
(function () {
  const body = document.body;
  let table = body.dataset.table;
  let seat = body.dataset.seat;
  let look = null;
  let pick = { slot: null, a: null, b: null, gold: [] };
  // Genial Spezial: the colour each golden space of the placement gives its point to, as
  // the server's preview last said (chosen by the player, or the engine's default).
  let golden = [];
  let source = null;
  const $ = (id) => document.getElementById(id);
  const A = window.GenialAccess; // keyboard and screen-reader play (access.js)
  const SVG = "http://www.w3.org/2000/svg";

  function api(path) {
    const q = seat ? "?seat=" + encodeURIComponent(seat) : "";
    return "/api/t/" + encodeURIComponent(table) + path + q;
  }

  // Telegram's Mini App bridge, spoken directly as Telegram's web events documentation
  // describes (core.telegram.org/api/web-events): the page loads no script of Telegram's
  // (nothing from elsewhere), so it posts its events itself and receives Telegram's.
  let inTelegram = false;
  let backShown = false;
  function tgPost(type, data) {
    if (!inTelegram) return;
    const payload = data === undefined ? "" : JSON.stringify(data);
    const proxy = window.TelegramWebviewProxy;
    if (proxy && typeof proxy.postEvent === "function") proxy.postEvent(type, payload);
    else if (window.external && typeof window.external.notify === "function")
      window.external.notify(JSON.stringify({ eventType: type, eventData: data }));
    else if (window.parent !== window)
      window.parent.postMessage(JSON.stringify({ eventType: type, eventData: data }), "https://web.telegram.org");
  }
  function haptic(data) {
    tgPost("web_app_trigger_haptic_feedback", data);
  }
  function tgReceive(type, data) {
    if (type === "back_button_pressed") back();
    else if (type === "theme_changed" && data && data.theme_params) applyTheme(data.theme_params);
  }
  window.Telegram = window.Telegram || {};
  window.Telegram.WebView = { receiveEvent: tgReceive };
  window.addEventListener("message", (e) => {
    if (!inTelegram || e.origin !== "https://web.telegram.org" || typeof e.data !== "string") return;
    try {
      const m = JSON.parse(e.data);
      tgReceive(m.eventType, m.eventData);
    } catch (err) {
      /* not one of Telegram's events */
    }
  });

  // The back button steps back through the taps: the second cell, the first, the tile, a
  // replay position; with nothing to step back, Telegram's own (close) is shown instead.
  function canStepBack() {
    return pick.b !== null || pick.a !== null || pick.slot !== null || replaying || aim.zoomed();
  }
  function showBack() {
    const want = canStepBack();
    if (want !== backShown) {
      backShown = want;
      tgPost("web_app_setup_back_button", { is_visible: want });
    }
  }
  function back() {
    if (pick.b !== null) {
      pick.b = null;
      pick.gold = [];
      golden = [];
    } else if (pick.a !== null) pick.a = null;
    else if (pick.slot !== null) pick.slot = null;
    else if (replaying) {
      $("replay").value = String(look.placed);
      showReplay();
    } else if (aim.zoomed()) aim.zoomOut();
    if (look) {
      renderRack();
      markCells();
      renderGolden();
    }
    showBack();
  }

  function say(text) {
    const s = $("status");
    s.textContent = text || "";
    s.classList.toggle("shown", Boolean(text));
  }

  function parseSvg(text) {
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    const root = doc.documentElement;
    if (root.nodeName !== "svg") return null;
    root.querySelectorAll("script, foreignObject").forEach((n) => n.remove());
    return document.importNode(root, true);
  }

  function symbol(letter) {
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 100 100");
    const inner = parseSvg('<svg xmlns="' + SVG + '">' + (look.symbols[letter] || "") + "</svg>");
    if (inner) while (inner.firstChild) svg.appendChild(inner.firstChild);
    return svg;
  }

  function tileSvg(first, second) {
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 200 100");
    [first, second].forEach((letter, k) => {
      const half = symbol(letter);
      half.setAttribute("x", String(100 * k));
      half.setAttribute("width", "100");
      half.setAttribute("height", "100");
      svg.appendChild(half);
    });
    return svg;
  }

  function text(el, value) {
    el.textContent = value == null ? "" : String(value);
  }

  function renderScores() {
    const t = $("scores");
    t.replaceChildren();
    if (!look.sides.length) return;
    const head = document.createElement("tr");
    head.appendChild(document.createElement("td"));
    look.sides[0].scores.forEach(([letter]) => {
      const td = document.createElement("td");
      td.appendChild(symbol(letter));
      head.appendChild(td);
    });
    t.appendChild(head);
    look.sides.forEach((side) => {
      const tr = document.createElement("tr");
      if (side.to_move) tr.className = "to-move";
      const name = document.createElement("td");
      name.className = "name";
      text(name, side.names.join(" & "));
      if (side.colour) name.prepend(aim.swatch(side.colour)); // Genial Spezial: whose stones
      if (side.clock) {
        // The time bank of a table with a clock: what this player has left.
        const left = document.createElement("span");
        left.className = "bank";
        text(left, " ⏱ " + side.clock);
        name.appendChild(left);
      }
      tr.appendChild(name);
      side.scores.forEach(([letter, points]) => {
        const td = document.createElement("td");
        text(td, points);
        const started = side.scores.some(([, p]) => p > 0);
        if (started && side.lowest.includes(letter)) td.className = "low";
        tr.appendChild(td);
      });
      t.appendChild(tr);
    });
  }

  function renderBoard(svgText) {
    const box = $("board");
    box.replaceChildren();
    if (!svgText) return;
    const svg = parseSvg(svgText);
    if (svg) box.appendChild(svg);
    if (!performance.getEntriesByName("board").length) performance.mark("board"); // benchmarks
    box.querySelectorAll(".cell").forEach((g) => {
      g.addEventListener("click", () => tapCell(g.dataset.cell));
    });
    if (svg) aim.board(svg, look.version); // zoom, hints and the placement drawn: aim.js
    markCells();
    if (A && look) A.board(box, look, legalNow(), chosenCells(), tapCell, api);
  }

  function chosenCells() {
    return [pick.a, pick.b].filter((c) => c !== null);
  }

  function legalNow() {
    if (!look || !look.my_turn || look.awaiting !== "place") return [];
    if (look.game !== "spezial" && pick.slot === null) return [];
    // Genial Spezial: any two free neighbours; outlining every free cell would say nothing.
    if (pick.a === null) return look.game === "spezial" ? [] : Object.keys(look.cells);
    return look.cells[pick.a] || [];
  }

  function markCells() {
    showBack();
    const legal = new Set(legalNow());
    $("board").querySelectorAll(".cell").forEach((g) => {
      const c = g.dataset.cell;
      g.classList.toggle("legal", legal.has(c) && c !== pick.a && c !== pick.b);
      g.classList.toggle("first", c === pick.a);
      g.classList.toggle("second", c === pick.b);
    });
    aim.mark();
    if (A && look) A.marked($("board"), look, [...legal].filter((c) => c !== pick.a && c !== pick.b), chosenCells());
  }

  function renderRack() {
    const me = $("me");
    me.hidden = look.seat === null || look.seat === undefined;
    if (me.hidden) return;
    text($("rack-title"), look.words.rack);
    const rack = $("rack");
    // Genial Spezial has no tiles of one's own: a tile is any two neighbouring cells.
    $("rack-title").hidden = rack.hidden = look.game === "spezial";
    rack.replaceChildren();
    look.rack.forEach((tile) => {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.slot = String(tile.slot);
      b.setAttribute("aria-label", tile.name);
      if (pick.slot === tile.slot) b.className = "chosen";
      b.appendChild(tileSvg(tile.first, tile.second));
      b.addEventListener("click", () => tapTile(tile.slot));
      rack.appendChild(b);
    });
    if (A) A.rack(rack, look, pick.slot);
    const myTurn = look.my_turn;
    const swap = myTurn && look.awaiting === "swap";
    const hintLine = $("hint-line");
    if (!myTurn) text(hintLine, look.turn);
    else if (swap) text(hintLine, look.words.swap_offer);
    else if (aim.hinting()) text(hintLine, look.words.hints_shown);
    else if (look.bonus && pick.slot === null && pick.a === null) text(hintLine, look.words.bonus);
    else if (look.game !== "spezial" && pick.slot === null) text(hintLine, look.words.pick_tile);
    else if (pick.b === null && body.dataset.zoom === "out") text(hintLine, look.words.pick_area);
    else if (pick.b === null) text(hintLine, look.words.pick_cell);
    for (const [id, word, shown] of [
      ["swap", "swap", swap],
      ["keep", "keep", swap],
      ["hint", "hint", myTurn && look.hints && look.awaiting === "place"],
      ["cancel", "cancel", myTurn && (pick.a !== null || pick.slot !== null)],
      ["confirm", "confirm", myTurn && pick.b !== null],
    ]) {
      const b = $(id);
      text(b, look.words[word]);
      b.hidden = !shown;
    }
  }

  function render() {
    // What a test (or an extension) may read without the script's variables.
    body.dataset.version = String(look.version);
    body.dataset.myTurn = String(Boolean(look.my_turn));
    body.dataset.awaiting = look.awaiting || "";
    body.dataset.over = String(look.over);
    document.documentElement.lang = look.lang;
    text($("title"), look.title);
    document.title = look.title + " · Genial";
    text($("turn"), look.my_turn ? look.words.your_turn : look.turn);
    renderScores();
    if (!replaying) renderBoard(look.board);
    text($("moves-title"), look.words.moves);
    const moves = $("moves");
    moves.replaceChildren();
    look.moves.slice().reverse().forEach((line) => {
      const li = document.createElement("li");
      text(li, line);
      moves.appendChild(li);
    });
    const result = $("result");
    result.replaceChildren();
    look.result.forEach((line) => {
      const li = document.createElement("li");
      text(li, line);
      result.appendChild(li);
    });
    renderRack();
    renderGolden();
    renderReplay();
    aim.announce();
    tick();
    if (A) A.rendered(look);
  }

  let replaying = false;
  function renderReplay() {
    const box = $("replay-box");
    box.hidden = !(look.over && look.status !== "playing" && look.placed > 0);
    if (box.hidden) return;
    text($("replay-title"), look.words.replay);
    const r = $("replay");
    r.max = String(look.placed);
    if (!replaying) r.value = String(look.placed);
    text($("replay-at"), r.value + "/" + look.placed);
    // The review's chart of each side's chance to win (issue 47), shown once it exists.
    const chart = $("replay-chart");
    const src = "/api/t/" + encodeURIComponent(table) + "/chances.png?moves=" + look.placed;
    if (chart.dataset.src !== src) {
      chart.dataset.src = src;
      chart.onload = () => { chart.hidden = chart.naturalWidth < 2; };
      chart.onerror = () => { chart.hidden = true; };
      chart.src = src;
    }
  }

  async function showReplay() {
    const r = $("replay");
    replaying = Number(r.value) !== look.placed;
    text($("replay-at"), r.value + "/" + look.placed);
    const res = await fetch("/api/t/" + encodeURIComponent(table) + "/replay/" + r.value);
    const data = await res.json();
    if (data.board) renderBoard(data.board);
    // The expert's review of the move the slider is at (issue 29), when the game has one.
    text($("replay-review"), data.review || "");
  }

  // Time left as the chat tells it (bot.core.durations.format_left): rounded down, in its
  // two largest units, "1h 59m", "29m 30s", "1s".
  function formatLeft(seconds) {
    let left = Math.max(0, Math.floor(seconds));
    const parts = [];
    for (const [unit, size] of [["d", 86400], ["h", 3600], ["m", 60], ["s", 1]]) {
      if (left >= size || (size === 1 && !parts.length)) {
        parts.push(Math.floor(left / size) + unit);
        left %= size;
      } else if (parts.length) {
        parts.push(""); // a zero unit between two others ends the spelling
      }
      if (parts.length === 2) break;
    }
    return parts.filter(Boolean).join(" ");
  }

  function tick() {
    const c = $("clock");
    if (!look || !look.deadline) return text(c, "");
    // The turn's time runs from its start, or from now while the player is away.
    const now = Math.max(Date.now() / 1000, look.started || 0);
    const bank = document.querySelector("#scores .to-move .bank");
    if (bank) text(bank, " ⏱ " + formatLeft(look.deadline - now));
    const left = Math.max(0, Math.round(look.deadline - now));
    const h = Math.floor(left / 3600);
    const m = Math.floor((left % 3600) / 60);
    const s = left % 60;
    text(c, "⏱ " + (h ? h + ":" : "") + String(m).padStart(2, "0") + ":" + String(s).padStart(2, "0"));
  }

  function reset() {
    pick = { slot: null, a: null, b: null, gold: [] };
    golden = [];
  }

  function coveredGolden() {
    if (pick.a === null || pick.b === null) return [];
    return [pick.a, pick.b].filter((c) => (look.golden || []).includes(c));
  }

  function renderGolden() {
    const box = $("golden");
    box.replaceChildren();
    const cells = coveredGolden();
    box.hidden = !cells.length || !golden.length;
    if (box.hidden) return;
    cells.forEach((cell, k) => {
      const p = document.createElement("p");
      text(p, look.words.golden_pick.replace("{cell}", cell));
      box.appendChild(p);
      look.golden_colours.forEach((letter) => {
        const b = document.createElement("button");
        b.type = "button";
        b.dataset.golden = String(k);
        b.dataset.colour = letter;
        b.setAttribute("aria-label", look.words["colour_" + letter] || letter);
        if (golden[k] === letter) b.className = "chosen";
        b.appendChild(symbol(letter));
        b.addEventListener("click", () => {
          pick.gold = cells.map((_, j) => (j === k ? letter : golden[j]));
          preview();
        });
        box.appendChild(b);
      });
    });
  }

  function tapTile(slot) {
    if (!look.my_turn || look.awaiting !== "place") return;
    haptic({ type: "selection_change" });
    pick = { slot: pick.slot === slot ? null : slot, a: null, b: null, gold: [] };
    golden = [];
    aim.clear();
    renderRack();
    markCells();
  }

  function tapCell(cell) {
    if (!look || !look.my_turn || look.awaiting !== "place") return;
    if (look.game !== "spezial" && pick.slot === null) return say(look.words.pick_tile);
    if (pick.a !== null && pick.b !== null && (cell === pick.a || cell === pick.b)) {
      if (aim.tapPlaced(cell)) return; // a golden space: its point to the next colour
      [pick.a, pick.b] = [pick.b, pick.a]; // the tile turned
    } else if (pick.a !== null && (look.cells[pick.a] || []).includes(cell)) {
      pick.b = cell;
    } else if (cell in look.cells) {
      pick.a = cell;
      pick.b = null;
    } else {
      return;
    }
    haptic({ type: "selection_change" });
    aim.clear();
    pick.gold = []; // a new placement: its golden spaces get the default until chosen
    golden = [];
    say("");
    renderRack();
    markCells();
    renderGolden();
    if (pick.b !== null) preview();
  }

  function moveText() {
    const cells = pick.a + " " + pick.b;
    if (look.game !== "spezial") return pick.slot + " " + cells;
    return pick.gold.length ? cells + " " + pick.gold.join("") : cells;
  }

  async function preview() {
    const asked = moveText();
    const res = await fetch(api("/preview") + "&move=" + encodeURIComponent(asked));
    const data = await res.json();
    if (moveText() !== asked) return;
    if (!res.ok) return say(data.error);
    golden = data.golden || [];
    renderGolden();
    aim.mark();
    const parts = Object.entries(data.points).map(
      ([l, p]) => "+" + p + " " + (look.words["colour_" + l] || l),
    );
    text($("hint-line"), look.words.points + ": " + (parts.join("  ") || "0"));
  }

  async function send(command, move) {
    const res = await fetch("/api/t/" + encodeURIComponent(table) + "/command", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ seat: seat, command: command, move: move || "", version: look.version }),
    });
    const data = await res.json().catch(() => ({ error: res.statusText }));
    if (!res.ok) {
      // Refused: the selection stays for another press (load() drops it only when the
      // table has moved on, as a new position may not allow it).
      haptic({ type: "notification", notification_type: "error" });
      say(data.error);
      await load();
      return;
    }
    reset();
    say("");
    const said = $("said");
    said.replaceChildren();
    (data.said || []).forEach((line) => {
      const li = document.createElement("li");
      text(li, line);
      said.appendChild(li);
    });
    await load();
  }

  async function load() {
    const res = await fetch(api("/state"));
    const data = await res.json();
    if (!res.ok) return say(data.error);
    if (!look || data.version !== look.version) reset();
    look = data;
    render();
  }

  function listen() {
    if (source) source.close();
    source = new EventSource(api("/events"));
    source.onmessage = (e) => {
      let data = JSON.parse(e.data);
      if (!data) return;
      if (A) data = A.applyChange(look, data); // after the first look, what changed
      if (!data) return load(); // a change for a look this page does not have
      if (look && data.version !== look.version) reset();
      if (look && data.my_turn && !look.my_turn)
        haptic({ type: "notification", notification_type: "success" }); // your turn now
      look = data;
      say("");
      render();
    };
    source.onerror = () => {
      if (look) say(look.words.offline);
    };
  }

  function applyTheme(t) {
    const root = document.documentElement.style;
    if (t.bg_color) root.setProperty("--paper", t.bg_color);
    if (t.text_color) root.setProperty("--ink", t.text_color);
    if (t.secondary_bg_color) root.setProperty("--panel", t.secondary_bg_color);
    if (t.button_color) root.setProperty("--button", t.button_color);
    if (t.button_text_color) root.setProperty("--button-ink", t.button_text_color);
  }

  async function telegram() {
    // A Telegram Mini App: who the player is comes from the signed initData in the URL's
    // fragment, checked by the server; the table from its start parameter.
    const hash = new URLSearchParams(location.hash.slice(1));
    const initData = hash.get("tgWebAppData");
    if (!initData) return false;
    inTelegram = true;
    const theme = hash.get("tgWebAppThemeParams");
    if (theme) {
      try {
        applyTheme(JSON.parse(theme));
      } catch (e) {
        /* no theme: the page's own */
      }
    }
    tgPost("web_app_ready");
    tgPost("web_app_expand");
    const res = await fetch("/api/tg/session", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ init_data: initData }),
    });
    const data = await res.json();
    return enter(res.ok ? data : { error: data.error });
  }

  // The table and seat a Mini App's or an Activity's sign-in gave ({error}: none).
  async function enter(data) {
    if (data.error) {
      say(data.error);
      return true;
    }
    table = data.table;
    seat = data.seat;
    body.dataset.table = table;
    await load();
    listen();
    return true;
  }

  // A Discord Activity (discord.js): who the player is comes from Discord's OAuth2 code,
  // exchanged by the server for the table and a seat token.
  async function discord() {
    const D = window.GenialDiscord;
    if (!D || !D.inDiscord()) return false;
    return enter(await D.signIn());
  }

  // The page's Hint: the suggested placements drawn on the board and listed (aim.js).
  async function askHints() {
    const res = await fetch("/api/t/" + encodeURIComponent(table) + "/command", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ seat: seat, command: "hint", version: look.version }),
    });
    const data = await res.json().catch(() => ({ error: res.statusText }));
    if (!res.ok) return say(data.error);
    reset();
    renderRack();
    markCells();
    renderGolden();
    $("said").replaceChildren();
    aim.hints(data.hints);
    renderRack();
  }

  const aim = window.genialAim({
    look: () => look,
    pick: () => pick,
    golden: () => golden,
    covered: coveredGolden,
    symbol: symbol,
    tileSvg: tileSvg,
    take(h) {
      pick = { slot: h.slot, a: h.cells[0], b: h.cells[1], gold: h.gold.slice() };
      golden = [];
      say("");
      renderRack();
      markCells();
      renderGolden();
      preview();
    },
    zoomed() {
      // The words under the rack (tap where / tap two cells) and Telegram's back button.
      if (look) renderRack();
      showBack();
    },
    chooseGold(k, letter) {
      pick.gold = coveredGolden().map((_, j) => (j === k ? letter : golden[j]));
      preview();
    },
  });

  $("confirm").addEventListener("click", () => {
    if (pick.b !== null) send("play", moveText());
  });
  $("cancel").addEventListener("click", () => {
    reset();
    aim.clear();
    renderRack();
    markCells();
    renderGolden();
  });
  $("swap").addEventListener("click", () => send("swap"));
  $("keep").addEventListener("click", () => send("keep"));
  $("hint").addEventListener("click", askHints);
  $("replay").addEventListener("input", showReplay);
  setInterval(tick, 1000);

  (async function start() {
    if (!table && ((await discord()) || (await telegram()))) return;
    await load();
    listen();
  })();
})();
