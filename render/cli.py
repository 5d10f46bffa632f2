"""``python -m render RECORD --out board.png [--rack SEAT rack.png] [--result result.png]
[--replay replay.gif]``: draw the position a game record reaches (RECORD.md), or replay a
finished game as an animated GIF.

``python -m render pieces [PATH]``: draw the boards' pieces into the file
render/prebuilt.py loads them from (:func:`render.pieces.main`; a record file named
``pieces`` is ``./pieces``).

The board comes from the spectators' view, a rack from that seat's view (seats are
numbered from 0, as in records). Exit status 2 with one line on standard error for an
invalid record, an illegal move or a bad seat, as ``python -m engine`` does.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.errors import EngineError, error_line
from engine.record import read_record, replay
from render import board_png, rack_png, result_png
from render.replay import replay_gif


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m render",
        description=__doc__.split("\n")[0],
        epilog="python -m render pieces [PATH]: draw the boards' pieces ahead of time into"
        " their file (render/prebuilt.py says where it goes without PATH)",
    )
    parser.add_argument("record", help="record file, or - for standard input")
    parser.add_argument("--out", help="where to write the board PNG")
    parser.add_argument(
        "--rack",
        nargs=2,
        metavar=("SEAT", "FILE"),
        action="append",
        default=[],
        help="also write the rack of SEAT (0, 1, ...) to FILE; may be repeated",
    )
    parser.add_argument("--result", metavar="FILE", help="also write the result image")
    parser.add_argument(
        "--replay", metavar="FILE", help="also write the finished game as an animated GIF"
    )
    parser.add_argument("--names", help="player names in seat order, separated by commas")
    return parser


def _seat(text: str, players: int) -> int:
    try:
        seat = int(text)
    except ValueError:
        seat = -1
    if not 0 <= seat < players:
        raise ValueError(f"--rack: seat must be a number from 0 to {players - 1}, not {text!r}")
    return seat


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["pieces"] and len(argv) <= 2 and not any(a.startswith("-") for a in argv):
        from render import pieces  # draws every piece: only for this command

        return pieces.main(Path(argv[1]) if len(argv) == 2 else None)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.out is None and args.replay is None:
        parser.error("give --out, --replay or both")
    try:
        record = read_record(args.record)
        game: Any = replay(record)
    except EngineError as exc:
        print(error_line(exc), file=sys.stderr)
        return 2
    names = args.names.split(",") if args.names else None
    try:
        seats = [(_seat(seat, record.players), path) for seat, path in args.rack]
        outputs = []
        if args.out:
            outputs.append((Path(args.out), board_png(game.view(None), names=names)))
        for seat, path in seats:
            outputs.append((Path(path), rack_png(game.view(seat), names=names)))
        if args.result:
            outputs.append((Path(args.result), result_png(game.view(None), names=names)))
        if args.replay:
            outputs.append((Path(args.replay), replay_gif(record, names=names)))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        for path, data in outputs:
            path.write_bytes(data)
    except OSError as exc:
        print(f"error: cannot write {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
    return 0
