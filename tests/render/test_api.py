"""The public functions: determinism, sizes, names, errors, no hidden information."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from engine.tiles import Tile
from render import (
    board_png,
    encode,
    genial_board,
    rack_png,
    result_png,
    seat_names,
    spezial_board,
)
from tests.render.fakes import spezial_view
from tests.render.helpers import decode, genial_game

GENIAL_CASES = [
    ("01-genial-standard-2p", 20),
    ("03-genial-standard-3p", 30),
    ("04-genial-standard-4p", 60),
    ("05-genial-team-4p", 40),
    ("06-genial-solo-1p", 15),
]


@pytest.mark.parametrize(("name", "moves"), GENIAL_CASES)
def test_genial_images_are_deterministic_and_sized(shared: Path, name: str, moves: int) -> None:
    # Two games replayed separately: equal views, so equal bytes.
    a = genial_game(shared, name, moves)
    b = genial_game(shared, name, moves)
    board = board_png(a.view(None))
    assert board == board_png(b.view(None))
    img = decode(board)
    assert 1000 <= img.width <= 1400
    assert 0.9 * img.width < img.height < 1.5 * img.width  # board above, score panel below
    rack = rack_png(a.view(a.to_move))
    assert rack == rack_png(b.view(b.to_move))
    assert decode(rack).width == img.width
    assert result_png(a.view(None)) == result_png(b.view(None))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_spezial_images_are_deterministic_and_sized(players: int) -> None:
    view = spezial_view(players, 8 * players, seed=players, seat=1)
    again = spezial_view(players, 8 * players, seed=players, seat=1)
    board = board_png(view)
    assert board == board_png(again)
    img = decode(board)
    assert 1000 <= img.width <= 1400
    assert img.height > img.width  # the double hexagon stands upright
    assert rack_png(view) == rack_png(again)
    assert result_png(view) == result_png(again)


def test_board_of_a_seat_equals_board_of_a_spectator(shared: Path) -> None:
    game = genial_game(shared, "04-genial-standard-4p", 50)
    spectator = board_png(game.view(None))
    for seat in range(4):
        assert board_png(game.view(seat)) == spectator


def test_board_never_shows_a_rack(shared: Path) -> None:
    view = genial_game(shared, "01-genial-standard-2p", 10).view(0)
    assert view.rack is not None
    other = dataclasses.replace(view, rack=tuple(reversed(view.rack[:3])))
    assert board_png(view) == board_png(other)


def test_rack_image_reads_nothing_of_other_seats(shared: Path) -> None:
    view = genial_game(shared, "04-genial-standard-4p", 30).view(0)
    # What seat 0 cannot know (others' racks, the bag) changed entirely: same picture.
    blind = dataclasses.replace(
        view,
        unseen={Tile.of(view.rack[0].first, view.rack[0].first): 1} if view.rack else {},
        rack_sizes=(6, 0, 1, 2),
        bag_size=0,
    )
    assert rack_png(view) == rack_png(blind)
    # ... while its own rack does show.
    assert view.rack is not None and len(view.rack) > 1
    assert rack_png(view) != rack_png(dataclasses.replace(view, rack=view.rack[1:]))


def test_rack_needs_a_seat() -> None:
    with pytest.raises(ValueError, match="seat"):
        rack_png(spezial_view(2, 4, seat=None))


def test_genial_spectator_has_no_rack(shared: Path) -> None:
    with pytest.raises(ValueError, match="rack"):
        rack_png(genial_game(shared, "01-genial-standard-2p", 4).view(None))


def test_non_ascii_names_render(shared: Path) -> None:
    names = ["Zoë Ångström", "Łukasz Żółć", "Ærø Øster-Straße", "Ñoño Çelik François"]
    game = genial_game(shared, "05-genial-team-4p", 20)
    plain = board_png(game.view(None))
    named = board_png(game.view(None), names=names)
    assert named != plain  # the names are drawn
    decode(named)
    decode(rack_png(game.view(2), names=names))
    decode(result_png(game.view(None), names=names))
    decode(board_png(spezial_view(4, 12), names=names))


def test_long_names_are_cut_short_not_overflowing(shared: Path) -> None:
    game = genial_game(shared, "01-genial-standard-2p", 6)
    long = ["W" * 80, "Ä" * 80]
    assert (
        decode(board_png(game.view(None), names=long)).width
        == decode(board_png(game.view(None))).width
    )


def test_names_must_match_the_seats(shared: Path) -> None:
    view = genial_game(shared, "03-genial-standard-3p", 3).view(None)
    assert seat_names(view, None) == ["Seat 1", "Seat 2", "Seat 3"]
    with pytest.raises(ValueError, match="expected 3 names"):
        board_png(view, names=["a", "b"])


def test_other_objects_are_refused() -> None:
    with pytest.raises(TypeError, match="GenialView or a SpezialView"):
        board_png("not a view")  # type: ignore[arg-type]


def test_board_bytes_do_not_depend_on_the_boards_drawn_before(shared: Path) -> None:
    # The renderer keeps Genial and Spezial boards and deflated bands of rows to
    # draw the next turn's board from: the bytes must be those of a board drawn from nothing.
    genial = [genial_game(shared, "04-genial-standard-4p", n).view(None) for n in range(44, 52)]
    spezial = [spezial_view(4, n, seed=5) for n in range(30, 36)]
    for views in (genial, spezial):
        in_order = [board_png(v) for v in views]  # as at a table, one turn after another
        encode.clear_cache()
        genial_board.clear_cache()
        spezial_board.clear_cache()
        backwards = [board_png(v) for v in reversed(views)]
        assert backwards[::-1] == in_order
        for view, expected in zip(views, in_order, strict=True):
            encode.clear_cache()
            genial_board.clear_cache()
            spezial_board.clear_cache()
            assert board_png(view) == expected


@pytest.mark.parametrize("game", ["genial", "spezial"])
def test_boards_drawn_at_once_in_threads_are_those_drawn_from_nothing(
    shared: Path, game: str
) -> None:
    # Threads draw boards of one game at once: each takes the kept board it starts from
    # out of the cache while it draws on it, so none sees another half drawn; and the PNG
    # writer's buffer under a board kept to draw the next from is never lent to another
    # board while its own is still drawn or encoded.
    from concurrent.futures import ThreadPoolExecutor

    if game == "genial":
        views = [genial_game(shared, "04-genial-standard-4p", n).view(None) for n in range(40, 52)]
    else:
        views = [spezial_view(4, n, seed=5) for n in range(24, 36)]
    expected = []
    for view in views:
        encode.clear_cache()
        genial_board.clear_cache()
        spezial_board.clear_cache()
        expected.append(board_png(view))
    order = [k % len(views) for k in range(96)]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda k: board_png(views[k]), order))
    assert got == [expected[k] for k in order]
