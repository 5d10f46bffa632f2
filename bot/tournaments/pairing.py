"""Tournament pairings and standings as plain values (standard library only): who sits
with whom each round, and the table of points and tie-breaks.

Points, for a game of two to four players: a player scores the share of the others at
their table they finished ahead of, a tie counting half. Two players: a win 1, a tie 1/2,
a loss 0, as in chess; at a table of four the winner scores 1, the second 2/3, the third
1/3, the last 0, so tables of three and four in one round weigh the same. Each table of k
is read as k(k-1)/2 games between two players, and a player scores the share they won.

A bye (nobody left to play with) scores 1 point, a win, as on lichess; it adds nothing to
the tie-breaks. Tie-breaks, in order (Swiss chess): **Buchholz**, the sum over a
player's games of their opponents' points (at a table of more than two, the average of
the others' points), then **Sonneborn-Berger**, the sum over every opponent of what the
player scored against them (1, 1/2, 0) times that opponent's points, divided by the others
at that table (k-1), which for two players is chess's own: a beaten opponent's points
and half a drawn one's.

Swiss pairing is the Monrad system: players in order of points, then rating, the first
sits with the next one they have not met, and so on down the list, backtracking where the
rest cannot be paired; a repeat pairing only where no pairing without one exists. The bye
goes to the lowest-ranked player who has had none. Tables of three or four are cut from
the same order (score groups), each filled with the next players who met none at it,
then players of neighbouring tables swapped where that lowers the repeat meetings.
Round robin (two players) is the circle method.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

#: Points of a bye (lichess: a win).
BYE_POINTS = Fraction(1)
#: Rounds of swaps between neighbouring tables of three or four at most.
MAX_PASSES = 20
#: Steps of the pairing search before it settles for pairing each with the nearest they
#: met least (a guard for fields where repeats cannot be avoided; see
#: ``benchmarks/bench_pairing.py``).
MAX_STEPS = 20_000


@dataclass(frozen=True, slots=True)
class Result:
    """One finished table: its players in seat order and each one's place (1 first;
    players that tie share a place: 1, 1, 3)."""

    players: tuple[str, ...]
    places: tuple[int, ...]

    def points(self, player: str) -> Fraction:
        """What ``player`` scored at this table (see the module's text)."""
        return sum((self.against(player, p) for p in self.players if p != player), Fraction(0)) / (
            len(self.players) - 1
        )

    def against(self, player: str, other: str) -> Fraction:
        """``player``'s score against ``other`` at this table: 1 ahead, 1/2 tied, 0 behind."""
        mine = self.places[self.players.index(player)]
        theirs = self.places[self.players.index(other)]
        if mine < theirs:
            return Fraction(1)
        return Fraction(1, 2) if mine == theirs else Fraction(0)


@dataclass(frozen=True, slots=True)
class Line:
    """One row of the standings."""

    rank: int
    player: str
    points: Fraction
    buchholz: Fraction
    sonneborn: Fraction
    played: int
    byes: int


def places_from_scores(scores: Sequence[int]) -> tuple[int, ...]:
    """Places (1 first, ties shared) from final scores, higher better."""
    return tuple(1 + sum(1 for other in scores if other > s) for s in scores)


def points(player: str, results: Iterable[Result], byes: Iterable[str]) -> Fraction:
    """``player``'s points: their tables' shares and their byes."""
    total = sum((r.points(player) for r in results if player in r.players), Fraction(0))
    return total + BYE_POINTS * sum(1 for b in byes if b == player)


def standings(
    players: Sequence[str],
    results: Sequence[Result],
    byes: Sequence[str],
    rating: dict[str, int] | None = None,
) -> list[Line]:
    """The standings of ``players``: by points, Buchholz, Sonneborn-Berger, then rating
    (higher first) and the order of ``players`` (who joined first); players equal in the
    first three share a rank."""
    rating = rating or {}
    total = {p: points(p, results, byes) for p in players}
    lines = []
    for p in players:
        bh = sb = Fraction(0)
        played = 0
        for r in results:
            if p not in r.players:
                continue
            played += 1
            others = [o for o in r.players if o != p]
            bh += sum((total.get(o, Fraction(0)) for o in others), Fraction(0)) / len(others)
            sb += sum(
                (r.against(p, o) * total.get(o, Fraction(0)) for o in others), Fraction(0)
            ) / (len(others))
        lines.append(Line(0, p, total[p], bh, sb, played, sum(1 for b in byes if b == p)))
    joined = {p: i for i, p in enumerate(players)}
    lines.sort(
        key=lambda x: (
            -x.points,
            -x.buchholz,
            -x.sonneborn,
            -rating.get(x.player, 0),
            joined[x.player],
        )
    )
    ranked: list[Line] = []
    for i, line in enumerate(lines):
        same = ranked and (ranked[-1].points, ranked[-1].buchholz, ranked[-1].sonneborn) == (
            line.points,
            line.buchholz,
            line.sonneborn,
        )
        rank = ranked[-1].rank if same else i + 1
        ranked.append(replace(line, rank=rank))
    return ranked


def met(results: Iterable[Result]) -> dict[frozenset[str], int]:
    """How often each two players sat at one table."""
    count: dict[frozenset[str], int] = {}
    for r in results:
        for i, a in enumerate(r.players):
            for b in r.players[i + 1 :]:
                key = frozenset((a, b))
                count[key] = count.get(key, 0) + 1
    return count


def order(
    players: Sequence[str], results: Sequence[Result], byes: Sequence[str], rating: dict[str, int]
) -> list[str]:
    """The players best first for pairing: by points, then rating, then who joined first."""
    joined = {p: i for i, p in enumerate(players)}
    total = {p: points(p, results, byes) for p in players}
    return sorted(players, key=lambda p: (-total[p], -rating.get(p, 0), joined[p]))


def swiss_pairs(
    ranked: Sequence[str],
    results: Sequence[Result],
    byes: Sequence[str],
    avoid: Iterable[frozenset[str]] = (),
) -> tuple[list[tuple[str, str]], str | None]:
    """The next Swiss round of two-player games for ``ranked`` (best first, see
    :func:`order`): the pairs, the player to sit first in each named first (whoever sat
    first less often so far, else the higher-ranked), and who has the bye (``None`` for an
    even number). Pairs in ``avoid`` (team mates in a team battle) count as met."""
    seen = _seen(results, avoid)
    had_bye = set(byes)
    candidates: list[str | None] = [None]
    if len(ranked) % 2:
        # Lowest-ranked first; those who had a bye only if everyone had one.
        fresh = [p for p in reversed(ranked) if p not in had_bye]
        candidates = list(fresh or reversed(ranked))
    found: tuple[list[tuple[str, str]], str | None] | None = None
    # The fewest repeat pairings first; among equals, the bye as low as it can go. One
    # budget of steps for the whole search, so a field where repeats cannot be avoided
    # is paired in bounded time.
    steps = [0]
    for budget in range(0, len(ranked) // 2 + 1):
        for bye in candidates:
            pairs = _pair([p for p in ranked if p != bye], seen, budget, steps)
            if pairs is not None:
                found = (pairs, bye)
                break
            if steps[0] > MAX_STEPS:
                break
        if found is not None or steps[0] > MAX_STEPS:
            break
    if found is None:  # the search ran out: each in order with the nearest not met
        bye = candidates[0]
        found = (_greedy([p for p in ranked if p != bye], seen), bye)
    firsts = first_seats(results)
    seated = [(a, b) if firsts.get(a, 0) <= firsts.get(b, 0) else (b, a) for a, b in found[0]]
    return seated, found[1]


def _pair(
    rest: list[str], seen: dict[frozenset[str], int], budget: int, steps: list[int]
) -> list[tuple[str, str]] | None:
    """Pairs for ``rest`` in order, with at most ``budget`` repeat pairings (depth first,
    the nearest in the order first); ``None`` if there are none (or the search ran out)."""
    if not rest:
        return []
    steps[0] += 1
    if steps[0] > MAX_STEPS:
        return None
    top, others = rest[0], rest[1:]
    for i, other in enumerate(others):
        cost = 1 if seen.get(frozenset((top, other))) else 0
        if cost > budget:
            continue
        found = _pair(others[:i] + others[i + 1 :], seen, budget - cost, steps)
        if found is not None:
            return [(top, other), *found]
    return None


def _greedy(rest: list[str], seen: dict[frozenset[str], int]) -> list[tuple[str, str]]:
    """Pairs without a search: the first in order with the nearest they met least."""
    rest = list(rest)
    pairs = []
    while rest:
        top = rest.pop(0)
        costs = [seen.get(frozenset((top, other)), 0) for other in rest]
        other = rest.pop(costs.index(min(costs)))
        pairs.append((top, other))
    return pairs


def _seen(results: Iterable[Result], avoid: Iterable[frozenset[str]]) -> dict[frozenset[str], int]:
    seen = met(results)
    for pair in avoid:
        seen[pair] = seen.get(pair, 0) + 1
    return seen


def first_seats(results: Iterable[Result]) -> dict[str, int]:
    """How often each player sat first (moved first) at their table."""
    count: dict[str, int] = {}
    for r in results:
        count[r.players[0]] = count.get(r.players[0], 0) + 1
    return count


def table_sizes(n: int, size: int) -> tuple[list[int], int]:
    """Tables of ``size`` (3 or 4) players for ``n`` players: as many of ``size`` as fit
    with the rest at tables of 3 or 4, and the fewest byes where no such split exists
    (five players: a table of four and a bye). Returns the sizes and the number of byes."""
    for byes in range(n + 1):
        m = n - byes
        best: list[int] | None = None
        for own in range(m // size, -1, -1):
            left = m - own * size
            other = 4 if size == 3 else 3
            if left % other == 0:
                best = [size] * own + [other] * (left // other)
                break
        if best is not None and (best or m == 0):
            return sorted(best, reverse=True), byes
    return [], n


def swiss_tables(
    ranked: Sequence[str],
    results: Sequence[Result],
    byes: Sequence[str],
    size: int,
    avoid: Iterable[frozenset[str]] = (),
) -> tuple[list[tuple[str, ...]], list[str]]:
    """The next Swiss round at tables of ``size`` (3 or 4): byes to the lowest-ranked
    who had none, then tables cut from the order (score groups), each filled with the next
    players who met nobody at it yet (where that is impossible, the one who met fewest).
    Pairs in ``avoid`` count as met."""
    sizes, bye_count = table_sizes(len(ranked), size)
    had = set(byes)
    by_rank = list(reversed(ranked))
    fresh = [p for p in by_rank if p not in had]
    bye_list = (fresh + [p for p in by_rank if p in had])[:bye_count]
    rest = [p for p in ranked if p not in bye_list]
    seen = _seen(results, avoid)
    tables: list[tuple[str, ...]] = []
    firsts = first_seats(results)
    filled: list[list[str]] = []
    for k in sizes:
        table = [rest.pop(0)]
        while len(table) < k:
            costs = [sum(seen.get(frozenset((c, t)), 0) for t in table) for c in rest]
            pick = costs.index(min(costs))  # the first in order of those who met fewest
            table.append(rest.pop(pick))
        filled.append(table)
    _untangle(filled, seen)
    for table in filled:
        # Who sat first least often moves first; the order of rank otherwise.
        table.sort(key=lambda p: firsts.get(p, 0))
        tables.append(tuple(table))
    return tables, bye_list


def _untangle(tables: list[list[str]], seen: dict[frozenset[str], int]) -> None:
    """Fewer repeat meetings by swapping two players of neighbouring tables (so score
    groups stay together), as long as a swap lowers the count: the fill above is greedy
    and leaves its repeats at the last tables."""

    def cost(table: list[str]) -> int:
        return sum(
            seen.get(frozenset((a, b)), 0) for i, a in enumerate(table) for b in table[i + 1 :]
        )

    for _ in range(MAX_PASSES):
        better = False
        for n in range(len(tables) - 1):
            upper, lower = tables[n], tables[n + 1]
            now = cost(upper) + cost(lower)
            if now == 0:
                continue
            # The nearest in rank first: the upper table's last with the lower's first.
            pairs = [(i, j) for i in reversed(range(len(upper))) for j in range(len(lower))]
            for i, j in pairs:
                upper[i], lower[j] = lower[j], upper[i]
                if cost(upper) + cost(lower) < now:
                    now = cost(upper) + cost(lower)
                    better = True
                else:
                    upper[i], lower[j] = lower[j], upper[i]
        if not better:
            return


def round_robin(players: Sequence[str]) -> list[tuple[list[tuple[str, str]], str | None]]:
    """Every round of a round robin of two-player games (the circle method): each round's
    pairs and its bye (odd numbers). The first player stays, the others turn one place a
    round; who sits first alternates."""
    field: list[str | None] = list(players)
    if len(field) % 2:
        field.append(None)
    n = len(field)
    rounds = []
    for r in range(n - 1):
        pairs: list[tuple[str, str]] = []
        bye = None
        for i in range(n // 2):
            a, b = field[i], field[n - 1 - i]
            if a is None or b is None:
                bye = b if a is None else a
                continue
            pairs.append((a, b) if (r + i) % 2 == 0 else (b, a))
        rounds.append((pairs, bye))
        field = [field[0], field[-1], *field[1:-1]]
    return rounds
