"""The expert Genial player's play-outs (the levels are described in
:mod:`engine.ai.genial_players`): the tiles a seat has not seen dealt anew (:func:`redeal`),
greedy play for every seat from a candidate placement to the end of the game or a fixed
depth (:func:`play_out`, in C where the kernel is built), and the value of where a play-out
stopped. The master player's play-outs are these too."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.ai import kernel as _kernel
from engine.ai.evaluation import KIND_COLOURS, KIND_INDEX, Weights, track_value
from engine.ai.genial_greedy import _empty_pairs, greedy_spot, rank_placements
from engine.ai.genial_strong import DEFAULT_STRONG, StrongConfig, _pairs_after, _values
from engine.ai.tracks import _padded_row
from engine.genial import KIND_OF, GenialGame, PlacementSpot, Setup
from engine.ranking import rank
from engine.tiles import Bag, Tile


@dataclass(frozen=True, slots=True)
class ExpertConfig:
    """The budget and weights of the expert player. The budget is counted in simulated
    placements, not seconds, so that a view and a seed always give the same move."""

    #: How many of the strong player's best candidates are played out.
    candidates: int = 5
    #: Simulated placements per move, shared among the candidates and their play-outs.
    budget: int = 1200
    #: Each play-out stops after this many placements (or at the end of the game).
    depth: int = 60
    #: Play-outs per candidate, at least and at most.
    min_samples: int = 4
    max_samples: int = 64
    #: What a finished game won is worth over one lost, in units of the track value.
    win: float = 4.0
    #: Weight of the strong player's own value of each candidate beside the play-outs.
    prior: float = 0.0
    #: Play out only when at most this many cells are empty (else the strong player's
    #: best candidate is played).
    endgame: int = 40
    strong: StrongConfig = DEFAULT_STRONG


DEFAULT_EXPERT = ExpertConfig()


@dataclass(frozen=True, slots=True)
class Lookahead:
    """A play-out policy that looks one placement ahead (issue 50): of greedy's best
    :attr:`candidates` placements, the one whose value less :attr:`reply` times the next
    seat's best reply on the board it leaves is highest (:func:`lookahead_spot`). Both racks
    being known in a deal, this is strong's threat term without its expectation. At 8 and
    0.5 it won 75.5 % of 400 whole 2-player games against greedy, and a whole play-out in C
    costs about 2.6 times a greedy one (``benchmarks/playout_policies.py``)."""

    candidates: int = 8
    reply: float = 0.5

    def __post_init__(self) -> None:
        """Refuses settings the C loop would refuse.

        Raises:
            ValueError: for no candidates or more than 64, or a reply weight that is
                negative or not a finite number.
        """
        if not 1 <= self.candidates <= 64:
            raise ValueError("a lookahead looks at 1 to 64 candidates")
        if not 0.0 <= self.reply <= 1e6:
            raise ValueError("a lookahead's reply weight is a number from 0 up")

    def args(self) -> tuple[int, float]:
        """The C loop's ``lookahead`` argument."""
        return (self.candidates, self.reply)


def lookahead_spot(game: GenialGame, weights: Weights, lookahead: Lookahead) -> PlacementSpot:
    """The :class:`Lookahead` placement of the seat to move: greedy's best few (by value,
    equal values in the fixed order of :func:`rank_placements`), each valued less
    ``reply`` times the best value the next seat's tiles reach on any empty pair after it
    (first-round limits aside; 0 if none), the first of the best. No draw of a generator.
    Where the next seat is a partner or holds no tile, greedy's first.

    Raises:
        IndexError: if there is no legal placement (as :func:`greedy_spot`).
    """
    ranked = rank_placements(game, weights)
    if not ranked:
        raise IndexError("no legal placement")
    where = game._layout.where
    top = ranked[: lookahead.candidates]
    seat = game.to_move
    nxt = (seat + 1) % game.players
    if len(top) < 2 or game.side_of(nxt) == game.side_of(seat) or not game.racks[nxt]:
        return where[top[0][0]]
    pairs = _empty_pairs(game)
    track = game.scores[game.side_of(nxt)]
    kinds = sorted({KIND_INDEX[t] for t in game.racks[nxt]})
    chosen = where[top[0][0]]
    best = 0.0
    for n, (placement, value) in enumerate(top):
        spot = where[placement]
        after = _pairs_after(game, (spot.cell1, spot.cell2), spot.first, spot.second, pairs)
        values = _values(after, track, game.setup, weights).tile_values()
        reply = max(0.0, *(values[k] for k in kinds))
        adjusted = value - lookahead.reply * reply
        if n == 0 or adjusted > best:
            chosen, best = spot, adjusted
    return chosen


def unseen(base: GenialGame, seat: int) -> list[Tile]:
    """The tiles ``seat`` has not seen (the other racks and the bag) in a fixed order, by
    kind, whatever order they lie in: what :func:`redeal` shuffles."""
    pool = [t for s, r in enumerate(base.racks) if s != seat for t in r] + base.bag.order()
    pool.sort(key=KIND_INDEX.__getitem__)
    return pool


def redeal(
    base: GenialGame, seat: int, rng: random.Random, pool: Sequence[Tile] | None = None
) -> GenialGame:
    """A copy of ``base`` with every tile ``seat`` has not seen (the other racks and the
    bag) dealt anew at random: one determinisation. The tiles are put in a fixed order
    before shuffling, so where they lay in ``base`` does not matter. ``pool``:
    :func:`unseen` of ``base`` and ``seat``, given by a caller that deals one position
    many times, so the tiles are sorted once."""
    g = base.copy()
    pool = unseen(base, seat) if pool is None else list(pool)
    fast: Any = _kernel.kernel
    if fast is not None:
        fast.shuffle(pool, rng.getrandbits)  # rng.shuffle's order, in C
    else:
        rng.shuffle(pool)
    for s, r in enumerate(g.racks):
        if s != seat:
            k = len(r)
            g.racks[s] = pool[:k]
            del pool[:k]
    g.bag = Bag(pool)
    return g


@dataclass(frozen=True, slots=True)
class Ending:
    """Where a play-out stopped, as far as its leaf value reads it (what :func:`play_out`
    returns, from the C loop or from a game played out in Python)."""

    setup: Setup
    #: By side, each colour's points.
    scores: list[list[int]]
    over: bool
    #: The side that reached the cap in every colour, if one did.
    winner: int | None

    @property
    def sides(self) -> int:
        return self.setup.sides

    def ranking(self) -> list[list[int]] | None:
        """As :meth:`GenialGame.ranking`: places, best first; None if not over."""
        return rank(self.scores, self.winner) if self.over else None


def play_out(
    world: GenialGame,
    spot: PlacementSpot,
    steps: int,
    rng: random.Random,
    weights: Weights,
    lookahead: Lookahead | None = None,
) -> Ending:
    """``world`` (left as it is) after ``spot`` and then greedy play (swapping whenever offered) for
    up to ``steps`` placements, or with ``lookahead`` (2 candidates or more) its placements.
    The C loop, first round included, makes the same placements and the same draws of
    ``rng`` as the Python loop, which is used where the C loops are not built."""
    fast = _kernel.kernel
    if fast is not None and world.awaiting != "swap":
        first = (spot.cell1, spot.cell2, spot.first, spot.second)
        return _play_out_fast(fast, world, first, steps, rng, weights, lookahead=lookahead)[1]
    look = lookahead if lookahead is not None and lookahead.candidates > 1 else None
    g = world.copy()
    g.play_spot(spot)
    made = 0
    while not g.over and made < steps:
        if g.awaiting == "swap":
            g.swap_quietly(True)
            continue
        if look is None:
            g.play_spot(greedy_spot(g, weights, rng))
        else:
            g.play_spot(lookahead_spot(g, weights, look))
        made += 1
    return Ending(g.setup, g.scores, g.over, g.winner)


#: The C loop's tables of each playing area (by radius), and of each setup's and weights'
#: padded rows (fetched from :mod:`engine.ai.evaluation` as the loop first needs each).
_LAYOUT_TABLES: dict[int, object] = {}
_ROW_TABLES: dict[tuple[Setup, Weights], object] = {}


def _play_out_fast(
    fast: object,
    g: GenialGame,
    first: tuple[int, int, int, int] | None,
    steps: int,
    rng: random.Random,
    weights: Weights,
    trace: list[tuple[int, int, int, int]] | None = None,
    lookahead: Lookahead | None = None,
) -> tuple[int, Ending]:
    """The C loop from ``g`` (left as it is): the placements it made after ``first`` and
    where it stopped; with a list as ``trace``, every placement (cell, cell, colour,
    colour) is appended to it."""
    c: Any = fast
    look = None if lookahead is None else lookahead.args()
    made, scores, over, winner = c.play_out(
        *_position_args(c, g, weights), first, steps, rng.getrandbits, trace, look
    )
    return made, Ending(g.setup, scores, over, winner)


def _position_args(c: Any, g: GenialGame, weights: Weights) -> tuple[object, ...]:
    """The C loop's arguments that describe the position ``g`` (all but the first
    placement, the steps, the generator and the trace)."""
    setup = g.setup
    tables = _LAYOUT_TABLES.get(setup.radius)
    if tables is None:
        layout = g._layout
        tables = _LAYOUT_TABLES[setup.radius] = c.layout(
            layout.low_cells,
            layout.high_cells,
            layout.cell_edges,
            [ray for six in g.area.rays for ray in six],
            KIND_COLOURS,
        )
    rows = _ROW_TABLES.get((setup, weights))
    if rows is None:
        if len(_ROW_TABLES) >= 64:
            _ROW_TABLES.clear()

        def row_of(old: int, low: int) -> tuple[float, ...]:
            return _padded_row(old, low, setup, weights)

        rows = _ROW_TABLES[(setup, weights)] = c.rows(row_of, setup.cap)
    return (
        tables,
        rows,
        g.board,
        g._points,
        g.empty_edges,
        [[KIND_OF[t] for t in r] for r in g.racks],
        [KIND_OF[t] for t in g.bag.order()],
        g.scores,
        (
            setup.players,
            setup.mode == "team",
            setup.cap,
            setup.marks,
            setup.bonus_placements,
            setup.swaps,
            setup.rack_size,
        ),
        (g.to_move, g.bonus_owed, g.awaiting == "swap", _opening(g)),
    )


def _opening(g: GenialGame) -> tuple[tuple[bool, ...], list[list[int]]] | None:
    """The C loop's view of the first round (RULES.md 2.3): None once every seat has placed,
    else which seats have, and the cells around each start symbol no tile touches yet."""
    if all(g.has_placed):
        return None
    neighbours = g.area.neighbours
    starts = [
        [j for j in neighbours[s] if j >= 0]
        for s in sorted(g.start_cells)
        if s not in g.start_touched
    ]
    return tuple(g.has_placed), starts


class Deal:
    """One deal of the unseen tiles (a world :func:`redeal` made), ready to be played out
    from many first placements: where the C loop can play the whole play-out (no swap is
    due), the position is read into it once (the kernel's ``start``), not once a play-out,
    and each play-out works on a copy of its arrays. :meth:`play_out` gives what
    :func:`play_out` gives."""

    __slots__ = ("_start", "weights", "world")

    def __init__(self, world: GenialGame, weights: Weights) -> None:
        self.world = world
        self.weights = weights
        fast: Any = _kernel.kernel
        self._start: object | None = None
        if fast is not None and world.awaiting != "swap":
            self._start = fast.start(*_position_args(fast, world, weights))

    def play_out(
        self,
        spot: PlacementSpot,
        steps: int,
        rng: random.Random,
        lookahead: Lookahead | None = None,
    ) -> Ending:
        """:func:`play_out` of the world from ``spot``."""
        start = self._start
        fast: Any = _kernel.kernel
        if start is None or fast is None:
            return play_out(self.world, spot, steps, rng, self.weights, lookahead)
        first = (spot.cell1, spot.cell2, spot.first, spot.second)
        look = None if lookahead is None else lookahead.args()
        _, scores, over, winner = fast.play_out_from(
            start, first, steps, rng.getrandbits, None, look
        )
        return Ending(self.world.setup, scores, over, winner)


def _standing(game: GenialGame | Ending, side: int, weights: Weights) -> float:
    """How well ``side`` stands: its track value minus the best other side's (just its own
    in the solo game)."""
    own = track_value(game.scores[side], game.setup, weights)
    others = [
        track_value(game.scores[s], game.setup, weights) for s in range(game.sides) if s != side
    ]
    return own - max(others) if others else own


def _leaf(game: GenialGame | Ending, side: int, config: ExpertConfig) -> float:
    value = _standing(game, side, config.strong.weights)
    if game.over and game.sides > 1:
        ranking = game.ranking()
        assert ranking is not None
        if side in ranking[0]:
            value += config.win if len(ranking[0]) == 1 else 0.0
        else:
            value -= config.win
    return value
