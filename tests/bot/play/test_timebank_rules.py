"""The time banks' arithmetic (bot/core/timebank.py) on tables made by hand, each value
worked out from the rules the README and ``/rules`` give: a bank is charged the turn's
time when the turn ends, then topped up by the increment, never above its start; a clock
of up to three hours is live (one sitting), a longer one by message; the vote's grace is
the table's, else one increment, at least two minutes on a live clock."""

from __future__ import annotations

from typing import Any

from bot.core import timebank
from bot.core.table import Options, Seat, Table


def table(bank: int = 0, increment: int = 0, seats: int = 2, **options: Any) -> Table:
    t = Table(
        "c",
        seats=[Seat(f"P{i}", user=f"u{i}") for i in range(seats)],
        options=Options(clock_bank=bank, clock_increment=increment, **options),
        record={"moves": []},
    )
    timebank.begin(t)
    return t


def test_a_new_game_fills_every_bank_and_starts_the_records_clock() -> None:
    t = table(3600, 60, seats=3)  # 1h+1m
    assert t.banks == [3600.0, 3600.0, 3600.0]
    assert t.record is not None
    assert t.record["clock"] == {"bank": 3600, "increment": 60, "turns": []}
    # Without a clock: no banks, and the record still keeps each turn's time.
    plain = table()
    assert plain.banks == []
    assert plain.record is not None
    assert plain.record["clock"] == {"bank": 0, "increment": 0, "turns": []}


def test_a_turn_is_charged_then_topped_up_never_above_the_start() -> None:
    t = table(3600, 60)  # 1h+1m
    t.turn_started = 1000.0
    timebank.charge(t, 0, 1600.0, moves=1, computer=False)  # a 10-minute turn
    assert t.banks == [3060.0, 3600.0]  # 3600 - 600 + 60
    t.turn_started = 1600.0
    timebank.charge(t, 1, 1630.0, moves=2, computer=False)  # 30 s: 3600 - 30 + 60 > 3600
    assert t.banks == [3060.0, 3600.0]
    t.turn_started = 1630.0
    timebank.charge(t, 0, 1630.0 + 5000, moves=3, computer=False)  # more than the bank
    assert t.banks == [60.0, 3600.0]  # nothing left, then the increment
    assert t.record is not None
    assert t.record["clock"]["turns"] == [
        {"seat": 0, "moves": 1, "used": 600.0, "left": 3060.0},
        {"seat": 1, "moves": 2, "used": 30.0, "left": 3600.0},
        {"seat": 0, "moves": 3, "used": 5000.0, "left": 60.0},
    ]


def test_a_computers_turn_is_recorded_and_charges_no_bank() -> None:
    t = table(600, 5)  # 10m+5s
    t.turn_started = 50.0
    timebank.charge(t, 1, 52.25, moves=4, computer=True)
    assert t.banks == [600.0, 600.0]
    assert t.record is not None
    assert t.record["clock"]["turns"] == [{"seat": 1, "moves": 4, "used": 2.25, "computer": True}]


def test_a_turn_without_a_start_took_no_time_and_times_are_rounded_to_milliseconds() -> None:
    t = table()
    timebank.charge(t, 0, 99.0, moves=1, computer=False)
    t.turn_started = 1.0
    timebank.charge(t, 1, 1.0 + 1 / 3, moves=2, computer=False)
    t.turn_started = 10.0
    timebank.charge(t, 0, 9.0, moves=3, computer=False)  # a start in the future: no time
    assert t.banks == []
    assert t.record is not None
    assert t.record["clock"]["turns"] == [
        {"seat": 0, "moves": 1, "used": 0.0},
        {"seat": 1, "moves": 2, "used": 0.333},
        {"seat": 0, "moves": 3, "used": 0.0},
    ]


def test_a_record_without_its_clock_is_charged_in_the_banks_only() -> None:
    t = table(600, 10)
    assert t.record is not None
    del t.record["clock"]
    t.turn_started = 0.0
    timebank.charge(t, 0, 100.0, moves=1, computer=False)
    assert t.banks == [510.0, 600.0]
    assert "clock" not in t.record
    t.record = None
    timebank.charge(t, 1, 200.0, moves=2, computer=False)  # from 0 again: 200 s
    assert t.banks == [510.0, 410.0]


def test_a_takeback_keeps_the_turns_up_to_its_move() -> None:
    t = table(600, 0)
    for moves in (1, 2, 3):
        timebank.charge(t, moves % 2, 0.0, moves=moves, computer=False)
    assert t.record is not None
    t.record["clock"]["turns"].append({"seat": 0, "used": 1.0})  # an old turn, no count
    timebank.truncate(t, 2)  # back to the position after the second move
    assert [turn.get("moves") for turn in t.record["clock"]["turns"]] == [1, 2, None]


def test_a_clock_of_three_hours_is_live_and_a_longer_one_by_message() -> None:
    assert timebank.live(table(3 * 3600, 60))
    assert not timebank.live(table(3 * 3600 + 1, 60))
    assert timebank.live(table(1, 0))
    assert not timebank.live(table())
    assert timebank.clocked(table(1, 0))
    assert not timebank.clocked(table())


def test_the_grace_of_a_vote() -> None:
    assert timebank.grace(table(600, 5)) == 120.0  # live: at least two minutes
    assert timebank.grace(table(600, 300)) == 300.0  # live, an increment above two minutes
    assert timebank.grace(table(3 * 86400, 86400)) == 86400.0  # by message: one increment
    assert timebank.grace(table(3 * 86400, 60)) == 60.0  # by message, under two minutes
    assert timebank.grace(table()) == 0.0  # no clock: no vote
    assert timebank.grace(table(600, 5, grace=30)) == 30.0  # as the table set it
    assert timebank.grace(table(600, 5, grace=0)) == 0.0
    assert timebank.grace(table(grace=45)) == 45.0


def test_the_time_a_seat_has_for_its_turn() -> None:
    t = table(600, 5)
    t.banks = [300.0, 200.0]
    assert timebank.span(t, 1) == 200.0
    assert timebank.span(t, 2) is None  # no bank for that seat, no turn limit
    assert timebank.span(table(timeout=3600), 0) == 3600.0
    assert timebank.span(table(), 0) is None


def test_the_time_left_while_a_turn_runs() -> None:
    t = table(600, 5)
    t.banks = [300.0, 200.0]
    t.turn_started = 100.0
    assert timebank.left(t, 0, 150.0, to_move=True) == 250.0
    assert timebank.left(t, 0, 150.0, to_move=False) == 300.0  # not its turn
    assert timebank.left(t, 1, 1000.0, to_move=True) == 0.0  # never below zero
    assert timebank.left(t, 0, 50.0, to_move=True) == 300.0  # a turn that starts later
    assert timebank.left(t, 2, 150.0, to_move=True) is None
    assert timebank.left(table(), 0, 150.0, to_move=True) is None
    t.turn_started = None
    assert timebank.left(t, 0, 150.0, to_move=True) == 300.0
    t.turn_started = 100.0
    t.out_of_time = {"seat": 0}
    assert timebank.left(t, 0, 150.0, to_move=True) == 0.0
    assert timebank.left(t, 0, 150.0, to_move=False) == 300.0
    assert timebank.left(t, 1, 150.0, to_move=True) == 150.0


def test_the_time_left_of_a_turn_as_every_place_shows_it() -> None:
    t = table(timeout=600)
    t.turn_started = 100.0
    assert timebank.turn_left(t, 0, 400.0) == 300.0
    assert timebank.turn_left(t, 0, 800.0) == 0.0
    assert timebank.turn_left(t, 0, 50.0) == 600.0
    t.turn_started = None
    assert timebank.turn_left(t, 0, 400.0) == 600.0
    t.turn_started = 100.0
    t.out_of_time = {"seat": 0}
    assert timebank.turn_left(t, 0, 400.0) == 0.0
    assert timebank.turn_left(t, 1, 400.0) == 300.0
    assert timebank.turn_left(table(), 0, 400.0) is None
    banked = table(600, 5)
    banked.banks = [90.0, 600.0]
    banked.turn_started = 0.0
    assert timebank.turn_left(banked, 0, 30.0) == 60.0


def test_a_player_out_of_time_is_the_one_named() -> None:
    t = table(600, 5)
    assert not timebank.out_of_time(t, 0)
    t.out_of_time = {"seat": 1}
    assert timebank.out_of_time(t, 1)
    assert not timebank.out_of_time(t, 0)


def test_the_times_a_person_played_themselves() -> None:
    record = {
        "clock": {
            "turns": [
                {"seat": 0, "used": 10},
                {"seat": 1, "used": 20.5},
                {"seat": 0, "used": 3.0, "computer": True},  # a computer played for them
                {"seat": 2, "used": 7.0},
                {"seat": 0, "used": "long"},
                "damaged",
                {"seat": 2, "used": 1.5},
            ]
        }
    }
    assert timebank.person_times(record, [0, 2]) == [10.0, 7.0, 1.5]
    assert timebank.person_times(record, []) == []
    assert timebank.person_times({}, [0]) == []
    assert timebank.person_times({"clock": {"turns": "none"}}, [0]) == []
    assert timebank.person_times({"clock": []}, [0]) == []


def test_a_vacation_runs_from_its_start_until_before_its_end() -> None:
    assert timebank.away_by("100:200", 100.0) == 200.0
    assert timebank.away_by("100:200", 199.5) == 200.0
    assert timebank.away_by("100:200", 200.0) is None
    assert timebank.away_by("100:200", 99.0) is None
    assert timebank.away_by("100.5:200.5", 150.0) == 200.5
    assert timebank.away_by("", 150.0) is None
    assert timebank.away_by(None, 150.0) is None
    assert timebank.away_by("soon:200", 150.0) is None
    assert timebank.away_by("100", 150.0) is None
