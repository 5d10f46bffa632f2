"""The command fuzz at full size, with images: random people send random commands (real
ones, legal and illegal moves, old buttons, unicode, huge and hostile inputs) to several
tables while the clock moves. Prints the figures; the goal of issue 16 is 0 uncaught
exceptions in at least 20,000 commands and every answer under 1,000 characters apart from
the help and rules texts.

    .venv/bin/python benchmarks/fuzz_commands.py [--commands 20000] [--seed 16]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.core.config import Settings  # noqa: E402
from bot.service import Service  # noqa: E402
from bot.store.sqlite import SQLiteStore  # noqa: E402
from tests.bot.fuzz import ANSWER_LIMIT, Fuzz  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--level", default="random", help="computer players' level")
    parser.add_argument("--no-images", action="store_true")
    args = parser.parse_args()
    clock = [1_700_000_000.0]
    with tempfile.TemporaryDirectory() as folder:
        service = Service(
            SQLiteStore(Path(folder) / "fuzz.db"),
            Settings(level=args.level),
            clock=lambda: clock[0],
            rng=random.Random(args.seed),
            pictures=not args.no_images,
        )
        result = Fuzz(service, random.Random(args.seed), clock).run(args.commands)
        service.store.close()
    print(f"commands            {result.commands}")
    print(f"answers             {result.answers}")
    print(f"images              {result.images}")
    print(f"games started       {result.games_started}")
    print(f"games finished      {result.games_finished}")
    print(f"uncaught exceptions {len(result.exceptions)}")
    print(f"answers >= {ANSWER_LIMIT}     {len(result.too_long)} (help and rules texts aside)")
    print(f"longest answer      {result.longest} characters")
    rate = result.commands / result.seconds
    print(f"time                {result.seconds:.1f} s ({rate:.0f} commands/s)")
    for text in (result.exceptions + result.too_long)[:5]:
        print(text, file=sys.stderr)
    return 0 if not result.exceptions and not result.too_long else 1


if __name__ == "__main__":
    raise SystemExit(main())
