"""Takeback by consent (``/undo``): accepted, refused, overtaken by the next move, refused
after a swap decision; the bag afterwards holds the same tiles in a new order, and the
record keeps the move taken back and still replays. Both store backends."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from bot.core import games
from engine.genial import GenialGame
from engine.record import Record, replay
from tests.bot.helpers import Clock, Room, make_service

#: Every test here runs on SQLite and on PostgreSQL (tests/bot/conftest.py).
pytestmark = pytest.mark.usefixtures("backend")

#: The coloured squares the turn messages show for the colour letters, by hand.
SQUARES = {"R": "🟥", "G": "🟩", "B": "🟦", "O": "🟧", "Y": "🟨", "P": "🟪"}


def two_people(db: Path, *extra: str) -> Room:
    room = Room(make_service(db, clock=Clock()))
    room.ok("Ada", "/join")
    for command in extra:
        room.ok("Ada", command)
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    return room


def undrawn(room: Room) -> list[str]:
    """The draw order of the tiles still in the bag, as the engine replays the record."""
    game = room.game()
    assert isinstance(game, GenialGame)
    return [t.name for t in game.bag.order()]


def test_a_takeback_accepted(tmp_path: Path) -> None:
    room = two_people(tmp_path / "t.db")
    before = room.table()
    rack_before = room.game().racks[0][:]
    bag_before = undrawn(room)
    room.play_turn(random.Random(1))
    played = room.game().moves[0]
    out = room.ok("Ada", "/undo")
    (asked,) = out
    assert asked.text == (
        "Ada asks to take back their last move (1 move). Everyone else at the table must "
        "accept: /undo yes or /undo no."
    )
    assert asked.mentions == ("id-bob",)
    assert [b.label for b in asked.buttons] == ["Accept takeback", "Refuse"]
    assert asked.buttons[0].command.startswith("/undo yes #")
    assert asked.buttons[1].command.startswith("/undo no #")
    out = room.ok("Bob", asked.buttons[0].command)
    (turn,) = [o for o in out if o.kind == "turn"]
    assert turn.text.splitlines()[:2] == [
        "Everyone accepts.",
        "Ada's move is taken back (1 move). The tiles drawn since are back in the bag, and "
        "the bag was shuffled.",
    ]
    assert "Ada, your turn." in turn.text
    # Ada's rack is hers again, privately.
    (rack,) = [o for o in out if o.kind == "rack"]
    assert rack.user == "id-ada"
    game = room.game()
    assert game.moves == [] and game.to_move == 0
    assert game.racks[0] == rack_before
    # Same tiles in the bag, in a new order (the tile Ada drew is among them again).
    bag_after = undrawn(room)
    assert Counter(bag_after) == Counter(bag_before)
    assert bag_after != bag_before
    # The record keeps the move taken back, with the draw order it was played with, and
    # replays: the line as it is, and the line taken back.
    record = Record.from_dict(room.table().record)
    (taken,) = record.takebacks
    assert taken.after == 0 and taken.moves == (played,)
    assert taken.bag is not None and [t.name for t in taken.bag] == before.record["bag"]
    assert replay(record).moves == []
    # The game goes on, and its end is a record that replays with its takeback.
    room.play_out(random.Random(2))
    row = room.service.store.archived(room.chat.id)[-1]
    finished = Record.from_dict(row["record"])
    assert finished.takebacks == (taken,)
    assert replay(finished).over


def test_a_takeback_with_the_computer_moves_after_it(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", clock=Clock()))
    room.ok("Ada", "/join")
    room.ok("Ada", "/addbot")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    room.play_turn(random.Random(1))  # Ada, then the computer player, then Bob to move
    moves = len(room.game().moves)
    assert moves >= 2 and room.game().to_move == 2
    room.ok("Ada", "/undo")
    out = room.ok("Bob", "/undo yes")
    assert any(f"Ada's turn is taken back ({moves} moves)" in o.text for o in out)
    assert room.game().moves == [] and room.game().to_move == 0


def test_a_takeback_refused(tmp_path: Path) -> None:
    room = two_people(tmp_path / "t.db")
    room.play_turn(random.Random(1))
    room.ok("Ada", "/undo")
    assert room.error("Ada", "/undo yes").startswith("That is your own request")
    out = room.ok("Bob", "/undo no")
    assert out[0].text == "Bob refuses: Ada's move stays."
    assert len(room.game().moves) == 1
    assert room.error("Bob", "/undo yes") == "Nobody asked for a takeback here."
    # One request per move: refused is refused, and said so (issue 44, item 5).
    assert room.error("Ada", "/undo").startswith("Bob refused to take this move back")


def test_a_takeback_after_every_tile_was_drawn_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once every tile of the bag was drawn the engine cannot shuffle the undrawn order
    anew and refuses the takeback (``engine.record.take_back``): the table is told so and
    the move stays. Random play never empties the bag before the end, so here the engine's
    refusal stands in for such a game."""
    from engine.errors import InvalidRecord

    def bag_empty(record: Record, keep: int, rng: random.Random) -> Record:
        raise InvalidRecord("every tile of the bag was drawn: the order cannot be shuffled")

    monkeypatch.setattr(games, "take_back_record", bag_empty)
    room = two_people(tmp_path / "t.db")
    room.play_turn(random.Random(1))
    room.ok("Ada", "/undo")
    assert room.error("Bob", "/undo yes") == (
        "Every tile of the bag was drawn: this move can no longer be taken back."
    )
    assert len(room.game().moves) == 1


def test_a_takeback_overtaken_by_the_next_move(tmp_path: Path) -> None:
    room = two_people(tmp_path / "t.db")
    room.play_turn(random.Random(1))
    (asked,) = room.ok("Ada", "/undo")
    out = room.play_turn(random.Random(2))  # Bob moves instead of answering
    (turn,) = [o for o in out if o.kind == "turn"]
    assert turn.text.splitlines()[0] == "Bob moved: Ada's takeback request lapses."
    assert len(room.game().moves) == 2
    # The old button is stale, and typed it finds no request.
    assert room.error("Bob", asked.buttons[0].command).startswith("This button is from")
    assert room.error("Bob", "/undo yes") == "Nobody asked for a takeback here."
    # Nor can Ada take her move back now that Bob acted.
    assert room.error("Ada", "/undo").startswith("There is nothing of yours to take back")


def test_no_takeback_after_a_swap_was_answered(tmp_path: Path) -> None:
    room = two_people(tmp_path / "t.db")
    rng = random.Random(2)  # these moves reach a swap offer on the 26th move
    for _ in range(300):
        game = room.game()
        if game.awaiting == "swap":
            break
        room.play_turn(rng)
        assert room.playing()
    else:
        pytest.fail("no swap was offered in 300 moves")
    mover = room.to_move()
    room.ok(mover, "/keep")
    assert room.error(mover, "/undo") == (
        "A swap decision was made: that turn cannot be taken back."
    )


def test_only_one_request_and_takebacks_may_be_off(tmp_path: Path) -> None:
    room = two_people(tmp_path / "t.db")
    room.play_turn(random.Random(1))
    room.ok("Ada", "/undo")
    assert room.error("Ada", "/undo").startswith("A takeback is asked for already")
    off = Room(make_service(tmp_path / "u.db", clock=Clock()), "chat-2")
    off.ok("Ada", "/join")
    off.ok("Bob", "/join")
    off.ok("Ada", "/option undo off")
    off.ok("Ada", "/start")
    off.play_turn(random.Random(1))
    assert off.error("Ada", "/undo").startswith("Takebacks are off at this table")


def test_a_solo_takeback_needs_nobody(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", clock=Clock()))
    room.ok("Ada", "/join")
    room.ok("Ada", "/start")
    room.play_turn(random.Random(1))
    out = room.ok("Ada", "/undo")
    assert any("Ada's move is taken back (1 move)" in o.text for o in out)
    assert room.game().moves == []


def test_a_spezial_takeback_replays(tmp_path: Path) -> None:
    room = two_people(tmp_path / "t.db", "/option spezial")
    room.play_turn(random.Random(1))
    room.ok("Ada", "/undo")
    out = room.ok("Bob", "/undo yes")
    # Spezial has no bag and no racks: the line says so, and no rack is sent.
    (turn,) = [o for o in out if o.kind == "turn"]
    assert turn.text.splitlines()[1] == "Ada's move is taken back (1 move)."
    assert [o for o in out if o.kind == "rack"] == []
    record = Record.from_dict(room.table().record)
    assert len(record.takebacks) == 1 and record.takebacks[0].bag is None
    assert games.is_spezial(replay(record)) and replay(record).moves == []


def test_the_export_during_the_game_hides_the_old_draw_order(tmp_path: Path) -> None:
    import json

    room = two_people(tmp_path / "t.db")
    room.play_turn(random.Random(1))
    room.ok("Ada", "/undo")
    room.ok("Bob", "/undo yes")
    (export,) = [o for o in room.say("Bob", "/export") if o.kind == "export"]
    assert export.attachment is not None
    record = json.loads(export.attachment.data)
    assert "bag" not in record
    assert [set(tb) for tb in record["takebacks"]] == [{"after", "moves"}]


def test_history_tells_the_move_taken_back(tmp_path: Path) -> None:
    room = two_people(tmp_path / "t.db")
    rng = random.Random(1)
    for _ in range(3):
        room.play_turn(rng)
    third = room.game().moves[2]
    room.ok("Ada", "/undo")
    room.ok("Bob", "/undo yes")
    (history,) = room.ok("Bob", "/history")
    lines = history.text.splitlines()
    # Issue 44, items 31 and 32: two moves stand (the note is no move), and the move taken
    # back shows its tile as the turn messages do, in coloured squares.
    assert lines[0] == "Genial: the last 2 moves"
    assert [line[:3] for line in lines[1:3]] == ["1. ", "2. "]
    tile, cells = third.split(" ", 1)
    shown = "".join(SQUARES[c] for c in tile)
    assert lines[3] == f"   (taken back by consent: {shown} {cells})"
    assert len(lines) == 4


def test_a_record_holds_so_many_takebacks_and_no_more(tmp_path: Path) -> None:
    from engine.record import MAX_TAKEBACKS

    room = Room(make_service(tmp_path / "t.db", clock=Clock()))
    room.ok("Ada", "/join")
    room.ok("Ada", "/start")  # the solo game: a takeback needs nobody's yes
    rng = random.Random(1)
    for _ in range(MAX_TAKEBACKS):
        room.play_turn(rng)
        room.ok("Ada", "/undo")
    room.play_turn(rng)
    assert room.error("Ada", "/undo") == (
        "This game has had 200 takebacks, as many as a game record holds: no more."
    )
    assert len(Record.from_dict(room.table().record).takebacks) == MAX_TAKEBACKS


def test_the_replay_shows_the_move_taken_back_badged_in_the_tables_language(
    tmp_path: Path,
) -> None:
    import io

    from PIL import Image

    from render.marks import LEGEND_X, LEGEND_Y
    from render.theme import TURN

    room = two_people(tmp_path / "t.db", "/option lang de")
    room.play_turn(random.Random(1))
    room.ok("Ada", "/undo")
    room.ok("Bob", "/undo yes")
    room.play_out(random.Random(2))
    (gif,) = [o.attachment for o in room.ok("Ada", "/replay") if o.attachment is not None]
    record = Record.from_dict(room.service.store.archived(room.chat.id)[-1]["record"])
    placements = sum(m not in ("swap", "keep") for m in record.moves)
    # Every placement, the one taken back (Ada's first move), the empty board it went back
    # to, and the ranking.
    img = Image.open(io.BytesIO(gif.data))
    assert img.n_frames == placements + 1 + 1 + 1
    badges = []
    for k in range(img.n_frames):
        img.seek(k)
        badges.append(img.convert("RGB").getpixel((LEGEND_X + 4, LEGEND_Y + 19)) == TURN)
    assert badges == [True] + [False] * (img.n_frames - 1)
    # The badge says it in German, as the table's language.
    from render.replay import replay_frames

    box = (0, 0, 320, LEGEND_Y + 40)
    img.seek(0)
    got = img.convert("RGB").crop(box).tobytes()
    for words, same in (("zurückgenommen", True), ("taken back", False)):
        frame, _ = next(replay_frames(record, None, words))
        assert (frame.convert("RGB").crop(box).tobytes() == got) is same


def test_at_a_table_of_three_every_other_person_must_accept(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", clock=Clock()))
    for name in ("Ada", "Bob", "Cy"):
        room.ok(name, "/join")
    room.ok("Ada", "/start")
    room.play_turn(random.Random(1))
    assert room.to_move() == "Bob"
    (asked,) = room.ok("Ada", "/undo")
    assert set(asked.mentions) == {"id-bob", "id-cy"}
    # Bob's yes is one of the two answers needed: the move stays for now.
    (told,) = room.ok("Bob", "/undo yes")
    assert told.text == "Bob accepts; 1 more answer is needed."
    # Cy is still asked, with the buttons to answer.
    assert [b.label for b in told.buttons] == ["Accept takeback", "Refuse"]
    assert len(room.game().moves) == 1
    # Bob's second yes counts once.
    (again,) = room.ok("Bob", "/undo yes")
    assert again.text == "Bob accepts; 1 more answer is needed."
    assert len(room.game().moves) == 1
    out = room.ok("Cy", "/undo yes")
    (turn,) = [o for o in out if o.kind == "turn"]
    assert turn.text.splitlines()[0] == "Everyone accepts."
    assert room.game().moves == [] and room.game().to_move == 0


def test_a_takeback_gives_the_time_of_the_turn_back(tmp_path: Path) -> None:
    room = two_people(tmp_path / "t.db", "/option clock 1h+1m")
    clock = room.service.clock
    assert isinstance(clock, Clock)
    assert room.table().banks == [3600.0, 3600.0]
    start = room.table().turn_started
    assert start is not None
    # Ada's turn of ten minutes: 3600 - 600 + 60 = 3060 left.
    clock.now = start + 600
    room.play_turn(random.Random(1))
    assert room.table().banks == [3060.0, 3600.0]
    clock.now = start + 700
    room.ok("Ada", "/undo")
    room.ok("Bob", "/undo yes")
    # Her turn is taken back: her bank as it was when the turn began, the turn's time
    # running from its start (not charged twice when she plays it again).
    t = room.table()
    assert t.banks == [3600.0, 3600.0]
    assert t.turn_started == start and t.deadline == start + 3600
    assert t.record is not None and t.record["clock"]["turns"] == []


def test_a_takeback_keeps_the_turns_before_it_in_the_records_clock(tmp_path: Path) -> None:
    room = two_people(tmp_path / "t.db", "/option clock 1h+1m")
    clock = room.service.clock
    assert isinstance(clock, Clock)
    start = clock.now
    clock.now = start + 600
    room.play_turn(random.Random(1))  # Ada, one move: 3600 - 600 + 60 = 3060
    clock.now = start + 900
    room.play_turn(random.Random(2))  # Bob, one move: 3600 - 300 + 60 = 3360
    assert len(room.game().moves) == 2 and room.to_move() == "Ada"
    room.ok("Bob", "/undo")
    out = room.ok("Ada", "/undo yes")
    # One move taken back, the second of the game's two.
    (turn,) = [o for o in out if o.kind == "turn"]
    assert turn.text.splitlines()[1].startswith("Bob's move is taken back (1 move).")
    t = room.table()
    assert t.record is not None
    # Bob's turn (ended after move 2) is gone; Ada's (ended after move 1) stays.
    assert t.record["clock"]["turns"] == [{"seat": 0, "moves": 1, "used": 600.0, "left": 3060.0}]
    assert t.banks == [3060.0, 3600.0]


def test_the_taker_withdraws_the_request_with_undo_no(tmp_path: Path) -> None:
    room = two_people(tmp_path / "t.db")
    room.play_turn(random.Random(1))
    room.ok("Ada", "/undo")
    (withdrawn,) = room.ok("Ada", "/undo no")
    assert withdrawn.text == "Ada withdraws the takeback request."
    # No request is left to answer, and Ada's move stays.
    assert room.error("Bob", "/undo yes") == "Nobody asked for a takeback here."
    assert len(room.game().moves) == 1 and room.to_move() == "Bob"


def test_the_refuse_button_refuses(tmp_path: Path) -> None:
    room = two_people(tmp_path / "t.db")
    room.play_turn(random.Random(1))
    (asked,) = room.ok("Ada", "/undo")
    (refused,) = room.ok("Bob", asked.buttons[1].command)
    assert refused.text == "Bob refuses: Ada's move stays."
    assert len(room.game().moves) == 1


def test_the_turn_given_back_is_reminded_at_half_time(tmp_path: Path) -> None:
    # 4h+1h, by message: Ada moves an hour in, before her reminder (at 2 h); Bob is
    # reminded at 3 h (half of his 4 h). Ada's turn given back began at the start, with
    # her 4 h bank: it has 1 h left, and she was never reminded of it.
    room = two_people(tmp_path / "t.db", "/option clock 4h+1h")
    clock = room.service.clock
    assert isinstance(clock, Clock)
    start = clock.now
    clock.now = start + 3600
    room.play_turn(random.Random(1))
    (bobs,) = room.due(start + 3 * 3600)
    assert bobs.text.startswith("Bob, it is your turn at Test room: 2h left.")
    clock.now = start + 3 * 3600
    room.ok("Ada", "/undo")
    # The clock looks at the table at once: her reminder is past due.
    (adas,) = [o for o in room.ok("Bob", "/undo yes") if o.kind == "reminder"]
    assert adas.text.startswith("Ada, it is your turn at Test room: 1h left.")
    assert adas.mentions == ("id-ada",)
