"""The engine's command line: ``replay`` (RECORD.md), ``ai`` and ``match`` (computer players),
``review`` (the expert's review of a record, docs/records.md).

Exit status 2 with one line on standard error for an illegal or malformed move or an
invalid record; nothing is printed on standard output then.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from engine.ai import cli as ai_cli
from engine.errors import EngineError, error_line
from engine.record import read_record, replay, summary
from engine.review import review_game


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        game = replay(read_record(args.record))
    except EngineError as exc:
        print(error_line(exc), file=sys.stderr)
        return 2
    print(json.dumps(summary(game), indent=1))
    return 0


def cmd_review(args: argparse.Namespace) -> int:
    try:
        review = review_game(read_record(args.record), seed=args.seed)
    except EngineError as exc:
        print(error_line(exc), file=sys.stderr)
        return 2
    data = review.to_dict()
    for seat, summary_of_seat in zip(data["seats"], review.seats, strict=True):
        seat["accuracy"] = summary_of_seat.accuracy
    for placement, reviewed in zip(data["placements"], review.placements, strict=True):
        placement["cost"] = reviewed.cost
        placement["drop"] = reviewed.drop
    print(json.dumps(data, indent=1))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("replay", help="replay a record with full rule checks; print the result")
    p.add_argument("record", help="record file, or - for standard input")
    p.set_defaults(func=cmd_replay)
    ai_cli.add_commands(sub)
    p = sub.add_parser("review", help="the expert's review of every move of a record; JSON out")
    p.add_argument("record", help="record file, or - for standard input")
    p.add_argument("--seed", type=int, default=0, help="the expert's seed (default 0)")
    p.set_defaults(func=cmd_review)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.func(args)
    return result
