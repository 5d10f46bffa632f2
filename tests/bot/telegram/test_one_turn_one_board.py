"""Issue 24 on Telegram: a person's move, and the computer moves after it, reach the group
as one photo, however long the computers' chain of bonus placements.

The real bot (python-telegram-bot, our adapter, the service on SQLite) talks to the fake
Bot API; what reached the group is counted from the requests the fake recorded.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.core import games
from bot.core.config import Settings
from bot.core.table import PLAYING, Table
from bot.service import Service
from bot.store.sqlite import SQLiteStore
from tests.bot import one_turn
from tests.bot.helpers import Clock
from tests.bot.one_turn import PERSON, PLANS, REPRO, REPRO_MOVE, Plan, Posted
from tests.bot.telegram.fake_api import BotRunner, Call, FakeBotAPI

TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
GROUP = -1001234567890
ADA = 101
#: Telegram's longest photo caption.
CAPTION_LIMIT = 1024
#: The longest a command may take, the computer players' moves after it included (they
#: think for well under a second each, on a quiet machine).
PATIENCE = 300.0
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
pytest.importorskip("engine.ai")  # the computer players


@pytest.fixture
def api() -> Iterator[FakeBotAPI]:
    api = FakeBotAPI(TOKEN).start()
    api.user(ADA, PERSON)
    yield api
    api.close()


@pytest.fixture
def bot(api: FakeBotAPI, tmp_path: Path) -> Iterator[BotRunner]:
    def make_service(path: Path) -> Service:
        return Service(SQLiteStore(path), Settings(), clock=Clock())

    runner = BotRunner(api, tmp_path / "tables.db", make_service=make_service).start()
    yield runner
    runner.stop()


class Group:
    """A group of its own for one plan's game, with Ada and the bot; each of her commands
    waits until it is handled completely (the computer players' moves after it included)."""

    def __init__(self, api: FakeBotAPI, bot: BotRunner, plan: Plan) -> None:
        self.api = api
        self.bot = bot
        self.chat = GROUP - plan.seed
        api.group(self.chat, f"Genial night {plan.seed}")
        # The plan's seat order and bag: the service draws them at /start.
        bot.service.rng.seed(plan.seed)
        for command in plan.commands():
            self.say(command)
        assert self.table().status == PLAYING

    def say(self, text: str) -> list[Call]:
        """Ada types ``text`` in the group; the bot's posts in the group that followed."""
        seen = len(self.api.sent(self.chat))
        self.bot.wait(self.api.say(self.chat, ADA, text), timeout=PATIENCE)
        return self.api.sent(self.chat)[seen:]

    def table(self) -> Table:
        table = self.bot.service.table(str(self.chat))
        assert table is not None
        return table


def refused(api: FakeBotAPI) -> list[tuple[str, int]]:
    """The requests into groups the fake refused (a caption too long is a 400)."""
    return [(c.method, c.status) for c in api.calls if (c.chat or 0) < 0 and c.status != 200]


def posted(calls: list[Call]) -> list[Posted]:
    return [Posted(c.text, list(c.files.values())) for c in calls]


def one_move(group: Group, rng: random.Random) -> tuple[list[Call], one_turn.Span, Table]:
    """Ada makes her move; what the group got, what was played, and the table after."""
    table = group.table()
    assert table.record is not None
    since = len(table.record["moves"])
    game = games.rebuild(table.record)
    calls = group.say(one_turn.typed(game, one_turn.choose(game, rng)))
    table = group.table()
    assert table.record is not None and len(table.record["moves"]) > since, calls
    return calls, one_turn.played(table, since), table


def test_a_computers_chain_of_bonus_placements_is_one_photo(
    api: FakeBotAPI, bot: BotRunner
) -> None:
    group = Group(api, bot, REPRO)
    rng = random.Random(REPRO.seed)
    for _ in range(REPRO_MOVE - 1):
        one_move(group, rng)
    calls, moves, table = one_move(group, rng)
    # One message for the whole turn: a photo of the board, the text as its caption.
    assert [c.method for c in calls] == ["sendPhoto"], [(c.method, c.text) for c in calls]
    (message,) = posted(calls)
    one_turn.check_repro(message, moves, table)
    assert len(message.text) <= CAPTION_LIMIT
    # Nothing was refused (a caption too long would be a 400).
    assert refused(api) == []


@pytest.mark.usefixtures("unreviewed")
def test_every_move_of_many_games_is_one_photo(api: FakeBotAPI, bot: BotRunner) -> None:
    tally = one_turn.Tally()
    for plan in PLANS:
        group = Group(api, bot, plan)
        rng = random.Random(plan.seed)
        number = 0
        while group.table().status == PLAYING:
            number += 1
            calls, moves, table = one_move(group, rng)
            where = f"{plan}, move {number}"
            tally.action(where, posted(calls), moves, ended=table.status != PLAYING)
        tally.games += 1
    tally.check(PLANS, at_least=300)
    assert refused(api) == []
