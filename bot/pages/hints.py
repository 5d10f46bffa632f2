"""The page's Hint: the suggested placements as values the page draws on its board (the
cells, the symbols that land on them, the points), never as typed commands.

The same rules as the typed ``/hint`` (``bot.play.moves.hint``): hints on at the table,
the player's own turn, a tile to place; the same engine suggestions (``HINTS`` of them).
"""

from __future__ import annotations

from typing import Any

from bot.core import players
from bot.core.games import Game
from bot.core.table import PLAYING
from bot.core.tables import Tables
from bot.pages.looks import preview
from bot.store import DamagedTable
from bot.words.texts import Texts
from engine.genial import GenialGame
from engine.moves import Placement, SpezialPlacement

#: How many placements a hint suggests (as the typed /hint).
HINTS = players.HINTS


def suggestion(game: Game, seat: int, move: Placement | SpezialPlacement) -> dict[str, Any]:
    """One suggested placement as the page takes it: ``move`` (what the page sends, a rack
    slot and two cells in Genial, the cells and any golden colours in Genial Spezial),
    ``cells``, ``symbols`` (the colour letter landing on each cell; none in Genial
    Spezial, whose tiles are the player's colour), ``gold`` (golden colours named) and
    ``points`` (by colour letter, as the preview counts them)."""
    area = game.area
    if isinstance(move, SpezialPlacement):
        cells = [area.label(move.cell1), area.label(move.cell2)]
        gold = [c.value for c in move.golden]
        text = " ".join(cells) + (" " + "".join(gold) if gold else "")
        symbols: list[str] = []
        slot = None
    else:
        assert isinstance(game, GenialGame)
        rack = game.racks[seat]
        slot = next(n for n, t in enumerate(rack, 1) if t == move.tile)
        tile = rack[slot - 1]
        # The slot's tile puts its first colour on the first cell named.
        one, two = move.cells if move.first == tile.first else (move.cell2, move.cell1)
        cells = [area.label(one), area.label(two)]
        symbols = [tile.first.value, tile.second.value]
        gold = []
        text = f"{slot} {cells[0]} {cells[1]}"
    shown = preview(game, seat, text)
    return {
        "move": text,
        "slot": slot,
        "cells": cells,
        "symbols": symbols,
        "gold": gold,
        "points": shown["points"] if shown else {},
    }


def seat_hints(tables: Tables, chat: str, user: str, version: int) -> dict[str, Any]:
    """``{"hints": [...]}`` (:func:`suggestion` each, best first) for ``user`` at ``chat``'s
    table at ``version``, or ``{"error": text}`` saying in the table's language why not."""
    with tables.locks.hold(chat):
        try:
            table = tables.store.load(chat)
        except DamagedTable:
            table = None
        texts = Texts(table.options.lang if table is not None else "en")
        if table is None or table.status != PLAYING:
            return {"error": texts("error.not_started")}
        if not table.options.hints:
            return {"error": texts("error.hints_off")}
        if table.version != version:
            return {"error": texts("web.stale")}
        found = tables.seat_game(chat, user)
        if found is None:
            return {"error": texts("error.not_seated")}
        game, seat = found
        if game.to_move != seat or getattr(game, "awaiting", "place") != "place":
            return {"error": texts("error.hint_not_now")}
        best = players.best(game.view(seat), HINTS)
        return {"hints": [suggestion(game, seat, move) for move, _ in best]}
