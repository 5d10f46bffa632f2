"""Before the start: seats, options, permissions, and every kind of bad lobby input."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.table import CLOSED, LOBBY, PLAYING
from tests.bot.helpers import Room, make_service

#: Every test here runs on SQLite and on PostgreSQL (tests/bot/conftest.py).
pytestmark = pytest.mark.usefixtures("backend")


@pytest.fixture
def room(tmp_path: Path) -> Room:
    return Room(make_service(tmp_path / "t.db"))


def test_join_opens_a_table_and_lists_the_seats(room: Room) -> None:
    (out,) = room.ok("Ada", "/join")
    assert out.kind == "lobby" and out.user is None
    assert out.text.splitlines() == [
        "Ada sits down.",
        "Table Test room: Genial",
        "1. Ada",
        # Not "solo game" as if chosen: what /start would begin, and that others may join.
        "One player is seated: /start now begins a solo game, and others can still /join.",
        "Time per turn: no limit · hints: off · seats: in order of joining · English",
        "/join to sit down, /addbot to add a computer player, /start to begin.",
    ]
    # Buttons send commands for this version of the table.
    assert [b.command for b in out.buttons] == ["/join #1", "/addbot #1", "/start #1", "/option"]
    t = room.table()
    assert (t.status, t.host, t.version) == (LOBBY, "id-ada", 1)


def test_seats_fill_up_to_four(room: Room) -> None:
    room.ok("Ada", "/join")
    (out,) = room.ok("Ada", "/addbot strong")
    assert out.text.splitlines()[0] == "Computer 1 joins as a computer player (strong)."
    assert "2. Computer 1 (computer, strong)" in out.text.splitlines()
    room.ok("Bob", "/join")
    (out,) = room.ok("Bob", "/join bot")
    assert "4. Computer 2 (computer, greedy)" in out.text.splitlines()
    assert room.error("Dee", "/join") == "The table is full (4 seats)."
    assert room.error("Ada", "/addbot") == "The table is full (4 seats)."
    assert room.error("Ada", "/join") == "You already sit at this table (seat 1)."


def test_leave_before_the_start_frees_the_seat_and_passes_the_host(room: Room) -> None:
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    (out,) = room.ok("Ada", "/leave")
    assert out.text.splitlines()[:3] == (
        ["Ada leaves the table.", "Table Test room: Genial", "1. Bob"]
    )
    assert room.table().host == "id-bob"
    assert room.error("Ada", "/leave") == "You are not seated at this table."


def test_options_show_with_buttons(room: Room) -> None:
    (out,) = room.ok("Ada", "/option")
    assert out.kind == "options"
    assert out.text.splitlines()[:6] == [
        "Options of table Test room:",
        "Game: Genial",
        "Time per turn: no limit",
        "Hints: off",
        "Seat order: in order of joining",
        "Language: English",
    ]
    # Showing options opens no table; its buttons carry version 0 of a table to come.
    assert room.service.store.load("chat-1") is None
    labels = {b.label: b.command for b in out.buttons}
    assert labels["Play Genial Spezial"] == "/option game spezial #0"
    assert labels["Team game"] == "/option team on #0"
    assert labels["Time per turn: 24h"] == "/option timeout 24h #0"
    assert labels["Deutsch"] == "/option lang de #0"


def test_host_changes_options(room: Room) -> None:
    room.ok("Ada", "/join")
    (out,) = room.ok("Ada", "/option timeout 24h")
    assert out.text.splitlines()[:4] == [
        "Ada changed the options.",
        "Options of table Test room:",
        "Game: Genial, solo game",
        "Time per turn: 24h",
    ]
    room.ok("Ada", "/option hints on")
    room.ok("Ada", "/option order random")
    room.ok("Ada", "/option team")
    o = room.table().options
    assert (o.timeout, o.hints, o.order, o.team, o.game) == (86400, True, "random", True, "genial")
    room.ok("Ada", "/option spezial")
    o = room.table().options
    assert (o.game, o.team) == ("spezial", False)  # Genial Spezial has no team game


def test_option_button_press(room: Room) -> None:
    room.ok("Ada", "/join")
    (out,) = room.ok("Ada", "/option")
    hints_on = next(b for b in out.buttons if b.label == "Hints on")
    room.ok("Ada", hints_on.command)
    assert room.table().options.hints
    # The same button again: the table moved on, so it is stale and changes nothing.
    assert room.error("Ada", hints_on.command) == (
        "This button is from an earlier turn; nothing changed."
    )


def test_language_changes_every_text(room: Room) -> None:
    room.ok("Ada", "/join")
    (out,) = room.ok("Ada", "/option lang de")
    assert out.text.splitlines()[0] == "Ada hat die Optionen geändert."
    assert "Sprache: Deutsch" in out.text.splitlines()
    assert room.error("Ada", "/dance") == "/dance kenne ich nicht. /help zeigt die Befehle."
    (out,) = room.ok("Bob", "/join")
    assert out.text.splitlines()[0] == "Bob setzt sich an den Tisch."


def test_only_host_or_admin_changes_options(room: Room) -> None:
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    assert room.error("Bob", "/option hints on") == (
        "Only the host (Ada) or a chat admin may do that."
    )
    room.ok("Bob", "/option hints on", admin=True)
    assert room.table().options.hints


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        (
            "/option timeout soon",
            "soon is not a time per turn: use 30m, 24h, 2d (at"
            " least a minute, at most 14 days) or off.",
        ),
        ("/option lang es", "There is no language es: choose en, de, nl or fr."),
        ("/option order alphabetical", "The seat order is join or random, not alphabetical."),
        (
            "/option colour red",
            "There is no option colour. Options: team, genial, spezial, timeout, hints,"
            " order, lang, clock, grace, undo, puzzle.",
        ),
        ("/option hints maybe", "maybe is neither on nor off."),
        (
            "/addbot genius",
            "There is no computer level genius. Levels: random, greedy, strong, expert, master.",
        ),
        ("/dance", "I don't know /dance. /help lists the commands."),
        ("hello", "Commands start with a slash, like /help."),
        (
            "/play",
            "Say which move: /play <tile> <cell> <cell>, like /play RG A2 B3 or /play 1 A2 B3.",
        ),
        ("/kick", "Say whom: /kick <seat number or name>."),
    ],
)
def test_bad_lobby_input(room: Room, text: str, answer: str) -> None:
    room.ok("Ada", "/join")
    assert room.error("Ada", text) == answer


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("/start", "There is no table in this chat yet: /join opens one."),
        ("/leave", "There is no table in this chat yet: /join opens one."),
        ("/play RG A2 B2", "There is no table in this chat yet: /join opens one."),
        ("/hand", "There is no table in this chat yet: /join opens one."),
        ("/export", "There is no game to export yet."),
        ("/swap #3", "This button is from an earlier turn; nothing changed."),
    ],
)
def test_no_table_yet(room: Room, text: str, answer: str) -> None:
    assert room.error("Ada", text) == answer
    assert room.service.store.load("chat-1") is None


@pytest.mark.parametrize(
    ("setup", "answer"),
    [
        (
            ["/option team"],
            "The team game needs exactly 4 players (seated now: 1)."
            " /option team off plays without teams.",
        ),
        (
            ["/option team", "bob: /join", "/addbot"],
            "The team game needs exactly 4 players (seated now: 3)."
            " /option team off plays without teams.",
        ),
        (["/option spezial"], "Genial Spezial needs 2 to 4 players (seated now: 1)."),
        (["/leave"], "Nobody is seated: /join or /addbot first."),
    ],
)
def test_options_that_do_not_fit_the_players(room: Room, setup: list[str], answer: str) -> None:
    room.ok("Ada", "/join")
    for line in setup:
        name, text = ("Bob", line[5:]) if line.startswith("bob: ") else ("Ada", line)
        room.ok(name, text)
    assert room.error("Ada", "/start") == answer


def test_commands_that_need_a_game(room: Room) -> None:
    room.ok("Ada", "/join")
    for text in ("/play 1 A2 B2", "/swap", "/keep", "/hand", "/hint", "/board", "/score"):
        assert room.error("Ada", text) == "No game is running: /start begins one."


def test_kick_and_abort_need_the_host(room: Room) -> None:
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/addbot")
    assert room.error("Bob", "/kick Ada") == "Only the host (Ada) or a chat admin may do that."
    assert room.error("Bob", "/abort") == "Only the host (Ada) or a chat admin may do that."
    assert room.error("Ada", "/kick Zed") == (
        "There is no player Zed here: name a seat number or a player's name."
    )
    (out,) = room.ok("Ada", "/kick comp")  # a unique prefix of "Computer 1"
    assert out.text.splitlines()[0] == "Ada removes Computer 1 from the table."
    (out,) = room.ok("Ada", "/kick 2")
    assert out.text.splitlines()[0] == "Ada removes Bob from the table."
    assert [s.name for s in room.table().seats] == ["Ada"]


def test_abort_closes_and_join_reopens(room: Room) -> None:
    room.ok("Ada", "/join")
    room.ok("Ada", "/option hints on")
    (out,) = room.ok("Ada", "/abort")
    assert out.text == "Ada closed the table. /join opens a new one."
    t = room.table()
    assert (t.status, t.seats, t.host) == (CLOSED, [], None)
    assert room.error("Ada", "/start") == "There is no table in this chat yet: /join opens one."
    room.ok("Bob", "/join")
    t = room.table()
    assert (t.status, t.host, [s.name for s in t.seats]) == (LOBBY, "id-bob", ["Bob"])
    # Versions keep counting, so a button from before the abort stays stale.
    assert t.version == 4


def test_game_running_blocks_lobby_commands(room: Room) -> None:
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    assert room.table().status == PLAYING
    running = "A game is running: that is possible before the start only."
    for name, text in [
        ("Cy", "/join"),
        ("Ada", "/addbot"),
        ("Ada", "/option hints on"),
        ("Ada", "/start"),
    ]:
        assert room.error(name, text) == running


def test_help_and_rules_in_the_table_language(room: Room) -> None:
    (out,) = room.ok("Ada", "/help")
    assert out.text.splitlines()[0] == "Genial bot: the first commands."
    assert "(random, greedy, strong, expert, master)" in out.text
    (out,) = room.ok("Ada", "/help all")
    assert out.text.splitlines()[0] == "Genial bot commands:"
    room.ok("Ada", "/join")
    room.ok("Ada", "/option lang fr")
    (out,) = room.ok("Ada", "/rules")
    assert out.text.splitlines()[0] == "Génial en bref\u00a0:"
    room.ok("Ada", "/option spezial")
    (out,) = room.ok("Ada", "/rules")
    assert out.text.splitlines()[0] == "Génial Spezial en bref\u00a0:"
