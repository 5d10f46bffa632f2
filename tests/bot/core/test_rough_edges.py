"""The rough edges a new player met (issue 27, item 4): each answer here was wrong or
unclear before, and the expected words are worked out from the rules or by hand."""

from __future__ import annotations

import json
import random
from pathlib import Path

from bot.core import games
from bot.core.outbound import User
from bot.core.table import PLAYING, Seat, Table
from tests.bot.helpers import Clock, Room, make_service, user


def seeded_room(tmp_path: Path, shared: Path, example: str, upto: int, names: list[str]) -> Room:
    """A table in the middle of a sample game: the record's first ``upto`` moves played."""
    record = json.loads((shared / "examples" / f"{example}.json").read_text())
    record["moves"] = record["moves"][:upto]
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    table = Table(
        chat="chat-1",
        title="Test room",
        version=100,
        status=PLAYING,
        host=user(names[0]).id,
        seats=[Seat(n, user(n).id) for n in names],
        record=record,
        seed=7,
        turn_started=clock(),
    )
    service.store.save(table, None)
    room = Room(service)
    for n in names:
        room.person(n)
    return room


def test_spezial_colour_error_quotes_the_bad_letter(tmp_path: Path, shared: Path) -> None:
    """Genial Spezial scores in blue, green, orange and purple only: red is a colour of the
    tiles of Genial, not of this game. L2 L3 covers a golden space (the sample game's third
    move names O there), so a colour is asked for; the answer quotes the one bad letter and
    lists this game's four colours."""
    room = seeded_room(tmp_path, shared, "07-spezial-2p", 2, ["Ada", "Bob"])
    four = "use B (blue), G (green), O (orange) or P (purple)."
    assert room.error("Ada", "/play L2 L3 R") == f"R is not a colour of Genial Spezial: {four}"
    assert room.error("Ada", "/play L2 L3 X") == f"X is not a colour of Genial Spezial: {four}"
    room.ok("Ada", "/play L2 L3 O")


def test_spezial_hint_shows_points(tmp_path: Path) -> None:
    """A Genial Spezial hint says what each move scores, as Genial's does, and no line ends
    in spaces. The first hint's points are checked against the score track after playing
    that move: what the hint promised is what the track gained."""
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/option spezial")
    room.ok("Ada", "/option hints on")
    room.ok("Ada", "/start")
    (hint,) = room.ok("Ada", "/hint")
    lines = hint.text.splitlines()
    assert lines[0] == "Good moves for you at Test room:"
    assert len(lines) >= 2
    for line in lines:
        assert line == line.rstrip()
    first = lines[1]
    assert first.startswith("1. /play ")
    move, points = first[len("1. /play ") :].split("  ")
    before = room.game().score(0)
    room.ok("Ada", f"/play {move}")
    after = room.game().score(0)
    names = {"B": "blue", "G": "green", "O": "orange", "P": "purple"}
    gained = [
        f"+{after[c] - before[c]} {names[c.value]}"
        for c in games.SPEZIAL_COLOURS
        if after[c] != before[c]
    ]
    assert points == (", ".join(gained) or "no points")


def test_kicking_my_own_seat_is_refused(tmp_path: Path) -> None:
    """In a solo game /kick 1 would hand the game to a computer whose result then counts
    as the person's solo best: refused, naming the two commands that do what was meant."""
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    room.ok("Ada", "/start")
    answer = "Seat 1 is your own: /leave gives it up, /abort closes the table."
    assert room.error("Ada", "/kick 1") == answer
    assert room.error("Ada", "/kick Ada") == answer
    assert room.playing()


def test_kicking_an_empty_seat_says_nobody_sits_there(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    room.ok("Ada", "/leave")  # the table stays open, with nobody seated
    assert room.error("Bob", "/kick 1") == "Nobody sits in seat 1 (seated now: 0)."
    room.ok("Bob", "/join")
    assert room.error("Bob", "/kick 3") == "Nobody sits in seat 3 (seated now: 1)."


def test_hint_during_a_swap_offer_asks_for_the_swap_first(tmp_path: Path, shared: Path) -> None:
    """The sample game's move 15 is a swap decision: after 14 moves the offer stands."""
    room = seeded_room(tmp_path, shared, "01-genial-standard-2p", 14, ["Ada", "Bob"])
    t = room.table()
    t.options.hints = True
    room.service.store.save(t, t.version)
    assert room.game().awaiting == "swap"
    mover = room.to_move()
    assert room.error(mover, "/hint") == "First decide on the swap: /swap or /keep."


def test_the_team_game_start_names_the_teams(tmp_path: Path) -> None:
    """Seats 1 and 3 play against seats 2 and 4 (RULES: the team game); seats follow the
    order of joining."""
    room = Room(make_service(tmp_path / "t.db"))
    for name in ("Ada", "Bob", "Cy", "Dan"):
        room.ok(name, "/join")
    room.ok("Ada", "/option team")
    out = room.ok("Ada", "/start")
    lines = out[0].text.splitlines()
    assert lines[0] == "The game begins: Genial, team game. Seats: 1. Ada, 2. Bob, 3. Cy, 4. Dan."
    assert lines[1] == "Teams: Ada & Cy against Bob & Dan."


def test_two_seats_of_one_name_are_told_apart(tmp_path: Path) -> None:
    """Two people may both be called Ann: every text that names a seat says which one by
    its seat number; lists that number their seats already stay as they are."""
    room = Room(make_service(tmp_path / "t.db"))
    room.people["Ann2"] = User("id-ann-2", "Ann")
    room.ok("Ann", "/join")
    room.ok("Ann2", "/join")
    out = room.ok("Ann", "/start")
    turn = out[0].text.splitlines()
    assert turn[:2] == ["The game begins: Genial. Seats: 1. Ann, 2. Ann.", "Ann (1), your turn."]
    (score,) = room.ok("Ann2", "/score")
    zero = (
        "\U0001f7e50 \U0001f7e90 \U0001f7e60 \U0001f7e70 \U0001f7e80 \U0001f7ea0 (lowest colour: 0)"
    )
    assert score.text.splitlines()[1:] == [f"Ann (1): {zero}", f"Ann (2): {zero}"]
    room.play_turn(random.Random(1))
    (board,) = room.ok("Ann", "/board")
    assert board.text.splitlines()[1] == "Ann (2), your turn."
    # Ann of seat 2 leaves: a computer player takes over her seat, named as hers.
    (left, *_) = room.ok("Ann2", "/leave")
    assert left.text.splitlines()[:2] == [
        "Ann (2) leaves the table.",
        "A computer player takes over the seat of Ann (2).",
    ]


def test_a_name_never_becomes_a_mention(tmp_path: Path) -> None:
    """Discord shows ``<@123456789>`` as the chip of user 123456789 and Telegram links
    ``@durov`` to that account: names keep the look of their at sign (the full-width ＠,
    U+FF20) and mention nobody. The players the bot means to address are its mentions."""
    room = Room(make_service(tmp_path / "t.db"))
    room.people["chip"] = User("111", "<@123456789>")
    room.people["durov"] = User("222", "@durov")
    (lobby,) = room.ok("chip", "/join")
    assert lobby.text.splitlines()[0] == "<\uff20123456789> sits down."
    (lobby,) = room.ok("durov", "/join")
    assert lobby.text.splitlines()[0] == "\uff20durov sits down."
    out = room.ok("chip", "/start")
    assert all("@" not in o.text for o in out)
    assert out[0].text.splitlines()[1] == "<\uff20123456789>, your turn."
    assert out[0].mentions == ("111",)


def test_the_rematch_lobby_says_anyone_seated_may_start(tmp_path: Path) -> None:
    """/start is open to every seated person (the host's say is needed only for someone
    not seated), so the rematch lobby says so, with the button's own word: German's
    button reads "Starten"."""
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/option lang de")
    room.ok("Ada", "/start")
    room.play_out(random.Random(3))
    (lobby,) = room.ok("Bob", "/rematch")
    assert lobby.text.splitlines()[0] == (
        "Bob deckt den Tisch noch einmal: dieselben Plätze, dieselben Optionen."
        " Wer am Tisch sitzt, kann „Starten“ drücken."  # issue 44, item 34: in quotes
    )
    room.ok("Ada", "/start")  # Ada is seated, not the host: she may
    assert room.playing()


def test_stats_in_a_chat_without_a_table_speak_of_no_table(tmp_path: Path) -> None:
    """/stats in a private chat began "Ada at this table:" where there is no table."""
    room = Room(make_service(tmp_path / "t.db"), "id-ada", "")
    (stats,) = room.ok("Ada", "/stats")
    assert stats.text.splitlines() == ["Statistics of Ada:", "Ada has no finished game here yet."]


def test_which_table_names_no_group() -> None:
    """A table of a Telegram forum topic is not "the group": the private chat's question
    which table is meant says where the table is played, in every language."""
    from bot.words.texts import Texts

    for lang, group in (("en", "group"), ("de", "gruppe"), ("nl", "groep"), ("fr", "groupe")):
        text = Texts(lang)("telegram.which_table", tables="A, B")
        assert group not in text.casefold(), lang


def test_a_solo_game_left_to_a_computer_is_not_my_best(tmp_path: Path) -> None:
    """/leave hands a solo game to a computer, which plays it to the end at once: its
    result is not the person's solo best (before, it was counted as theirs)."""
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    room.ok("Ada", "/start")
    assert room.ok("Ada", "/leave")[-1].kind == "result"
    (stats,) = room.ok("Ada", "/stats")
    assert stats.text.splitlines() == ["Statistics of Ada:", "Ada has no finished game here yet."]
