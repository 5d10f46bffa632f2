"""What a player reads off the Genial Spezial board: tiles in their seat's colour, chains
linked, different players apart, towers with their tokens, golden spaces, labels."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from engine.hexgrid import DIRECTIONS, Hex
from engine.record import read_record, replay
from engine.spezial import TALL, SpezialGame, Tower, board_layout
from render import board_png, rack_png, result_png
from render.spezial_board import layout, placed_tiles
from render.sprites import Face, cell_sprite, joint_sprite
from render.theme import EMPTY, GOLDEN_CELL, HIGHLIGHT, PAPER, SEAT, SYMBOL
from tests.render.fakes import spezial_view
from tests.render.helpers import decode


@pytest.mark.parametrize("players", [2, 3, 4])
def test_tiles_show_their_seat_and_towers_their_token(players: int) -> None:
    view = spezial_view(players, 12 * players, seed=players)
    img, lat = decode(board_png(view)), layout(players).lattice
    golden = board_layout().golden
    for h in view.area.cells:
        cx, cy = lat.centre(h)
        if h in view.board:
            assert img.getpixel((cx, cy)) == SEAT[view.board[h]]
        elif h in view.towers:
            t = view.towers[h]
            # Above the value disc, inside the token's symbol.
            probe = (cx, round(cy - 0.45 * lat.w / 2))
            assert img.getpixel(probe) == SYMBOL[t.colour]
        else:
            top = lat.corners(cx, cy, 0.8)[0]
            face = GOLDEN_CELL if h in golden else EMPTY
            assert img.getpixel((round(top[0]), round(top[1]))) == face


def test_towers_in_play_follow_the_view() -> None:
    view = spezial_view(2, 0)
    cell = next(iter(view.towers))
    t = view.towers[cell]
    flipped = dict(view.towers)
    flipped[cell] = Tower(cell, t.height, t.colour, t.value + (0 if t.dark else 1), not t.dark)
    assert board_png(view) != board_png(dataclasses.replace(view, towers=flipped))
    # Tall and short towers are told apart without the token.
    img, lat = decode(board_png(view)), layout(2).lattice
    stones = {
        tw.height: img.getpixel(tuple(round(v) for v in lat.corners(*lat.centre(c), 0.85)[0]))
        for c, tw in view.towers.items()
    }
    assert len(stones) == 2 and stones[TALL] != stones["short"]


def test_chains_are_linked_and_players_apart() -> None:
    view = spezial_view(3, 45, seed=11)
    img, lat = decode(board_png(view)), layout(3).lattice
    linked = apart = 0
    for h, seat in view.board.items():
        for dq, dr in DIRECTIONS:
            n = Hex(h.q + dq, h.r + dr)
            if n not in view.board:
                continue
            (ax, ay), (bx, by) = lat.centre(h), lat.centre(n)
            mid = img.getpixel(((ax + bx) // 2, (ay + by) // 2))
            if view.board[n] == seat:
                assert mid == SEAT[seat]  # one tile, or one chain: joined
                linked += 1
            else:
                assert mid == PAPER
                apart += 1
    assert linked > 40 and apart > 4


def test_last_placement_is_outlined() -> None:
    view = spezial_view(2, 20, seed=4)
    assert view.last_placement is not None
    img, lat = decode(board_png(view)), layout(2).lattice
    last = set(view.last_placement.cells)
    for h in view.board:
        cx, cy = lat.centre(h)
        probes = [
            img.getpixel((round(cx + 0.415 * lat.w * math.cos(a)),
                          round(cy + 0.415 * lat.w * math.sin(a))))
            for a in (math.radians(60 * k) for k in range(6))
        ]  # fmt: skip
        assert (probes.count(HIGHLIGHT) >= 3) == (h in last)


def test_tiles_come_from_the_moves() -> None:
    view = spezial_view(4, 16, seed=2)
    tiles = placed_tiles(view)
    assert len(tiles) == 16
    assert all(view.board[a] == seat == view.board[b] for seat, a, b in tiles)


@pytest.mark.parametrize("name", ["07-spezial-2p", "08-spezial-3p", "09-spezial-4p"])
def test_example_games_as_the_engine_plays_them(shared: Path, name: str) -> None:
    game = replay(read_record(str(shared / "examples" / f"{name}.json")))
    assert isinstance(game, SpezialGame)
    for moves in (len(game.moves) // 2, len(game.moves)):
        part = replay(
            dataclasses.replace(
                read_record(str(shared / "examples" / f"{name}.json")),
                moves=tuple(game.moves[:moves]),
            )
        )
        assert isinstance(part, SpezialGame)
        view = part.view(None)
        img, lat = decode(board_png(view)), layout(view.players).lattice
        assert len(placed_tiles(view)) == moves  # every move is a tile on the board
        for h, seat in view.board.items():
            assert img.getpixel(lat.centre(h)) == SEAT[seat]
        for h, t in view.towers.items():
            cx, cy = lat.centre(h)
            assert img.getpixel((cx, round(cy - 0.45 * lat.w / 2))) == SYMBOL[t.colour]
        assert board_png(part.view(0)) == board_png(view)
        decode(rack_png(part.view(moves % view.players)))
        decode(result_png(view))


def test_sprites_are_cut_to_their_mask() -> None:
    # A joint's strip along one edge is far narrower than the two cells around it: the
    # sprite keeps only the strip, and the mask still reaches each side of what is kept.
    lat = layout(4).lattice
    face = Face(SEAT[0])
    for direction in (0, 4, 5):
        joint = joint_sprite(lat, direction, face, face, SEAT[0], "spezial", ss=1)
        width, height = joint.mask.size
        assert joint.image.size == joint.mask.size
        assert width * height < lat.w * lat.v  # less than one cell's box; the window is two
        assert joint.mask.getbbox() == (0, 0, width, height)
    cell = cell_sprite(lat, face, game="spezial", ss=1)
    assert cell.mask.getbbox() == (0, 0, *cell.mask.size)
    assert cell.image.size[0] <= lat.w  # a cell's sprite spans no more than the cell
