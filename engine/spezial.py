"""Genial Spezial (RULES.md section 3): chains of one's own tiles connecting towers.

This module holds the game's moves, its views and its records; :class:`SpezialGame` is built
on :class:`~engine.spezial_chains.SpezialChains` (the chains and what a placement scores).
The board and its tables are in :mod:`engine.spezial_board`, the score tokens in
:mod:`engine.spezial_tokens`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import GameOver, IllegalMove, NotYourTurn, at_move
from engine.events import (
    Event,
    GameEnded,
    GoldenPoint,
    Scored,
    SpezialPlaced,
    TallBonus,
    TokenFlipped,
    TowerScored,
    TurnStarted,
)
from engine.hexgrid import Area, Hex
from engine.moves import SpezialPlacement
from engine.notation import format_spezial_placement, parse_spezial_placement
from engine.ranking import rank
from engine.spezial_board import EMPTY as EMPTY
from engine.spezial_board import SHORT as SHORT
from engine.spezial_board import TALL as TALL
from engine.spezial_board import TOWER as TOWER
from engine.spezial_board import BoardLayout as BoardLayout
from engine.spezial_board import TowerSpace as TowerSpace
from engine.spezial_board import _bits, _tables
from engine.spezial_board import board_layout as board_layout
from engine.spezial_chains import SpezialChains, _Outcome
from engine.spezial_tokens import PLAYER_COUNTS as PLAYER_COUNTS
from engine.spezial_tokens import SCORE_COLOURS as SCORE_COLOURS
from engine.spezial_tokens import TOKEN_COUNTS as TOKEN_COUNTS
from engine.spezial_tokens import TOKENS as TOKENS
from engine.spezial_tokens import Token as Token
from engine.spezial_tokens import check_players as check_players
from engine.spezial_tokens import parse_tokens as parse_tokens
from engine.spezial_tokens import token_set as token_set
from engine.tiles import Colour

TILES_PER_PLAYER = 20

_SCORE_INDEX: dict[Colour, int] = {c: k for k, c in enumerate(SCORE_COLOURS)}


@dataclass(frozen=True, slots=True)
class Tower:
    """A tower in play and its score token."""

    cell: Hex
    height: str  # "tall" or "short"
    colour: Colour  # the token's colour, one of SCORE_COLOURS
    value: int  # the token's current value (light 1/2, dark 2/3)
    dark: bool  # whether the token has been flipped to its dark side


@dataclass(frozen=True, slots=True)
class SpezialView:
    """What one seat may know of a Genial Spezial game (everything is public here except
    nothing: players have no hidden tiles; ``seat=None`` is a spectator)."""

    players: int
    seat: int | None
    #: Every cell covered by a tile, with the seat whose tile it is.
    board: dict[Hex, int]
    #: The towers in play, by cell.
    towers: dict[Hex, Tower]
    #: Golden bonus spaces (covered or not).
    golden: frozenset[Hex]
    scores: tuple[dict[Colour, int], ...]
    to_move: int | None
    #: Tiles each seat still has to place.
    tiles_left: tuple[int, ...]
    moves: tuple[str, ...]
    last_placement: SpezialPlacement | None
    over: bool
    ranking: list[list[int]] | None
    version: int

    @property
    def area(self) -> Area:
        return board_layout().area


class SpezialGame(SpezialChains):
    """A game of Genial Spezial in progress.

    Moves go through :meth:`play`, which checks them against the rules and returns the
    events; :meth:`legal_moves` is the one list of what may be played. The state is mutable
    for speed; :meth:`copy` makes an independent one.
    """

    def __init__(
        self,
        players: int,
        tokens: Sequence[str] | None = None,
        seed: int | None = None,
    ) -> None:
        """Set up the board and put a token on each tower.

        Args:
            players: number of seats, 2–4.
            tokens: the tokens in record notation (``"B1"``), one per tower in use in the
                board file's order; else the token set is shuffled with ``seed``.

        Raises:
            ValueError: for a player count other than 2–4.
            InvalidRecord: for tokens that are not the set in play (RULES 3.1).
        """
        check_players(players)
        self.players = players
        self.area: Area = board_layout().area
        self._t = t = _tables(players)
        if tokens is None:
            dealt = token_set(players)
            random.Random(seed).shuffle(dealt)
            self.tokens: tuple[Token, ...] = tuple(dealt)
        else:
            self.tokens = parse_tokens(players, tokens)
        self._colour: tuple[int, ...] = tuple(_SCORE_INDEX[tok.colour] for tok in self.tokens)
        self.dark: list[bool] = [False] * len(self.tokens)
        n = len(self.area)
        self.board: list[int] = list(t.board)
        # Union-find over the cells; the fields below are meaningful at chain roots only.
        self._parent: list[int] = list(range(n))
        self._touched: list[int] = [0] * n
        self._scored: list[int] = [0] * n
        self._paid: list[int] = [0] * n
        # Covered cells in the order they were covered (RECORD.md's board).
        self.cell_order: list[int] = []
        # Empty adjacent pairs, with positions so a random one is drawn and removed in O(1).
        self.empty_edges: list[int] = list(t.free_edges)
        self._edge_pos: list[int] = [-1] * len(self.area.edges)
        for p, e in enumerate(self.empty_edges):
            self._edge_pos[e] = p
        # The same empty pairs kept in ascending order (reading order of their cells), with
        # their placements beside them, so listing every legal placement is one list copy
        # and a placement only deletes the few pairs around its two cells.
        self._open_edges: list[int] = list(t.free_edges)
        self._open: list[SpezialPlacement] = [t.placements[e] for e in t.free_edges]
        self.scores: list[list[int]] = [[0, 0, 0, 0] for _ in range(players)]
        self.placed: list[int] = [0] * players
        self.to_move = 0
        self.awaiting: str | None = "place"
        self.over = False
        self.end_reason: str | None = None
        self.moves: list[str] = []
        self.last_placement: SpezialPlacement | None = None

    # --- copying ------------------------------------------------------------------------

    def copy(self) -> SpezialGame:
        """An independent copy (for search): shares only immutable tables."""
        new = object.__new__(SpezialGame)
        new.__dict__.update(self.__dict__)
        new.dark = self.dark.copy()
        new.board = self.board.copy()
        new._parent = self._parent.copy()
        new._touched = self._touched.copy()
        new._scored = self._scored.copy()
        new._paid = self._paid.copy()
        new.cell_order = self.cell_order.copy()
        new.empty_edges = self.empty_edges.copy()
        new._edge_pos = self._edge_pos.copy()
        new._open_edges = self._open_edges.copy()
        new._open = self._open.copy()
        new.scores = [s.copy() for s in self.scores]
        new.placed = self.placed.copy()
        new.moves = self.moves.copy()
        return new

    # --- queries ------------------------------------------------------------------------

    @property
    def version(self) -> int:
        """The number of moves made: a command for an older version is stale."""
        return len(self.moves)

    @property
    def sides(self) -> int:
        """One score board per seat."""
        return self.players

    def side_of(self, seat: int) -> int:
        return seat

    def score(self, side: int) -> dict[Colour, int]:
        """A seat's four tracks, in the order B, G, O, P."""
        return dict(zip(SCORE_COLOURS, self.scores[side], strict=True))

    def tiles_left(self, seat: int) -> int:
        return TILES_PER_PLAYER - self.placed[seat]

    def board_summary(self) -> dict[Hex, str]:
        """Every covered cell with the seat number as a string, in the order covered."""
        cells, board = self.area.cells, self.board
        return {cells[c]: str(board[c]) for c in self.cell_order}

    def towers(self) -> dict[Hex, Tower]:
        """The towers in play with their tokens' current sides, in the board file's order."""
        out = {}
        for k, space in enumerate(self._t.spaces):
            tok, dark = self.tokens[k], self.dark[k]
            value = tok.dark_value if dark else tok.light
            out[space.cell] = Tower(space.cell, space.height, tok.colour, value, dark)
        return out

    def ranking(self) -> list[list[int]] | None:
        """Places, best first, each a list of seats; None while the game goes on."""
        if not self.over:
            return None
        return rank(self.scores)

    def returns(self) -> list[int]:
        """Each seat's result: its lowest colour (RULES.md 3.4)."""
        return [min(s) for s in self.scores]

    def legal_moves(self) -> list[SpezialPlacement]:
        """Every placement the player to move may make, once per pair of cells, in reading
        order and canonical form, with the golden colour left to the default (``play``
        also accepts explicit golden colours)."""
        if self.over:
            return []
        return self._open.copy()

    legal_placements = legal_moves

    def points_of(self, placement: SpezialPlacement) -> dict[Colour, int]:
        """The points a legal placement would score now for the player to move, per colour
        (only colours that score).

        Raises:
            IllegalMove: if the placement is not legal.
        """
        i, j, golden = self.check(placement)
        pts = self._outcome(self.to_move, i, j, golden).points
        return {c: p for c, p in zip(SCORE_COLOURS, pts, strict=True) if p}

    def random_placement(self, rng: random.Random) -> SpezialPlacement:
        """A random legal placement, drawn without listing them all (for playouts).

        Raises:
            GameOver: if the game has ended.
        """
        if self.over:
            raise GameOver()
        i, j = self.area.edges[self.empty_edges[rng.randrange(len(self.empty_edges))]]
        cells = self.area.cells
        return SpezialPlacement(cells[i], cells[j])

    # --- views --------------------------------------------------------------------------

    def view(self, seat: int | None = None) -> SpezialView:
        """What ``seat`` may know: everything, as Genial Spezial has no hidden tiles."""
        cells = self.area.cells
        return SpezialView(
            players=self.players,
            seat=seat,
            board={cells[c]: self.board[c] for c in self.cell_order},
            towers=self.towers(),
            golden=board_layout().golden,
            scores=tuple(self.score(s) for s in range(self.players)),
            to_move=None if self.over else self.to_move,
            tiles_left=tuple(TILES_PER_PLAYER - p for p in self.placed),
            moves=tuple(self.moves),
            last_placement=self.last_placement,
            over=self.over,
            ranking=self.ranking(),
            version=self.version,
        )

    @classmethod
    def from_view(cls, view: SpezialView, rng: random.Random | None = None) -> SpezialGame:
        """The game a view shows (nothing is hidden, so ``rng`` is not needed; it is taken
        to match :meth:`GenialGame.from_view`).

        What a chain has scored and been paid for follows from the board: after every
        placement a chain touching two or more towers has scored all of them, and one
        touching two or more tall towers has been paid for all of those (RULES 3.3);
        a chain touching fewer has scored, or been paid, nothing.

        Raises:
            ValueError: if the view's towers are not the towers in play.
        """
        t = _tables(view.players)
        try:
            towers = [view.towers[s.cell] for s in t.spaces]
        except KeyError as exc:
            raise ValueError(f"the view has no tower at {exc.args[0]}") from None
        names = [f"{tw.colour.value}{tw.value - tw.dark}" for tw in towers]
        game = cls(view.players, tokens=names)
        game.dark = [tw.dark for tw in towers]
        index = game.area.index
        for h, seat in view.board.items():
            game._cover(index[h], seat)
        for root in {game._find(c) for c in game.cell_order}:
            touched = game._touched[root]
            if touched.bit_count() >= 2:
                game._scored[root] = touched
            tall = touched & t.tall_mask
            if tall.bit_count() >= 2:
                game._paid[root] = tall
        game.scores = [[sc[c] for c in SCORE_COLOURS] for sc in view.scores]
        game.placed = [TILES_PER_PLAYER - n for n in view.tiles_left]
        game.to_move = 0 if view.to_move is None else view.to_move
        game.over = view.over
        game.awaiting = None if view.over else "place"
        game.moves = list(view.moves)
        game.last_placement = view.last_placement
        return game

    # --- playing ------------------------------------------------------------------------

    def parse(self, text: str, seat: int | None = None) -> SpezialPlacement:
        """A placement in notation (``J4 J5 P``); ``seat`` is taken to match Genial, where
        it stands for the rack that slot numbers refer to.

        Raises:
            NotationError, IllegalMove: as :func:`engine.notation.parse_spezial_placement`.
        """
        return parse_spezial_placement(text, self.area)

    def play_text(self, text: str, seat: int | None = None) -> list[Event]:
        """Parse and play a placement (see :meth:`parse` and :meth:`play`)."""
        return self.play(self.parse(text, seat), seat)

    def play(self, move: SpezialPlacement, seat: int | None = None) -> list[Event]:
        """Place a tile for the player to move (or check that it is ``seat``'s turn).

        Returns:
            The events, in order: placed, towers scored, tokens flipped, tall bonus, golden
            points, the turn's score, then the next turn or the end.

        Raises:
            GameOver: the game has ended.
            NotYourTurn: ``seat`` is given and another seat must act.
            IllegalMove: the placement breaks a rule; ``reason`` says which. The game is
                unchanged.
        """
        if self.over:
            raise GameOver(self._describe(move))
        if seat is not None and seat != self.to_move:
            raise NotYourTurn(self._describe(move), f"seat {self.to_move} is to move")
        i, j, golden = self.check(move)
        seat = self.to_move
        outcome = self._outcome(seat, i, j, golden)
        events: list[Event] = [SpezialPlaced(seat, move)]
        self._apply(seat, i, j, outcome, events)
        self.moves.append(self._describe(move))
        self.last_placement = move
        self.placed[seat] += 1
        if self.placed[-1] == TILES_PER_PLAYER:
            return events + self._end("all_tiles_placed")
        if not self.empty_edges:
            return events + self._end("board_full")
        self.to_move = (seat + 1) % self.players
        events.append(TurnStarted(self.to_move))
        return events

    def _describe(self, move: SpezialPlacement) -> str:
        try:
            return format_spezial_placement(move, self.area)
        except (KeyError, AttributeError, TypeError):
            return repr(move)

    def check(self, move: SpezialPlacement) -> tuple[int, int, tuple[int, ...]]:
        """Check a placement for the player to move; returns the two cells as indexes and
        the chosen golden colours as score colour indexes.

        Raises:
            IllegalMove: with the first broken rule as ``reason``.
        """
        if not isinstance(move, SpezialPlacement):
            raise TypeError(f"not a Genial Spezial placement: {move!r}")
        i, j = self.area.pair(move.cell1, move.cell2, self._describe(move))
        board = self.board
        if board[i] == TOWER or board[j] == TOWER:
            raise IllegalMove("tower", self._describe(move), "towers occupy their cells")
        if board[i] != EMPTY or board[j] != EMPTY:
            raise IllegalMove("occupied", self._describe(move))
        golden: tuple[int, ...] = ()
        if move.golden:
            covered = self._t.golden[i] + self._t.golden[j]
            if len(move.golden) > covered:
                raise IllegalMove(
                    "too_many_colours",
                    self._describe(move),
                    f"the tile covers {covered} golden space{'' if covered == 1 else 's'}",
                )
            try:
                golden = tuple(_SCORE_INDEX[c] for c in move.golden)
            except (KeyError, TypeError):
                raise IllegalMove(
                    "unknown_colour", self._describe(move), "golden points go to B, G, O or P"
                ) from None
        return i, j, golden

    def _apply(self, seat: int, i: int, j: int, outcome: _Outcome, events: list[Event]) -> None:
        """Put the tile down, join its chains, score, flip tokens; narrate into ``events``."""
        self._cover(i, seat)
        self._cover(j, seat)
        root = self._find(i)
        self._scored[root] = outcome.scored
        self._paid[root] = outcome.paid
        cells = self.area.cells
        spaces = self._t.spaces
        flipped: list[Event] = []
        for k in _bits(outcome.new_towers):
            tok = self.tokens[k]
            if self.dark[k]:
                value = tok.dark_value
            else:
                value = tok.light
                self.dark[k] = True
                flipped.append(TokenFlipped(spaces[k].cell, tok.colour, tok.dark_value))
            events.append(TowerScored(seat, spaces[k].cell, tok.colour, value))
        events += flipped
        if outcome.new_tall:
            paid = tuple(spaces[k].cell for k in _bits(outcome.new_tall))
            events.append(TallBonus(seat, paid, len(paid)))
        for c, k, chosen in outcome.golden:
            events.append(GoldenPoint(seat, cells[c], SCORE_COLOURS[k], chosen))
        if any(outcome.points):
            track = self.scores[seat]
            for k, p in enumerate(outcome.points):
                track[k] += p
            points = {c: p for c, p in zip(SCORE_COLOURS, outcome.points, strict=True) if p}
            events.append(Scored(seat, seat, points, dict(points), self.score(seat)))

    def _end(self, reason: str) -> list[Event]:
        self.over = True
        self.awaiting = None
        self.end_reason = reason
        ranking = self.ranking()
        assert ranking is not None
        return [GameEnded(reason, ranking)]

    # --- records ------------------------------------------------------------------------

    @classmethod
    def replay(
        cls,
        players: int,
        moves: Sequence[str],
        tokens: Sequence[str] | None = None,
        seed: int | None = None,
    ) -> SpezialGame:
        """The game that a setup and its moves (in record notation) reach.

        Raises:
            ValueError: for a bad setup (:class:`InvalidRecord` for bad tokens).
            NotationError, IllegalMove: from the first bad move; its 0-based number is in
                the exception's ``move_number``.
        """
        game = cls(players, tokens, seed)
        for n, text in enumerate(moves):
            with at_move(n):
                game.play_text(text)
        return game

    def record(self, with_bag: bool = True) -> dict[str, object]:
        """The game record (RECORD.md). The tokens lie face up on the board for everyone
        to see, so they are always included; ``with_bag`` is taken to match Genial."""
        return {
            "game": "spezial",
            "players": self.players,
            "tokens": [tok.name for tok in self.tokens],
            "moves": list(self.moves),
        }
