"""A round's deadline played out in steps (issue 43): the open tables are handed to the
computer, which plays a turn at a table at each step of the clock, each turn told, so
another group's reminder is told on time while the round is being played out; the round
closes when its last table ends, with each table's result as its moves give it, and a
restart mid play-out goes on with it, nothing doubled, nothing lost.

The platforms' clock is modelled on the fake clock as :mod:`bot.core.stepping` describes it:
each pass starts one step at every due table (and each tournament's due work) and tells what
it said, a group's pace (:data:`PACE`) a pass.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bot.core import games
from bot.core.outbound import Chat, Outbound
from bot.core.stepping import Turns
from bot.service import Service
from bot.tournaments import places as tournament_places
from engine.events import TurnStarted
from engine.ranking import places
from tests.bot.helpers import Clock, Room, make_service, user
from tests.bot.tournaments.test_tournaments import SIX, Cup, new_cup

pytestmark = pytest.mark.usefixtures("backend")

DAY = 86400.0
#: Seconds a pass of the clock takes: one message a group every three seconds is the pace
#: of Telegram's 20 messages a minute in a group.
PACE = 3.0
OTHER = Chat("chat-2", "Clocked")


class Passes:
    """The platforms' clock on the fake clock: a pass steps every due table once."""

    def __init__(self, service: Service, clock: Clock) -> None:
        self.service = service
        self.clock = clock
        self.turns = Turns()
        #: What each step said: (when, the key stepped, the message).
        self.told: list[tuple[float, str, Outbound]] = []

    def run(self) -> None:
        now = self.clock()
        for key in self.turns.ready(self.service.due_tables(now), now):
            self.turns.started(key)
            step = self.service.step(key, now, steps=1)
            self.turns.ended(key, did=step.done, now=now)
            self.told += [(now, key, o) for o in step.out]
        self.clock.advance(PACE)

    def turn_messages(self, key: str) -> list[Outbound]:
        return [o for _, k, o in self.told if k == key and o.kind == "turn"]


def _round_one(cup: Cup, tid: str) -> dict[str, Any]:
    played: list[dict[str, Any]] = cup.data(tid)["played"]
    return played[0]


def _playing(service: Service, chats: list[str]) -> list[str]:
    out = []
    for chat in chats:
        t = service.store.load(chat)
        assert t is not None
        if t.status == "playing":
            out.append(chat)
    return out


def _turns_after(record: dict[str, Any], before: int) -> int:
    """The turns played after the first ``before`` moves of ``record`` (each told in one
    message): every turn that passed, and the last one, which ended the game."""
    game = games.rebuild({**record, "moves": record["moves"][:before]})
    passed = 0
    for text in record["moves"][before:]:
        events = game.play_text(text, game.to_move)
        passed += sum(isinstance(e, TurnStarted) for e in events)
    assert game.over
    return passed + 1


def _places_from_moves(service: Service, chat: str, players: list[str]) -> list[int]:
    """Each player's place at the table as the engine ranks its finished game."""
    t = service.store.load(chat)
    assert t is not None and t.record is not None
    game = games.rebuild(t.record)
    ranking = game.ranking()
    assert game.over and ranking is not None
    place = places(ranking)
    seat = {s.user: n for n, s in enumerate(t.players)}
    return [place[seat[u]] for u in players]


def _start_round(tmp_path: Path) -> tuple[Service, Clock, Cup, str, list[str], dict[str, int]]:
    """Six players, two rounds of tables of two, a day each; every table of round one has
    had two moves when the round's deadline comes. The tables, and the moves at each."""
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    tid = new_cup(cup, "swiss 2 rounds 2 players 1d", SIX)
    cup.ok("Ann", "/tournament start")
    rng = random.Random(7)
    tables = [p["chat"] for p in _round_one(cup, tid)["pairings"]]
    assert len(tables) == 3
    for chat in tables:
        cup.play_moves(chat, rng, 2)
    before = {}
    for chat in tables:
        t = service.store.load(chat)
        assert t is not None and t.record is not None
        before[chat] = len(t.record["moves"])
    return service, clock, cup, tid, tables, before


def test_another_groups_reminder_is_told_while_a_round_is_played_out(tmp_path: Path) -> None:
    service, clock, cup, tid, tables, before = _start_round(tmp_path)
    deadline = float(_round_one(cup, tid)["deadline"])
    # Another group: Carol against a computer, a minute a turn, her reminder due at half
    # time, ten seconds after the round's deadline.
    clock.now = deadline - 20
    other = Room(service, OTHER.id, OTHER.title)
    for text in ("/join", "/addbot", "/option timeout 1m", "/start"):
        other.ok("Carol", text)
    assert other.to_move() == "Carol"
    reminder_due = deadline + 10
    assert other.table().due_at == reminder_due

    clock.now = deadline + 1
    clock_passes = Passes(service, clock)
    key = tournament_places.PREFIX + tid
    told_at = None
    for _ in range(1000):
        clock_passes.run()
        reminders = [w for w, _, o in clock_passes.told if o.kind == "reminder"]
        if reminders:
            told_at = reminders[0]
            break
    # Told within a pass of its due time...
    assert told_at is not None and reminder_due <= told_at <= reminder_due + PACE
    # ... while the round is being played out: every table has had computer turns, each
    # told in its own message, and none has reached its end yet.
    assert sorted(_playing(service, tables)) == sorted(tables)
    for chat in tables:
        said = clock_passes.turn_messages(chat)
        assert len(said) >= 2, chat
        t = service.store.load(chat)
        assert t is not None and t.autoplay
    # The round's deadline was said at each table, with its first turn played out.
    first = [clock_passes.turn_messages(chat)[0].text for chat in tables]
    assert all("The round's time is up: the computer plays the rest" in text for text in first)
    # One computer turn a table a pass, never more.
    steps = Counter((when, k) for when, k, o in clock_passes.told if o.kind == "turn")
    assert max(steps.values()) == 1
    assert cup.round(tid)["number"] == 1

    # A player's move is no longer taken; the table does not change.
    t = service.store.load(tables[0])
    assert t is not None
    seat = t.seats[games.rebuild(t.record or {}).to_move]
    assert seat.user is not None
    game = games.rebuild(t.record or {})
    move = games.format_move(game, game.legal_moves()[0])
    name = seat.name
    answer = service.handle(Chat(tables[0]), user(name), f"/play {move}")
    assert [o.kind for o in answer] == ["error"]
    assert "moves are no longer taken" in answer[0].text
    again = service.store.load(tables[0])
    assert again is not None and again.version == t.version

    # The clock goes on until the round closes: round two is paired once its last table
    # has ended, and each table's result is the one its moves give.
    for _ in range(1000):
        if cup.round(tid)["number"] == 2:
            break
        assert key not in [k for _, k, o in clock_passes.told if "round 2 of 2" in o.text]
        clock_passes.run()
    assert cup.round(tid)["number"] == 2
    assert _playing(service, tables) == []
    for p in _round_one(cup, tid)["pairings"]:
        assert p["ended"] == "deadline"
        assert p["places"] == _places_from_moves(service, p["chat"], p["players"])
        # Every turn played out was told, once.
        t = service.store.load(p["chat"])
        assert t is not None and t.record is not None
        turns = _turns_after(t.record, before[p["chat"]])
        assert len(clock_passes.turn_messages(p["chat"])) == turns
    paired = [o for _, _, o in clock_passes.told if "round 2 of 2 is paired" in o.text]
    assert len(paired) == 1 and paired[0].chat == cup.chat.id


def test_a_restart_mid_play_out_goes_on_without_doubling_or_losing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, clock, cup, tid, tables, before = _start_round(tmp_path)
    deadline = float(_round_one(cup, tid)["deadline"])
    # No game's end brings the round's look forward (as if the bot were stopped each time
    # between a game's end and its note to the tournament): the round closes all the same.
    monkeypatch.setattr(tournament_places, "poke", lambda *args: None)
    clock.now = deadline + 1
    first = Passes(service, clock)
    for _ in range(6):
        first.run()
    assert sorted(_playing(service, tables)) == sorted(tables)

    # The bot stops and starts again: a new service on the same store goes on.
    restarted = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(restarted, clock)
    second = Passes(restarted, clock)
    for _ in range(1000):
        if cup.round(tid)["number"] == 2:
            break
        second.run()
    assert cup.round(tid)["number"] == 2
    ended = max(w for w, _, o in second.told if o.kind == "result")
    closed = next(w for w, _, o in second.told if "round 2 of 2 is paired" in o.text)
    assert closed - ended <= 60 + PACE  # the round's look a minute at most after its end
    for p in _round_one(cup, tid)["pairings"]:
        assert p["ended"] == "deadline"
        assert p["places"] == _places_from_moves(restarted, p["chat"], p["players"])
        t = restarted.store.load(p["chat"])
        assert t is not None and t.record is not None
        turns = _turns_after(t.record, before[p["chat"]])
        told = first.turn_messages(p["chat"]) + second.turn_messages(p["chat"])
        assert len(told) == turns  # each turn told once, before the restart or after
    paired = [o for _, _, o in first.told + second.told if "round 2 of 2 is paired" in o.text]
    assert len(paired) == 1
