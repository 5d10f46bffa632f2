// Aiming on the board (issue 48), beside app.js, which calls it through a few hooks:
// - zoom: where a cell is smaller than a thumb (a phone), a tap on the board zooms to the
//   region around it, every cell then at least TARGET CSS px; a drag pans; "Whole board"
//   goes back out. Labels smaller than LABEL CSS px are hidden, not shown unreadable.
// - the placement before Place: the tile's two symbols drawn in its two cells (Genial
//   Spezial: the player's stones, and on a golden space the colour its point goes to; a
//   tap on that space gives the point to the next colour).
// - hints: the suggested placements drawn on the board, numbered; a tap takes one.
// - words: the bonus placement and the swap offer announced; in Genial Spezial each
//   player's stone colour beside their name.
// Everything drawn here is built from the page's look (symbols from the server's SVG of
// each colour), never from text a person typed.
"use strict";
window.genialAim = function (ctx) {
  const SVG = "http://www.w3.org/2000/svg";
  const TARGET = 48; // CSS px: a cell's least width and height when zoomed (a thumb: 44)
  const LABEL = 11; // CSS px: a smaller label is hidden
  const TILE = "#24262e";
  const MARK = "#d62878";
  const $ = (id) => document.getElementById(id);
  let full = null; // the whole board: [x, y, width, height] in board units
  let view = null; // zoomed: the part shown, as full; null: the whole board
  let version = null;
  let hints = [];
  let drag = null;
  let dragged = false;

  const svgOf = () => $("board").querySelector("svg");
  const cellOf = (svg, label) => svg.querySelector('.cell[data-cell="' + label + '"]');

  function el(name, attrs) {
    const e = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    return e;
  }

  // CSS px per board unit with the whole board shown (the picture keeps its width).
  function unitPx(svg) {
    return svg.getBoundingClientRect().width / full[2];
  }

  // How much the board must be enlarged for a cell to be TARGET px wide and tall.
  function factor() {
    const svg = svgOf();
    const poly = svg && svg.querySelector(".cell polygon");
    if (!poly || !full) return 1;
    const box = poly.getBBox();
    const px = unitPx(svg) * Math.min(box.width, box.height);
    return px > 0 ? TARGET / px : 1;
  }

  function apply() {
    const svg = svgOf();
    if (!svg || !full) return;
    svg.setAttribute("viewBox", (view || full).join(" "));
    $("board").classList.toggle("zoomed", Boolean(view));
    const out = $("zoom-out");
    out.hidden = !view;
    const words = ctx.look() && ctx.look().words;
    if (words) out.textContent = words.zoom_out || "";
    document.body.dataset.zoom = view ? "in" : factor() > 1 ? "out" : "";
    labels();
  }

  // Cell labels, row letters and tower values: shown only when readable.
  function labels() {
    const svg = svgOf();
    if (!svg || !full) return;
    const px = unitPx(svg) * (view ? full[2] / view[2] : 1);
    svg.querySelectorAll(":scope > text, .cell text").forEach((t) => {
      t.classList.toggle("tiny", Number(t.getAttribute("font-size")) * px < LABEL);
    });
  }

  function clamp(v, lo, hi) {
    return Math.max(lo, Math.min(hi, v));
  }

  function zoomAt(x, y) {
    const z = factor();
    if (z <= 1) return false;
    const w = full[2] / z;
    const h = full[3] / z;
    view = [
      clamp(x - w / 2, full[0], full[0] + full[2] - w),
      clamp(y - h / 2, full[1], full[1] + full[3] - h),
      w,
      h,
    ];
    apply();
    if (ctx.zoomed) ctx.zoomed();
    return true;
  }

  function zoomOut() {
    view = null;
    apply();
    if (ctx.zoomed) ctx.zoomed(); // Telegram's back button follows
  }

  function centre(svg, label) {
    const g = cellOf(svg, label);
    const poly = g && g.querySelector("polygon");
    if (!poly) return null;
    const b = poly.getBBox();
    return { x: b.x + b.width / 2, y: b.y + b.height / 2, w: b.width, h: b.height };
  }

  function inView(c) {
    if (!view) return true;
    const [x, y, w, h] = view;
    return c.x - c.w / 2 >= x && c.x + c.w / 2 <= x + w && c.y - c.h / 2 >= y && c.y + c.h / 2 <= y + h;
  }

  function toBoard(svg, e) {
    const p = svg.createSVGPoint();
    p.x = e.clientX;
    p.y = e.clientY;
    return p.matrixTransform(svg.getScreenCTM().inverse());
  }

  // A stone or a tile's half drawn on a cell: the cell's hexagon filled, the symbol on it.
  function piece(svg, label, fill, letter) {
    const c = centre(svg, label);
    if (!c) return null;
    const g = el("g", { "data-cell": label, "data-colour": letter || "" });
    const hex = cellOf(svg, label).querySelector("polygon").cloneNode(false);
    hex.setAttribute("fill", fill);
    hex.setAttribute("stroke", MARK);
    hex.setAttribute("stroke-width", String(0.08 * c.w));
    g.appendChild(hex);
    if (letter) {
      const s = ctx.symbol(letter);
      const size = 1.04 * c.w;
      s.setAttribute("x", String(c.x - size / 2));
      s.setAttribute("y", String(c.y - size / 2));
      s.setAttribute("width", String(size));
      s.setAttribute("height", String(size));
      g.appendChild(s);
    }
    return g;
  }

  // One placement drawn: the bridge between its cells, then its two pieces.
  function placement(svg, cells, letters, fill, cls) {
    const a = centre(svg, cells[0]);
    const b = centre(svg, cells[1]);
    if (!a || !b) return null;
    const g = el("g", { class: cls, "pointer-events": "none" });
    g.appendChild(
      el("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: fill, "stroke-width": 0.5 * a.w }),
    );
    cells.forEach((label, k) => {
      const p = piece(svg, label, fill, letters[k]);
      if (p) g.appendChild(p);
    });
    return g;
  }

  function stone() {
    return ctx.look().seat_colour || MARK;
  }

  // What is drawn over the board: the hints, then the placement being aimed.
  function draw() {
    const svg = svgOf();
    if (!svg) return;
    svg.querySelectorAll(".aim-ghost, .aim-hint").forEach((n) => n.remove());
    const look = ctx.look();
    const spezial = look.game === "spezial";
    // The best drawn last, on top where suggestions share a cell (a tap takes the best).
    hints.forEach((h, n) => {
      const letters = spezial ? h.cells.map((c, k) => goldOf(look, c, h.gold, k)) : h.symbols;
      const g = placement(svg, h.cells, letters, spezial ? stone() : TILE, "aim-hint");
      if (!g) return;
      g.dataset.hint = String(n + 1);
      const a = centre(svg, h.cells[0]);
      const b = centre(svg, h.cells[1]);
      const size = Math.max(0.42 * a.w, 14 / unitPx(svg));
      const x = (a.x + b.x) / 2;
      const y = (a.y + b.y) / 2;
      g.appendChild(el("circle", { cx: x, cy: y, r: 0.62 * size, fill: MARK }));
      const t = el("text", {
        x: x,
        y: y,
        "font-size": size,
        fill: "#ffffff",
        "text-anchor": "middle",
        "dominant-baseline": "central",
        class: "badge",
      });
      t.textContent = String(n + 1);
      g.appendChild(t);
      svg.insertBefore(g, svg.querySelector(".aim-hint"));
    });
    const pick = ctx.pick();
    if (pick.a === null || pick.b === null) return;
    let letters;
    if (spezial) {
      const covered = ctx.covered();
      letters = [pick.a, pick.b].map((c) => {
        const k = covered.indexOf(c);
        return k >= 0 ? ctx.golden()[k] || "" : "";
      });
    } else {
      const tile = look.rack.find((t) => t.slot === pick.slot);
      if (!tile) return;
      letters = [tile.first, tile.second];
    }
    const g = placement(svg, [pick.a, pick.b], letters, spezial ? stone() : TILE, "aim-ghost");
    if (g) svg.appendChild(g);
  }

  // Under the board, each hint by its number, its tile's symbols, its cells and its points
  // (each colour's symbol, named for a screen reader): a tap on one takes it too.
  function list() {
    const said = $("said");
    said.querySelectorAll("li.hint").forEach((li) => li.remove());
    const words = ctx.look().words;
    hints.forEach((h, n) => {
      const li = document.createElement("li");
      li.className = "hint";
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.hint = String(n + 1);
      b.appendChild(document.createTextNode(n + 1 + ". "));
      if (h.symbols.length) {
        const tile = ctx.tileSvg(h.symbols[0], h.symbols[1]);
        tile.setAttribute("class", "tile");
        b.appendChild(tile);
      }
      b.appendChild(document.createTextNode(" " + h.cells.join(" ")));
      Object.entries(h.points).forEach(([letter, p]) => {
        b.appendChild(document.createTextNode("  +" + p + " "));
        const s = ctx.symbol(letter);
        s.setAttribute("role", "img");
        s.setAttribute("aria-label", words["colour_" + letter] || "");
        b.appendChild(s);
      });
      b.addEventListener("click", () => take(n));
      li.appendChild(b);
      said.appendChild(li);
    });
  }

  // A hint's golden space shows the colour the hint names, else none (the default).
  function goldOf(look, cell, gold, k) {
    if (!(look.golden || []).includes(cell)) return "";
    return gold[k] || "";
  }

  function wire(svg) {
    svg.addEventListener(
      "click",
      (e) => {
        if (dragged) {
          dragged = false;
          e.stopPropagation();
          return;
        }
        const g = e.target.closest ? e.target.closest(".cell") : null;
        const cell = g ? g.dataset.cell : null;
        const n = cell ? hints.findIndex((h) => h.cells.includes(cell)) : -1;
        if (n >= 0) {
          e.stopPropagation();
          take(n);
          return;
        }
        if (!view && factor() > 1) {
          e.stopPropagation();
          const p = toBoard(svg, e);
          zoomAt(p.x, p.y);
        }
      },
      true,
    );
    svg.addEventListener("pointerdown", (e) => {
      dragged = false;
      if (view) drag = { x: e.clientX, y: e.clientY, view: view.slice(), moved: false };
    });
    svg.addEventListener("pointermove", (e) => {
      if (!drag || !view) return;
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 8) return;
      drag.moved = true;
      const per = unitPx(svg) * (full[2] / view[2]); // CSS px per unit, zoomed
      view = [
        clamp(drag.view[0] - dx / per, full[0], full[0] + full[2] - view[2]),
        clamp(drag.view[1] - dy / per, full[1], full[1] + full[3] - view[3]),
        view[2],
        view[3],
      ];
      svg.setAttribute("viewBox", view.join(" "));
    });
    const end = () => {
      if (drag && drag.moved) dragged = true;
      drag = null;
    };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
  }

  function take(n) {
    const h = hints[n];
    if (!h) return;
    hints = [];
    list();
    const svg = svgOf();
    const a = centre(svg, h.cells[0]);
    const b = centre(svg, h.cells[1]);
    if (a && b && (!view || !inView(a) || !inView(b))) zoomAt((a.x + b.x) / 2, (a.y + b.y) / 2);
    ctx.take(h);
  }

  // A bonus placement and the swap offer, said in words above the board (a bonus: the
  // look's ``bonus``; the engine has already counted it off ``bonus_owed``).
  function announce() {
    const look = ctx.look();
    const a = $("said-aloud");
    let said = "";
    if (look.my_turn && look.awaiting === "swap") said = look.words.swap_offer;
    else if (look.bonus && look.my_turn) said = look.words.bonus;
    else if (look.bonus && look.to_move !== null && look.to_move !== undefined)
      said = look.words.bonus_watch.replace("{name}", look.names[look.to_move] || "");
    a.textContent = said;
    a.hidden = !said;
  }

  // Genial Spezial: a player's stone colour beside their name.
  function swatch(colour) {
    const svg = el("svg", { viewBox: "0 0 20 20", class: "swatch" });
    svg.appendChild(el("circle", { cx: 10, cy: 10, r: 8, fill: colour, stroke: "#282420" }));
    return svg;
  }

  $("zoom-out").addEventListener("click", zoomOut);
  window.addEventListener("resize", apply);

  return {
    // A new board picture: the zoom kept while the table's version stays, hints too.
    board(svg, now) {
      const box = (svg.getAttribute("viewBox") || "").split(/[\s,]+/).map(Number);
      if (box.length !== 4 || box.some((v) => !isFinite(v))) return;
      full = box;
      if (now !== version) {
        version = now;
        view = null;
        hints = [];
        list();
      }
      wire(svg);
      apply();
      draw();
    },
    // The selection changed: redraw, and bring the first cell's partners into view.
    mark() {
      const svg = svgOf();
      if (!svg || !full) return;
      const pick = ctx.pick();
      const look = ctx.look();
      if (view && pick.a !== null && pick.b === null) {
        const partners = (look.cells[pick.a] || []).map((c) => centre(svg, c)).filter(Boolean);
        const a = centre(svg, pick.a);
        if (a && partners.some((c) => !inView(c))) zoomAt(a.x, a.y);
      }
      draw();
    },
    // A tap on a cell of the drawn placement: a golden space gives its point to the next
    // colour (true: taken); any other tap is app.js's (the tile turned).
    tapPlaced(cell) {
      const look = ctx.look();
      if (look.game !== "spezial") return false;
      const covered = ctx.covered();
      const k = covered.indexOf(cell);
      const chosen = ctx.golden();
      if (k < 0 || !chosen.length) return false;
      const colours = look.golden_colours;
      const next = colours[(colours.indexOf(chosen[k]) + 1) % colours.length];
      ctx.chooseGold(k, next);
      return true;
    },
    hints(found) {
      hints = found || [];
      draw();
      list();
    },
    clear() {
      hints = [];
      draw();
      list();
    },
    zoomed() {
      return Boolean(view);
    },
    hinting() {
      return hints.length > 0;
    },
    zoomOut: zoomOut,
    announce: announce,
    swatch: swatch,
  };
};
