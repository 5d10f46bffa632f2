"""The ``ai`` and ``match`` commands of ``python -m engine`` (RECORD.md, issue 4)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine.ai import LEVELS, choose_move
from engine.ai.match import match
from engine.errors import EngineError, error_line
from engine.genial import GenialGame
from engine.moves import SpezialPlacement
from engine.notation import format_genial_move, format_spezial_placement
from engine.record import read_record, replay


def cmd_ai(args: argparse.Namespace) -> int:
    """Print the move the computer player chooses for the seat to act next.

    The game is replayed from the record, then only the view of the seat to move goes to
    the player: the draw order and the other racks never reach it.
    """
    try:
        game: Any = replay(read_record(args.record))
    except EngineError as exc:
        print(error_line(exc), file=sys.stderr)
        return 2
    if game.over:
        print("record: the game is over: there is no move to choose", file=sys.stderr)
        return 2
    view = game.view(game.to_move)
    move = choose_move(view, args.level, args.seed)
    if isinstance(move, SpezialPlacement):
        print(format_spezial_placement(move, game.area))
    else:
        assert isinstance(game, GenialGame)
        print(format_genial_move(move, game.area))
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    """Play the match and print its figures as one JSON object."""
    try:
        result = match(
            args.a,
            args.b,
            game=args.game,
            players=args.players,
            mode=args.mode,
            games=args.games,
            seed=args.seed,
            progress=args.progress,
            lone=args.lone,
            workers=args.workers,
        )
    except ValueError as exc:
        print(f"match: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=1))
    return 0


def add_commands(sub: Any) -> None:
    """Add ``ai`` and ``match`` to the engine's command-line subparsers."""
    p = sub.add_parser("ai", help="print the computer player's move for the seat to act next")
    p.add_argument("record", help="record file, or - for standard input")
    p.add_argument("--level", choices=LEVELS, default="greedy", help="default: greedy")
    p.add_argument("--seed", type=int, default=None, help="makes the choice reproducible")
    p.set_defaults(func=cmd_ai)

    m = sub.add_parser("match", help="play computer levels against each other; print JSON")
    m.add_argument("--a", required=True, choices=LEVELS, help="the first level")
    m.add_argument("--b", required=True, choices=LEVELS, help="the second level")
    m.add_argument("--game", choices=("genial", "spezial"), default="genial")
    m.add_argument("--players", type=int, default=2, help="seats, 1-4 (default 2)")
    m.add_argument("--mode", choices=("standard", "team", "solo"), default=None)
    m.add_argument("--games", type=int, required=True)
    m.add_argument("--seed", type=int, required=True)
    m.add_argument("--progress", action="store_true", help="one line per game on stderr")
    m.add_argument(
        "--lone",
        action="store_true",
        help="3-4 seats: --a in one seat (rotating), --b in all the others",
    )
    m.add_argument(
        "--workers",
        type=int,
        default=1,
        help="games played side by side in this many processes (the same figures)",
    )
    m.set_defaults(func=cmd_match)
