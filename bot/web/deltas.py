"""What changed between two looks of a table: after the first look, a live page is sent
only this (the placement's cells on the board, the scores, whose turn, the clock, the new
lines of the move list), not the whole look again.

A change names the version it applies to (``from``) and the one it makes (``version``):
a page whose look is not ``from`` (it missed an event, or came back from sleep) fetches
the whole look again, as boardgame.io's clients do with their state id. ``board_length``
is the length of the board once patched, a second check that nothing went astray. A map
(the cells' names, a seat's legal cells) is sent as its entries that changed (``merge``)
and the keys it lost (``drop``); the move list as its new lines (``moves_added``); any
other field that changed whole (``set``).

The board (SVG) is cut before each cell and each tile's joint, and the pieces that differ
are sent as ``[start, end, text]``: replace characters ``start`` to ``end`` of the old
board by ``text`` (applied from the last to the first). The board is ASCII (labels,
numbers, colours), so a character is the same in Python and in the page's script.
"""

from __future__ import annotations

import difflib
import itertools
import json
import re
from typing import Any

#: Where the board's SVG is cut: before each cell and each tile's joint.
_PIECE = re.compile(r'(?=<g class="cell")|(?=<line )')


def _pieces(board: str) -> list[str]:
    cuts = [0] + [m.start() for m in _PIECE.finditer(board) if m.start()] + [len(board)]
    return [board[a:b] for a, b in itertools.pairwise(cuts)]


def board_patch(old: str, new: str) -> list[list[Any]]:
    """The edits that turn board ``old`` into ``new``: ``[start, end, text]`` in ``old``'s
    characters, in order, not overlapping."""
    a, b = _pieces(old), _pieces(new)
    at = [0]
    for piece in a:
        at.append(at[-1] + len(piece))
    edits: list[list[Any]] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            edits.append([at[i1], at[i2], "".join(b[j1:j2])])
    return edits


def change(old: bytes, new: bytes) -> bytes | None:
    """The change from look ``old`` to look ``new`` (both as the page is sent them) as
    JSON bytes; ``None`` when the whole of ``new`` is as short (nothing to save)."""
    was, now = json.loads(old), json.loads(new)
    if not isinstance(was, dict) or not isinstance(now, dict):
        return None
    out: dict[str, Any] = {"delta": True, "from": was.get("version"), "version": now["version"]}
    changed = {k: v for k, v in now.items() if k not in was or was[k] != v}
    gone = [k for k in was if k not in now]
    if gone:
        return None  # a look of another shape: the whole one
    board, old_board = now.get("board"), was.get("board")
    if (
        "board" in changed
        and isinstance(board, str)
        and isinstance(old_board, str)
        and board.isascii()
        and old_board.isascii()
    ):
        del changed["board"]
        out["board_patch"] = board_patch(old_board, board)
        out["board_length"] = len(board)
    moves, old_moves = now.get("moves"), was.get("moves")
    if (
        "moves" in changed
        and isinstance(moves, list)
        and isinstance(old_moves, list)
        and moves[: len(old_moves)] == old_moves
    ):
        del changed["moves"]
        out["moves_added"] = moves[len(old_moves) :]
    # A map (the cells' names, a seat's legal cells): only its entries that changed.
    for key in [
        k for k, v in changed.items() if isinstance(v, dict) and isinstance(was.get(k), dict)
    ]:
        old_map, new_map = was[key], changed.pop(key)
        out.setdefault("merge", {})[key] = {
            k: v for k, v in new_map.items() if k not in old_map or old_map[k] != v
        }
        dropped = [k for k in old_map if k not in new_map]
        if dropped:
            out.setdefault("drop", {})[key] = dropped
    changed.pop("version", None)
    out["set"] = changed
    data = json.dumps(out).encode()
    return data if len(data) < len(new) else None


def apply(look: dict[str, Any] | None, sent: dict[str, Any]) -> dict[str, Any] | None:
    """What a page makes of what it was sent: the whole look, or ``look`` changed; ``None``
    when the change is not for ``look`` (then the page fetches the whole look). The page's
    script does the same (``static/access.js``, ``applyChange``)."""
    if not sent.get("delta"):
        return sent
    if look is None or look.get("version") != sent.get("from"):
        return None
    out = {**look, **sent.get("set", {}), "version": sent["version"]}
    if "board_patch" in sent:
        board = look["board"]
        for start, end, text in reversed(sent["board_patch"]):
            board = board[:start] + text + board[end:]
        if len(board) != sent.get("board_length"):
            return None
        out["board"] = board
    if "moves_added" in sent:
        out["moves"] = list(look["moves"]) + list(sent["moves_added"])
    for key, entries in sent.get("merge", {}).items():
        out[key] = {**look[key], **entries}
    for key, dropped in sent.get("drop", {}).items():
        out[key] = {k: v for k, v in out[key].items() if k not in dropped}
    return out
