"""The edges fuzzed at length: the command parser, the move notation and the record loader
each get hostile text (unicode, huge numbers, deep JSON, records with fields gone wrong);
every answer must be a result or a documented rejection with a clear reason (the checks of
``tests/edges.py``). Prints the figures; the goal of issue 17 is 0 uncaught exceptions in
10^6 inputs.

    .venv/bin/python benchmarks/fuzz_edges.py [--inputs 1000000] [--seed 17]
    .venv/bin/python benchmarks/fuzz_edges.py --atheris [--inputs 1000000]

The default generator is a seeded random one (reproducible figures). With ``--atheris``
(``pip install atheris``) the inputs come from atheris's coverage-guided mutation instead.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.core.parsing import COMMAND_WORDS  # noqa: E402
from engine.tiles import tile_set  # noqa: E402
from tests.edges import check_command, check_notation, check_record  # noqa: E402

TARGETS: dict[str, Callable[[str], str]] = {
    "command": check_command,
    "notation": check_notation,
    "record": check_record,
}
HOSTILE = [
    "²", "٣", "\u202e", "\u200f", "\x00", "\n", "\t", "\u2028", "#", "@", "<@1>", "-", ",",
    ";", "-0", "0", "1e999", "NaN", "\U0001f600", "ß", "İ", "ﬀ", "swap", "keep", "bot",
]  # fmt: skip
ALPHABET = "/ #@<>!-,;RGBOYPrgbopyAFJKZ0123456789²٣\u202e\u200f\x00\n\té字\U0001f600"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZÄa"


class Generator:
    """Seeded hostile text for each target: mostly the shape the parser expects, bent."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.bag = [t.name for t in tile_set()]

    def number(self) -> str:
        r = self.r
        size = r.choice((1, 1, 2, 3, 9, 10, 30, 4300, 4301, 6000))
        # A few random digits, then one digit repeated: long runs cost nothing to make.
        head = str(r.randrange(10 ** min(size, 12)))
        return r.choice(("", "-", "+")) + (head + r.choice("0123456789") * size)[:size]

    def cell(self) -> str:
        r = self.r
        # Mostly rows and numbers of the boards (A-Y, 1-25), so that moves get parsed.
        row = r.choice(LETTERS) if r.random() < 0.3 else r.choice("ABCDEFGHIJK")
        return row + (str(r.randrange(-2, 30)) if r.random() < 0.8 else self.number())

    def junk(self) -> str:
        r = self.r
        size = r.choice((0, 1, 3, 10, 40, 300))
        return "".join(r.choice(ALPHABET) for _ in range(size))

    def piece(self) -> str:
        r = self.r
        kind = r.randrange(6)
        if kind == 0:
            return r.choice(HOSTILE)
        if kind == 1:
            return self.cell()
        if kind == 2:
            return "".join(r.choice("RGBOYPrgboypXQ") for _ in range(r.randrange(0, 4)))
        if kind == 3:
            return self.number()
        return self.junk()

    def joined(self, head: str, most: int = 5) -> str:
        r = self.r
        parts = [head] + [self.piece() for _ in range(r.randrange(0, most + 1))]
        return "".join(p + r.choice((" ", " ", ",", "-", "\t", "\u3000", "")) for p in parts)

    def command(self) -> str:
        r = self.r
        word = r.choice((*COMMAND_WORDS, "p", "option", "join@Bot", "JOIN", ""))
        text = self.joined("/" + word if r.random() < 0.9 else word)
        if r.random() < 0.2:
            text += f" #{self.number()}"
        return text

    def notation(self) -> str:
        r = self.r
        roll = r.random()
        if roll < 0.5:
            tile = r.choice((self.piece(), self.number(), "RG", "1", "6"))
            return r.choice((" ", ",", "-")).join((tile, self.cell(), self.cell()))
        if roll < 0.7:
            return " ".join((self.cell(), self.cell(), self.piece()))
        return self.joined(self.piece())

    def json_value(self, depth: int = 0) -> object:
        r = self.r
        roll = r.random()
        if depth > 4 or roll < 0.5:
            return r.choice((None, True, 0, -1, 2, 10**40, 1.5, "", "RG", self.junk()))
        if roll < 0.75:
            return [self.json_value(depth + 1) for _ in range(r.randrange(4))]
        return {self.junk()[:6]: self.json_value(depth + 1) for _ in range(r.randrange(4))}

    def record(self) -> str:
        r = self.r
        roll = r.random()
        if roll < 0.05:
            n = r.choice((10, 1000, 100_000, 500_000))
            return "[" * n + "]" * (n if r.random() < 0.5 else 0)
        if roll < 0.1:
            return '{"game": "genial", "players": ' + self.number() + "}"
        if roll < 0.2:
            return self.junk()
        if roll < 0.3:
            return json.dumps(self.json_value())
        data: dict[str, object] = {}
        fields: dict[str, Callable[[], object]] = {
            "game": lambda: r.choice(("genial", "genial", "spezial", "Genial", "", 1)),
            "players": lambda: r.choice((1, 2, 3, 4, 0, 5, True, "2", 10**400)),
            "mode": lambda: r.choice(("standard", "team", "solo", "duo", None)),
            "seed": lambda: r.choice((0, 7, -3, 10**200, "x")),
            "bag": self.bag_value,
            "tokens": lambda: [r.choice(("B1", "G2", "O1", "P2", "X9", "")) for _ in range(9)],
            "moves": lambda: [self.notation() for _ in range(r.randrange(6))],
            self.junk()[:5] or "x": lambda: self.json_value(),
        }
        for key, make in fields.items():
            if r.random() < (0.9 if key in ("game", "players", "moves") else 0.3):
                data[key] = make()
        return json.dumps(data)

    def bag_value(self) -> object:
        r = self.r
        bag = list(self.bag)
        r.shuffle(bag)
        roll = r.random()
        if roll < 0.6:
            return bag
        if roll < 0.8:
            bag[r.randrange(len(bag))] = r.choice(("XX", "R", "", "RGB", "rg"))
            return bag
        return bag[: r.randrange(len(bag))]


def run_random(inputs: int, seed: int) -> int:
    gen = Generator(seed)
    makers = {"command": gen.command, "notation": gen.notation, "record": gen.record}
    counts: dict[str, Counter[str]] = {name: Counter() for name in TARGETS}
    failures: list[str] = []
    started = time.perf_counter()
    for n in range(inputs):
        name = ("command", "notation", "record")[n % 3]
        text = makers[name]()
        try:
            counts[name][TARGETS[name](text)] += 1
        except Exception:  # counting them is the point of a fuzz
            failures.append(f"{name} {text[:80]!r}\n{traceback.format_exc(limit=4)}")
        if (n + 1) % 100_000 == 0:
            print(f"{n + 1} inputs, {len(failures)} failures", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - started
    print(f"inputs: {inputs} (seed {seed}), {seconds:.0f} s, {inputs / seconds:,.0f} per s")
    for name, counter in counts.items():
        total = sum(counter.values())
        ok = sum(v for k, v in counter.items() if any(p.endswith("ok") for p in k.split()))
        print(f"{name}: {total} answered, {ok} accepted, {len(counter)} distinct outcomes")
        for outcome, count in counter.most_common(8):
            print(f"    {count:8d}  {outcome}")
    print(f"uncaught exceptions or unclear rejections: {len(failures)}")
    for failure in failures[:5]:
        print(failure)
    return 0 if not failures else 1


def run_atheris(inputs: int) -> int:
    import atheris  # type: ignore[import-untyped,import-not-found,unused-ignore]

    names = list(TARGETS)

    def one(data: bytes) -> None:
        if not data:
            return
        text = data[1:].decode("utf-8", "replace")
        TARGETS[names[data[0] % len(names)]](text)

    atheris.instrument_all()  # the code is imported already: coverage guides the mutation
    atheris.Setup([sys.argv[0], f"-runs={inputs}"], one)
    atheris.Fuzz()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--atheris", action="store_true", help="inputs from atheris")
    args = parser.parse_args()
    sys.setrecursionlimit(1000)  # the default: deep JSON must be refused, not crash
    if args.atheris:
        return run_atheris(args.inputs)
    return run_random(args.inputs, args.seed)


if __name__ == "__main__":
    raise SystemExit(main())
