// Play without sight (issue 48): the board as an accessible grid of rows and cells, each
// cell named by its label and what it holds; arrow keys move along the hex directions,
// Enter chooses, N jumps to the next cell the tile fits, L reads the cell's lines; moves,
// bonus placements, scores and whose turn are announced in a live region. And the live
// page's changes: after the first look the server sends only what changed, which
// applyChange puts into the look (or, for a look the page does not have, asks for the
// whole one). app.js calls these hooks; every text is set as text.
"use strict";
window.GenialAccess = (function () {
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  let current = null; // the label of the cell the keyboard is on
  let inBoard = false; // whether the keyboard was on the board when it was drawn again
  let shownVersion = null;
  let shownMoves = 0;
  let wasMyTurn = false;

  // Whether the keyboard is on the board: a board drawn anew (a move came) keeps it on the
  // same cell. A cell taken away with the old board moves focus to no element, so only
  // focus arriving elsewhere says the keyboard left.
  document.addEventListener("focusin", (e) => {
    inBoard = Boolean(e.target.closest && e.target.closest("#board"));
  });

  // --- the live page's changes (bot/web/deltas.py says the same in Python) ----------------
  function applyChange(look, sent) {
    if (!sent || !sent.delta) return sent;
    if (!look || look.version !== sent.from) return null; // missed one: the whole look
    const out = Object.assign({}, look, sent.set || {});
    out.version = sent.version;
    if (sent.board_patch) {
      let board = look.board;
      for (let k = sent.board_patch.length - 1; k >= 0; k--) {
        const [start, end, text] = sent.board_patch[k];
        board = board.slice(0, start) + text + board.slice(end);
      }
      if (board.length !== sent.board_length) return null;
      out.board = board;
    }
    if (sent.moves_added) out.moves = look.moves.concat(sent.moves_added);
    for (const [key, entries] of Object.entries(sent.merge || {}))
      out[key] = Object.assign({}, look[key], entries);
    for (const [key, dropped] of Object.entries(sent.drop || {})) {
      const kept = Object.assign({}, out[key]);
      dropped.forEach((k) => delete kept[k]);
      out[key] = kept;
    }
    return out;
  }

  // --- announcements ----------------------------------------------------------------------
  function announce(lines) {
    const box = $("announce");
    if (!box || !lines.length) return;
    box.textContent = ""; // the same words again are announced again
    window.setTimeout(() => {
      box.textContent = lines.join(" ");
    }, 50);
  }

  // What a new look brings to a player who does not see it: the moves made since (each
  // says who placed what and the points, a bonus placement and a swap too), then whose
  // turn it is, or the bonus placement owed.
  function rendered(look) {
    const lines = [];
    const fresh = shownVersion !== null && look.version !== shownVersion;
    if (fresh && look.moves.length > shownMoves) lines.push(...look.moves.slice(shownMoves));
    if (fresh || shownVersion === null) {
      if (look.my_turn && look.awaiting === "swap") lines.push(look.words.swap_offer);
      else if (look.my_turn && (look.bonus || look.bonus_owed)) lines.push(look.words.bonus);
      else if (look.my_turn && (fresh || !wasMyTurn)) lines.push(look.words.your_turn);
      else if (fresh && look.turn) lines.push(look.turn);
      look.result.forEach((line) => fresh && lines.push(line));
    }
    shownVersion = look.version;
    shownMoves = look.moves.length;
    wasMyTurn = Boolean(look.my_turn);
    if (fresh) announce(lines);
  }

  // --- the board as a grid ------------------------------------------------------------------
  function centre(cell) {
    const shape = cell.querySelector("polygon");
    if (!shape) return null;
    const pts = shape.getAttribute("points").trim().split(/\s+/).map((p) => p.split(",").map(Number));
    const x = pts.reduce((s, p) => s + p[0], 0) / pts.length;
    const y = pts.reduce((s, p) => s + p[1], 0) / pts.length;
    return [x, y];
  }

  function rowOf(label) {
    return label.replace(/[0-9]+$/, "");
  }

  function cellName(look, label, legal) {
    const what = (look.cell_names || {})[label] || look.words.free;
    return label + ", " + what + (legal ? ", " + look.words.can_place : "");
  }

  // The cell ``steps`` away in a direction: along the row (dx -1 or 1), or to the row
  // above or below (dy -1 or 1), to its left (dx -1) or right (dx 1) neighbour; with no
  // such neighbour, the other one of that row.
  function neighbour(cells, from, dx, dy) {
    const here = cells.get(from);
    if (!here) return null;
    let best = null;
    let bestScore = Infinity;
    for (const [label, at] of cells) {
      if (label === from) continue;
      const ddx = at.c[0] - here.c[0];
      const ddy = at.c[1] - here.c[1];
      const far = Math.hypot(ddx, ddy);
      if (far > here.step * 1.3) continue; // only the six touching cells
      if (dy === 0) {
        if (Math.abs(ddy) > here.step * 0.2 || Math.sign(ddx) !== dx) continue;
      } else {
        if (Math.sign(ddy) !== dy || Math.abs(ddy) < here.step * 0.2) continue;
      }
      const score = dy === 0 ? far : (Math.sign(ddx) === dx ? 0 : 1000) + far;
      if (score < bestScore) {
        best = label;
        bestScore = score;
      }
    }
    return best;
  }

  function focusCell(box, label) {
    const g = box.querySelector('.cell[data-cell="' + label + '"]');
    if (!g) return;
    box.querySelectorAll('.cell[tabindex="0"]').forEach((c) => c.setAttribute("tabindex", "-1"));
    g.setAttribute("tabindex", "0");
    current = label;
    g.focus();
  }

  async function readLines(look, api, label) {
    const res = await fetch(api("/lines") + (api("").includes("?") ? "&" : "?") + "cell=" + encodeURIComponent(label));
    const data = await res.json().catch(() => ({}));
    const out = $("lines-read");
    const lines = res.ok ? data.lines || [] : [data.error || res.statusText];
    if (out) {
      out.replaceChildren();
      lines.forEach((line) => {
        const li = document.createElement("li");
        li.textContent = line;
        out.appendChild(li);
      });
    }
    announce(lines);
  }

  // Called by app.js after the board is drawn: rows and cells get their roles and names,
  // one cell is in the Tab order, the keys work. ``choose`` is the page's own tap.
  function board(box, look, legal, chosen, choose, api) {
    const svg = box.querySelector("svg");
    if (!svg) return;
    svg.setAttribute("role", "grid");
    svg.setAttribute("aria-label", look.words.board);
    svg.setAttribute("aria-describedby", "board-keys");
    text($("board-keys"), look.words.keys);
    const cells = Array.from(svg.querySelectorAll(".cell"));
    if (!cells.length) return;
    // Everything but the cells is drawing only.
    Array.from(svg.children).forEach((n) => {
      if (!n.classList.contains("cell")) n.setAttribute("aria-hidden", "true");
    });
    const rows = new Map();
    cells.forEach((g) => {
      const r = rowOf(g.dataset.cell);
      if (!rows.has(r)) rows.set(r, []);
      rows.get(r).push(g);
    });
    const anchor = document.createComment("rows"); // where the first cell was drawn
    svg.insertBefore(anchor, cells[0]);
    for (const [, members] of rows) {
      const row = document.createElementNS(SVG, "g");
      row.setAttribute("role", "row");
      svg.insertBefore(row, anchor);
      members.forEach((g) => row.appendChild(g));
    }
    const geometry = new Map();
    cells.forEach((g) => {
      const c = centre(g);
      if (c) geometry.set(g.dataset.cell, { c: c, step: 0 });
    });
    // The distance between two neighbours: the nearest other cell's, for every cell.
    let step = Infinity;
    const list = Array.from(geometry.values());
    for (let i = 0; i < Math.min(list.length, 40); i++)
      for (let j = 0; j < list.length; j++)
        if (i !== j) step = Math.min(step, Math.hypot(list[i].c[0] - list[j].c[0], list[i].c[1] - list[j].c[1]));
    geometry.forEach((v) => (v.step = step));
    const fits = new Set(legal);
    cells.forEach((g) => {
      const label = g.dataset.cell;
      g.setAttribute("role", "gridcell");
      g.setAttribute("aria-label", cellName(look, label, fits.has(label)));
      g.setAttribute("aria-selected", String(chosen.includes(label)));
      g.setAttribute("tabindex", "-1");
      Array.from(g.children).forEach((n) => n.setAttribute("aria-hidden", "true"));
    });
    if (!current || !geometry.has(current)) current = legal.length ? legal[0] : cells[0].dataset.cell;
    const start = svg.querySelector('.cell[data-cell="' + current + '"]');
    if (start) start.setAttribute("tabindex", "0");
    svg.addEventListener("focusin", (e) => {
      const g = e.target.closest && e.target.closest(".cell");
      if (g) current = g.dataset.cell;
    });
    svg.addEventListener("keydown", (e) => {
      const keys = {
        ArrowLeft: [-1, 0],
        ArrowRight: [1, 0],
        ArrowUp: [e.shiftKey ? 1 : -1, -1],
        ArrowDown: [e.shiftKey ? -1 : 1, 1],
      };
      if (keys[e.key]) {
        const [dx, dy] = keys[e.key];
        const next = neighbour(geometry, current, dx, dy);
        if (next) focusCell(box, next);
        e.preventDefault();
      } else if (e.key === "Enter" || e.key === " ") {
        choose(current);
        e.preventDefault();
      } else if (e.key === "n" || e.key === "N") {
        const now = legalCells();
        if (now.length) {
          const at = now.indexOf(current);
          const k = e.shiftKey ? (at <= 0 ? now.length - 1 : at - 1) : (at + 1) % now.length;
          focusCell(box, now[k]);
        }
        e.preventDefault();
      } else if (e.key === "l" || e.key === "L") {
        readLines(look, api, current);
        e.preventDefault();
      }
    });
    function legalCells() {
      return Array.from(box.querySelectorAll(".cell.legal")).map((g) => g.dataset.cell);
    }
    if (inBoard) focusCell(box, current);
    const read = $("lines");
    if (read) {
      text(read, look.words.lines);
      read.hidden = false;
      read.onclick = () => readLines(look, api, current);
    }
  }

  // Called by app.js after the cells' marks change (a tile or a cell chosen): the names
  // say which cells the tile fits and which are chosen.
  function marked(box, look, legal, chosen) {
    const fits = new Set(legal);
    box.querySelectorAll(".cell").forEach((g) => {
      const label = g.dataset.cell;
      g.setAttribute("aria-label", cellName(look, label, fits.has(label)));
      g.setAttribute("aria-selected", String(chosen.includes(label)));
    });
  }

  // The rack's tiles named by their symbols, and which one is chosen.
  function rack(box, look, slot) {
    box.querySelectorAll("button").forEach((b) => {
      const tile = look.rack.find((t) => String(t.slot) === b.dataset.slot);
      if (!tile) return;
      const name = (l) => look.words["symbol_" + l] || l;
      b.setAttribute("aria-label", name(tile.first) + ", " + name(tile.second));
      b.setAttribute("aria-pressed", String(slot === tile.slot));
    });
  }

  function text(el, value) {
    if (el) el.textContent = value == null ? "" : String(value);
  }

  return { applyChange, rendered, board, marked, rack, announce };
})();
