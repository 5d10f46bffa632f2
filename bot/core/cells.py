"""A board's cells in words, for players who do not see the board (issue 48): what a cell
holds ("blue star, placed by Ann"), and its lines, the symbols in a row from it in each
of the six directions, as the rules count them (a placement scores, from each of its
symbols, the same-coloured symbols in a row in the directions away from its tile).

The web page names every cell so (``PageLook.cell_names``) and reads a cell's lines on
request; the chat's ``/look F7`` tells the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core import games
from bot.core.games import Game
from bot.words.texts import Texts
from engine.hexgrid import Hex
from engine.moves import Placement

#: The six directions as :data:`engine.hexgrid.DIRECTIONS` orders them, as the board is
#: drawn (rows across, the first row at the top): right, up-right, up-left, left,
#: down-left, down-right.
DIRECTIONS = 6


def owners(game: Game, record: dict[str, Any] | None) -> dict[Hex, int]:
    """The seat whose tile covers each covered cell (Genial's board holds colours only,
    so its record is played through; Genial Spezial's board holds the seats)."""
    if games.is_spezial(game):
        return {h: seat for h, seat in game.view(None).board.items() if seat >= 0}
    if record is None:
        return {}
    replay = games.rebuild({**record, "moves": [], "takebacks": []})
    out: dict[Hex, int] = {}
    for text in record.get("moves") or []:
        seat = replay.to_move
        move = replay.parse(text, seat)
        replay.play(move, seat)
        if isinstance(move, Placement):
            out[move.cell1] = out[move.cell2] = seat
    return out


def _what(
    game: Game, view: Any, h: Hex, owner: dict[Hex, int], names: Sequence[str], texts: Texts
) -> str:
    """What cell ``h`` holds, in words; "" for a free cell."""
    by = names[owner[h]] if h in owner and owner[h] < len(names) else ""
    if games.is_spezial(game):
        if h in view.towers:
            return texts("look.tower", symbol=texts(f"symbol.{view.towers[h].colour.value}"))
        if h in view.board:
            return texts("look.tile", name=by)
        return texts("look.golden") if h in view.golden else ""
    if h in view.start_symbols:
        return texts("look.printed", symbol=texts(f"symbol.{view.start_symbols[h].value}"))
    if h in view.board:
        symbol = texts(f"symbol.{view.board[h].value}")
        return texts("look.placed", symbol=symbol, name=by) if by else symbol
    return ""


def _short(
    game: Game, view: Any, h: Hex, owner: dict[Hex, int], names: Sequence[str], texts: Texts
) -> str:
    """What a covered cell holds as a line tells it: the symbol, or in Genial Spezial the
    tower's symbol or whose tile it is; "" for a free cell (a line ends there)."""
    if games.is_spezial(game):
        if h in view.towers:
            return texts(f"symbol.{view.towers[h].colour.value}")
        if h in view.board:
            return names[owner[h]] if owner.get(h, -1) in range(len(names)) else "?"
        return ""
    colour = view.start_symbols.get(h) or view.board.get(h)
    return "" if colour is None else texts(f"symbol.{colour.value}")


def cell_names(
    game: Game, record: dict[str, Any] | None, names: Sequence[str], texts: Texts
) -> dict[str, str]:
    """What each covered cell (and each free golden space) holds, by label."""
    view = game.view(None)
    owner = owners(game, record)
    area = game.area
    out = {}
    for h, label in zip(area.cells, area.labels, strict=True):
        what = _what(game, view, h, owner, names, texts)
        if what:
            out[label] = what
    return out


def look(
    game: Game, record: dict[str, Any] | None, names: Sequence[str], texts: Texts, label: str
) -> list[str] | None:
    """Cell ``label`` and its lines, one line each: what it holds, then each direction
    with the symbols in a row from it up to the first free cell or the board's edge.
    ``None`` if the board has no such cell."""
    area = game.area
    try:
        h = area.parse_label(label)
    except Exception:  # EngineError, or a label of no shape at all
        return None
    if h not in set(area.cells):
        return None
    view = game.view(None)
    owner = owners(game, record)
    cells = set(area.cells)
    what = _what(game, view, h, owner, names, texts) or texts("look.free")
    out = [texts("look.cell", cell=area.label(h), what=what)]
    for d in range(DIRECTIONS):
        row = []
        step = h.neighbour(d)
        while step in cells:
            item = _short(game, view, step, owner, names, texts)
            if not item:
                break
            row.append(item)
            step = step.neighbour(d)
        said = ", ".join(row) if row else texts("look.nothing")
        out.append(texts("look.line", direction=texts(f"look.dir_{d}"), symbols=said))
    return out
