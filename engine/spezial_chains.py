"""Chains in Genial Spezial: which towers each chain of one seat's tiles touches, has scored
and has been paid the tall bonus for, and what a placement scores by joining the chains
beside it (RULES.md 3.3).

Inside, cells are indexes into the board's :class:`~engine.hexgrid.Area` and towers are
numbered in the board file's order (unused tower spaces skipped), so that a set of towers
is an ``int`` bit mask. Chains are kept in a union-find forest over the cells: each root
holds what its chain touches, has scored and has been paid the tall bonus for, so a
placement costs a few neighbour look-ups, never a flood fill.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import NamedTuple

from engine.hexgrid import Area, Hex
from engine.moves import SpezialPlacement
from engine.spezial_board import _bits, _Tables
from engine.spezial_tokens import Token


class _Outcome(NamedTuple):
    """What a placement would do, worked out without changing the game."""

    roots: tuple[int, ...]  # the chains the new tile joins
    touched: int  # towers the resulting chain touches
    scored: int  # towers it has scored afterwards
    paid: int  # tall towers it has been paid for afterwards
    new_towers: int  # towers scoring now
    new_tall: int  # tall towers paid now
    golden: tuple[tuple[int, int, bool], ...]  # (cell, score colour index, chosen)
    points: tuple[int, int, int, int]  # in SCORE_COLOURS order


class SpezialChains:
    """The chains of :class:`~engine.spezial.SpezialGame` and the points of its placements."""

    # Kept by SpezialGame (engine.spezial).
    area: Area
    _t: _Tables
    tokens: tuple[Token, ...]
    _colour: tuple[int, ...]
    dark: list[bool]
    board: list[int]
    _parent: list[int]
    _touched: list[int]
    _scored: list[int]
    _paid: list[int]
    cell_order: list[int]
    empty_edges: list[int]
    _edge_pos: list[int]
    _open_edges: list[int]
    _open: list[SpezialPlacement]
    scores: list[list[int]]
    to_move: int
    over: bool

    def chain_of(self, cell: Hex) -> tuple[frozenset[Hex], frozenset[Hex], frozenset[Hex]]:
        """For the chain holding ``cell``: the towers it touches, has scored and has been
        paid the tall bonus for, as cells.

        Raises:
            KeyError: if no tile covers ``cell``.
        """
        c = self.area.index[cell]
        if self.board[c] < 0:
            raise KeyError(cell)
        root = self._find(c)
        return (
            self._tower_cells(self._touched[root]),
            self._tower_cells(self._scored[root]),
            self._tower_cells(self._paid[root]),
        )

    def _tower_cells(self, mask: int) -> frozenset[Hex]:
        spaces = self._t.spaces
        return frozenset(spaces[k].cell for k in _bits(mask))

    def placements_with_points(self) -> list[tuple[SpezialPlacement, tuple[int, ...]]]:
        """Every legal placement (as :meth:`legal_moves`) with the points it would score,
        per colour in the order B, G, O, P (golden points to the default colour)."""
        if self.over:
            return []
        return list(zip(self._open, self._open_points(), strict=True))

    def _open_points(self) -> list[tuple[int, int, int, int]]:
        """The points of every legal placement, in the order of :meth:`legal_moves`: what
        :meth:`_outcome` gives each with golden points to the default, worked out for all
        at once. The chain a tile would make touches, has scored and has been paid for
        the towers of the own chains beside either of its cells (and those its cells are
        next to), so those are gathered once per cell, and a placement's are two ORs."""
        t = self._t
        seat = self.to_move
        board, nbrs, find = self.board, self.area.neighbours, self._find
        near, golden, tall_mask = t.near, t.golden, t.tall_mask
        touched_of, scored_of, paid_of = self._touched, self._scored, self._paid
        per_cell: dict[int, tuple[int, int, int]] = {}
        for c in {c for e in self._open_edges for c in self.area.edges[e]}:
            touched, scored, paid = near[c], 0, 0
            for n in nbrs[c]:
                if n >= 0 and board[n] == seat:
                    r = find(n)
                    touched |= touched_of[r]
                    scored |= scored_of[r]
                    paid |= paid_of[r]
            per_cell[c] = (touched, scored, paid)
        tokens, dark, colour = self.tokens, self.dark, self._colour
        track = self.scores[seat]
        known: dict[tuple[int, int, int], tuple[int, int, int, int]] = {}
        out = []
        edges = self.area.edges
        for e in self._open_edges:
            i, j = edges[e]
            ti, si, pi = per_cell[i]
            tj, sj, pj = per_cell[j]
            touched = ti | tj
            key = (touched, si | sj, pi | pj)
            pts4 = known.get(key)
            if pts4 is None:
                pts = [0, 0, 0, 0]
                if touched.bit_count() >= 2:
                    for k in _bits(touched & ~key[1]):
                        tok = tokens[k]
                        pts[colour[k]] += tok.dark_value if dark[k] else tok.light
                tall = touched & tall_mask
                if tall.bit_count() >= 2:
                    bonus = (tall & ~key[2]).bit_count()
                    if bonus:
                        pts = [p + bonus for p in pts]
                pts4 = known[key] = (pts[0], pts[1], pts[2], pts[3])
            if golden[i] or golden[j]:
                pts = list(pts4)
                for c in (i, j):
                    if golden[c]:
                        # The lowest colour after the other points, B G O P on ties.
                        totals = [track[x] + pts[x] for x in range(4)]
                        pts[totals.index(min(totals))] += 1
                out.append((pts[0], pts[1], pts[2], pts[3]))
            else:
                out.append(pts4)
        return out

    def _find(self, c: int) -> int:
        parent = self._parent
        while parent[c] != c:
            parent[c] = parent[parent[c]]  # path halving keeps the trees flat
            c = parent[c]
        return c

    def _outcome(self, seat: int, i: int, j: int, golden: tuple[int, ...]) -> _Outcome:
        """Score placing ``seat``'s tile on the empty cells ``i`` and ``j`` (RULES 3.3)
        without changing the position; ``golden`` holds the chosen colours in cell order.
        Golden points left to the default go to the lowest colour after the placement's
        tower and tall-bonus points (RULES 3.3 lists the golden bonus last)."""
        board, nbrs, find = self.board, self.area.neighbours, self._find
        roots = []
        for c in (i, j):
            for n in nbrs[c]:
                if n >= 0 and board[n] == seat:
                    r = find(n)
                    if r not in roots:
                        roots.append(r)
        t = self._t
        touched = t.near[i] | t.near[j]
        scored = paid = 0
        for r in roots:
            touched |= self._touched[r]
            scored |= self._scored[r]
            paid |= self._paid[r]
        pts = [0, 0, 0, 0]
        new_towers = 0
        if touched.bit_count() >= 2:
            new_towers = touched & ~scored
            tokens, dark = self.tokens, self.dark
            for k in _bits(new_towers):
                tok = tokens[k]
                pts[self._colour[k]] += tok.dark_value if dark[k] else tok.light
            scored = touched
        new_tall = 0
        tall = touched & t.tall_mask
        if tall.bit_count() >= 2:
            new_tall = tall & ~paid
            bonus = new_tall.bit_count()
            if bonus:
                pts = [p + bonus for p in pts]
            paid = tall
        chosen: list[tuple[int, int, bool]] = []
        for c in (i, j):
            if t.golden[c]:
                if len(chosen) < len(golden):
                    k = golden[len(chosen)]
                    chosen.append((c, k, True))
                else:
                    # The lowest colour after this placement's other points, B G O P on ties.
                    track = self.scores[seat]
                    totals = [track[x] + pts[x] for x in range(4)]
                    k = totals.index(min(totals))
                    chosen.append((c, k, False))
                pts[k] += 1
        return _Outcome(
            tuple(roots),
            touched,
            scored,
            paid,
            new_towers,
            new_tall,
            tuple(chosen),
            (pts[0], pts[1], pts[2], pts[3]),
        )

    def _cover(self, c: int, seat: int) -> None:
        """Put one hex of ``seat``'s tile on cell ``c`` and join it to the chains beside it."""
        board = self.board
        board[c] = seat
        self.cell_order.append(c)
        pos, empty, open_edges = self._edge_pos, self.empty_edges, self._open_edges
        for e in self._t.cell_edges[c]:
            p = pos[e]
            if p >= 0:
                last = empty.pop()
                if last != e:
                    empty[p] = last
                    pos[last] = p
                pos[e] = -1
                k = bisect_left(open_edges, e)
                del open_edges[k]
                del self._open[k]
        parent, touched = self._parent, self._touched
        scored, paid = self._scored, self._paid
        touched[c] = self._t.near[c]
        for n in self.area.neighbours[c]:
            if n >= 0 and board[n] == seat:
                r = self._find(n)
                if r != c:
                    parent[r] = c
                    touched[c] |= touched[r]
                    scored[c] |= scored[r]
                    paid[c] |= paid[r]
