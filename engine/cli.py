"""The engine's command line: ``replay`` (RECORD.md), ``ai`` and ``match`` (computer players).

Exit status 2 with one line on standard error for an illegal or malformed move or an
invalid record; nothing is printed on standard output then.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence

from engine.errors import EngineError, InvalidRecord
from engine.record import Record, replay, summary


def read_record(path: str) -> Record:
    """Read and validate a record from a file, or standard input for ``-``.

    Raises:
        InvalidRecord: if the file cannot be read or is not a valid record.
    """
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as exc:
        raise InvalidRecord(f"cannot read {path}: {exc.strerror}") from None
    return Record.from_json(text)


def error_line(exc: EngineError) -> str:
    """``move 7: occupied: 'RG F7 F8'`` or ``record: invalid_record: ...``."""
    where = "record" if exc.move_number is None else f"move {exc.move_number + 1}"
    return f"{where}: {exc}"


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        game = replay(read_record(args.record))
    except EngineError as exc:
        print(error_line(exc), file=sys.stderr)
        return 2
    print(json.dumps(summary(game), indent=1))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("replay", help="replay a record with full rule checks; print the result")
    p.add_argument("record", help="record file, or - for standard input")
    p.set_defaults(func=cmd_replay)
    try:
        ai_cli = importlib.import_module("engine.ai.cli")
    except ImportError:  # the computer players are optional until engine/ai lands
        pass
    else:
        ai_cli.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.func(args)
    return result
