from collections.abc import Sequence

def tile_values(
    points: Sequence[Sequence[int]],
    low: Sequence[int],
    high: Sequence[int],
    padded: Sequence[Sequence[float]],
    kinds: Sequence[tuple[int, int]],
) -> list[float] | None: ...
def best_spot(
    points: Sequence[Sequence[int]],
    low: Sequence[int],
    high: Sequence[int],
    padded: Sequence[Sequence[float]],
    x: int,
    y: int,
    neighbours: Sequence[Sequence[int]],
) -> tuple[int, int] | None: ...
def greedy_tied(
    points: Sequence[Sequence[int]],
    low: Sequence[int],
    high: Sequence[int],
    padded: Sequence[Sequence[float]],
    groups: Sequence[tuple[int, int, int]],
) -> tuple[float, list[tuple[int, int, float]]]: ...
def best_distribution(
    values: Sequence[float], counts: Sequence[int], draws: int
) -> list[tuple[int, float]] | None: ...
def expected_best(
    values: Sequence[float], counts: Sequence[int], draws: int, known: float, no_room: float
) -> float | None: ...
