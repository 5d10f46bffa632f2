"""Computer players in the service: whole games against them, taking over seats, hints,
restarts with computer players, and thinking that loses a race with a person."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.core import games, players
from bot.core.table import CLOSED, LOBBY
from engine.genial import GenialGame
from tests.bot.helpers import Room, make_service

#: Every test here runs on SQLite and on PostgreSQL (tests/bot/conftest.py).
pytestmark = pytest.mark.usefixtures("backend")

# kind: (people, computers, options)
KINDS = {
    "standard-2p": (["Ada"], ["/addbot"], []),
    "standard-4p": (["Ada", "Bob"], ["/addbot random", "/addbot"], []),
    "team": (["Ada", "Bob"], ["/addbot", "/addbot random"], ["/option team"]),
    "spezial-3p": (["Ada"], ["/addbot", "/addbot random"], ["/option spezial"]),
}


def start(room: Room, kind: str) -> None:
    people, computers, options = KINDS[kind]
    for name in people:
        room.ok(name, "/join")
    for text in computers + options:
        room.ok(people[0], text)
    room.ok(people[0], "/start")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_game_against_computer_players(tmp_path: Path, kind: str) -> None:
    room = Room(make_service(tmp_path / "t.db", seed=6))
    start(room, kind)
    room.play_out(random.Random(kind))
    t = room.table()
    assert t.status == LOBBY
    computer_names = [s.name for s in t.seats if s.computer]
    placed = [o.text for o in room.log if o.user is None and o.kind == "turn"]
    for name in computer_names:
        # Computer moves are told inside the message of the person's turn they follow.
        assert any(f"\n{name} placed " in f"\n{text}" for text in placed)
    # Computer players get no private messages: there is nobody to read them.
    people = {u.id for u in room.people.values()}
    assert {o.user for o in room.log if o.user} <= people
    assert [o.kind for o in room.log].count("result") == 1


def test_restart_with_computer_players_continues_identically(tmp_path: Path) -> None:
    def play(db: Path, restart_after: int | None) -> list[object]:
        room = Room(make_service(db, seed=12))
        start(room, "standard-4p")
        rng = random.Random(4)
        n = 0
        while room.playing():
            if n == restart_after:
                room.service.store.close()
                room.service = make_service(db, seed=1000)
            room.play_turn(rng)
            n += 1
        return [*room.log, room.table().to_dict()]

    assert play(tmp_path / "a.db", 6) == play(tmp_path / "b.db", None)


def test_a_table_of_computer_players_plays_to_the_end(tmp_path: Path) -> None:
    """A table of computers alone does not start (nobody would play or watch it); once
    the only person leaves a running game, the computers play it to the end."""
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/addbot")
    room.ok("Ada", "/addbot random")
    assert room.error("Ada", "/start") == (
        "Only computer players are seated: /join first, then /start."
    )
    room.ok("Ada", "/join")
    room.ok("Ada", "/start")
    out = room.ok("Ada", "/leave")
    assert out[-1].kind == "result"
    assert room.table().status == LOBBY


def test_leave_during_the_game(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", seed=3))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    (out,) = room.ok("Bob", "/leave")
    assert out.text.splitlines() == [
        "Bob leaves the table.",
        "A computer player takes over the seat of Bob.",
    ]
    seat = room.table().seats[1]
    assert (seat.user, seat.level, seat.left) == (None, "greedy", True)
    out = room.ok("Ada", f"/play {games.format_move(room.game(), room.game().legal_moves()[0])}")
    # Bob's seat moved by itself right after Ada's move, told in the same message.
    (told,) = [o for o in out if o.kind == "turn"]
    lines = told.text.splitlines()
    assert lines[0].startswith("Ada placed ")
    assert any(line.startswith("Bob (computer) placed ") for line in lines)
    assert room.error("Bob", "/hand") == "You are not seated at this table."
    room.play_out(random.Random(5))
    # After the game the seat that was given up is free again.
    assert [s.name for s in room.table().seats] == ["Ada"]


def test_leave_on_my_turn_and_kick(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", seed=3))
    for name in ("Ada", "Bob", "Cy"):
        room.ok(name, "/join")
    room.ok("Ada", "/start")
    out = room.ok("Ada", "/leave")  # Ada is to move: her replacement moves at once
    assert out[0].text.splitlines()[-1] == "Next: Ada (computer) is thinking."
    assert out[1].text.startswith("Ada (computer) placed ")
    # Ada gave up her seat, and with it the host's role: Bob, the next person, has it.
    assert room.table().host_name == "Bob"
    assert room.error("Cy", "/kick Bob") == "Only the host (Bob) or a chat admin may do that."
    (kicked, *moves) = room.ok("Cy", "/kick Bob", admin=True)
    assert kicked.text.splitlines()[:2] == [
        "Cy removes Bob from the table.",
        "A computer player takes over the seat of Bob.",
    ]
    assert moves and moves[0].text.startswith("Bob (computer) placed ")
    assert (
        room.error("Cy", "/kick Bob", admin=True) == "Bob (computer) is a computer player already."
    )


def test_abort_during_a_game(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    room.ok("Ada", "/addbot")
    room.ok("Ada", "/start")
    room.play_turn(random.Random(1))
    (out,) = room.ok("Ada", "/abort")
    assert out.text == "Ada closed the table. /join opens a new one."
    t = room.table()
    assert (t.status, t.due_at) == (CLOSED, None)


def test_hints(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/option hints on")
    room.ok("Ada", "/start")
    assert room.error("Bob", "/hint") == "Hints are for your own turn, when you place a tile."
    (hint,) = room.ok("Ada", "/hint")
    assert hint.kind == "hint" and hint.user == "id-ada"
    lines = hint.text.splitlines()
    assert lines[0] == "Good moves for you at Test room:"
    game = room.game()
    assert isinstance(game, GenialGame)
    legal = {games.format_move(game, m) for m in game.legal_moves()}
    assert 1 <= len(lines) - 1 <= 3
    for number, line in enumerate(lines[1:], 1):
        prefix = f"{number}. /play "
        assert line.startswith(prefix)
        move = " ".join(line[len(prefix) :].split()[:3])
        assert move in legal
        # The first placement of the game scores only along the start symbol it touches.
        assert line.endswith(("no points", "red", "green", "blue", "orange", "yellow", "purple"))


def test_thinking_that_loses_the_race_is_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A computer player thinks outside the lock; if the table changes meanwhile (here an
    /abort arrives), its move is not played."""
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    room.ok("Ada", "/addbot")
    room.ok("Ada", "/addbot")
    t = room.table()
    t.seats.append(t.seats.pop(0))  # a computer player moves first
    room.service.store.save(t, t.version)
    real = players.choose

    def think_slowly(view: object, level: str, seed: int) -> object:
        move = real(view, level, seed)
        room.service.handle(room.chat, room.person("Ada"), "/abort")
        return move

    monkeypatch.setattr(players, "choose", think_slowly)
    out = room.service.handle(room.chat, room.person("Ada"), "/start")
    assert [o.kind for o in out] == ["turn", "rack"]  # and Ada's tiles, privately
    assert room.service.due(room.service.clock()) == []
    t = room.table()
    assert t.status == CLOSED and t.record["moves"] == []


@pytest.mark.parametrize("change", ["/undo", "/leave"])
def test_a_move_thought_out_before_an_undo_or_a_leave_is_not_played(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    change: str,
) -> None:
    """While the computer player thinks on Ada's move, Ada takes it back (nobody else must
    accept: the computer seats do) or Bob leaves: the move it thought out is for a table
    that is gone, and is not played on the new one (the clock looks again)."""
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    room.ok("Ada", "/addbot")
    if change == "/leave":
        room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    real = players.choose
    thought: list[object] = []

    def think_while_the_table_changes(view: object, level: str, seed: int) -> object:
        move = real(view, level, seed)
        if not thought:
            who = "Ada" if change == "/undo" else "Bob"
            room.service.handle(room.chat, room.person(who), change)
        thought.append(move)
        return move

    monkeypatch.setattr(players, "choose", think_while_the_table_changes)
    first = room.game().legal_moves()[0]
    played = games.format_move(room.game(), first)
    room.ok("Ada", f"/play {played}")
    game = room.game()
    assert [r for r in caplog.records if r.levelname == "ERROR"] == []
    assert len(thought) == 1
    if change == "/undo":
        # Ada's move is taken back; the computer's, thought out after it, was not played.
        assert game.moves == [] and game.to_move == 0
        return
    # Only Ada's move is played: the first computer's move, thought out while Bob still
    # sat there, waits for the clock's next look, which thinks again.
    assert game.moves == [played] and game.to_move == 1
    assert room.table().seats[2].computer
    room.due(room.service.clock())
    assert len(thought) >= 3  # the first computer again, then the one in Bob's seat
    assert room.game().to_move == 0
