"""What a player reads off the score panel under the Genial board: which seats share a
row, who is to move, which colours are framed, how full each bar is.

Positions are worked out here from the panel's layout constants (row height and gap, the
name column, six equal blocks, the track 12 px into a block and 14 px short of its end);
expected colours and fill from the scores and RULES.md (the lowest colours decide, the
track runs to 18, or 36 in the team and solo games).
"""

from __future__ import annotations

from PIL import Image

from engine.genial import GenialGame
from engine.tiles import COLOURS, Colour
from render import board_png
from render.genial_board import PANEL_X, WIDTH, layout
from render.panel import NAME_WIDTH, ROW_GAP, ROW_HEIGHT
from render.theme import LOWEST, PANEL, SYMBOL, TRACK, TURN
from tests.render.helpers import decode

ROW_WIDTH = WIDTH - 2 * PANEL_X
BLOCK = (ROW_WIDTH - NAME_WIDTH - 16) // len(COLOURS)
TRACK_LENGTH = BLOCK - 26
NAMES4 = ["Ann", "Bob", "Cy", "Dee"]


def _game(mode: str, players: int, to_move: int, scores: list[list[int]]) -> GenialGame:
    game = GenialGame(players, mode, seed=2)
    game.to_move = to_move
    game.scores = [list(s) for s in scores]
    return game


def _image(game: GenialGame, names: list[str]) -> Image.Image:
    return decode(board_png(game.view(), names=names))


def _row_top(game: GenialGame, row: int) -> int:
    # The panel starts 40 px below its y (the bag count sits above the rows).
    return layout(game.mode, game.players).panel_y + 40 + row * (ROW_HEIGHT + ROW_GAP)


def _block_x(k: int) -> int:
    return PANEL_X + NAME_WIDTH + 8 + k * BLOCK


def _turn_stripe(img: Image.Image, top: int) -> bool:
    """The mover's stripe along the left of a row (10 px wide)."""
    return img.getpixel((PANEL_X + 4, top + ROW_HEIGHT // 2)) == TURN


def _arrow_line(img: Image.Image, top: int) -> int | None:
    """Which name line of a two-name (team) row has the arrow: 0 upper, 1 lower."""
    cy = top + ROW_HEIGHT // 2
    lines = []
    for k, ly in enumerate((cy - 16, cy + 16)):  # two names 32 px apart round the middle
        # The arrow sits 30 px left of the names, which start 40 px into the row.
        box = [(x, y) for x in range(PANEL_X + 12, PANEL_X + 32) for y in range(ly - 4, ly + 5)]
        if sum(img.getpixel(p) == TURN for p in box) > 20:
            lines.append(k)
    assert len(lines) <= 1
    return lines[0] if lines else None


def _framed(img: Image.Image, top: int) -> set[Colour]:
    """The colours whose block has the frame: its 4 px outline starts 2 px into the block."""
    out = set()
    for k, colour in enumerate(COLOURS):
        edge = img.getpixel((_block_x(k) + 3, top + ROW_HEIGHT // 2))
        assert edge in (LOWEST, PANEL), edge
        if edge == LOWEST:
            out.add(colour)
    return out


def _bar_end(img: Image.Image, top: int, k: int, colour: Colour) -> int | None:
    """How far into its track a colour's bar is filled, in px (None: not at all)."""
    x0 = _block_x(k) + 12
    y = top + ROW_HEIGHT // 2 + 25  # the track is 11 px high, 20 px below the middle
    inside = [
        x - x0 for x in range(x0, x0 + TRACK_LENGTH + 1) if img.getpixel((x, y)) == SYMBOL[colour]
    ]
    # The rest of the track is the track's colour, apart from a tick's ink.
    assert img.getpixel((x0 + TRACK_LENGTH - 1, y)) in (TRACK, SYMBOL[colour])
    return max(inside) if inside else None


def _expected_end(value: int, cap: int) -> int:
    return max(round(TRACK_LENGTH * value / cap), 10)  # a bar is at least its rounded end


# --- which seats share a row ---------------------------------------------------------------


def test_team_rows_pair_seats_one_and_three_and_two_and_four() -> None:
    # Seats 1 & 3 play for team 0 (row 0), seats 2 & 4 for team 1 (row 1): RULES.md 2.7.
    # Seat n (0-based) to move: the stripe marks its team's row, the arrow its name line.
    for to_move, row, line in ((0, 0, 0), (1, 1, 0), (2, 0, 1), (3, 1, 1)):
        game = _game("team", 4, to_move, [[5] * 6, [5] * 6])
        img = _image(game, NAMES4)
        tops = [_row_top(game, r) for r in range(2)]
        assert [_turn_stripe(img, t) for t in tops] == [r == row for r in range(2)], to_move
        assert _arrow_line(img, tops[row]) == line, to_move
        assert _arrow_line(img, tops[1 - row]) is None


def test_team_rows_show_their_teams_scores() -> None:
    # Team 0 has its lowest in red, team 1 in purple: each row frames its own team's.
    team0 = [2, 9, 9, 9, 9, 9]
    team1 = [9, 9, 9, 9, 9, 3]
    game = _game("team", 4, 0, [team0, team1])
    img = _image(game, NAMES4)
    assert _framed(img, _row_top(game, 0)) == {Colour.RED}
    assert _framed(img, _row_top(game, 1)) == {Colour.PURPLE}


def test_standard_game_has_one_row_per_seat_in_seat_order() -> None:
    scores = [[1, 7, 7, 7, 7, 7], [7, 1, 7, 7, 7, 7], [7, 7, 1, 7, 7, 7], [7, 7, 7, 1, 7, 7]]
    game = _game("standard", 4, 2, scores)
    img = _image(game, NAMES4)
    for seat in range(4):
        top = _row_top(game, seat)
        assert _framed(img, top) == {COLOURS[seat]}
        assert _turn_stripe(img, top) == (seat == 2)


# --- which colours are framed ------------------------------------------------------------


def test_the_lowest_colours_are_framed_ties_all_of_them() -> None:
    game = _game("standard", 2, 0, [[4, 12, 4, 17, 9, 4], [0, 0, 0, 0, 0, 0]])
    img = _image(game, NAMES4[:2])
    # Seat 1: red, blue and purple share the lowest score 4; the highest (orange) is not.
    assert _framed(img, _row_top(game, 0)) == {Colour.RED, Colour.BLUE, Colour.PURPLE}
    # Seat 2: all six at 0, all six lowest.
    assert _framed(img, _row_top(game, 1)) == set(COLOURS)


# --- how full a bar is ---------------------------------------------------------------------


def _check_bars(game: GenialGame, names: list[str], cap: int) -> None:
    img = _image(game, names)
    for side, values in enumerate(game.scores):
        top = _row_top(game, side)
        for k, colour in enumerate(COLOURS):
            end = _bar_end(img, top, k, colour)
            if values[k] == 0:
                assert end is None, (side, colour)
            else:
                assert end is not None, (side, colour)
                assert abs(end - _expected_end(values[k], cap)) <= 1, (side, colour, end)


def test_standard_bars_run_to_18() -> None:
    game = _game("standard", 2, 0, [[0, 4, 9, 13, 18, 6], [18, 17, 2, 9, 1, 12]])
    _check_bars(game, NAMES4[:2], 18)


def test_team_bars_run_to_36() -> None:
    # 18 on a 36 track fills half the bar, not all of it.
    game = _game("team", 4, 0, [[18, 9, 27, 36, 4, 20], [30, 18, 12, 0, 35, 6]])
    _check_bars(game, NAMES4, 36)


def test_solo_bars_run_to_36() -> None:
    game = _game("solo", 1, 0, [[18, 10, 24, 33, 5, 0]])
    _check_bars(game, ["Ann"], 36)


# --- time left (issue 26) ----------------------------------------------------------------


def _inked(img: Image.Image, box: tuple[int, int, int, int]) -> int:
    """How many pixels in ``box`` are not the row's plain panel colour."""
    x0, y0, x1, y1 = box
    return sum(img.getpixel((x, y)) != PANEL for x in range(x0, x1) for y in range(y0, y1))


def test_a_clock_is_written_under_its_players_name_and_changes_nothing_else() -> None:
    game = _game("standard", 2, 0, [[1] * 6, [2] * 6])
    plain = _image(game, ["Ann", "Bob"])
    timed = decode(board_png(game.view(), names=["Ann", "Bob"], clocks=["2d 23h", None]))
    top = _row_top(game, 0)
    cy = top + ROW_HEIGHT // 2
    # The line below the name (20 px under the row's middle, from the name's x, 40 px in).
    under = (PANEL_X + 40, cy + 10, PANEL_X + 40 + 60, cy + 30)
    assert _inked(plain, under) == 0
    assert _inked(timed, under) > 40
    # Bob has no clock: his row is the same pixels; so are all the blocks of both rows.
    w, h = plain.size
    below_name = (PANEL_X + NAME_WIDTH, top, w, h)
    assert plain.crop(below_name).tobytes() == timed.crop(below_name).tobytes()
    bob = (0, _row_top(game, 1), w, h)
    assert plain.crop(bob).tobytes() == timed.crop(bob).tobytes()


def test_a_team_rows_clocks_end_each_name_line() -> None:
    game = _game("team", 4, 0, [[3] * 6, [4] * 6])
    img = decode(board_png(game.view(), names=NAMES4, clocks=["9m 41s", None, "10m", None]))
    cy = _row_top(game, 0) + ROW_HEIGHT // 2
    right = PANEL_X + NAME_WIDTH - 6  # a clock ends 6 px before the name column does
    upper = (right - 40, cy - 16 - 8, right, cy - 16 + 8)
    lower = (right - 40, cy + 16 - 8, right, cy + 16 + 8)
    assert _inked(img, upper) > 40 and _inked(img, lower) > 40
    other = _row_top(game, 1) + ROW_HEIGHT // 2  # Bob and Dee: no clocks
    assert _inked(img, (right - 40, other - 24, right, other + 24)) == 0


def test_one_clock_per_seat_or_an_error() -> None:
    game = _game("standard", 2, 0, [[1] * 6, [2] * 6])
    try:
        board_png(game.view(), names=["Ann", "Bob"], clocks=["1h"])
    except ValueError as exc:
        assert "2 clocks" in str(exc)
    else:
        raise AssertionError("one clock for two seats was drawn")


def test_a_clock_too_long_for_its_room_keeps_its_largest_unit() -> None:
    from render.fonts import font
    from render.panel import CLOCK_SIZE, clock_fit

    assert clock_fit("1d 2h", 500) == (CLOCK_SIZE, "1d 2h")
    smaller = int(font(CLOCK_SIZE - 2).getlength("23h 59m"))
    assert font(CLOCK_SIZE).getlength("23h 59m") > smaller  # so the first size does not fit
    assert clock_fit("23h 59m", smaller) == (CLOCK_SIZE - 2, "23h 59m")
    assert clock_fit("23h 59m", 30) == (CLOCK_SIZE - 2, "23h")
