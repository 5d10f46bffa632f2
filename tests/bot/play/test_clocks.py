"""Time banks (``/option clock``), a player out of time and the others' vote, vacations:
with the service's injected clock, on both store backends, across restarts.

Every bank below is worked out by hand from the rule: a turn's time comes off the bank,
then the increment goes on, never above the bank's start.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from bot.core.commands import CommandError
from bot.core.deadlines import deadline
from bot.core.durations import format_clock, parse_clock
from engine.record import Record, replay
from tests.bot.helpers import START, Clock, Room, make_service

#: Every test here runs on SQLite and on PostgreSQL (tests/bot/conftest.py).
pytestmark = pytest.mark.usefixtures("backend")

DAY = 86400.0
HOUR = 3600.0


def clocked_room(db: Path, clock: Clock, people: tuple[str, ...], option: str) -> Room:
    room = Room(make_service(db, clock=clock))
    for name in people:
        room.ok(name, "/join")
    room.ok(people[0], f"/option clock {option}")
    room.ok(people[0], "/start")
    return room


def test_clock_texts_read_back() -> None:
    assert parse_clock("3d+1d") == (3 * 86400, 86400)
    assert parse_clock("10m+5s") == (600, 5)
    assert parse_clock("10+5") == (600, 5)  # minutes in the bank, seconds a move
    assert parse_clock("off") == (0, 0)
    assert format_clock(3 * 86400, 86400) == "3d+1d"
    assert format_clock(600, 5) == "10m+5s"
    for bad in ("3d", "1d+2d", "30s+1s", "31d+1d", "x+y"):
        with pytest.raises(CommandError):
            parse_clock(bad)


def test_a_bad_clock_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    text = room.error("Ada", "/option clock 1d+2d")
    assert text.startswith("1d+2d is no time bank: use BANK+MORE")


def test_a_three_day_bank_runs_out_across_restarts(tmp_path: Path) -> None:
    clock = Clock()
    db = tmp_path / "t.db"
    room = clocked_room(db, clock, ("Ada", "Bob"), "3d+1d")
    t = room.table()
    assert t.banks == [3 * DAY, 3 * DAY]
    assert t.deadline == START + 3 * DAY and deadline(t) == START + 3 * DAY
    (turn,) = [o for o in room.log if o.kind == "turn"]
    assert "Time left: Ada 3d · Bob 3d" in turn.text.splitlines()
    # Ada plays after a day: 3d - 1d + 1d = 3d (never above the start).
    clock.now = START + DAY
    room.play_turn(random.Random(1))
    assert room.table().banks == [3 * DAY, 3 * DAY]
    # A restart; Bob plays after 2.5 days: 3d - 2.5d + 1d = 1.5d.
    room.service.store.close()
    room = Room(make_service(db, clock=clock, seed=9), room.chat.id, room.chat.title)
    room.people = {n: room.person(n) for n in ("Ada", "Bob")}
    clock.now = START + DAY + 2.5 * DAY
    room.play_turn(random.Random(2))
    t = room.table()
    assert t.banks == [3 * DAY, 1.5 * DAY]
    turn_ends = START + 3.5 * DAY
    assert t.deadline == turn_ends + 3 * DAY
    # Half of Ada's bank: the reminder, naming the time left (1.5 days).
    (reminder,) = room.due(turn_ends + 1.5 * DAY)
    assert reminder.text.startswith("Ada, it is your turn at Test room: 1d 12h left")
    # Another restart; Ada's bank runs out: the table is told once, Bob may vote.
    room.service.store.close()
    room = Room(make_service(db, clock=clock, seed=10), room.chat.id, room.chat.title)
    room.people = {n: room.person(n) for n in ("Ada", "Bob")}
    assert room.due(turn_ends + 3 * DAY - 1) == []
    (told,) = room.due(turn_ends + 3 * DAY)
    assert told.text.startswith("Ada is out of time. The others may vote: /skip")
    assert "Without a majority within 1d, a computer player moves." in told.text
    assert told.mentions == ("id-bob",)
    assert reminder.kind == told.kind == "reminder"  # the clock's two notices to the table
    assert [b.command.split(" #")[0] for b in told.buttons] == ["/skip", "/expel", "/wait"]
    assert room.due(turn_ends + 3 * DAY + 60) == []  # once only
    # Nobody votes within the grace period (one increment): a computer moves for Ada.
    moves = len(room.game().moves)
    out = room.due(turn_ends + 4 * DAY)
    (turn,) = [o for o in out if o.kind == "turn"]
    assert turn.text.startswith("Time is up for Ada: a computer player makes this turn")
    t = room.table()
    assert len(room.game().moves) > moves
    assert t.seats[0].user == "id-ada" and not t.seats[0].left
    # Ada's bank: nothing left, then the increment: one day for her next turn.
    assert t.banks == [DAY, 1.5 * DAY]
    assert t.out_of_time is None


def out_of_time_room(db: Path, clock: Clock, people: tuple[str, ...]) -> Room:
    """A table whose first player (Ada) just ran out of a 1h+10m bank."""
    room = clocked_room(db, clock, people, "1h+10m")
    clock.now = START + HOUR
    room.due(clock.now)
    assert room.table().out_of_time is not None
    return room


def test_a_vote_to_skip(tmp_path: Path) -> None:
    clock = Clock()
    room = out_of_time_room(tmp_path / "t.db", clock, ("Ada", "Bob", "Cy"))
    # Ada herself has no vote: she plays instead.
    assert room.error("Ada", "/skip").startswith("It is your own time that ran out")
    # One of two votes is no majority: nothing happens yet.
    out = room.ok("Bob", "/skip")
    assert out[0].text.splitlines() == [
        "Bob votes: skip this move.",
        "1 of 2 has voted; a majority decides.",  # issue 44, item 31
    ]
    assert len(room.game().moves) == 0
    out = room.ok("Cy", "/skip")
    assert "The table decided: a computer player makes this move for Ada." in out[0].text
    t = room.table()
    game = room.game()
    assert game.to_move == 1 and len(game.moves) >= 1  # Ada's turn was played for her
    assert t.seats[0].user == "id-ada" and not t.seats[0].left
    assert t.out_of_time is None
    assert t.banks[0] == 600.0  # nothing left, then the increment


def test_a_vote_to_expel(tmp_path: Path) -> None:
    clock = Clock()
    room = out_of_time_room(tmp_path / "t.db", clock, ("Ada", "Bob"))
    out = room.ok("Bob", "/expel")
    assert "a computer player takes Ada's seat for the rest of the game" in out[0].text
    t = room.table()
    assert t.seats[0].left and t.seats[0].left_user == "id-ada" and t.seats[0].computer
    assert room.game().to_move == 1  # the computer made Ada's move at once
    # The game goes on to its end; the expelled player is placed as a leaver is.
    room.play_out(random.Random(4))
    row = room.service.store.archived(room.chat.id)[-1]
    assert row["seats"][0]["left_user"] == "id-ada"


def test_a_vote_to_wait_and_the_player_comes_back(tmp_path: Path) -> None:
    clock = Clock()
    room = out_of_time_room(tmp_path / "t.db", clock, ("Ada", "Bob"))
    room.ok("Bob", "/wait")
    t = room.table()
    assert t.out_of_time is not None and t.out_of_time["decided"] == "wait"
    assert t.due_at is None
    assert room.due(START + 30 * DAY) == []  # the table waits, however long
    clock.now = START + 2 * DAY
    room.play_turn(random.Random(3))
    t = room.table()
    assert t.out_of_time is None
    assert t.banks == [600.0, HOUR]  # out of time: only the increment is left


def test_no_vote_and_a_player_back_in_time(tmp_path: Path) -> None:
    clock = Clock()
    room = out_of_time_room(tmp_path / "t.db", clock, ("Ada", "Bob"))
    # Ada comes back within the grace period (10 minutes) and plays on herself.
    clock.now = START + HOUR + 300
    out = room.play_turn(random.Random(5))
    assert not any(o.text.startswith("Time is up") for o in out)
    t = room.table()
    assert t.out_of_time is None and room.game().to_move == 1
    assert room.error("Bob", "/skip") == "Nobody is out of time here: there is nothing to vote on."


def test_a_solo_player_out_of_time_gets_no_vote(tmp_path: Path) -> None:
    # With no other person at the table nobody can vote: a computer moves at once.
    clock = Clock()
    room = Room(make_service(tmp_path / "t.db", clock=clock))
    room.ok("Ada", "/join")
    room.ok("Ada", "/addbot")
    room.ok("Ada", "/option clock 1h+10m")
    room.ok("Ada", "/start")
    out = room.due(START + HOUR)
    assert any(o.text.startswith("Time is up for Ada") for o in out)
    assert room.table().out_of_time is None


def test_export_carries_the_clock_and_replays(tmp_path: Path) -> None:
    clock = Clock()
    room = clocked_room(tmp_path / "t.db", clock, ("Ada", "Bob"), "10m+5s")
    clock.now = START + 65
    room.play_turn(random.Random(1))
    (export,) = [o for o in room.say("Ada", "/export") if o.kind == "export"]
    assert export.attachment is not None
    record = json.loads(export.attachment.data)
    # Ada used 65 s of her 600: 535 left, then 5 more.
    assert record["clock"] == {
        "bank": 600,
        "increment": 5,
        "turns": [{"seat": 0, "moves": 1, "used": 65.0, "left": 540.0}],
    }
    # The engine keeps the extension and still reads the record.
    parsed = Record.from_dict(record)
    assert parsed.clock == record["clock"] and parsed.moves == tuple(record["moves"])


def test_vacation_across_two_tables(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    one = Room(service, "chat-1", "One")
    two = Room(service, "chat-2", "Two")
    for room, first in ((one, "Ada"), (two, "Bob")):
        room.ok(first, "/join")
        room.ok("Bob" if first == "Ada" else "Ada", "/join")
        room.ok(first, "/option clock 3d+1d")
        room.ok(first, "/start")
    one.ok("Ada", "/notify on")
    assert one.game().to_move == 0 and two.table().seats[0].user == "id-bob"
    # A day into her turn at table one, Ada goes away for three days (in her own chat).
    clock.now = START + DAY
    dm = Room(service, "dm-ada", "")
    dm.people = one.people
    versions = (one.table().version, two.table().version)
    out = dm.ok("Ada", "/away 3d")
    assert (one.table().version, two.table().version) == (versions[0] + 1, versions[1] + 1)
    mine = [o for o in out if o.user == "id-ada"]
    assert (mine[0].chat, mine[0].kind) == ("dm-ada", "info")
    assert mine[0].text.startswith("Away for 3d: your clocks are paused")
    assert "Tables told: 2." in mine[0].text
    told = {o.chat: o.text for o in out if o.user is None}
    assert told == {
        "chat-1": "Ada is away for 3d: their clock is paused.",
        "chat-2": "Ada is away for 3d: their clock is paused.",
    }
    t = one.table()
    assert t.reminded is False  # her turn starts again when she is back: a new half-time
    back_at = START + 4 * DAY
    # Table one: the day she used is off her bank, the rest waits for her return.
    assert t.banks[0] == 2 * DAY and t.turn_started == back_at
    assert t.deadline == back_at + 2 * DAY
    # Table two: Bob moves; Ada's turn starts only when she is back, and no ping.
    out = two.play_turn(random.Random(2))
    assert not [o for o in out if o.kind == "ping"]
    t2 = two.table()
    assert t2.turn_started == back_at and t2.deadline == back_at + 3 * DAY
    # Nothing is due for her while she is away (not even a reminder).
    assert one.due(back_at - 1) == [] and two.due(back_at - 1) == []
    # She comes back after two days: both her clocks run from now.
    clock.now = START + 3 * DAY
    out = dm.ok("Ada", "/back")
    (welcome,) = [o for o in out if o.user == "id-ada"]
    assert (welcome.chat, welcome.kind) == ("dm-ada", "info")
    assert welcome.text == "Welcome back: your clocks run again. Tables told: 2."
    assert {o.chat: o.text for o in out if o.user is None} == {
        "chat-1": "Ada is back: their clock runs again.",
        "chat-2": "Ada is back: their clock runs again.",
    }
    assert one.table().turn_started == clock.now
    assert one.table().deadline == clock.now + 2 * DAY
    assert two.table().deadline == clock.now + 3 * DAY
    assert dm.error("Ada", "/back") == "You are not away."
    # The ping held back for her turn at table two comes now that she is back, once.
    (ping,) = [o for o in two.due(clock.now) if o.kind == "ping"]
    assert ping.user == "id-ada" and ping.text == "Your turn at Two (Genial)."
    assert [o for o in two.due(clock.now + DAY) if o.kind == "ping"] == []


def test_vacation_has_a_limit_a_month(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/away 10d")
    room.ok("Ada", "/back")  # back at once: the ten days are not taken
    room.ok("Ada", "/away 14d")
    room.ok("Ada", "/back")
    out = room.say("Ada", "/away 15d")
    assert out[0].kind == "error"
    assert out[0].text.startswith("That is more vacation than this month allows (14 days")
    assert room.say("Ada", "/away 1m")[0].text.startswith("Say how long: /away 3d")


def test_vacation_days_not_taken_count_no_more(tmp_path: Path) -> None:
    """14 days a month (the default): ten days asked, back after four, so four are taken
    and ten are left; back again at once from a second vacation: nothing more taken."""
    clock = Clock()
    room = Room(make_service(tmp_path / "t.db", clock=clock))
    room.ok("Ada", "/away 10d")
    assert room.error("Ada", "/away 1d") == (
        "You are away already: /back ends it, then /away starts a new one."
    )
    clock.now = START + 4 * DAY  # 2023-11-18, the month START is in
    room.ok("Ada", "/back")
    out = room.say("Ada", "/away 11d")
    assert out[0].kind == "error"
    assert out[0].text.startswith("That is more vacation than this month allows (14 days")
    assert "10d left" in out[0].text
    room.ok("Ada", "/away 10d")
    room.ok("Ada", "/back")
    assert "10d left" in room.say("Ada", "/away 11d")[0].text


def test_seconds_of_a_vacation_count_and_a_month_used_up_leaves_0d(tmp_path: Path) -> None:
    """Back ten seconds after going away for 14 days: those ten seconds are taken, so 14
    days more are too many (13d 23h 59m 50s left, told in its two largest units); 14 days
    away to their end leave nothing (0d)."""
    clock = Clock()
    room = Room(make_service(tmp_path / "t.db", clock=clock))
    room.ok("Ada", "/away 14d")
    clock.now = START + 10
    room.ok("Ada", "/back")
    out = room.say("Ada", "/away 14d")
    assert out[0].text == (
        "That is more vacation than this month allows (14 days a month; 13d 23h left)."
    )
    # Bob: 14 days away to their end, the month's days all taken.
    clock.now = START
    room.ok("Bob", "/away 14d")
    clock.now = START + 14 * DAY  # 2023-11-28: the vacation is over
    assert room.say("Bob", "/away 1h")[0].text == (
        "That is more vacation than this month allows (14 days a month; 0d left)."
    )


def test_a_vacation_into_the_next_month_leaves_that_months_days_whole(tmp_path: Path) -> None:
    """Ten days from 2023-11-25, back on 2023-12-01: November's count says nothing of
    December, which still has its fourteen days."""
    clock = Clock()
    room = Room(make_service(tmp_path / "t.db", clock=clock))
    clock.now = START + 11 * DAY  # 2023-11-25
    room.ok("Ada", "/away 10d")
    clock.now = START + 17 * DAY  # 2023-12-01
    room.ok("Ada", "/back")
    room.ok("Ada", "/away 14d")


def test_games_lists_the_longest_waiting_first(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    rooms = [Room(service, f"chat-{n}", f"Table {n}") for n in (1, 2, 3)]
    for n, room in enumerate(rooms):
        clock.now = START + n * HOUR
        room.ok("Ada", "/join")
        room.ok("Bob", "/join")
        room.ok("Ada", "/start")
    # Table 2: Ada moves, so Bob is to move there (not a game waiting for Ada).
    rooms[1].play_turn(random.Random(1))
    clock.now = START + 10 * HOUR
    listing = rooms[0].ok("Ada", "/games")[0]
    assert listing.tables == ("chat-1", "chat-3", "chat-2")


def test_replayed_record_after_the_clock_game_ends(tmp_path: Path) -> None:
    clock = Clock()
    room = clocked_room(tmp_path / "t.db", clock, ("Ada", "Bob"), "10m+5s")
    room.play_out(random.Random(6))
    row = room.service.store.archived(room.chat.id)[-1]
    record = Record.from_dict(row["record"])
    assert record.clock is not None
    turns = record.clock["turns"]
    assert len(turns) >= len(record.moves) // 3  # one entry a turn, not a move
    assert replay(record).over


def test_stats_tell_my_median_time_per_move_by_message(tmp_path: Path) -> None:
    clock = Clock()
    room = clocked_room(tmp_path / "t.db", clock, ("Ada", "Bob"), "3d+1d")
    rng = random.Random(8)
    last, ada_turns = "", 0
    while room.playing():
        mover = room.to_move()
        if mover != last:  # a new turn (bonus placements and swaps stay in one)
            if mover == "Ada":
                ada_turns += 1
                clock.advance(10 * HOUR if ada_turns == 1 else HOUR)
            else:
                clock.advance(300)
            last = mover
        room.play_turn(rng)
    (answer,) = room.ok("Ada", "/stats")
    # One turn of ten hours, every other of one hour: the median is an hour.
    line = f"Median time per move by message: 1h ({ada_turns} moves)."
    assert line in answer.text.splitlines()
    (bob,) = room.ok("Ada", "/stats Bob")
    assert "Median time per move by message: 5m (" in bob.text


def test_a_live_game_is_no_game_by_message(tmp_path: Path) -> None:
    clock = Clock()
    room = clocked_room(tmp_path / "t.db", clock, ("Ada", "Bob"), "10m+5s")
    rng = random.Random(8)
    while room.playing():
        clock.advance(20)
        room.play_turn(rng)
    (answer,) = room.ok("Ada", "/stats")
    assert "Median time per move" not in answer.text


def test_a_time_per_turn_with_a_grace_period_asks_the_table_too(tmp_path: Path) -> None:
    clock = Clock()
    room = Room(make_service(tmp_path / "t.db", clock=clock))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/option timeout 1h")
    room.ok("Ada", "/option grace 30m")
    room.ok("Ada", "/start")
    room.due(START + HOUR / 2)  # the reminder at half time
    (told,) = room.due(START + HOUR)
    assert "Without a majority within 30m, a computer player moves." in told.text
    assert room.due(START + HOUR + 30 * 60 - 1) == []
    out = room.due(START + HOUR + 30 * 60)
    assert any(o.text.startswith("Time is up for Ada") for o in out)


def test_the_options_offer_time_banks_as_buttons(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    (options,) = room.ok("Ada", "/option")
    clock = {b.label: b.command.split(" #")[0] for b in options.buttons if "bank" in b.label}
    assert clock == {
        "Time bank: 3d+1d": "/option clock 3d+1d",
        "Time bank: 10m+5s": "/option clock 10m+5s",
    }
    press = next(b.command for b in options.buttons if b.label == "Time bank: 3d+1d")
    (options,) = room.ok("Ada", press)
    assert "Time bank: 3d+1d" in options.text.splitlines()
    clock = {b.label for b in options.buttons if "bank" in b.label}
    assert clock == {"Time bank: 10m+5s", "No time bank"}
    (lobby,) = [o for o in room.ok("Bob", "/join") if o.kind == "lobby"]
    assert "Clock: 3d+1d (by message)" in lobby.text.splitlines()


def test_two_processes_on_one_store_share_the_banks(tmp_path: Path) -> None:
    clock = Clock()
    db = tmp_path / "t.db"
    first = clocked_room(db, clock, ("Ada", "Bob"), "1d+1h")
    second = Room(make_service(db, clock=clock, seed=5), first.chat.id, first.chat.title)
    second.people = first.people
    clock.now = START + 6 * HOUR
    first.play_turn(random.Random(1))  # Ada, by the first process: 24h - 6h + 1h = 19h
    clock.now = START + 8 * HOUR
    second.play_turn(random.Random(2))  # Bob, by the second: 24h - 2h + 1h = 23h
    assert first.table().banks == [19 * HOUR, 23 * HOUR]
    # Half of Ada's 19 hours: the first process reminds her, once for both processes.
    (reminder,) = first.due(START + 8 * HOUR + 9.5 * HOUR)
    assert reminder.text.startswith("Ada, it is your turn at Test room: 9h 30m left")
    assert second.due(START + 27 * HOUR - 1) == []
    # Her 19 hours run out at the second process's look; the first has nothing left to do.
    (told,) = second.due(START + 27 * HOUR)
    assert told.text.startswith("Ada is out of time.")
    assert first.due(START + 27 * HOUR) == []


def test_the_turns_board_shows_each_persons_time_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import render

    # What the bot hands the renderer for each board (render's own tests check the drawing).
    asked: list[Any] = []
    real = render.board_png

    def board_png(view: Any, **kw: Any) -> bytes:
        asked.append(kw.get("clocks"))
        return real(view, **kw)

    monkeypatch.setattr(render, "board_png", board_png)
    clock = Clock()
    room = Room(make_service(tmp_path / "t.db", clock=clock, pictures=True))
    for name in ("Ada", "Bob"):
        room.ok(name, "/join")
    room.ok("Ada", "/addbot")
    room.ok("Ada", "/option clock 3d+12h")
    room.ok("Ada", "/start")
    # The person to move plays after 2 days: 3d - 2d + 12h = 1d 12h; the other keeps 3d,
    # the computer seat has no clock.
    mover = room.to_move()
    clock.now = START + 2 * DAY
    asked.clear()
    out = room.play_turn(random.Random(3))
    turn = [o for o in out if o.kind == "turn"][-1]
    assert turn.attachment is not None
    t = room.table()
    want = [None if s.computer else ("1d 12h" if s.name == mover else "3d") for s in t.seats]
    assert want.count(None) == 1 and "1d 12h" in want and "3d" in want
    # The turn's one board was asked for with each seat's time left, worked out above.
    assert asked == [want]
    game = room.game()
    names = [s.name for s in t.seats]
    drawn = real(game.view(None), names=names, clocks=want)
    plain = real(game.view(None), names=names)
    assert drawn != plain
    # The same panel as the renderer draws for those clocks (the placements marked on the
    # turn's board are the same in both: only the panel's clocks are compared).
    from tests.render.helpers import decode

    got, ref, bare = (decode(b) for b in (turn.attachment.data, drawn, plain))
    panel = (0, got.size[1] - 260, got.size[0], got.size[1])
    assert got.crop(panel).tobytes() == ref.crop(panel).tobytes()
    assert got.crop(panel).tobytes() != bare.crop(panel).tobytes()


def test_a_bank_never_grows_above_its_start(tmp_path: Path) -> None:
    clock = Clock()
    room = clocked_room(tmp_path / "t.db", clock, ("Ada", "Bob"), "1h+10m")
    # Ada plays after 5 minutes: 60m - 5m + 10m = 65m, capped at the bank's start, 60m.
    clock.now = START + 300
    room.play_turn(random.Random(1))
    assert room.table().banks == [HOUR, HOUR]
    # Bob after 55 minutes: 60m - 55m + 10m = 15m, under the cap.
    clock.now = START + 300 + 55 * 60
    room.play_turn(random.Random(2))
    assert room.table().banks == [HOUR, 15 * 60.0]


@pytest.mark.parametrize(
    ("option", "live"),
    [("3h+1m", True), ("10m+5s", True), ("4h+1m", False), ("3d+1d", False)],
)
def test_a_bank_of_up_to_three_hours_is_a_live_clock(
    tmp_path: Path, option: str, live: bool
) -> None:
    room = Room(make_service(tmp_path / "t.db", clock=Clock()))
    room.ok("Ada", "/join")
    room.ok("Ada", f"/option clock {option}")
    (lobby,) = [o for o in room.ok("Bob", "/join") if o.kind == "lobby"]
    kind = "live" if live else "by message"
    assert f"Clock: {option} ({kind})" in lobby.text.splitlines()
    room.ok("Ada", "/start")
    bank = parse_clock(option)[0]
    # A live clock has no reminder at half time: the clock looks when the bank runs out.
    t = room.table()
    assert t.due_at == START + (bank if live else bank / 2)


def held_ping_room(db: Path, clock: Clock, option: str, quiet: str) -> Room:
    """Ada plays at once; Bob, to move, asked for pings but not during ``quiet`` (UTC):
    his turn's ping is held back until the quiet hours end."""
    room = clocked_room(db, clock, ("Ada", "Bob"), option)
    room.ok("Bob", "/notify on")
    room.ok("Bob", f"/notify quiet {quiet}")
    room.play_turn(random.Random(1))
    assert room.to_move() == "Bob"
    return room


def test_a_held_ping_after_the_reminder_brings_no_second_reminder(tmp_path: Path) -> None:
    # 22:13:20 UTC, a 4h bank (by message: a reminder at half time, 00:13:20); quiet
    # until 01:00, 2h 46m 40s later: after the reminder, before Bob's 4 hours run out.
    clock = Clock()
    room = held_ping_room(tmp_path / "t.db", clock, "4h+1h", "22-01")
    assert room.table().ping_at == START + 10_000
    (reminder,) = room.due(START + 2 * HOUR)
    assert reminder.text.startswith("Bob, it is your turn at Test room: 2h left")
    out = room.due(START + 10_000)
    assert [(o.kind, o.user) for o in out] == [("ping", "id-bob")]
    assert room.due(START + 4 * HOUR - 1) == []
    (told,) = room.due(START + 4 * HOUR)
    assert told.text.startswith("Bob is out of time.")


def test_a_held_ping_within_the_vote_does_not_cut_it_short(tmp_path: Path) -> None:
    # 22:13:20 UTC: Bob's 4 hours run out at 02:13:20, the vote (one increment, 1h) ends
    # at 03:13:20; quiet until 03:00, so his ping comes while the others may still vote.
    clock = Clock()
    room = held_ping_room(tmp_path / "t.db", clock, "4h+1h", "22-03")
    assert room.table().ping_at == START + 17_200
    room.due(START + 2 * HOUR)  # the reminder at half time
    (told,) = room.due(START + 4 * HOUR)
    assert told.text.startswith("Bob is out of time. The others may vote")
    moves = len(room.game().moves)
    out = room.due(START + 17_200)
    assert [(o.kind, o.user) for o in out] == [("ping", "id-bob")]
    assert len(room.game().moves) == moves and room.table().out_of_time is not None
    assert room.due(START + 5 * HOUR - 1) == []
    out = room.due(START + 5 * HOUR)
    assert any(o.text.startswith("Time is up for Bob") for o in out)
    assert len(room.game().moves) > moves


def test_a_watcher_has_no_vote_on_a_player_out_of_time(tmp_path: Path) -> None:
    clock = Clock()
    room = out_of_time_room(tmp_path / "t.db", clock, ("Ada", "Bob"))
    for choice in ("/skip", "/expel", "/wait"):
        assert room.error("Zoe", choice) == "You are not seated at this table."
    t = room.table()
    assert t.out_of_time is not None and t.out_of_time["votes"] == {}
    assert len(room.game().moves) == 0


def test_a_grace_of_one_second_is_still_a_vote(tmp_path: Path) -> None:
    # 4h+1s is by message (over 3 hours); its grace is one increment, 1 s: the reminder
    # at half time (2 h) tells Bob the others then have 1s to vote.
    clock = Clock()
    room = clocked_room(tmp_path / "t.db", clock, ("Ada", "Bob"), "4h+1s")
    room.play_turn(random.Random(1))
    assert room.to_move() == "Bob"
    (reminder,) = room.due(START + 2 * HOUR)
    assert reminder.text == (
        "Bob, it is your turn at Test room: 2h left. Then the others have 1s to vote on"
        " skipping your move, giving your seat to a computer or waiting; without a majority,"
        " a computer player moves for you."
    )
    assert reminder.mentions == ("id-bob",)
    # Out of time at 4 h: Ada has her second to vote; no computer move yet.
    (told,) = room.due(START + 4 * HOUR)
    assert told.text.startswith("Bob is out of time. The others may vote")
    assert len(room.game().moves) == 1


def test_a_table_stored_before_deadlines_times_the_turn_from_its_start(tmp_path: Path) -> None:
    # A table saved before deadlines were stored: Bob's turn, begun at the start, ends
    # after his 4 h bank; his reminder comes at half of it.
    clock = Clock()
    room = clocked_room(tmp_path / "t.db", clock, ("Ada", "Bob"), "4h+1h")
    room.play_turn(random.Random(1))
    t = room.table()
    assert t.turn_started == START and room.to_move() == "Bob"
    loaded = t.version
    t.deadline, t.version = None, t.version + 1
    room.service.store.save(t, loaded)
    (reminder,) = room.due(START + 2 * HOUR)
    assert reminder.text.startswith("Bob, it is your turn at Test room: 2h left.")
    assert room.due(START + 4 * HOUR - 1) == []
    (told,) = room.due(START + 4 * HOUR)
    assert told.text.startswith("Bob is out of time.")


def test_a_held_ping_without_a_clock_plays_no_move(tmp_path: Path) -> None:
    # No clock: Bob's turn ping, held back by his quiet hours (22:00 to 01:00 UTC; the
    # test's clock is 22:13:20 UTC), comes at 01:00, and nothing else happens.
    clock = Clock()
    room = held_ping_room(tmp_path / "t.db", clock, "off", "22-01")
    assert room.table().ping_at == START + 10_000
    out = room.due(START + 10_000)
    assert [(o.kind, o.user) for o in out] == [("ping", "id-bob")]
    assert len(room.game().moves) == 1 and room.to_move() == "Bob"
