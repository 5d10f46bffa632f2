"""Computer players for Genial Spezial: ``random``, ``greedy``, ``strong`` and ``expert``.

Genial Spezial hides nothing (no racks, face-up tokens), so a view holds the whole position
and :meth:`SpezialGame.from_view` rebuilds it exactly; the players still take only the view.

- ``greedy`` plays the placement worth most now: points valued as in Genial (a point counts
  more the lower its colour stands, as the lowest colour decides); a random one among
  equals. (Rewarding placements that make a chain touch its first tower made it much
  weaker: a tile that joins a chain which has scored its towers already scores less than
  one that starts a new chain, as every chain scores the towers it connects anew.)
- ``strong`` takes greedy's best candidates and looks three placements deep: its own, the
  next player's best replies (as greedy would rank them), then its own best answer, and
  keeps the candidate whose worst reply leaves it best off. Scoring a tower flips its token
  to the dark, higher side for everyone else, which this lookahead sees and greedy does not.
- ``expert`` chooses what to search better than ``strong`` does. Most placements score
  a little now (some 85 in a typical 2-player position, mostly a golden space's point),
  and ``strong`` searches an arbitrary 12 of the best of them; a tile that scores a point
  now and readies a chain to take two towers (or a tall bonus) next turn is rarely among
  them. The expert weighs a wider pool (every placement that scores, best first, then the
  quiet ones that start or grow its chain next to a tower) by its points now plus the best
  own placement that could follow it, and puts the 16 best of those through ``strong``'s
  search against 4 replies. In the last placements of the game it plays its best few out
  to the end (greedy play for every seat) and keeps the one that ends best: a win counts,
  not a heuristic. Nothing is hidden, so one play-out per candidate says how it ends (with
  greedy play).

Golden spaces: a move names the colour for each golden space it covers, the lowest colour
after the placement's other points (what RULES.md 3.3 would give by default).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from engine.events import GoldenPoint
from engine.moves import SpezialPlacement
from engine.spezial import SpezialGame, SpezialView

WIN = 1000.0
#: Points per placement beyond this are valued as this many (they never come up).
MAX_POINTS = 40


@dataclass(frozen=True, slots=True)
class SpezialWeights:
    """Tunable numbers of the Genial Spezial heuristic."""

    #: ``tau`` of the concave point value ``g(x) = -tau * exp(-x / tau)``.
    tau: float = 4.0


DEFAULT_SPEZIAL_WEIGHTS = SpezialWeights()


@dataclass(frozen=True, slots=True)
class SpezialConfig:
    """The budget and weights of the strong Genial Spezial player."""

    #: How many of greedy's best placements are searched.
    candidates: int = 12
    #: How many of the next player's best replies are tried against each candidate.
    replies: int = 3
    #: Weight of the reply's value (for the next player).
    threat: float = 1.0
    #: Weight of the own best placement after the reply.
    potential: float = 0.5
    #: Stop searching new candidates after this many seconds (None: reproducible).
    deadline: float | None = None
    weights: SpezialWeights = DEFAULT_SPEZIAL_WEIGHTS


DEFAULT_SPEZIAL = SpezialConfig()


def check_turn(view: SpezialView) -> None:
    """Raises ValueError unless the view's seat must place now."""
    if view.over:
        raise ValueError("the game is over: there is no move to choose")
    if view.seat is None:
        raise ValueError("a computer player needs the view of a seat, not a spectator's")
    if view.to_move != view.seat:
        raise ValueError(f"seat {view.seat} is not to move (seat {view.to_move} is)")


def track_value(track: Sequence[int], weights: SpezialWeights) -> float:
    tau = weights.tau
    return sum(-tau * math.exp(-s / tau) for s in track)


def gain_tables(track: Sequence[int], weights: SpezialWeights) -> list[list[float]]:
    """``tables[c][p]``: the value of ``p`` more points in score colour ``c`` (B, G, O, P)."""
    tau = weights.tau
    out = []
    for s in track:
        base = -tau * math.exp(-s / tau)
        out.append([-tau * math.exp(-(s + p) / tau) - base for p in range(MAX_POINTS + 1)])
    return out


def placement_key(p: SpezialPlacement) -> tuple[int, int, int, int]:
    return (p.cell1.r, p.cell1.q, p.cell2.r, p.cell2.q)


def rank_placements(
    game: SpezialGame, weights: SpezialWeights = DEFAULT_SPEZIAL_WEIGHTS
) -> list[tuple[SpezialPlacement, float]]:
    """Every legal placement of the player to move with greedy's value, best first (equal
    values in reading order)."""
    tables = gain_tables(game.scores[game.to_move], weights)
    scored = []
    # Few placements score differently from each other (most score nothing): each points
    # tuple is valued once.
    value_of: dict[tuple[int, ...], float] = {}
    for p, pts in game.placements_with_points():
        v = value_of.get(pts)
        if v is None:
            v = 0.0
            for c, n in enumerate(pts):
                if n:
                    v += tables[c][min(n, MAX_POINTS)]
            value_of[pts] = v
        scored.append((p, v))
    # The placements come in reading order (placement_key's: the game keeps its legal
    # placements in the order of their cells), so a stable sort by value alone keeps equal
    # values in reading order.
    scored.sort(key=lambda pv: -pv[1])
    return scored


def with_golden(game: SpezialGame, placement: SpezialPlacement) -> SpezialPlacement:
    """The placement naming the colour for each golden space it covers: the colour the
    default gives (the lowest after the placement's other points)."""
    events = game.copy().play(placement)
    golden = tuple(e.colour for e in events if isinstance(e, GoldenPoint))
    return SpezialPlacement(placement.cell1, placement.cell2, golden)


def pick(ranked: Sequence[tuple[SpezialPlacement, float]], rng: random.Random) -> SpezialPlacement:
    best = ranked[0][1]
    tied = [p for p, v in ranked if v >= best - 1e-9]
    return tied[0] if len(tied) == 1 else rng.choice(tied)


def random_move(view: SpezialView, rng: random.Random) -> SpezialPlacement:
    """A uniformly random legal placement (golden points to the default colour)."""
    check_turn(view)
    game = SpezialGame.from_view(view)
    return with_golden(game, rng.choice(game.legal_moves()))


def greedy_move(
    view: SpezialView, rng: random.Random, weights: SpezialWeights = DEFAULT_SPEZIAL_WEIGHTS
) -> SpezialPlacement:
    """The placement worth most now (see the module docstring)."""
    check_turn(view)
    game = SpezialGame.from_view(view)
    return with_golden(game, pick(rank_placements(game, weights), rng))


def best_moves(view: SpezialView, n: int = 3) -> list[tuple[SpezialPlacement, float]]:
    """The top ``n`` placements by greedy's value, best first."""
    check_turn(view)
    game = SpezialGame.from_view(view)
    return [(with_golden(game, p), v) for p, v in rank_placements(game)[:n]]


def strong_move(
    view: SpezialView, rng: random.Random, config: SpezialConfig = DEFAULT_SPEZIAL
) -> SpezialPlacement:
    """The strong player's placement (see the module docstring)."""
    check_turn(view)
    game = SpezialGame.from_view(view)
    ranked = rank_placements(game, config.weights)
    # Many placements are worth nothing now; take a random few of those, not the first few
    # in reading order.
    rng.shuffle(ranked)
    ranked.sort(key=lambda pv: -pv[1])
    start = time.perf_counter()
    best: list[SpezialPlacement] = []
    best_value = -float("inf")
    for n, (p, _) in enumerate(ranked[: config.candidates]):
        if n and config.deadline is not None and time.perf_counter() - start > config.deadline:
            break
        v = evaluate(game, p, config)
        if v > best_value + 1e-9:
            best, best_value = [p], v
        elif v >= best_value - 1e-9:
            best.append(p)
    chosen = best[0] if len(best) == 1 else rng.choice(best)
    return with_golden(game, chosen)


def outcome(game: SpezialGame, seat: int) -> float:
    """The value of a finished game for ``seat``: a win, a shared first place or a loss."""
    ranking = game.ranking()
    assert ranking is not None
    if seat in ranking[0]:
        return WIN if len(ranking[0]) == 1 else 0.0
    return -WIN


def evaluate(game: SpezialGame, placement: SpezialPlacement, config: SpezialConfig) -> float:
    """The value for the player to move of ``placement``, against the next player's best
    replies (the worst of them counts)."""
    weights = config.weights
    seat = game.to_move
    before = track_value(game.scores[seat], weights)
    g = game.copy()
    g.play(placement)
    gain = track_value(g.scores[seat], weights) - before
    if g.over:
        return gain + outcome(g, seat)
    worst = float("inf")
    for reply, reply_value in rank_placements(g, weights)[: config.replies]:
        h = g.copy()
        h.play(reply)
        if h.over:
            value = gain + outcome(h, seat)
        else:
            value = gain - config.threat * reply_value
            if config.potential:
                h.to_move = seat  # only to list this seat's placements on that board
                value += config.potential * rank_placements(h, weights)[0][1]
        worst = min(worst, value)
    return worst


@dataclass(frozen=True, slots=True)
class SpezialExpertConfig:
    """The budget of the expert Genial Spezial player."""

    #: How many placements are weighed with the own placement that could follow them.
    pool: int = 64
    #: How many of those go on to the strong player's search against the replies.
    candidates: int = 16
    #: Weight of the own best placement that could follow (in the pre-selection).
    follow: float = 1.0
    #: How many of the searched candidates are played out in the end game.
    playouts: int = 5
    #: Play out once at most this many placements are left in the game (all seats).
    endgame: int = 8
    #: What a finished game won is worth over one lost, in units of the track value.
    win: float = 4.0
    #: Stop searching new candidates after this many seconds (None: reproducible).
    deadline: float | None = None
    #: The reply search: strong's, with one reply more against each candidate.
    strong: SpezialConfig = SpezialConfig(replies=4)


DEFAULT_SPEZIAL_EXPERT = SpezialExpertConfig()
#: The master level (issue 31): the expert's search over a wider pool and more candidates,
#: against more replies, with more of them played out from earlier in the end game. Pool
#: 128, 32 candidates and strong's 24 against 8 replies (was 96, 24, 16 and 5): master won
#: 139 of 200 tuning games against expert so, 2 drawn (seeds 7911, 7912; AI_RESULTS.md),
#: where the narrower search had won 58.8 % of 200 (seed 9703).
DEFAULT_SPEZIAL_MASTER = SpezialExpertConfig(
    pool=128, candidates=32, playouts=8, endgame=14, strong=SpezialConfig(candidates=24, replies=8)
)


def setup_cells(game: SpezialGame, seat: int) -> set[int]:
    """Cells where a tile may start or grow a chain of ``seat`` towards a tower: the
    empty cells next to a tower or next to one of ``seat``'s tiles."""
    area, board = game.area, game.board
    nbrs = area.neighbours
    out: set[int] = set()
    index = area.index
    for h in game.towers():
        out.update(n for n in nbrs[index[h]] if n >= 0)
    for c in game.cell_order:
        if board[c] == seat:
            out.update(n for n in nbrs[c] if n >= 0)
    return out


def candidate_pool(
    game: SpezialGame, ranked: Sequence[tuple[SpezialPlacement, float]], size: int
) -> list[tuple[SpezialPlacement, float]]:
    """The placements worth a closer look, at most ``size``: those that score now, best
    first, then those that start or grow a chain next to a tower, then the rest (each
    group in ``ranked``'s order; the rest only fill up a pool that would be too small)."""
    near = setup_cells(game, game.to_move)
    index = game.area.index
    scoring, quiet, rest = [], [], []
    for pv in ranked:
        if pv[1] > 1e-9:
            scoring.append(pv)
        elif index[pv[0].cell1] in near or index[pv[0].cell2] in near:
            quiet.append(pv)
        else:
            rest.append(pv)
    return (scoring + quiet + rest)[:size]


def expert_move(
    view: SpezialView, rng: random.Random, config: SpezialExpertConfig = DEFAULT_SPEZIAL_EXPERT
) -> SpezialPlacement:
    """The expert player's placement (see the module docstring): a wider pool weighed by
    points now plus the best own placement that could follow, the best of it through the
    strong player's reply search, and near the end of the game the best few played out."""
    check_turn(view)
    game = SpezialGame.from_view(view)
    strong = config.strong
    weights = strong.weights
    seat = game.to_move
    ranked = rank_placements(game, weights)
    rng.shuffle(ranked)
    ranked.sort(key=lambda pv: -pv[1])
    start = time.perf_counter()

    def late(n: int) -> bool:
        return (
            bool(n)
            and config.deadline is not None
            and (time.perf_counter() - start > config.deadline)
        )

    pre = []
    for n, (p, v) in enumerate(candidate_pool(game, ranked, config.pool)):
        if late(n):
            break
        g = game.copy()
        g.play(p)
        follow = 0.0
        if not g.over:
            g.to_move = seat  # only to list this seat's placements on that board
            follow = rank_placements(g, weights)[0][1]
        pre.append((v + config.follow * follow, n, p))
    pre.sort(key=lambda vnp: (-vnp[0], vnp[1]))
    scored = []
    for n, (_, _, p) in enumerate(pre[: config.candidates]):
        if late(n):
            break
        scored.append((evaluate(game, p, strong), n, p))
    scored.sort(key=lambda vnp: (-vnp[0], vnp[1]))
    left = sum(game.tiles_left(s) for s in range(game.players))
    shortlist = scored[: config.playouts]
    if left > config.endgame or len(shortlist) == 1:
        return with_golden(game, shortlist[0][2])
    best = shortlist[0][2]
    best_value = -float("inf")
    for n, (_, _, p) in enumerate(shortlist):
        if late(n):
            break
        g = game.copy()
        g.play(p)
        while not g.over:
            g.play(rank_placements(g, weights)[0][0])
        v = end_value(g, seat, config)
        if v > best_value + 1e-9:
            best, best_value = p, v
    return with_golden(game, best)


def end_value(game: SpezialGame, seat: int, config: SpezialExpertConfig) -> float:
    """How well ``seat`` ends a finished game: a win or loss, plus its track value over the
    best other seat's (the margin breaks ties between wins)."""
    weights = config.strong.weights
    own = track_value(game.scores[seat], weights)
    others = max(track_value(game.scores[s], weights) for s in range(game.players) if s != seat)
    value = own - others
    if game.players > 1:
        value += config.win * (outcome(game, seat) / WIN)
    return value
