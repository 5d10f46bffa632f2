"""Genial placements played quietly, for the play-outs of computer players: as
:meth:`~engine.genial.GenialGame.play` plays them, but without its checks, events and record,
since a play-out makes thousands of placements a move and reads only the position."""

from __future__ import annotations

from engine.genial_board import _KIND_BY_COLOURS, _KIND_COLOURS, KIND_OF, GenialBoard, PlacementSpot
from engine.genial_setup import Setup
from engine.tiles import TILE_KINDS, Bag, Tile


class GenialPlayouts(GenialBoard):
    """The quiet placements of :class:`~engine.genial.GenialGame`."""

    # Kept by GenialGame (engine.genial).
    setup: Setup
    bag: Bag
    racks: list[list[Tile]]
    scores: list[list[int]]
    has_placed: list[bool]
    to_move: int
    awaiting: str | None
    bonus_owed: int
    over: bool
    winner: int | None

    def play_spot(self, spot: PlacementSpot) -> None:
        """Play a placement listed by :meth:`placement_groups` for the player to move, as
        :meth:`play` would, but without its checks, events and record: for the play-outs
        of computer players, which make thousands of placements a move and read only the
        position. ``moves``, ``last_placements`` and ``end_reason`` are left as they were;
        everything else (board, points, racks, bag, scores, bonus placements owed, the swap
        offer, the turn, the end) ends as after :meth:`play`."""
        _, i, j, x, y, _ = spot
        seat = self.to_move
        setup = self.setup
        track = self.scores[setup.side_of(seat)]
        points = self._points
        a = points[x][i]
        b = points[y][j]
        self.racks[seat].remove(TILE_KINDS[_KIND_BY_COLOURS[x][y]])
        self._fill(i, x)
        self._fill(j, y)
        self.has_placed[seat] = True
        earned = self._score(track, x, y, a, b)
        if min(track) == setup.cap:
            self.winner = setup.side_of(seat)
            self._end_quietly()
            return
        if not self.empty_edges:
            self._end_quietly()
            return
        self.bonus_owed += earned
        if self.bonus_owed:
            if self.racks[seat]:
                self.bonus_owed -= 1
                return
            self.bonus_owed = 0
        rack = self.racks[seat]
        if setup.swaps and rack:
            low = min(track)
            shown = {c for t in rack for c in _KIND_COLOURS[KIND_OF[t]]}
            if all(track[c] != low for c in shown):
                self.awaiting = "swap"
                return
        self._refill_quietly()

    def _score(self, track: list[int], x: int, y: int, a: int, b: int) -> int:
        """Add to ``track`` what a tile scores with ``a`` points in colour ``x`` and ``b`` in
        ``y`` (a double: ``a + b`` in its colour), each colour stopping at the next mark
        and at the cap (RULES.md 2.5, 2.7); returns the bonus placements it earns."""
        setup = self.setup
        earned = 0
        for k, p in ((x, a + b),) if x == y else ((x, a), (y, b)):
            if not p:
                continue
            old = track[k]
            new = old + p
            for mark in setup.marks:
                if old < mark <= new:
                    new = mark
                    if setup.bonus_placements:
                        earned += 1
                    break
            track[k] = min(new, setup.cap)
        return earned

    def scores_after(self, spot: PlacementSpot) -> list[int]:
        """The scores of the mover's side after a placement listed by
        :meth:`placement_groups` (as :meth:`play` would leave them), without playing it."""
        _, i, j, x, y, _ = spot
        track = self.scores[self.setup.side_of(self.to_move)].copy()
        points = self._points
        self._score(track, x, y, points[x][i], points[y][j])
        return track

    def gain(self, colour: int, points: int) -> int:
        """What ``points`` made in colour index ``colour`` would add to the mover's side's
        track, the next mark and the cap stopping them (RULES.md 2.5, 2.7)."""
        track = self.scores[self.setup.side_of(self.to_move)]
        after = track.copy()
        self._score(after, colour, colour, points, 0)
        return after[colour] - track[colour]

    def swap_quietly(self, swap: bool) -> None:
        """Decide an offered swap as :meth:`play` would, without events or record."""
        self.awaiting = "place"
        if swap:
            rack = self.racks[self.to_move]
            self.bag.put_back(rack)
            self.racks[self.to_move] = []
        self._refill_quietly()

    def _refill_quietly(self) -> None:
        seat = self.to_move
        rack = self.racks[seat]
        rack.extend(self.bag.draw(self.setup.rack_size - len(rack)))
        self.awaiting = "place"
        nxt = (seat + 1) % self.setup.players
        self.to_move = nxt
        if not self.racks[nxt] and not len(self.bag):
            self._end_quietly()

    def _end_quietly(self) -> None:
        self.over = True
        self.awaiting = None
        self.bonus_owed = 0
