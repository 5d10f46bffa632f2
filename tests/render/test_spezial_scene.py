"""The Genial Spezial board drawn from the boards kept before (render/scene.py) has the
pixels of the board drawn from nothing: turn after turn, going back, at two tables at once,
after a restart, with highlights, placements told together, clocks, and tokens turning."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Iterator, Sequence

import pytest
from PIL import Image

from engine.hexgrid import Hex
from engine.spezial import SpezialGame, SpezialView, Tower
from render import encode, scene, spezial_board
from render.marks import Told
from render.scene import Item, Scenes
from tests.render.fakes import spezial_view

NAMES = ["Anna", "Bärbel", "Çelik", "Dörte"]


@dataclasses.dataclass
class Extras:
    highlight: frozenset[Hex] = frozenset()
    told: Sequence[Told] = ()
    clocks: Sequence[str | None] = ()


class Boards:
    """Draws each board twice: through the renderer's cache of boards, and from nothing
    (through a cache of its own, empty each time); counts the first kind drawn in full.
    ``on_canvas``: the first kind drawn as render.board_png draws it, on the PNG writer's
    canvas, then encoded (the board kept is that canvas itself)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, on_canvas: bool = False) -> None:
        self.monkeypatch = monkeypatch
        self.on_canvas = on_canvas
        self.full = 0
        self._counting = False
        draw_full = scene.draw_full

        def counted(
            background: Image.Image, items: Sequence[Item], out: Image.Image | None = None
        ) -> Image.Image:
            self.full += self._counting
            return draw_full(background, items, out)

        monkeypatch.setattr(scene, "draw_full", counted)

    def cached(self, view: SpezialView, extras: Extras | None = None) -> Image.Image:
        self._counting = True
        try:
            if not self.on_canvas:
                return self._draw(view, extras)
            lay = spezial_board.layout(view.players)
            out = encode.canvas(lay.width, lay.height)
            drawn = self._draw(view, extras, out)
            copy = drawn.copy()  # the canvas is the writer's once encoded
            encode.png_bytes(drawn, spezial_board.PNG_LEVEL, spezial_board.PNG_BAND_ROWS)
            return copy
        finally:
            self._counting = False

    def from_nothing(self, view: SpezialView, extras: Extras | None = None) -> Image.Image:
        kept = spezial_board._scenes
        self.monkeypatch.setattr(spezial_board, "_scenes", Scenes(1))
        try:
            return self._draw(view, extras)
        finally:
            self.monkeypatch.setattr(spezial_board, "_scenes", kept)

    def _draw(
        self, view: SpezialView, extras: Extras | None, out: Image.Image | None = None
    ) -> Image.Image:
        extras = extras or Extras()
        names = NAMES[: view.players]
        return spezial_board.draw_board(
            view, names, extras.highlight, extras.told, extras.clocks, out
        )

    def check(self, view: SpezialView, extras: Extras | None = None) -> None:
        got, expected = self.cached(view, extras), self.from_nothing(view, extras)
        assert got.mode == expected.mode == "P"
        assert got.getpalette() == expected.getpalette()
        assert got.tobytes() == expected.tobytes(), f"turn {len(view.moves)}"


@pytest.fixture(params=[False, True], ids=["new image", "on the writer's canvas"])
def boards(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[Boards]:
    spezial_board.clear_cache()
    yield Boards(monkeypatch, request.param)
    spezial_board.clear_cache()


def game_views(players: int, seed: int) -> list[SpezialView]:
    """A whole random game, a spectator's view of each position (as the bot's tables)."""
    game = SpezialGame(players, seed=seed)
    rng = random.Random(seed)
    views = [game.view(None)]
    while not game.over:
        game.play(game.random_placement(rng))
        views.append(game.view(None))
    return views


def extras_for(view: SpezialView, turn: int, rng: random.Random) -> Extras:
    """What a table adds to some turns' boards: more cells highlighted, a person's move
    and the computer players' replies told together (numbered), each seat's clock."""
    tiles = spezial_board.placed_tiles(view)
    extras = Extras()
    if turn % 5 == 1 and tiles:
        _, a, b = rng.choice(tiles)
        extras.highlight = frozenset({a, b})
    if turn % 5 == 3 and len(tiles) >= 3:
        extras.told = [Told(s, a, b) for s, a, b in tiles[-3:]]
    if turn % 4 == 2:
        extras.clocks = [f"{rng.randint(0, 9)}:{rng.randint(0, 59):02d}"] * view.players
    return extras


def tokens_turned(views: Sequence[SpezialView]) -> int:
    return sum(
        1
        for before, after in itertools.pairwise(views)
        for h in after.towers
        if after.towers[h] != before.towers[h]
    )


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_whole_game_turn_by_turn_has_the_pixels_of_boards_drawn_from_nothing(
    boards: Boards, players: int
) -> None:
    views = game_views(players, seed=20 + players)
    assert tokens_turned(views) > 0  # towers whose token changes are part of it
    rng = random.Random(players)
    for turn, view in enumerate(views):
        boards.check(view, extras_for(view, turn, rng))
    # The boards above were drawn from the one before, not in full each time.
    assert boards.full <= len(views) // 10


def test_a_board_going_back_has_the_pixels_of_one_drawn_from_nothing(boards: Boards) -> None:
    views = game_views(4, seed=3)
    for view in views[:40]:
        boards.check(view)
    # A move taken back, then played again another way; a replay from the start.
    for turn in (38, 39, 35, 41, 12, 60, 0, 79):
        boards.check(views[turn])


def test_two_tables_at_once_each_get_their_own_board(boards: Boards) -> None:
    one, two = game_views(4, seed=5), game_views(4, seed=6)
    rng = random.Random(1)
    for turn, (a, b) in enumerate(zip(one, two, strict=False)):
        boards.check(a, extras_for(a, turn, rng))
        boards.check(b)
    assert boards.full <= 4


def test_a_restart_mid_game_draws_the_next_board_in_full(boards: Boards) -> None:
    views = game_views(3, seed=8)
    for view in views[:25]:
        boards.check(view)
    spezial_board.clear_cache()
    full = boards.full
    for view in views[25:30]:
        boards.check(view)
    assert boards.full == full + 1


def flipped(view: SpezialView, cell: Hex) -> SpezialView:
    t = view.towers[cell]
    towers = dict(view.towers)
    towers[cell] = Tower(cell, t.height, t.colour, t.value + (0 if t.dark else 1), not t.dark)
    return dataclasses.replace(view, towers=towers)


def test_a_tower_whose_token_turns_is_drawn_again(boards: Boards) -> None:
    view = spezial_view(4, 30, seed=7)
    boards.check(view)
    for cell in view.towers:
        turned = flipped(view, cell)
        assert boards.from_nothing(turned).tobytes() != boards.from_nothing(view).tobytes()
        boards.check(turned)
        boards.check(view)
    assert boards.full == 1


def test_marks_and_the_panel_never_reach_the_kept_board(boards: Boards) -> None:
    # Told placements put badges and a legend on the board (the legend on paper no sprite
    # covers); the board after must not keep them.
    view = spezial_view(4, 40, seed=9)
    tiles = spezial_board.placed_tiles(view)
    told = Extras(told=[Told(s, a, b) for s, a, b in tiles[-4:]], clocks=["1:00"] * 4)
    boards.check(view, told)
    boards.check(view)
    drawn = boards.cached(view)
    drawn.paste(0, (0, 0, *drawn.size))  # as render/replay.py badges a frame it is given
    boards.check(view)


def test_a_board_listing_its_tiles_in_another_order_is_the_same_board(boards: Boards) -> None:
    # The same tiles in another order of the view's board: the shared sprites come in
    # another order, so the kept board is not drawn on (drawn in full: on this board the
    # pixels happen to be the same either way; tests/render/test_scene.py has sprites
    # whose order shows).
    view = spezial_view(4, 40, seed=10)
    boards.check(view)
    backwards = dataclasses.replace(view, board=dict(reversed(view.board.items())))
    boards.check(backwards)
    assert boards.full == 2
