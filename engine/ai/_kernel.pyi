from collections.abc import Callable, Sequence
from typing import Any

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
def layout(
    low: Sequence[int],
    high: Sequence[int],
    cell_edges: Sequence[Sequence[int]],
    rays: Sequence[Sequence[int]],
    kinds: Sequence[tuple[int, int]],
) -> object: ...
def rows(row_of: Callable[[int, int], Sequence[float]], cap: int) -> object: ...
def play_out(
    layout: object,
    rows: object,
    board: Sequence[int],
    points: Sequence[Sequence[int]],
    empty_edges: Sequence[int],
    racks: Sequence[Sequence[int]],
    bag: Sequence[int],
    scores: Sequence[Sequence[int]],
    rules: tuple[int, bool, int, Sequence[int], bool, bool, int],
    turn: tuple[int, int, bool],
    first: tuple[int, int, int, int] | None,
    steps: int,
    getrandbits: Callable[[int], int],
    trace: list[tuple[int, int, int, int]] | None,
) -> tuple[int, list[list[int]], bool, int | None]: ...
def start(
    layout: object,
    rows: object,
    board: Sequence[int],
    points: Sequence[Sequence[int]],
    empty_edges: Sequence[int],
    racks: Sequence[Sequence[int]],
    bag: Sequence[int],
    scores: Sequence[Sequence[int]],
    rules: tuple[int, bool, int, Sequence[int], bool, bool, int],
    turn: tuple[int, int, bool, object],
) -> object: ...
def play_out_from(
    start: object,
    first: tuple[int, int, int, int] | None,
    steps: int,
    getrandbits: Callable[[int], int],
    trace: list[tuple[int, int, int, int]] | None,
    lookahead: tuple[int, float] | None = None,
) -> tuple[int, list[list[int]], bool, int | None]: ...
def shuffle(items: list[Any], getrandbits: Callable[[int], int]) -> None: ...
