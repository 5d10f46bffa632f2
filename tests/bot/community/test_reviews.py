"""The expert's review in the service (bot/community/reviews.py): due work after a game, stored with
the finished game, shown by /review at once, never worked out twice."""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path
from typing import Any

import pytest

from bot.community import reviews
from engine.record import Record
from engine.review import GameReview, review_game, series
from tests.bot.helpers import Clock, Room, make_service

#: The coloured squares the turn messages show for the colour letters (issue 44, item 32).
SQUARES = {"R": "🟥", "G": "🟩", "B": "🟦", "O": "🟧", "Y": "🟨", "P": "🟪"}


def told(move: str) -> str:
    """A placement as the chat is told it: ``RG A2 B3`` -> ``🟥🟩 A2 B3``."""
    tile, _, cells = move.partition(" ")
    return f"{''.join(SQUARES[c] for c in tile)} {cells}"


COLOURS = {"R": "red", "G": "green", "B": "blue", "O": "orange", "Y": "yellow", "P": "purple"}


def points(gained: tuple[int, ...]) -> str:
    """What a placement scored, as the review tells it: ``+2 red, +1 purple`` in the score
    track's order (red, green, blue, orange, yellow, purple), or ``no points``."""
    told = [f"+{g} {COLOURS[c]}" for g, c in zip(gained, "RGBOYP", strict=True) if g]
    return ", ".join(told) or "no points"


#: Every test here runs on SQLite and on PostgreSQL (tests/bot/conftest.py).
pytestmark = pytest.mark.usefixtures("backend")


def finished_room(
    tmp_path: Path, *, pictures: bool = False, lang: str = "en", spezial: bool = False
) -> Room:
    room = Room(make_service(tmp_path / "t.db", seed=3, pictures=pictures))
    room.ok("Ada", "/join")
    room.ok("Ada", "/addbot")
    if lang != "en":
        room.ok("Ada", f"/option lang {lang}")
    if spezial:
        room.ok("Ada", "/option spezial")
    room.ok("Ada", "/start")
    room.play_out(random.Random(2))
    return room


def test_the_review_is_due_work_after_the_game_and_done_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    room = finished_room(tmp_path)
    # The last move's due work reviewed the game: it is stored.
    [(row, data)] = room.service.store.reviews("chat-1")
    assert data is not None
    # Nothing more is due: the clock comes back and reviews nothing again.
    reviewed: list[object] = []
    monkeypatch.setattr(reviews, "review_game", lambda *a, **k: reviewed.append(a))
    room.due(room.service.clock() + 3600)
    room.say("Ada", "/board")
    assert reviewed == []
    # A second process that got hold of it could not store it again.
    assert not room.service.store.save_review("chat-1", row["finished_at"], {"x": 1})
    assert room.service.store.claim_review("chat-1", "other", 1e12, 60) is None
    # What is stored is the review of the archived record, seen from each mover's view.
    expected = review_game(Record.from_dict(row["record"]), level="greedy", samples=8)
    assert GameReview.from_dict(data) == expected


def test_review_shows_accuracy_costliest_and_turning_point(tmp_path: Path) -> None:
    room = finished_room(tmp_path)
    [(row, data)] = room.service.store.reviews("chat-1")
    assert data is not None
    review = GameReview.from_dict(data)
    out = room.ok("Ada", "/review")
    assert len(out) == 1  # no pictures in this room: the text alone
    text = out[0].text
    ada = next(s for s in review.seats if row["seats"][s.seat]["name"] == "Ada")
    assert f"Ada: accuracy {ada.accuracy}% ({ada.accurate} of {ada.placements} placements)" in text
    assert ada.costliest  # this game has costly placements of Ada's to tell
    for n in ada.costliest:
        p = review.placement(n)
        assert p.drop is not None and p.drop > 0
        lower = "point lower" if p.drop == 1 else "points lower"
        played, best = told(p.played), told(p.best)
        assert f"move {n + 1}: played {played}, best {best}: chance to win {p.drop} {lower}" in text
        # The lowest colour is named only where the two placements leave it different.
        low = f"lowest colour {min(p.after_played)} instead of {min(p.after_best)}"
        assert (low in text) == (min(p.after_played) != min(p.after_best))
    # Some side's chance fell somewhere: the game turned there, and whose chance it was.
    n, side = review.turning_point, review.turned_side
    assert n is not None and side is not None and review.chances is not None
    before = series(review.chances, side)[n]
    after = series(review.chances, side)[n + 1]
    whose = row["seats"][side]["name"]
    turned = next((p for p in review.placements if p.number == n), None)
    said = f"{whose}'s chance to win fell from {round(before)}% to {round(after)}%."
    if turned is None:
        assert f"The game turned at move {n + 1}: {said}" in text
    else:
        name = row["seats"][turned.seat]["name"]
        assert f"The game turned at move {n + 1}: after {name} played" in text
        assert f" {told(turned.played)}, {said}" in text
    assert "as lichess computes it" in text


def test_review_draws_the_chart_and_the_costliest_boards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import render.review

    # Each board names the game's players by their seats (as the board in a game does).
    named: list[Any] = []
    real_board = render.review.compared_board_png

    def compared_board_png(*args: Any, **kwargs: Any) -> bytes:
        named.append(args[4])
        return real_board(*args, **kwargs)

    monkeypatch.setattr(render.review, "compared_board_png", compared_board_png)
    room = finished_room(tmp_path, pictures=True)
    [(row, data)] = room.service.store.reviews("chat-1")
    assert data is not None
    review = GameReview.from_dict(data)
    ada = next(s for s in review.seats if row["seats"][s.seat]["name"] == "Ada")
    out = room.ok("Ada", "/review")
    assert out[0].attachment is not None and out[0].attachment.filename == "review-chances.png"
    boards = out[1:]
    assert [o.attachment.filename for o in boards if o.attachment] == [
        f"review-{n + 1:03d}.png" for n in ada.costliest
    ]
    for o, n in zip(boards, ada.costliest, strict=True):
        p = review.placement(n)
        played, best = points(p.gained_played), points(p.gained_best)
        assert o.text == (
            f"Ada, move {n + 1}: played {told(p.played)} ({played}); best {told(p.best)} ({best})."
        )
        assert o.attachment is not None and o.attachment.data.startswith(b"\x89PNG")
    seated = [seat["name"] for seat in row["seats"]]
    assert sorted(seated) == ["Ada", "Computer 1"]
    assert ada.costliest and named == [seated] * len(ada.costliest)


def test_review_before_any_game_and_while_it_is_worked_out(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    assert room.error("Ada", "/review") == (
        "No finished game here has a review yet: one comes after the next game ends."
    )
    store = room.service.store
    store.archive("chat-1", 5.0, {"seats": [], "options": {}, "record": {}})
    store.want_review("chat-1", 5.0)
    assert room.error("Ada", "/review") == (
        "The review of the last game is not ready yet: ask again in a minute."
    )


def test_a_record_that_does_not_replay_is_not_tried_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    store = room.service.store
    store.archive("chat-1", 5.0, {"seats": [], "options": {}, "record": {"game": "chess"}})
    store.want_review("chat-1", 5.0)
    with caplog.at_level(logging.WARNING, logger=reviews.__name__):
        reviews.due(room.service, "chat-1", 10.0)
    # The operator's log says so in one line.
    assert [(r.levelno, r.getMessage()) for r in caplog.records if r.name == reviews.__name__] == [
        (logging.WARNING, "a finished game's record does not replay: no review")
    ]
    assert store.claim_review("chat-1", "other", 1e12, 60) is None
    assert room.error("Ada", "/review").startswith("The review of the last game is not ready")


def test_review_speaks_the_tables_language(tmp_path: Path) -> None:
    room = finished_room(tmp_path, lang="de")
    text = room.ok("Ada", "/review")[0].text
    assert text.startswith("Die Analyse des Experten (")
    assert "Ada: Genauigkeit " in text


def test_the_web_pages_review_lines_follow_the_moves(tmp_path: Path) -> None:
    from bot.pages import looks as pages

    room = finished_room(tmp_path)
    [(row, data)] = room.service.store.reviews("chat-1")
    assert data is not None
    review = GameReview.from_dict(data)
    lines = pages.review_lines(room.service, "chat-1")
    assert lines is not None and len(lines) == len(row["record"]["moves"])
    for p in review.placements:
        name = row["seats"][p.seat]["name"]
        assert lines[p.number].startswith(f"{name}: {told(p.played)} (")
        if p.played == p.best:
            assert lines[p.number].endswith("the expert's move too.")
        else:
            assert f"; the expert: {told(p.best)} (" in lines[p.number]
    for s in review.swaps:
        assert lines[s.number].startswith(f"{row['seats'][s.seat]['name']}: {s.played}")
    # A new game at the table: the old game's review is not shown beside it.
    room.ok("Ada", "/start")
    assert pages.review_lines(room.service, "chat-1") is None


def test_no_review_text_holds_a_rack_or_the_draw_order(tmp_path: Path) -> None:
    """The review names moves only: the played and the expert's best placement (tiles the
    mover held then), never a rack, and the stored review holds no draw order."""
    from bot.pages import looks as pages

    room = finished_room(tmp_path, pictures=True)
    [(row, data)] = room.service.store.reviews("chat-1")
    assert data is not None
    review = GameReview.from_dict(data)
    named = {m.split()[0] for p in review.placements for m in (p.played, p.best)}
    lines = [line for o in room.ok("Bob", "/review") for line in o.text.split("\n")]
    lines += pages.review_lines(room.service, "chat-1") or []
    for line in lines:
        for word in line.replace(",", " ").replace("(", " ").split():
            if len(word) == 2 and set(word) <= set("RGBOYP"):
                assert word in named, line
    assert "bag" not in data
    bag = row["record"]["bag"]
    assert ",".join(f'"{t}"' for t in bag[:8]) not in json.dumps(data, separators=(",", ":"))


def test_review_tells_the_chats_last_game_not_its_first(tmp_path: Path) -> None:
    room = finished_room(tmp_path)  # Ada against a computer player
    clock = room.service.clock
    assert isinstance(clock, Clock)
    clock.advance(3600)  # a finished game is known by its chat and the time it ended
    room.ok("Ada", "/leave")
    room.ok("Bob", "/join")  # then Bob against the same computer player
    room.ok("Bob", "/start")
    room.play_out(random.Random(5))
    first, last = room.service.store.archived("chat-1")[-2:]
    assert [s["name"] for s in first["seats"]] == ["Ada", "Computer 1"]
    assert [s["name"] for s in last["seats"]] == ["Computer 1", "Bob"]
    (out,) = room.ok("Ada", "/review")
    lines = out.text.splitlines()
    assert lines[0] == f"The expert's review ({len(last['record']['moves'])} moves):"
    assert any(line.startswith("Bob: accuracy ") for line in lines)
    assert not any(line.startswith("Ada: accuracy ") for line in lines)


def test_review_tells_this_chats_game_only_and_no_picture_without_pictures(
    tmp_path: Path,
) -> None:
    room = finished_room(tmp_path)
    (out,) = room.ok("Ada", "/review")
    assert out.attachment is None  # this room shows no pictures: no chart is made
    other = Room(room.service, chat="chat-2")
    assert other.error("Ada", "/review") == (
        "No finished game here has a review yet: one comes after the next game ends."
    )


def test_a_review_of_more_players_than_the_archived_seats_is_not_shown(tmp_path: Path) -> None:
    """The archived game names one seat where its review has two players (a damaged row):
    /review says there is no review rather than fail; a seat without a name is its number."""
    room = finished_room(tmp_path)
    store = room.service.store
    [(row, data)] = store.reviews("chat-1")
    assert data is not None and GameReview.from_dict(data).players == 2
    first, second = row["seats"]
    for chat, seats in (("chat-2", [first]), ("chat-3", [{**first, "name": ""}, second])):
        store.archive(chat, 5.0, {**row, "seats": seats})
        store.want_review(chat, 5.0)
        assert store.save_review(chat, 5.0, data)
    assert Room(room.service, chat="chat-2").error("Ada", "/review") == (
        "No finished game here has a review yet: one comes after the next game ends."
    )
    (out,) = Room(room.service, chat="chat-3").ok("Ada", "/review")
    assert "Seat 1: accuracy " in out.text


def test_a_genial_spezial_game_is_reviewed_by_the_reviews_computer_player(
    tmp_path: Path,
) -> None:
    """Genial Spezial has no chances: the review compares each move with the move of the
    computer player the service reviews with (here the tests' quick one, ``greedy``)."""
    room = finished_room(tmp_path, spezial=True)
    [(row, data)] = room.service.store.reviews("chat-1")
    assert data is not None and not data.get("failed")
    record = Record.from_dict(row["record"])
    assert record.game == "spezial"
    expected = review_game(record, level="greedy", samples=8)
    assert GameReview.from_dict(data) == expected
    assert expected.chances is None and expected.placements
