"""Issue 24 in the console: a person's move, and the computer moves after it, are printed as
one block with one board image written, however long the computers' chain of bonus
placements.

The console room of ``genial-bot console`` (bot/console.py) on a seeded service, fed line by
line as its input loop feeds it; what it did is read from its output (one block per
message: ``[genial] ...``, indented lines after it, ``image: <path>`` for a picture) and
from the files it wrote to its image folder.
"""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import pytest

from bot.console import Console
from bot.core import games
from bot.core.config import Settings
from bot.core.outbound import User
from bot.core.table import PLAYING, Table
from bot.service import Service
from bot.store.sqlite import SQLiteStore
from tests.bot import one_turn
from tests.bot.helpers import Clock
from tests.bot.one_turn import PERSON, PLANS, REPRO, REPRO_MOVE, Plan, Posted

pytest.importorskip("engine.ai")  # the computer players
#: A public picture the console wrote: its number, then the attachment's name (a private
#: one has the person's id between them).
PUBLIC_FILE = re.compile(r"^\d{4}-(?!" + PERSON + r"-)")


class Room:
    """The console room of one plan's game, with its own store and image folder."""

    def __init__(self, folder: Path, plan: Plan) -> None:
        self.images = folder / "out"
        service = Service(
            SQLiteStore(folder / "console.db"),
            Settings(),
            clock=Clock(),
            rng=random.Random(plan.seed),
        )
        self.out = io.StringIO()
        self.console = Console(service, User(PERSON, PERSON), self.images, out=self.out)
        for command in plan.commands():
            self.console.say(command)
        assert self.table().status == PLAYING

    def say(self, line: str) -> tuple[list[Posted], list[str]]:
        """Ada types ``line``: the public blocks printed (their text and the files they
        name, as read from the folder) and the names of the public files written."""
        before = set(self.files())
        start = len(self.out.getvalue())
        self.console.say(line)
        printed = self.out.getvalue()[start:]
        written = sorted(f for f in set(self.files()) - before if PUBLIC_FILE.match(f))
        return [block for block in blocks(printed) if block is not None], written

    def files(self) -> list[str]:
        # The console writes each game's images into a folder of its own.
        return [p.name for p in self.images.rglob("*") if p.is_file()]

    def table(self) -> Table:
        table = self.console.service.table(self.console.chat.id)
        assert table is not None
        return table


def blocks(printed: str) -> list[Posted | None]:
    """The messages in the console's output: a public one as its text and the files its
    ``image:`` lines name; ``None`` for a private one."""
    found: list[Posted | None] = []
    for line in printed.splitlines():
        if line.startswith("[genial] "):
            found.append(Posted(line.removeprefix("[genial] "), []))
        elif line.startswith("[genial -> "):
            found.append(None)
        else:
            assert line.startswith("    ") and found, f"not the console's output: {line!r}"
            current = found[-1]
            if current is None:
                continue
            body = line.removeprefix("    ")
            for what in ("image: ", "animation: ", "file: "):
                if body.startswith(what):
                    path = Path(body.removeprefix(what))
                    # The attachment's name, without the console's number in front.
                    current.files.append((path.name.split("-", 1)[1], path.read_bytes()))
                    break
            else:
                current.text += "\n" + body
    return found


def one_move(
    room: Room, rng: random.Random
) -> tuple[list[Posted], list[str], one_turn.Span, Table]:
    """Ada makes her move: the public blocks, the public files written, what was played,
    and the table after."""
    table = room.table()
    assert table.record is not None
    since = len(table.record["moves"])
    game = games.rebuild(table.record)
    shown, written = room.say(one_turn.typed(game, one_turn.choose(game, rng)))
    table = room.table()
    assert table.record is not None and len(table.record["moves"]) > since, shown
    return shown, written, one_turn.played(table, since), table


def test_a_computers_chain_of_bonus_placements_is_one_block(tmp_path: Path) -> None:
    room = Room(tmp_path, REPRO)
    rng = random.Random(REPRO.seed)
    for _ in range(REPRO_MOVE - 1):
        one_move(room, rng)
    shown, written, moves, table = one_move(room, rng)
    # One block for the whole turn, naming the one board written for it.
    assert len(shown) == 1, shown
    one_turn.check_repro(shown[0], moves, table)
    assert [w.split("-", 1)[1] for w in written] == [name for name, _ in shown[0].files]


@pytest.mark.usefixtures("unreviewed")
def test_every_move_of_many_games_is_one_block(tmp_path: Path) -> None:
    tally = one_turn.Tally()
    for plan in PLANS:
        room = Room(tmp_path / str(plan.seed), plan)
        rng = random.Random(plan.seed)
        number = 0
        while room.table().status == PLAYING:
            number += 1
            shown, written, moves, table = one_move(room, rng)
            where = f"{plan}, move {number}"
            named = sorted(name for p in shown for name, _ in p.files)
            if sorted(w.split("-", 1)[1] for w in written) != named:
                tally.wrong.append(f"{where}: wrote {written}, showed {named}")
            tally.action(where, shown, moves, ended=table.status != PLAYING)
        tally.games += 1
    tally.check(PLANS, at_least=300)
