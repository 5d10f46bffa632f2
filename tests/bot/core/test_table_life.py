"""The table's whole life (issue 16, part 1): a game keeps its players' names after its end
or abort, hostile numbers and names in commands, who may end a game nobody plays any more,
damaged stored tables, a busy store, and reminders that say the time left as it is."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bot.core import games
from bot.core.outbound import User
from bot.core.table import CLOSED, LOBBY, PLAYING
from bot.store.sqlite import SQLiteStore
from bot.words.texts import COLOUR_SQUARES
from tests.bot.helpers import START, Clock, Room, make_service, user
from tests.patience import PATIENCE

ROOT = Path(__file__).resolve().parents[3]
INVALID = "The stored game cannot be read back"


def console(tmp_path: Path, lines: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    """The console bot in a process of its own (quick reviews: tests/bot/quick_bot.py)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.bot.quick_bot",
            "console",
            "--seed",
            "1",
            "--name",
            "alice",
            *args,
        ],
        cwd=tmp_path,
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=PATIENCE,
        env=env,
    )


def score_line(name: str, score: dict[object, int]) -> str:
    # Each colour told by its square (the letters are for typing).
    row = " ".join(f"{COLOUR_SQUARES[c.value]}{v}" for c, v in score.items())  # type: ignore[attr-defined]
    return f"{name}: {row} (lowest colour: {min(score.values())})"


# --- a game carries its own players' names for its whole life ---------------------------


@pytest.mark.parametrize("images", [False, True])
def test_console_scores_of_a_finished_game_after_someone_joins(
    tmp_path: Path, images: bool
) -> None:
    # Issue 16's first reproduction: two computer players finish a game (bob, who started
    # it, left at once), then alice joins and asks for the scores (an IndexError before)
    # and the board (a ValueError before).
    lines = ["bob: /join", "bob: /addbot", "bob: /start", "bob: /leave", "alice: /join"]
    lines += ["alice: /score", "alice: /board"]
    flags = ("--db", "r5.db", *(() if images else ("--no-images",)))
    result = console(tmp_path, lines, *flags)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    assert "[genial] Game over: Genial.\n" in out
    assert "[genial] alice sits down.\n" in out
    # The finished game's scores under its own players' names, worked out from its record.
    table = SQLiteStore(tmp_path / "r5.db").load("console")
    assert table is not None and table.record is not None
    assert [s.name for s in table.seats] == ["Computer 1", "alice"]
    game = games.rebuild(table.record)
    assert game.over
    scores = f"[genial] Scores, Genial, after {len(game.moves)} moves:\n"
    scores += f"    {score_line('bob (computer)', game.score(0))}\n"
    scores += f"    {score_line('Computer 1', game.score(1))}\n"
    assert scores in out
    board = f"[genial] Genial after {len(game.moves)} moves.\n"
    assert board in out
    after = out.split(board, 1)[1]
    assert "your turn" not in after  # a finished game prompts nobody
    if images:
        assert after.startswith("    image: out/")


def test_console_board_of_an_aborted_game_after_a_new_join(tmp_path: Path) -> None:
    # The second reproduction: an IndexError in the board's prompt before.
    lines = ["alice: /join", "bob: /join", "alice: /start", "alice: /play RG A2 A3"]
    lines += ["alice: /abort", "alice: /join", "alice: /board"]
    result = console(tmp_path, lines, "--db", "r4.db", "--no-images")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    assert "[genial] alice closed the table. /join opens a new one.\n" in out
    table = SQLiteStore(tmp_path / "r4.db").load("console")
    assert table is not None and table.record is not None
    moves = len(table.record["moves"])
    # The aborted game's board, its players named in its panel, and no one prompted.
    noun = "move" if moves == 1 else "moves"
    assert out.endswith(f"[genial] Genial after {moves} {noun}.\n")
    assert [s.name for s in table.players] == ["alice", "bob"]


def test_service_finished_computer_game_then_a_join(tmp_path: Path) -> None:
    # The first reproduction through the service, with images (the board's names).
    room = Room(make_service(tmp_path / "t.db", seed=1, pictures=True))
    room.ok("Bob", "/join")
    room.ok("Bob", "/addbot")
    room.ok("Bob", "/start")
    room.ok("Bob", "/leave")  # the computers finish the game
    assert not room.playing()
    room.ok("Alice", "/join")
    game = room.game()
    (scores,) = room.ok("Alice", "/score")
    assert scores.text.splitlines()[1:] == [
        score_line("Bob (computer)", game.score(0)),
        score_line("Computer 1", game.score(1)),
    ]
    (board,) = room.ok("Alice", "/board")
    assert board.attachment is not None and board.attachment.is_image


def test_service_aborted_game_then_a_join(tmp_path: Path) -> None:
    # The second reproduction through the service.
    room = Room(make_service(tmp_path / "t.db", seed=1))
    room.ok("Alice", "/join")
    room.ok("Bob", "/join")
    room.ok("Alice", "/start")
    room.play_turn(random.Random(1))
    room.ok("Alice", "/abort")
    room.ok("Alice", "/join")
    (board,) = room.ok("Alice", "/board")
    assert board.text == "Genial after 1 move."
    assert board.mentions == () and board.buttons == ()
    (scores,) = room.ok("Alice", "/score")
    assert [line.split(":")[0] for line in scores.text.splitlines()[1:]] == ["Alice", "Bob"]


def test_scores_after_a_leave_and_a_new_join_keep_the_names(tmp_path: Path) -> None:
    # The third reproduction: Bob leaves during the game (a computer player takes his
    # seat), Cy joins after the end; the scores were shown under the wrong names.
    room = Room(make_service(tmp_path / "t.db", seed=3))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    room.ok("Bob", "/leave")
    room.play_out(random.Random(3))
    room.ok("Cy", "/join")
    assert [s.name for s in room.table().seats] == ["Ada", "Cy"]
    game = room.game()
    (out,) = room.ok("Cy", "/score")
    assert out.text.splitlines() == [
        f"Scores, Genial, after {len(game.moves)} moves:",
        score_line("Ada", game.score(0)),
        score_line("Bob (computer)", game.score(1)),
    ]
    # The board too names the game's players, and prompts nobody.
    (board,) = room.ok("Cy", "/board")
    assert board.text == f"Genial after {len(game.moves)} moves."
    assert board.mentions == () and board.buttons == ()


def test_the_last_games_name_comes_from_the_game_not_the_options(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", seed=3))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    room.play_out(random.Random(4))
    room.ok("Ada", "/option spezial")
    (out,) = room.ok("Ada", "/score")
    assert out.text.startswith("Scores, Genial, after ")


# --- numbers and names in commands ------------------------------------------------------


@pytest.fixture
def playing(tmp_path: Path) -> Room:
    room = Room(make_service(tmp_path / "t.db", seed=3))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    return room


def test_superscript_and_huge_numbers_are_no_seats_or_slots(playing: Room) -> None:
    assert playing.error("Ada", "/kick ²") == (
        "There is no player ² here: name a seat number or a player's name."
    )
    # "²" is no rack slot (German keyboards have the key) and no tile either.
    assert playing.error("Ada", "/play ² A2 A3").startswith("I can't read ² A2 A3 as a move.")
    assert playing.error("Ada", "/play ³ A2 A3").startswith("I can't read ³ A2 A3 as a move.")
    # 5,000 digits: no seat; the answer quotes the start of it only.
    answer = playing.error("Ada", "/kick " + "7" * 5000)
    assert answer == (
        f"There is no player {'7' * 39}… here: name a seat number or a player's name."
    )
    answer = playing.error("Ada", "/play " + "7" * 5000 + " A2 A3")
    assert answer == (f"There is no tile in slot {'7' * 39}… of your rack: /hand shows your tiles.")


def test_kick_by_seat_number_and_mention_when_names_are_shared(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.people["Ann"] = user("Ann")
    room.people["Ann2"] = User("id-ann-2", "Ann")  # another person of the same name
    room.ok("Ann", "/join")
    room.ok("Ann2", "/join")
    room.ok("Cy", "/join")
    # Two Anns: the answer says which seats the name could mean.
    assert room.error("Cy", "/kick Ann", admin=True) == (
        "More than one player is called Ann (1. Ann, 2. Ann): name the seat number, like /kick 1."
    )
    assert room.error("Cy", "/kick @Ann", admin=True).startswith("More than one player")
    # A mention names the person, a number the seat.
    (out,) = room.ok("Cy", "/kick <@id-ann-2>", admin=True)
    assert out.text.startswith("Cy removes Ann (2) from the table.")  # which Ann: seat 2
    assert [s.user for s in room.table().seats] == ["id-ann", "id-cy"]
    (out,) = room.ok("Cy", "/kick 1", admin=True)
    assert [s.user for s in room.table().seats] == ["id-cy"]
    assert room.error("Cy", "/kick 3", admin=True) == "Nobody sits in seat 3 (seated now: 1)."


# --- a game every person has left -------------------------------------------------------


def test_only_admins_end_a_game_every_person_left(playing: Room) -> None:
    # Both leave; the clock has not acted yet (computer players finish the game at once
    # when it does, so the moment between is what a passer-by could use).
    service, chat = playing.service, playing.chat
    for name in ("Ada", "Bob"):
        (out,) = service.handle(chat, playing.person(name), "/leave")
        assert out.kind == "info"
    t = playing.table()
    assert t.status == PLAYING
    assert t.host is None and all(s.computer for s in t.seats)
    passer_by = "Every person has left this game: only a chat admin may do that now."
    for text in ("/abort", "/kick 1", "/kick Ada"):
        (out,) = service.handle(chat, playing.person("Eve"), text)
        assert (out.kind, out.text) == ("error", passer_by)
    assert playing.table().status == PLAYING
    (out,) = service.handle(chat, playing.person("Eve"), "/abort", admin=True)
    assert out.text == "Eve closed the table. /join opens a new one."
    assert playing.table().status == CLOSED


# --- damaged stored tables --------------------------------------------------------------


def damage_row(db: Path, chat: str, data: str, due_at: float | None = None) -> None:
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE tables SET data = ?, due_at = ? WHERE chat = ?", (data, due_at, chat))


def test_a_row_that_is_not_json_is_reported_and_closed_by_abort(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    room, other = Room(service, "chat-1"), Room(service, "chat-2")
    for r in (room, other):
        r.ok("Ada", "/join")
        r.ok("Bob", "/join")
        r.ok("Ada", "/start")
    damage_row(tmp_path / "t.db", "chat-1", "{not json")
    (out,) = room.say("Ada", "/board")
    assert out.kind == "error" and out.text == f"{INVALID} (JSONDecodeError)."
    (out,) = room.say("Bob", "/play 1 A2 A3")
    assert out.text.startswith(INVALID)
    # Every other table runs.
    other.play_turn(random.Random(1))
    assert len(other.game().moves) == 1
    assert service.due() == []
    # The players index still names the damaged table (it is read without loading
    # tables); a move sent there is answered as above.
    assert service.playing_tables("id-ada") == ["chat-1", "chat-2"]
    # Help still answers; /abort closes the damaged table; a new one opens on /join.
    (help_,) = room.say("Bob", "/help")
    assert help_.text.startswith("Genial bot: the first commands.")
    (closed,) = room.say("Bob", "/abort")
    assert closed.text == "Bob closed the table. /join opens a new one."
    assert room.table().status == CLOSED
    room.ok("Ada", "/join")
    assert room.table().status == LOBBY


def test_a_record_that_no_longer_replays_is_reported(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    room = Room(service)
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    t = room.table()
    data = t.to_dict()
    data["record"]["moves"] = ["RG A1 A2"]  # A1 holds a start symbol: illegal
    data["due_at"] = START  # and the clock would act at once
    damage_row(tmp_path / "t.db", "chat-1", json.dumps(data), START)
    service._games.clear()  # as after a restart
    (out,) = room.say("Ada", "/board")
    assert out.kind == "error"
    assert out.text.startswith(f"{INVALID} (")
    assert len(out.text) < 120
    assert service.due(START + 1) == []  # nothing raised; nothing is due there any more
    assert room.table().due_at is None
    assert service.seat_look("chat-1", "id-ada") is None
    (closed,) = room.say("Ada", "/abort")
    assert closed.text == "Ada closed the table. /join opens a new one."


def test_the_console_starts_beside_a_damaged_table(tmp_path: Path) -> None:
    first = console(tmp_path, ["/join", "bob: /join", "/start"], "--no-images")
    assert first.returncode == 0, first.stderr
    damage_row(tmp_path / "genial.sqlite3", "console", "[[[")
    result = console(tmp_path, ["/board", "/abort", "/join"], "--no-images")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    assert f"[genial] {INVALID} (JSONDecodeError).\n" in out
    assert "[genial] alice closed the table. /join opens a new one.\n" in out
    assert "[genial] alice sits down.\n" in out


# --- a busy store -----------------------------------------------------------------------


def test_a_locked_store_answers_busy_and_the_bot_goes_on(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    SQLiteStore(db).close()
    service = make_service(db)
    service.store = SQLiteStore(db, busy_timeout=0.2)
    room = Room(service)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another connection holds the write lock
    try:
        (out,) = room.say("Ada", "/join")
        assert out.kind == "error"
        assert out.text == "The table changed meanwhile; please send that again."
        assert service.due() == []
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    room.ok("Ada", "/join")
    assert [s.name for s in room.table().seats] == ["Ada"]


def test_a_short_lock_is_waited_for(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    service = make_service(db)
    # The store's busy timeout outlasts the lock however slow the machine.
    store = service.store = SQLiteStore(db, busy_timeout=PATIENCE)
    room = Room(service)
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    # The lock goes once the bot's save has begun, and so waits for it.
    saving = threading.Event()
    store._db.set_trace_callback(lambda sql: sql.startswith("BEGIN IMMEDIATE") and saving.set())

    def release() -> None:
        saving.wait(PATIENCE)
        holder.execute("ROLLBACK")

    releaser = threading.Thread(target=release)
    releaser.start()
    try:
        room.ok("Ada", "/join")  # waits for the lock, then goes through
    finally:
        saving.set()  # (if the save never came: the lock goes all the same)
        releaser.join()
        holder.close()
    assert [s.name for s in room.table().seats] == ["Ada"]


# --- reminders --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("late", "left"),
    [(0, "30s"), (29, "1s"), (10, "20s")],
)
def test_a_reminder_says_the_time_left_as_it_is(tmp_path: Path, late: int, left: str) -> None:
    clock = Clock()
    room = Room(make_service(tmp_path / "t.db", clock=clock))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/option timeout 1m")
    room.ok("Ada", "/start")
    assert room.table().due_at == START + 30
    (reminder,) = room.due(START + 30 + late)
    assert reminder.text == (
        f"Ada, it is your turn at Test room: {left} left, then a computer player moves for you."
    )


def test_a_timeout_in_the_solo_game_plays_one_tile_only(tmp_path: Path) -> None:
    # The solo player is always the one to move: the computer that stands in for them when
    # time runs out makes one turn (one tile), not the rest of the game.
    clock = Clock()
    room = Room(make_service(tmp_path / "t.db", clock=clock))
    room.ok("Ada", "/join")
    room.ok("Ada", "/option timeout 1m")
    room.ok("Ada", "/start")
    room.due(START + 30)
    told, rack = room.due(START + 61)
    assert (rack.kind, rack.user) == ("rack", "id-ada")
    lines = told.text.splitlines()
    assert lines[0] == "Time is up for Ada: a computer player makes this turn for them."
    assert lines[1].startswith("Ada placed ")
    assert lines[2:] == [
        "Ada, your turn.",
        "118 tiles left in the bag.",
    ]  # 120, less the first tile and the one drawn after it
    assert len(room.game().moves) == 1
    assert room.table().due_at == START + 61 + 30
