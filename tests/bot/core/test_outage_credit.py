"""Outage credit (issue 43, item 5): when the bot could not act for longer than
``[bot] outage_credit`` (2 minutes), every running clock gets that time back and each table
is told once; players never pay for the bot's own outages.

On the injected clock, with the heartbeat kept (``heartbeat=True``: by default only a
service on the machine's clock keeps it): the bot "looks" every minute while it is up
(:func:`live`, as the platforms' clocks do) and a jump of the clock without a look is an
outage. Every figure below is worked out by hand from
the rule: a clock that ran when the bot went away starts again where it stood. Both store
backends; then a real console process killed and restarted on a store file.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import pytest

from bot.core import heartbeat, outage, timebank
from bot.core.config import Settings
from bot.core.outbound import Outbound
from bot.service import Service
from bot.store import StoreDown, open_store
from tests.bot.backends import schema_url, store_at
from tests.bot.helpers import START, Clock, Room
from tests.bot.tournaments.test_tournaments import HOME, Cup, new_cup
from tests.patience import PATIENCE, wait_until

both = pytest.mark.usefixtures("backend")

MINUTE = 60.0
HOUR = 3600.0
DAY = 86400.0
TOLD_HOUR = "The bot was away for 1h; every clock got that time back."
ROOT = Path(__file__).resolve().parents[3]


def service_at(db: Path, clock: Clock, *, seed: int = 1, credit: int | None = None) -> Service:
    """A service that keeps the heartbeat on the test's clock: a jump of it is an outage."""
    settings = Settings() if credit is None else Settings(outage_credit=credit)
    return Service(
        store_at(db), settings, clock=clock, rng=random.Random(seed), pictures=False, heartbeat=True
    )


def live(service: Service, clock: Clock, seconds: float) -> list[Outbound]:
    """The bot up for ``seconds``, its clock looking every minute; what it said."""
    out: list[Outbound] = []
    end = clock.now + seconds
    while clock.now < end:
        clock.advance(min(MINUTE, end - clock.now))
        out += service.due()
    return out


def told(outs: list[Outbound]) -> list[str]:
    return [o.text for o in outs if "every clock got that time back" in o.text]


def two_at(db: Path, clock: Clock, *options: str) -> Room:
    """Ada and Bob at a table with ``options``, started at START: Ada is to move."""
    room = Room(service_at(db, clock))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    for option in options:
        room.ok("Ada", f"/option {option}")
    room.ok("Ada", "/start")
    assert room.to_move() == "Ada"
    return room


@both
def test_a_time_bank_is_the_same_after_an_hour_away(tmp_path: Path) -> None:
    clock = Clock()
    room = two_at(tmp_path / "t.db", clock, "clock 3d+1h")
    live(room.service, clock, 2 * HOUR)  # Ada thinks for two hours
    before = timebank.left(room.table(), 0, clock.now, to_move=True)
    assert before == 3 * DAY - 2 * HOUR
    clock.advance(HOUR)  # the bot is away for an hour
    out = room.due(clock.now)
    assert [(o.chat, o.text, o.kind) for o in out] == [("chat-1", TOLD_HOUR, "info")]
    t = room.table()
    assert timebank.left(t, 0, clock.now, to_move=True) == before
    assert (t.turn_started, t.deadline) == (START + HOUR, START + 3 * DAY + HOUR)
    # Her reminder at half her bank comes an hour later too.
    assert t.due_at == START + 1.5 * DAY + HOUR
    # Told once: not at the next look, nor by a restarted bot.
    assert told(live(room.service, clock, 5 * MINUTE)) == []
    room.service.store.close()
    again = Room(service_at(tmp_path / "t.db", clock, seed=2), room.chat.id, room.chat.title)
    assert told(again.service.due()) == []
    # Ada plays after 2 h 5 min of her own: 3d - 2h 5m + 1h. The record counts her time.
    again.people = room.people
    again.play_turn(random.Random(1))
    t = again.table()
    assert t.banks == [3 * DAY - 2 * HOUR - 5 * MINUTE + HOUR, 3 * DAY]
    assert t.record is not None
    assert t.record["clock"]["turns"][0]["used"] == 2 * HOUR + 5 * MINUTE


@both
def test_a_turns_limit_and_its_reminder_come_later_by_the_gap(tmp_path: Path) -> None:
    clock = Clock()
    room = two_at(tmp_path / "t.db", clock, "timeout 10m")
    assert (room.table().deadline, room.table().due_at) == (START + 10 * MINUTE, START + 300)
    live(room.service, clock, 2 * MINUTE)
    clock.advance(5 * MINUTE)  # away through the reminder's time (5 min)
    out = room.due(clock.now)
    assert told(out) == ["The bot was away for 5m; every clock got that time back."]
    t = room.table()
    assert (t.deadline, t.due_at) == (START + 15 * MINUTE, START + 10 * MINUTE)
    # The reminder with 5 minutes left, at 10 minutes; the timeout at 15, not 10.
    out = live(room.service, clock, 3 * MINUTE)
    (reminder,) = [o for o in out if o.kind == "reminder"]
    assert clock.now == START + 10 * MINUTE
    assert "5m left" in reminder.text
    out = live(room.service, clock, 4 * MINUTE)
    assert not any("Time is up" in o.text for o in out)
    out = live(room.service, clock, MINUTE)
    assert any(o.text.startswith("Time is up for Ada") for o in out)
    assert room.to_move() == "Bob"


@both
def test_a_gap_under_the_threshold_credits_nothing(tmp_path: Path) -> None:
    clock = Clock()
    room = two_at(tmp_path / "t.db", clock, "timeout 24h")
    live(room.service, clock, 2 * MINUTE)
    clock.advance(119)  # a look came after 1:59 (a slow minute): no outage
    assert told(room.due(clock.now)) == []
    t = room.table()
    assert (t.turn_started, t.deadline, t.credited) == (START, START + DAY, None)


@both
def test_the_vote_on_a_player_out_of_time_gets_its_grace_back(tmp_path: Path) -> None:
    clock = Clock()
    room = two_at(tmp_path / "t.db", clock, "clock 1h+10m")
    out = live(room.service, clock, HOUR)  # Ada's bank runs out: Bob may vote, 10 minutes
    assert any(o.text.startswith("Ada is out of time") for o in out)
    vote = room.table().out_of_time
    assert vote is not None and vote["since"] == START + HOUR
    live(room.service, clock, 2 * MINUTE)
    clock.advance(HOUR)
    assert told(room.due(clock.now)) == [TOLD_HOUR]
    t = room.table()
    assert t.out_of_time is not None and t.out_of_time["since"] == START + 2 * HOUR
    assert t.due_at == START + 2 * HOUR + 10 * MINUTE
    # Eight minutes of the vote are left, not none: Bob may still vote.
    out = live(room.service, clock, 7 * MINUTE)
    assert not any("Time is up" in o.text for o in out)
    room.ok("Bob", "/skip")
    assert any(o.text.startswith("Time is up for Ada") for o in room.log[-3:])


@both
def test_a_time_per_turn_with_its_grace_period(tmp_path: Path) -> None:
    clock = Clock()
    room = two_at(tmp_path / "t.db", clock, "timeout 10m", "grace 30m")
    live(room.service, clock, 10 * MINUTE)
    assert room.table().out_of_time is not None
    live(room.service, clock, 20 * MINUTE)  # ten minutes of the grace period are left
    clock.advance(HOUR)
    assert told(room.due(clock.now)) == [TOLD_HOUR]
    assert room.table().due_at == START + HOUR + 40 * MINUTE
    out = live(room.service, clock, 9 * MINUTE)
    assert not any("Time is up" in o.text for o in out)
    out = live(room.service, clock, MINUTE)
    assert any(o.text.startswith("Time is up for Ada") for o in out)


@both
def test_a_tournament_rounds_deadline_moves_on_and_its_table_is_told(tmp_path: Path) -> None:
    clock = Clock()
    service = service_at(tmp_path / "t.db", clock)
    cup = Cup(service, clock)
    tid = new_cup(cup, "swiss 2 rounds 2 players 1d", ["Ann", "Bob"])
    cup.ok("Ann", "/tournament start")
    r = cup.round(tid)
    assert r["deadline"] == START + DAY
    (pairing,) = r["pairings"]
    live(service, clock, MINUTE)
    clock.advance(HOUR)
    out = service.due()
    # The table (no clock of its own: the round's is its clock) is told where it is seen.
    name = f"Tournament of Club ({tid}), round 1, table 1"
    assert [(o.chat, o.text) for o in out] == [(HOME.id, f"{name}\n{TOLD_HOUR}")]
    assert cup.round(tid)["deadline"] == START + DAY + HOUR
    stored = service.store.load_tournament(tid)
    assert stored is not None and stored[1]["due_at"] == START + DAY + HOUR
    assert told(live(service, clock, 2 * MINUTE)) == []
    # A process with the credit off jumps to the old deadline: the round goes on...
    service.store.close()
    clock.now = START + DAY + 30 * MINUTE
    plain = service_at(tmp_path / "t.db", clock, credit=0)
    assert told(plain.due()) == []
    table = plain.store.load(pairing["chat"])
    assert table is not None and table.status == "playing"
    # ... and at the deadline moved on, the computer plays the game out.
    clock.now = START + DAY + HOUR + 1
    plain.due()
    first = Cup(plain, clock).data(tid)["played"][0]
    assert first["pairings"][0]["ended"] == "deadline"


@both
def test_only_tables_with_a_running_clock_are_told(tmp_path: Path) -> None:
    clock = Clock()
    db = tmp_path / "t.db"
    timed = two_at(db, clock, "timeout 24h")
    untimed = Room(timed.service, "chat-2", "Kitchen")
    untimed.ok("Cy", "/join")
    untimed.ok("Di", "/join")
    untimed.ok("Cy", "/start")
    lobby = Room(timed.service, "chat-3", "Hall")
    lobby.ok("Ed", "/join")
    lobby.ok("Ed", "/option timeout 1h")
    live(timed.service, clock, MINUTE)
    clock.advance(HOUR)
    out = timed.service.due()
    assert [(o.chat, o.text) for o in out] == [("chat-1", TOLD_HOUR)]
    assert untimed.table().credited is None and lobby.table().credited is None


@both
def test_a_bot_restarted_while_another_process_kept_looking_credits_nothing(
    tmp_path: Path,
) -> None:
    clock = Clock()
    db = tmp_path / "t.db"
    room = two_at(db, clock, "timeout 24h")
    room.service.store.close()  # this process stops ...
    other = service_at(db, clock, seed=2)
    live(other, clock, HOUR)  # ... while another one on the store looks every minute
    back = service_at(db, clock, seed=3)  # the first comes back after an hour
    assert told(back.due()) == []
    assert told(other.due()) == []
    t = back.store.load("chat-1")
    assert t is not None and (t.deadline, t.credited) == (START + DAY, None)


@both
def test_a_process_whose_clock_is_behind_finds_no_outage(tmp_path: Path) -> None:
    """Two machines on one store, one's clock five minutes behind the other's: the beat
    never goes back, so neither takes the skew for an outage."""
    clock = Clock()
    db = tmp_path / "t.db"
    room = two_at(db, clock, "timeout 24h")
    behind = Service(
        store_at(db), Settings(), clock=lambda: clock.now - 300, pictures=False, heartbeat=True
    )
    out: list[Outbound] = []
    for _ in range(10):
        clock.advance(MINUTE)
        out += behind.due() + room.service.due()
    assert told(out) == []
    assert room.table().deadline == START + DAY


@both
def test_two_processes_back_at_once_give_the_time_back_once(tmp_path: Path) -> None:
    clock = Clock()
    db = tmp_path / "t.db"
    room = two_at(db, clock, "timeout 24h")
    second = service_at(db, clock, seed=2)
    live(room.service, clock, MINUTE)
    clock.advance(HOUR)
    out = second.due() + room.service.due() + second.due()
    assert told(out) == [TOLD_HOUR]
    assert room.table().deadline == START + DAY + HOUR


@both
def test_a_bot_killed_while_crediting_gives_the_rest_after_its_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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

    class Killed(BaseException):
        pass

    real = outage._table
    done: list[str] = []

    def die_at_the_second(tables: Any, chat: str, *args: Any) -> list[Outbound]:
        if done:
            raise Killed
        done.append(chat)
        return real(tables, chat, *args)

    monkeypatch.setattr(outage, "_table", die_at_the_second)
    with pytest.raises(Killed):
        first.service.due()
    monkeypatch.setattr(outage, "_table", real)
    # One table has its hour back, the outage waits in the store for the other one.
    assert first.service.store.note(heartbeat.CHAT, heartbeat.CREDIT) is not None
    first.service.store.close()
    clock.advance(MINUTE)  # the restart comes a minute later: under the threshold
    service = service_at(db, clock, seed=2)
    out = service.waiting("chat-1") + service.waiting("chat-2")
    assert told(out) == [TOLD_HOUR]  # the other table, told by the restarted bot
    assert service.store.note(heartbeat.CHAT, heartbeat.CREDIT) is None
    for chat in ("chat-1", "chat-2"):
        t = service.store.load(chat)
        assert t is not None and t.deadline == START + DAY + HOUR, chat
    assert told(live(service, clock, 5 * MINUTE)) == []


@both
def test_a_store_away_stops_the_heartbeat_and_the_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock()
    room = two_at(tmp_path / "t.db", clock, "timeout 10m")
    live(room.service, clock, 2 * MINUTE)
    store = room.service.store

    def away(*args: Any, **kwargs: Any) -> Any:
        raise StoreDown("the server is away")

    for name in ("note", "set_note", "swap_note", "claim", "due", "load", "load_seated"):
        monkeypatch.setattr(store, name, away)
    # Twenty minutes without a store: nothing is done (the turn's time ran out meanwhile).
    assert live(room.service, clock, 20 * MINUTE) == []
    monkeypatch.undo()
    out = room.due(clock.now)
    assert told(out) == ["The bot was away for 20m; every clock got that time back."]
    assert not any("Time is up" in o.text for o in out)
    assert room.table().deadline == START + 30 * MINUTE


@both
def test_with_the_credit_off_nothing_is_given_back(tmp_path: Path) -> None:
    clock = Clock()
    room = Room(service_at(tmp_path / "t.db", clock, credit=0))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/option timeout 24h")
    room.ok("Ada", "/start")
    clock.advance(HOUR)
    assert told(room.due(clock.now)) == []
    assert room.table().deadline == START + DAY


def test_a_test_clock_that_jumps_is_no_outage(tmp_path: Path) -> None:
    """Only a service on the machine's clock keeps the heartbeat unless told otherwise: one
    on a test's clock that jumps a day ahead gives nothing back (and times out as before)."""
    clock = Clock()
    service = Service(store_at(tmp_path / "t.db"), Settings(), clock=clock, pictures=False)
    room = Room(service)
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/option timeout 24h")
    room.ok("Ada", "/start")
    out = room.due(clock.advance(DAY))
    assert told(out) == [] and any(o.text.startswith("Time is up") for o in out)
    assert service.heartbeat is None and service.store.notes_of(heartbeat.CHAT) == {}


# --- a real process, killed and restarted ---------------------------------------------


@pytest.fixture(params=["sqlite", "postgres"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        return schema_url(request.getfixturevalue("postgres_url"), str(tmp_path))
    return str(tmp_path / "genial.sqlite3")


class Console:
    """``genial-bot console`` as a process on a store, its output read as it comes."""

    def __init__(self, db: str, folder: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "console", "--db", db, "--no-images", "--name", "ada"],
            cwd=folder,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines: list[str] = []
        assert self.proc.stdout is not None
        threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True).start()

    def _read(self, out: IO[str]) -> None:
        for line in out:
            self.lines.append(line)

    def type(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def said(self, text: str) -> bool:
        return any(text in line for line in self.lines)

    def quit(self) -> str:
        self.type("/quit")
        self.proc.wait(timeout=PATIENCE)
        return "".join(self.lines)


def test_a_killed_bot_restarted_an_hour_later_gives_the_hour_back(
    location: str, tmp_path: Path
) -> None:
    bot = Console(location, tmp_path)
    for line in ("/join", "bob: /join", "/option timeout 24h", "/start"):
        bot.type(line)
    wait_until(lambda: bot.said("ada, your turn"), "the game to start")
    bot.proc.send_signal(signal.SIGKILL)
    bot.proc.wait(timeout=PATIENCE)
    # The kill was an hour ago: every time the store holds goes back an hour (the table's
    # and the heartbeat's), as if the bot had lain dead since.
    store = open_store(location)
    t = store.load("console")
    assert t is not None and t.turn_started is not None and t.deadline is not None
    t.turn_started -= HOUR
    t.deadline -= HOUR
    t.due_at = None if t.due_at is None else t.due_at - HOUR
    store.save(t, t.version)
    beat = store.note(heartbeat.CHAT, heartbeat.BEAT)
    assert beat is not None
    store.set_note(heartbeat.CHAT, heartbeat.BEAT, repr(float(beat) - HOUR))
    store.close()
    # Restarted, the bot gives the hour back before anything else, and says so once.
    again = Console(location, tmp_path)
    wait_until(lambda: again.said("every clock got that time back"), "the outage told")
    text = again.quit()
    # An hour and the seconds between the bot's last look and its restart.
    assert len(re.findall(r"\[genial\] The bot was away for 1h( \dm)?; every clock got", text)) == 1
    store = open_store(location)
    after = store.load("console")
    assert after is not None and after.deadline is not None
    # The turn's 24 hours end where they did before the kill (give or take the seconds
    # the restart took, given back too), not an hour earlier.
    assert 0 <= after.deadline - (t.deadline + HOUR) < 60
    assert after.credited is not None
    store.close()
    # Another restart tells nothing more.
    third = Console(location, tmp_path)
    third.type("/board")
    wait_until(lambda: third.said("ada, your turn"), "the board")
    assert "every clock got that time back" not in third.quit()
