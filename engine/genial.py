"""Genial (Einfach Genial / Ingenious): the standard, team and solo games (RULES.md section 2).

The game state is mutable for speed (``copy()`` makes an independent one); its record
(setup, draw order and moves) is what defines a game. Cells are handled as indexes into the
playing area's :class:`~engine.hexgrid.Area` inside, and as :class:`Hex` at the edges.

This module holds the game's moves, its views and its records; :class:`GenialGame` is built
on the parts in modules of their own:

- :mod:`engine.genial_setup`: what follows from the mode and the number of players;
- :mod:`engine.genial_board`: the playing areas, the start symbols and the board, kept up
  to date as cells are covered (each colour's points on every empty cell, the empty pairs);
- :mod:`engine.genial_placements`: the legal placements, listed;
- :mod:`engine.genial_playouts`: placements played quietly, for play-outs.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import GameOver, IllegalMove, NotYourTurn, at_move
from engine.events import (
    BonusEarned,
    BonusLost,
    Event,
    GameEnded,
    Kept,
    Placed,
    Refilled,
    Scored,
    SwapOffered,
    Swapped,
    TurnStarted,
)
from engine.genial_board import _KIND_BY_COLOURS, _KIND_COLOURS
from engine.genial_board import EMPTY as EMPTY
from engine.genial_board import KIND_OF as KIND_OF
from engine.genial_board import START_SYMBOLS as START_SYMBOLS
from engine.genial_board import PlacementSpot as PlacementSpot
from engine.genial_board import count_points as count_points
from engine.genial_board import playing_area as playing_area
from engine.genial_board import raise_points as raise_points
from engine.genial_placements import GenialPlacements
from engine.genial_placements import PlacementGroup as PlacementGroup
from engine.genial_playouts import GenialPlayouts
from engine.genial_setup import FULL_RADIUS as FULL_RADIUS
from engine.genial_setup import LONG_CAP as LONG_CAP
from engine.genial_setup import MODES as MODES
from engine.genial_setup import RACK_SIZE as RACK_SIZE
from engine.genial_setup import STANDARD_CAP as STANDARD_CAP
from engine.genial_setup import Setup as Setup
from engine.hexgrid import Area, Hex
from engine.moves import KEEP, SWAP, Placement, SwapChoice
from engine.notation import format_genial_move, parse_genial_move
from engine.ranking import rank
from engine.tiles import COLOUR_LETTERS, COLOURS, TILE_KINDS, Bag, Colour, Tile, tile_set

_COLOUR_OF = {c.index: c for c in COLOURS}

# Events are immutable values: those that carry only a few small numbers are made once.
_TURN_STARTED = tuple(TurnStarted(seat) for seat in range(4))
_REFILLED: dict[tuple[int, int, int], Refilled] = {}


def _by_name(item: tuple[Tile, int]) -> str:
    return item[0].name


@dataclass(frozen=True, slots=True)
class GenialView:
    """What one seat may know (``seat=None``: a spectator). Never holds the draw order or
    another seat's rack."""

    mode: str
    players: int
    seat: int | None
    radius: int
    cap: int
    board: dict[Hex, Colour]
    start_symbols: dict[Hex, Colour]
    scores: tuple[dict[Colour, int], ...]
    to_move: int | None
    awaiting: str | None
    rack: tuple[Tile, ...] | None
    rack_sizes: tuple[int, ...]
    bag_size: int
    #: Tiles this seat has not seen: the bag and the other racks, as counts.
    unseen: dict[Tile, int]
    bonus_owed: int
    has_placed: tuple[bool, ...]
    moves: tuple[str, ...]
    #: The placements of the last turn (a turn with bonus placements has several).
    last_placements: tuple[Placement, ...]
    over: bool
    ranking: list[list[int]] | None
    winner: int | None
    version: int

    @property
    def area(self) -> Area:
        return playing_area(self.radius)

    @property
    def setup(self) -> Setup:
        return Setup.of(self.mode, self.players)

    def side_of(self, seat: int) -> int:
        return self.setup.side_of(seat)


class GenialGame(GenialPlacements, GenialPlayouts):
    """A game of Genial in progress.

    Moves go through :meth:`play`, which checks them against the rules and returns the
    events; :meth:`legal_moves` is the one list of what may be played.
    """

    def __init__(
        self,
        players: int,
        mode: str | None = None,
        bag: Sequence[Tile] | None = None,
        seed: int | None = None,
    ) -> None:
        """Set up a game and deal the racks.

        Args:
            players: number of seats, 1–4.
            mode: ``standard``, ``team`` or ``solo`` (default: solo for 1 player).
            bag: the complete draw order (the 120 tiles); else shuffled with ``seed``.

        Raises:
            ValueError: for an impossible mode/player count or a bag that is not the set.
        """
        self.setup = setup = Setup.of(mode or ("solo" if players == 1 else "standard"), players)
        if bag is None:
            initial = tile_set()
            random.Random(seed).shuffle(initial)
        else:
            initial = list(bag)
            if Counter(initial) != Counter(tile_set()):
                raise ValueError("the bag must hold exactly the 120 tiles of the set")
        self.initial_bag: tuple[Tile, ...] = tuple(initial)
        self.bag = Bag(initial)
        self._set_out(setup)
        self.racks: list[list[Tile]] = [self.bag.draw(setup.rack_size) for _ in range(players)]
        self.scores: list[list[int]] = [[0] * 6 for _ in range(setup.sides)]
        self.has_placed: list[bool] = [False] * players
        self.to_move = 0
        self.awaiting: str | None = "place"
        self.bonus_owed = 0
        self.over = False
        self.winner: int | None = None
        self.end_reason: str | None = None
        self.moves: list[str] = []
        self.last_placements: list[Placement] = []
        self._turn_placements: list[Placement] = []

    # --- copying ------------------------------------------------------------------------

    def copy(self) -> GenialGame:
        """An independent copy (for search): shares only immutable tables."""
        new = object.__new__(GenialGame)
        new.__dict__.update(self.__dict__)
        new.bag = self.bag.copy()
        new.board = self.board.copy()
        new.start_touched = set(self.start_touched)
        new.cell_order = self.cell_order.copy()
        new._points = [column.copy() for column in self._points]
        new.empty_edges = self.empty_edges.copy()
        new._edge_pos = self._edge_pos.copy()
        new._rows = None
        new.racks = [r.copy() for r in self.racks]
        new.scores = [s.copy() for s in self.scores]
        new.has_placed = self.has_placed.copy()
        new.moves = self.moves.copy()
        new.last_placements = self.last_placements.copy()
        new._turn_placements = self._turn_placements.copy()
        return new

    # --- queries ------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.setup.players

    @property
    def mode(self) -> str:
        return self.setup.mode

    @property
    def version(self) -> int:
        """The number of moves made: a command for an older version is stale."""
        return len(self.moves)

    @property
    def sides(self) -> int:
        """The number of score boards: one per seat, or two teams."""
        return self.setup.sides

    def side_of(self, seat: int) -> int:
        return self.setup.side_of(seat)

    def board_summary(self) -> dict[Hex, str]:
        """Every occupied cell with its colour letter (RECORD.md's ``board``)."""
        return {h: c.value for h, c in self.board_colours().items()}

    def score(self, side: int) -> dict[Colour, int]:
        return {c: self.scores[side][c.index] for c in COLOURS}

    def board_colours(self) -> dict[Hex, Colour]:
        """Every occupied cell with its colour: start symbols, then tiles as placed."""
        cells = self.area.cells
        board = self.board
        return {cells[i]: _COLOUR_OF[board[i]] for i in self.cell_order}

    def ranking(self) -> list[list[int]] | None:
        """Places, best first, each a list of sides; None while the game goes on."""
        if not self.over:
            return None
        return rank(self.scores, self.winner)

    def returns(self) -> list[int]:
        """Each side's result: its lowest colour (RULES.md 2.9, 2.8)."""
        return [min(s) for s in self.scores]

    def lowest_colours(self, side: int) -> tuple[Colour, ...]:
        s = self.scores[side]
        low = min(s)
        return tuple(c for c, points in zip(COLOURS, s, strict=True) if points == low)

    def legal_moves(self) -> list[Placement | SwapChoice]:
        """Every move the player to move may make, each once, in canonical form."""
        if self.over:
            return []
        if self.awaiting == "swap":
            return [SWAP, KEEP]
        # A new list each time, never kept: no copy needed to widen its type (nor a cast,
        # whose type argument would be built anew at every call).
        return self.legal_placements()  # type: ignore[return-value]

    @property
    def placing_again(self) -> bool:
        """Whether the player to move has placed this turn and now places again: a bonus
        placement (RULES.md 2.5). ``bonus_owed`` does not tell it: the engine counts a
        bonus off as soon as it is earned, so it is 0 during the last one."""
        return bool(self._turn_placements) and not self.over and self.awaiting == "place"

    # --- views --------------------------------------------------------------------------

    def view(self, seat: int | None = None) -> GenialView:
        """What ``seat`` may know; ``None`` for a spectator (no rack at all)."""
        rack = tuple(self.racks[seat]) if seat is not None else None
        unseen = Counter(self.bag.order())
        for s, r in enumerate(self.racks):
            if s != seat:
                unseen.update(r)
        return GenialView(
            mode=self.mode,
            players=self.players,
            seat=seat,
            radius=self.setup.radius,
            cap=self.setup.cap,
            board=self.board_colours(),
            start_symbols={self.area.cells[i]: _COLOUR_OF[k] for i, k in self.start_cells.items()},
            scores=tuple(self.score(side) for side in range(self.setup.sides)),
            to_move=None if self.over else self.to_move,
            awaiting=self.awaiting,
            rack=rack,
            rack_sizes=tuple(len(r) for r in self.racks),
            bag_size=len(self.bag),
            unseen=dict(unseen),
            bonus_owed=self.bonus_owed,
            has_placed=tuple(self.has_placed),
            moves=tuple(self.moves),
            last_placements=tuple(self._turn_placements or self.last_placements),
            over=self.over,
            ranking=self.ranking(),
            winner=self.winner,
            version=self.version,
        )

    @classmethod
    def from_view(
        cls, view: GenialView, rng: random.Random, racks: Sequence[Sequence[Tile]] | None = None
    ) -> GenialGame:
        """A full game consistent with ``view``: the tiles it has not seen dealt at random
        to the other racks and the bag (a determinisation, for search by computer players).
        ``racks`` fixes every rack instead (then the bag is the rest of the unseen tiles).

        Raises:
            ValueError: if the view is a spectator's and ``racks`` is not given.
        """
        if racks is None and view.rack is None:
            raise ValueError("a spectator's view needs the racks given")
        game = object.__new__(cls)
        game.setup = setup = Setup.of(view.mode, view.players)
        game._set_out(setup)
        pool: list[Tile] = [
            t for t, n in sorted(view.unseen.items(), key=_by_name) for _ in range(n)
        ]
        if racks is not None:
            for s, r in enumerate(racks):
                if s != view.seat:
                    for t in r:
                        pool.remove(t)
        rng.shuffle(pool)
        new_racks: list[list[Tile]] = []
        for s in range(view.players):
            if racks is not None:
                new_racks.append(list(racks[s]))
            elif s == view.seat and view.rack is not None:
                new_racks.append(list(view.rack))
            else:
                k = view.rack_sizes[s]
                new_racks.append(pool[:k])
                del pool[:k]
        game.racks = new_racks
        game.bag = Bag(pool)
        game.initial_bag = ()
        game._cover_all(view.board)
        game.scores = [[sc[c] for c in COLOURS] for sc in view.scores]
        game.has_placed = list(view.has_placed)
        game.to_move = view.to_move if view.to_move is not None else 0
        game.awaiting = view.awaiting
        game.bonus_owed = view.bonus_owed
        game.over = view.over
        game.winner = view.winner
        game.end_reason = None
        game.moves = list(view.moves)
        game.last_placements = list(view.last_placements)
        game._turn_placements = []
        return game

    # --- playing ------------------------------------------------------------------------

    def parse(self, text: str, seat: int | None = None) -> Placement | SwapChoice:
        """A move in notation; a rack slot stands for a tile of ``seat``'s rack if given.

        Raises:
            NotationError, IllegalMove: as :func:`engine.notation.parse_genial_move`.
        """
        rack = self.racks[seat] if seat is not None else None
        return parse_genial_move(text, self.area, rack)

    def play_text(self, text: str, seat: int | None = None) -> list[Event]:
        """Parse and play a move (see :meth:`parse` and :meth:`play`)."""
        return self.play(self.parse(text, seat), seat)

    def play(self, move: Placement | SwapChoice, seat: int | None = None) -> list[Event]:
        """Play a move for the player to move (or check that it is ``seat``'s turn).

        Returns:
            The events, in order.

        Raises:
            GameOver: the game has ended.
            NotYourTurn: ``seat`` is given and another seat must act.
            IllegalMove: the move breaks a rule; ``reason`` says which. The game is unchanged.
        """
        if self.over:
            raise GameOver(self._describe(move))
        if seat is not None and seat != self.to_move:
            raise NotYourTurn(self._describe(move), f"seat {self.to_move} is to move")
        if isinstance(move, SwapChoice):
            if self.awaiting != "swap":
                raise IllegalMove("swap_not_offered", self._describe(move))
            return self._decide_swap(move)
        return self._place(move)

    def _describe(self, move: Placement | SwapChoice) -> str:
        try:
            return format_genial_move(move, self.area)
        except (KeyError, AttributeError, TypeError):
            return repr(move)

    def check(self, move: Placement) -> tuple[int, int, int, int]:
        """Check a placement for the player to move; returns ``(cell1, cell2, c1, c2)`` as
        indexes.

        Raises:
            IllegalMove: with the first broken rule as ``reason``.
        """
        i, j, x, y, _, _ = self._check(move)
        return i, j, x, y

    def _check(self, move: Placement) -> tuple[int, int, int, int, Tile, str]:
        """:meth:`check`, plus the tile and the move's text."""
        if self.awaiting == "swap":
            raise IllegalMove("swap_pending", self._describe(move))
        known = self._layout.checked.get(move)
        if known is None:
            known = self._cells_of(move)
        i, j, _, _, tile, text = known
        board = self.board
        if board[i] != EMPTY or board[j] != EMPTY:
            raise IllegalMove("occupied", text)
        if tile not in self.racks[self.to_move]:
            raise IllegalMove("tile_not_on_rack", text)
        if not self.has_placed[self.to_move]:
            allowed = self._first_round_cells()
            if i not in allowed and j not in allowed:
                raise IllegalMove("first_round", text)
        return known

    def _cells_of(self, move: Placement) -> tuple[int, int, int, int, Tile, str]:
        """A placement's cells and colours as indexes, its tile and its text; a listed
        placement's are kept in the layout's table, so that it is worked out once.

        Raises:
            IllegalMove: a cell outside the area, or two cells that are not a pair.
        """
        spot = self._layout.where.get(move)
        if spot is None:
            text = self._describe(move)
            i, j = self.area.pair(move.cell1, move.cell2, text)
            return i, j, move.first.index, move.second.index, Tile.of(move.first, move.second), text
        _, i, j, x, y, _ = spot
        labels = self.area.labels
        text = f"{COLOUR_LETTERS[x]}{COLOUR_LETTERS[y]} {labels[i]} {labels[j]}"
        known = (i, j, x, y, TILE_KINDS[_KIND_BY_COLOURS[x][y]], text)
        self._layout.checked[move] = known
        return known

    def _place(self, move: Placement) -> list[Event]:
        i, j, x, y, tile, text = self._check(move)
        seat = self.to_move
        setup = self.setup
        side = setup.side_of(seat)
        events: list[Event] = [Placed(seat, move, bool(self._turn_placements))]
        # Score on the board as it was, then put the tile down.
        points = self._points
        a = points[x][i]
        b = points[y][j]
        self.racks[seat].remove(tile)
        self._fill(i, x)
        self._fill(j, y)
        self.has_placed[seat] = True
        self._turn_placements.append(move)
        self.moves.append(text)

        track = self.scores[side]
        if a or b:
            made = ((x, a + b),) if x == y else ((x, a), (y, b))
            gained = {}
            bonuses: list[Event] = []
            for k, p in made:
                if not p:
                    continue
                old = track[k]
                new = old + p
                for mark in setup.marks:
                    if old < mark <= new:
                        new = mark  # the track stops at the mark; the rest is lost
                        if setup.bonus_placements:
                            bonuses.append(BonusEarned(seat, _COLOUR_OF[k], mark))
                        break
                new = min(new, setup.cap)
                track[k] = new
                gained[_COLOUR_OF[k]] = new - old
            if x == y:
                made_points = {_COLOUR_OF[x]: a + b}
            else:  # in colour order
                made_points = {}
                for k, p in made if x < y else made[::-1]:
                    if p:
                        made_points[_COLOUR_OF[k]] = p
            totals = dict(zip(COLOURS, track, strict=True))
            events.append(Scored(seat, side, made_points, gained, totals))
            events += bonuses
            if min(track) == setup.cap:
                self.winner = side
                return events + self._end("immediate_win")
            self.bonus_owed += len(bonuses)
        if not self.empty_edges:
            return events + self._end("board_full")
        if self.bonus_owed:
            if self.racks[seat]:
                self.bonus_owed -= 1
                return events
            events.append(BonusLost(seat, self.bonus_owed))
            self.bonus_owed = 0
        return self._after_placements(events)

    def _after_placements(self, events: list[Event]) -> list[Event]:
        """The turn's placements are made: offer the swap or refill and pass (the events
        are added to ``events``, which is returned)."""
        seat = self.to_move
        rack = self.racks[seat]
        if self.setup.swaps and rack:
            side = self.setup.side_of(seat)
            track = self.scores[side]
            low = min(track)
            for t in rack:
                x, y = _KIND_COLOURS[KIND_OF[t]]
                if track[x] == low or track[y] == low:
                    break
            else:
                self.awaiting = "swap"
                events.append(SwapOffered(seat, self.lowest_colours(side)))
                return events
        return self._refill_and_pass(events)

    def _decide_swap(self, choice: SwapChoice) -> list[Event]:
        seat = self.to_move
        self.moves.append("swap" if choice.swap else "keep")
        self.awaiting = "place"
        events: list[Event]
        if choice.swap:
            rack = self.racks[seat]
            self.bag.put_back(rack)
            events = [Swapped(seat, len(rack))]
            self.racks[seat] = []
        else:
            events = [Kept(seat)]
        return self._refill_and_pass(events)

    def _refill_and_pass(self, events: list[Event]) -> list[Event]:
        seat = self.to_move
        rack = self.racks[seat]
        bag = self.bag
        drawn = bag.draw(self.setup.rack_size - len(rack))
        rack += drawn
        left = len(bag)
        refilled = _REFILLED.get((seat, len(drawn), left))
        if refilled is None:
            refilled = _REFILLED[seat, len(drawn), left] = Refilled(seat, len(drawn), left)
        events.append(refilled)
        self.awaiting = "place"
        self.last_placements = self._turn_placements
        self._turn_placements = []
        nxt = seat + 1
        if nxt == len(self.racks):
            nxt = 0
        self.to_move = nxt
        if not left and not self.racks[nxt]:
            return events + self._end("out_of_tiles")
        events.append(_TURN_STARTED[nxt])
        return events

    def _end(self, reason: str) -> list[Event]:
        self.over = True
        self.awaiting = None
        self.bonus_owed = 0
        if self._turn_placements:
            self.last_placements = self._turn_placements
            self._turn_placements = []
        ranking = self.ranking()
        assert ranking is not None
        self.end_reason = reason
        return [GameEnded(reason, ranking, self.winner)]

    # --- records ------------------------------------------------------------------------

    @classmethod
    def replay(
        cls,
        mode: str,
        players: int,
        moves: Sequence[str],
        bag: Sequence[Tile] | None = None,
        seed: int | None = None,
    ) -> GenialGame:
        """The game that a setup and its moves (in record notation) reach.

        Raises:
            ValueError: for a bad setup.
            NotationError, IllegalMove: from the first bad move; its 0-based number is in
                the exception's ``move_number``.
        """
        game = cls(players, mode, bag, seed)
        for n, text in enumerate(moves):
            with at_move(n):
                game.play_text(text)
        return game

    def record(self, with_bag: bool = True) -> dict[str, object]:
        """The game record (RECORD.md); ``with_bag=False`` leaves out the draw order."""
        rec: dict[str, object] = {"game": "genial", "mode": self.mode, "players": self.players}
        if with_bag:
            rec["bag"] = [t.name for t in self.initial_bag]
        rec["moves"] = list(self.moves)
        return rec
