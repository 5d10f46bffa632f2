"""Outage credit (issue 43, item 5) at its edges (issue 46, item 3): a takeback after the
bot was away, damaged tables beside good ones, a concern's clock or one table that fails
while the others get their time, and a tournament's round credited twice, changed
meanwhile or already over. Every figure is worked out by hand from the rule: a clock that
ran when the bot went away starts again where it stood. The common cases:
``test_outage_credit.py``."""

from __future__ import annotations

import dataclasses
import json
import logging
import random
from pathlib import Path
from typing import Any

import pytest

from bot.core import outage, timebank
from bot.core.config import Settings
from bot.core.outbound import Outbound
from bot.service import Service
from bot.store import DamagedTable, StoreDown
from bot.tournaments import credit as cup_credit
from bot.tournaments import cup as cups
from tests.bot.backends import store_at
from tests.bot.core.test_outage_credit import (
    HOUR,
    MINUTE,
    TOLD_HOUR,
    live,
    service_at,
    told,
    two_at,
)
from tests.bot.core.test_table_life import damage_row
from tests.bot.helpers import START, Clock, Room
from tests.bot.tournaments.test_tournaments import Cup, new_cup

both = pytest.mark.usefixtures("backend")

DAY = 86400.0


def chats_told(outs: list[Outbound]) -> list[tuple[str, str]]:
    return [(o.chat, o.text) for o in outs if "every clock got that time back" in o.text]


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


# --- a takeback ----------------------------------------------------------------------------


@both
def test_a_takeback_after_an_outage_gives_the_turn_back_without_the_gap(tmp_path: Path) -> None:
    """Clock 1h+1m. Ada thinks 10 minutes and places (3600 - 600 + 60 = 3060 left), asks
    to take it back at 11 minutes; the bot is away from 12 minutes for an hour; Bob accepts
    at 1 h 13 min. Her turn comes back with its clock as it began, moved on by the hour:
    begun at 1 h, her whole bank of 3600 s, of which 13 minutes are used (47 left)."""
    clock = Clock()
    room = two_at(tmp_path / "t.db", clock, "clock 1h+1m")
    live(room.service, clock, 10 * MINUTE)
    room.play_turn(random.Random(1))
    assert room.table().banks == [3060.0, 3600.0]
    live(room.service, clock, MINUTE)
    room.ok("Ada", "/undo")
    live(room.service, clock, MINUTE)
    clock.advance(HOUR)
    assert told(room.due(clock.now)) == [TOLD_HOUR]
    clock.advance(MINUTE)
    room.ok("Bob", "/undo yes")
    t = room.table()
    assert room.to_move() == "Ada" and room.game().moves == []
    assert t.banks == [3600.0, 3600.0]
    assert (t.turn_started, t.deadline) == (START + HOUR, START + 2 * HOUR)
    assert t.out_of_time is None
    assert timebank.left(t, 0, clock.now, to_move=True) == 47 * MINUTE


# --- damaged and broken tables ---------------------------------------------------------------


def test_damaged_tables_get_nothing_and_stop_no_other(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Three tables with a day per turn: one row no longer JSON, one whose record no longer
    replays, one sound. After an hour away only the sound one gets the hour back and is
    told; nothing is logged as an error (a damaged table is said so where it is used)."""
    clock = Clock()
    db = tmp_path / "t.db"
    rooms = [two_at(db, clock, "timeout 24h")]
    for chat in ("chat-2", "chat-3"):
        room = Room(rooms[0].service, chat, "Kitchen")
        room.ok("Cy", "/join")
        room.ok("Di", "/join")
        room.ok("Cy", "/option timeout 24h")
        room.ok("Cy", "/start")
        rooms.append(room)
    live(rooms[0].service, clock, MINUTE)
    damage_row(db, "chat-1", "{not json", START + HOUR)
    data = rooms[1].table().to_dict()
    data["record"]["moves"] = ["RG A1 A2"]  # A1 holds a start symbol: illegal
    damage_row(db, "chat-2", json.dumps(data), START + HOUR)
    rooms[0].service._games.clear()  # as after a restart
    clock.advance(HOUR)
    caplog.set_level(logging.WARNING)
    out = rooms[0].service.due()
    assert chats_told(out) == [("chat-3", TOLD_HOUR)]
    assert rooms[2].table().deadline == START + DAY + HOUR
    with pytest.raises(DamagedTable):
        rooms[0].service.store.load("chat-1")
    stored = rooms[0].service.store.load("chat-2")
    assert stored is not None and stored.credited is None and stored.deadline == START + DAY
    assert errors(caplog) == []


@both
def test_a_table_that_fails_keeps_no_other_from_its_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Reading chat-1 fails with a fault of the bot (not of the store) during the credit:
    chat-2 still gets its hour back and is told; the fault is logged once."""
    clock = Clock()
    db = tmp_path / "t.db"
    first = two_at(db, clock, "timeout 24h")
    second = Room(first.service, "chat-2", "Kitchen")
    second.ok("Cy", "/join")
    second.ok("Di", "/join")
    second.ok("Cy", "/option timeout 24h")
    second.ok("Cy", "/start")
    live(first.service, clock, MINUTE)
    clock.advance(HOUR)
    store = first.service.store
    real = store.load_seated

    def broken(chat: str, *args: Any) -> Any:
        if chat == "chat-1":
            raise RuntimeError("a fault of the bot")
        return real(chat, *args)

    monkeypatch.setattr(store, "load_seated", broken)
    caplog.set_level(logging.WARNING)
    out = first.service.due()
    monkeypatch.undo()
    assert chats_told(out) == [("chat-2", TOLD_HOUR)]
    assert second.table().deadline == START + DAY + HOUR
    assert errors(caplog) == ["the outage credit of table chat-1 failed"]


@both
def test_a_store_lost_while_crediting_gives_the_rest_at_the_next_look_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store goes away after chat-1 got its hour back, before chat-2 did: no due pass
    then (the turn's clocks of both wait); once it answers, chat-2 gets the hour and chat-1
    is not given it twice."""
    clock = Clock()
    db = tmp_path / "t.db"
    first = two_at(db, clock, "timeout 24h")
    second = Room(first.service, "chat-2", "Kitchen")
    second.ok("Cy", "/join")
    second.ok("Di", "/join")
    second.ok("Cy", "/option timeout 48h")  # due after chat-1: credited second
    second.ok("Cy", "/start")
    live(first.service, clock, MINUTE)
    clock.advance(HOUR)
    store = first.service.store
    real = store.load_seated

    def away(chat: str, *args: Any) -> Any:
        if chat == "chat-2":
            raise StoreDown("the server is away")
        return real(chat, *args)

    monkeypatch.setattr(store, "load_seated", away)
    assert first.service.due() == []
    assert first.table().deadline == START + DAY + HOUR
    assert second.table().deadline == START + 2 * DAY
    monkeypatch.undo()
    clock.advance(MINUTE)
    out = first.service.due()
    assert chats_told(out) == [("chat-2", TOLD_HOUR)]
    assert first.table().deadline == START + DAY + HOUR
    assert second.table().deadline == START + 2 * DAY + HOUR
    # chat-1's line was stored with its hour: it waits in the outbox, once.
    waiting = first.service.waiting("chat-1")
    assert chats_told(waiting) == [("chat-1", TOLD_HOUR)]


@both
def test_a_table_that_keeps_changing_is_given_up_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Every save of the credit loses the race (another process changed the table each
    time): after three tries the table is left as the other process made it, not told,
    and the operator is warned."""
    clock = Clock()
    room = two_at(tmp_path / "t.db", clock, "timeout 24h")
    live(room.service, clock, MINUTE)
    clock.advance(HOUR)
    saves: list[str] = []

    def lost_race(ctx: Any) -> bool:
        saves.append(ctx.table.chat)
        return False

    monkeypatch.setattr(room.service, "save", lost_race)
    caplog.set_level(logging.WARNING)
    assert chats_told(room.service.due()) == []
    monkeypatch.undo()
    assert saves == ["chat-1"] * outage.TRIES
    assert room.table().deadline == START + DAY
    assert "table chat-1 kept changing: its clocks did not get the outage back" in [
        r.getMessage() for r in caplog.records
    ]


@both
def test_a_bot_started_while_its_store_is_away_gives_the_time_back_once_it_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The bot was down from 1 minute (its last heartbeat) and comes back after an hour
    while the store does not answer for the heartbeat: it starts, answers a command a
    minute later, and once the store answers (a minute after that) gives every clock the
    time since the last heartbeat back: 3720 s, 1h 2m."""
    clock = Clock()
    db = tmp_path / "t.db"
    room = two_at(db, clock, "timeout 24h")
    live(room.service, clock, MINUTE)
    room.service.store.close()
    clock.advance(HOUR)
    store = store_at(db)

    def away(*args: Any, **kwargs: Any) -> Any:
        raise StoreDown("the server is away")

    for name in ("note", "set_note", "swap_note"):
        monkeypatch.setattr(store, name, away)
    caplog.set_level(logging.WARNING)
    service = Service(
        store, Settings(), clock=clock, rng=random.Random(2), pictures=False, heartbeat=True
    )
    back = Room(service, room.chat.id, room.chat.title)
    back.people = room.people
    clock.advance(MINUTE)
    (board, *_) = back.ok("Ada", "/board")
    assert board.kind == "turn"
    waits = [r.getMessage() for r in caplog.records if r.getMessage().startswith("the heartbeat")]
    assert waits == ["the heartbeat waits: the server is away"] * 2  # at its start, at /board
    assert back.table().deadline == START + DAY
    monkeypatch.undo()
    clock.advance(MINUTE)
    out = service.due()
    assert chats_told(out) == [
        ("chat-1", "The bot was away for 1h 2m; every clock got that time back.")
    ]
    assert back.table().deadline == START + DAY + HOUR + 2 * MINUTE
    assert errors(caplog) == []


# --- a concern's own clock -------------------------------------------------------------------


def without_cups(service: Any, own: Any) -> list[Any]:
    """The service's concerns with the tournaments' own credit replaced by ``own``."""
    return [
        dataclasses.replace(c, credit_own=own) if c.credit_own is not None else c
        for c in service.concerns
    ]


@both
def test_a_broken_tournament_clock_keeps_no_table_from_its_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    room = two_at(tmp_path / "t.db", clock, "timeout 24h")
    live(room.service, clock, MINUTE)
    clock.advance(HOUR)

    def broken(*args: Any) -> list[str]:
        raise RuntimeError("a fault of the bot")

    monkeypatch.setattr(room.service, "concerns", without_cups(room.service, broken))
    caplog.set_level(logging.WARNING)
    out = room.service.due()
    assert chats_told(out) == [("chat-1", TOLD_HOUR)]
    assert room.table().deadline == START + DAY + HOUR
    assert errors(caplog) == ["the outage credit of tournaments failed"]


@both
def test_a_store_away_during_the_tournaments_credit_waits_for_the_next_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock()
    room = two_at(tmp_path / "t.db", clock, "timeout 24h")
    live(room.service, clock, MINUTE)
    clock.advance(HOUR)
    real = room.service.concerns

    def away(*args: Any) -> list[str]:
        raise StoreDown("the server is away")

    monkeypatch.setattr(room.service, "concerns", without_cups(room.service, away))
    assert room.service.due() == []
    assert room.table().deadline == START + DAY
    monkeypatch.setattr(room.service, "concerns", real)
    clock.advance(MINUTE)
    assert chats_told(room.service.due()) == [("chat-1", TOLD_HOUR)]
    assert room.table().deadline == START + DAY + HOUR


# --- a tournament's round --------------------------------------------------------------------


def cup_of_two(tmp_path: Path, people: list[str] | None = None) -> tuple[Cup, str, str]:
    """A swiss tournament of two rounds with a day each, its first round started at START:
    the cup, its id, and the chat of the round's one table."""
    clock = Clock()
    cup = Cup(service_at(tmp_path / "t.db", clock), clock)
    tid = new_cup(cup, "swiss 2 rounds 2 players 1d", people or ["Ann", "Bob"])
    cup.ok("Ann", "/tournament start")
    r = cup.round(tid)
    assert r["deadline"] == START + DAY
    (pairing,) = r["pairings"]
    return cup, tid, str(pairing["chat"])


@both
def test_a_round_credited_before_is_not_moved_twice(tmp_path: Path) -> None:
    """A process killed after the round got the outage back, before its tables did: the
    next one credits the same outage and finds the round done (its table still told)."""
    cup, tid, table = cup_of_two(tmp_path)
    since, until = START + MINUTE, START + MINUTE + HOUR
    assert cup_credit.credit_own(cup.service, since, until) == [table]
    assert cup.round(tid)["deadline"] == START + DAY + HOUR
    assert cup_credit.credit_own(cup.service, since, until) == [table]
    assert cup.round(tid)["deadline"] == START + DAY + HOUR
    assert cup.data(tid)["due_at"] == START + DAY + HOUR


@both
def test_a_round_over_before_the_outage_gets_nothing(tmp_path: Path) -> None:
    """The round's deadline (a day) had passed when the bot went away: the round ends as
    it would have, and nothing is told."""
    cup, tid, _ = cup_of_two(tmp_path)
    since = START + DAY + MINUTE
    assert cup_credit.credit_own(cup.service, since, since + HOUR) == []
    assert cup.round(tid)["deadline"] == START + DAY


@both
def test_a_round_that_keeps_changing_is_given_up_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    cup, tid, _ = cup_of_two(tmp_path)
    tries: list[str] = []

    def lost_race(tables: Any, c: Any, *args: Any) -> bool:
        tries.append(c.id)
        return False

    monkeypatch.setattr(cup_credit, "_store", lost_race)
    caplog.set_level(logging.WARNING)
    assert cup_credit.credit_own(cup.service, START + MINUTE, START + MINUTE + HOUR) == []
    assert tries == [tid] * cup_credit.TRIES
    assert cup.round(tid)["deadline"] == START + DAY
    assert [r.getMessage() for r in caplog.records] == [
        f"tournament {tid} kept changing: its round did not get the outage back"
    ]


@both
def test_a_damaged_tournament_keeps_no_other_from_its_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cup, first, _ = cup_of_two(tmp_path)
    second = new_cup(cup, "swiss 2 rounds 2 players 1d", ["Cid", "Dee"])
    cup.ok("Ann", f"/tournament start {second}")
    (pairing,) = cup.round(second)["pairings"]
    real = cups._load

    def damaged(tables: Any, tid: str) -> Any:
        if tid == first:
            raise DamagedTable(tid, 0, "not a tournament")
        return real(tables, tid)

    monkeypatch.setattr(cup_credit, "_load", damaged)
    since = START + MINUTE
    assert cup_credit.credit_own(cup.service, since, since + HOUR) == [pairing["chat"]]
    assert cup.round(second)["deadline"] == START + DAY + HOUR
    assert cup.round(first)["deadline"] == START + DAY
