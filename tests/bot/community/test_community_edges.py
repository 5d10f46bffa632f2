"""/top, /stats and /history at their edges, each the gap a surviving mutant showed
(docs/mutation.md): what an archived game keeps, mentions as a platform writes them,
people known from solo games only, chats that played Genial Spezial only, solo bests and
win rates in /stats, and a move told in two sentences.

Ratings shown are the two-newcomer update worked out by hand in test_ratings: 1086 for
the winner, 954 for the loser.
"""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from bot.community import ladders as community
from bot.community import ratings
from bot.community.ladders import Community
from bot.community.ratings import RatedGame, SeatResult
from bot.core.table import Options, Seat, Table
from bot.store import SQLiteStore
from bot.words.texts import Texts
from engine.record import Record, replay
from engine.tiles import Colour
from tests.bot.helpers import make_service

TEXTS = Texts("en")


def a_community(names: dict[str, str]) -> Community:
    known = Community(SQLiteStore(":memory:"))
    known.names.update(names)
    return known


def won(known: Community, chat: str, winner: str, loser: str, kind: str = "genial",
        at: float = 1.0, lowest: tuple[int, int] = (5, 3)) -> None:  # fmt: skip
    seats = (SeatResult(winner, 0, 1, lowest[0]), SeatResult(loser, 1, 2, lowest[1]))
    known.ladder.apply(RatedGame(chat, kind, "standard", at, seats))


def test_an_archived_game_keeps_the_seats_options_title_and_record() -> None:
    seats = [Seat("Ada", "u1"), Seat("Bob", level="easy", left=True, left_user="u2")]
    record = {"game": "genial", "players": 2, "moves": []}
    table = Table("c1", "Kitchen", status="playing", seats=seats, options=Options(), record=record)
    row = community.archive_row(table, 12.5)
    assert row == {
        "chat": "c1",
        "title": "Kitchen",
        "finished_at": 12.5,
        "seats": [
            {"name": "Ada", "user": "u1", "level": None, "left": False, "left_user": None},
            {"name": "Bob", "user": None, "level": "easy", "left": True, "left_user": "u2"},
        ],
        "options": json.loads(json.dumps(row["options"])),
        "record": record,
    }
    assert row["options"]["game"] == "genial"


def test_a_person_is_found_by_a_mention_as_platforms_write_it() -> None:
    known = a_community({"123": "Ada"})
    won(known, "c1", "123", "456")
    for target in ("<@123>", "<@!123>", "@123", "@Ada", " Ada ", "123"):
        assert known.find("c1", target) == "123", target


def test_a_person_with_solo_games_only_is_found_at_that_chat_only() -> None:
    known = a_community({"u9": "Sol"})
    known.ladder.apply(RatedGame("c1", "genial", "solo", 1.0, (SeatResult("u9", 0, 1, 8),)))
    assert known.find("c1", "Sol") == "u9"
    assert known.find("c2", "Sol") is None


def test_top_of_a_chat_that_played_genial_spezial_only() -> None:
    known = a_community({"ann": "Ann", "bob": "Bob"})
    won(known, "c1", "ann", "bob", kind="spezial")
    assert community.top_lines(known, "c1", 1, TEXTS) == [
        "Genial Spezial: the ladder here (rank. name: rating · games · wins)",
        "1. Ann: 1086 · 1 · 1",
        "2. Bob: 954 · 1 · 0",
    ]


def test_stats_of_genial_spezial_only_and_a_whole_win_rate() -> None:
    known = a_community({"ann": "Ann", "bob": "Bob"})
    won(known, "c1", "ann", "bob", kind="spezial", lowest=(6, 2))
    head, per_game = community.stats(known, "c1", "ann", TEXTS)
    assert head == ["Statistics of Ann:"]
    assert [(g.game, g.lines, g.history) for g in per_game] == [
        (
            "spezial",
            [
                "Genial Spezial: rating 1086, games 1, wins 1 (100%), average lowest colour "
                "6.0, best game 6",
                "Genial Spezial everywhere (all chats): rating 1086, games 1, wins 1",
            ],
            [1086],
        )
    ]


def test_stats_win_rate_of_one_in_three() -> None:
    known = a_community({"ann": "Ann", "bob": "Bob"})
    won(known, "c1", "ann", "bob", at=1.0)
    won(known, "c1", "bob", "ann", at=2.0)
    won(known, "c1", "bob", "ann", at=3.0)
    _, (genial,) = community.stats(known, "c1", "ann", TEXTS)
    assert "wins 1 (33%)" in genial.lines[0]  # 100 / 3 = 33.3


def test_stats_shows_solo_bests() -> None:
    known = a_community({"ann": "Ann"})
    for at, lowest in ((1.0, 7), (2.0, 11), (3.0, 9)):
        seats = (SeatResult("ann", 0, 1, lowest),)
        known.ladder.apply(RatedGame("c1", "genial", "solo", at, seats))
    head, per_game = community.stats(known, "c1", "ann", TEXTS)
    assert head == ["Statistics of Ann:", "Solo game: games 3, best lowest colour 11"]
    assert per_game == []
    # Elsewhere only the global bests would count, and this chat has none of its own.
    head, _ = community.stats(known, "c2", "ann", TEXTS)
    assert head == ["Statistics of Ann:", "Ann has no finished game here yet."]


def test_stats_names_a_person_as_their_games_knew_them() -> None:
    """Ada played as "Ada"; asking about herself under a new display name, /stats still
    names her as her games did (the asker's name stands in only before a first game)."""
    known = a_community({"u1": "Ada"})
    won(known, "c1", "u1", "u2")
    head, _ = community.stats(known, "c1", "u1", TEXTS, asker="Ada L.")
    assert head[0] == "Statistics of Ada:"
    head, _ = community.stats(known, "c1", "u3", TEXTS, asker="Cy")
    assert head == ["Statistics of Cy:", "Cy has no finished game here yet."]


def test_history_tells_a_bonus_as_a_second_sentence_of_its_move(shared: Path) -> None:
    # Example 01's move 27: Bob's OY J6 I6 brings his yellow to 18 (from the engine), a
    # bonus placement: one line, two sentences.
    record = json.loads((shared / "examples" / "01-genial-standard-2p.json").read_text())
    game = replay(Record.from_dict({**record, "moves": record["moves"][:27]}))
    assert game.score(1)[Colour.YELLOW] == 18 and record["moves"][26] == "OY J6 I6"
    moves = len(record["moves"])
    line = community.history_lines(record, ["Ann", "Bob"], moves - 26, TEXTS)[0]
    assert line.startswith("27. Bob placed \U0001f7e7\U0001f7e8 J6 I6: ")  # orange, yellow
    assert line.endswith(". Genial! 18 in yellow: bonus placement.")


def test_history_tells_moves_taken_back_after_the_move_they_followed(shared: Path) -> None:
    # Example 01 has 45 moves; /history 3 tells moves 43-45. Takebacks by consent (issue
    # 44) are told after the move they followed, in the order they were taken, with their
    # tiles as coloured squares and "N moves" for more than one: after move 44 two of them
    # (one move, then two), after move 45 one, after move 42 (the last move not told, just
    # before move 43) one at the top; one after move 41 lies before the window and is left out.
    record = json.loads((shared / "examples" / "01-genial-standard-2p.json").read_text())
    assert len(record["moves"]) == 45
    takebacks = [
        {"after": 44, "moves": ["RG A1 B1"]},
        {"after": 41, "moves": ["GP E1 E2"]},
        {"after": 45, "moves": ["RP A3 A4"]},
        {"after": 44, "moves": ["OY C1 C2", "BP D1 D2"]},
        {"after": 42, "moves": ["swap"]},
    ]
    names = ["Ann", "Bob"]
    told = community.history_lines(record, names, 3, TEXTS)
    assert [line[:4] for line in told] == ["43. ", "44. ", "45. "]
    lines = community.history_lines({**record, "takebacks": takebacks}, names, 3, TEXTS)
    assert lines == [
        "   (taken back by consent: swap)",
        told[0],
        told[1],
        "   (taken back by consent: \U0001f7e5\U0001f7e9 A1 B1)",
        "   (2 moves taken back by consent: "
        "\U0001f7e7\U0001f7e8 C1 C2, \U0001f7e6\U0001f7ea D1 D2)",
        told[2],
        "   (taken back by consent: \U0001f7e5\U0001f7ea A3 A4)",
    ]


def test_a_linked_account_is_its_person_on_the_ladders() -> None:
    store = SQLiteStore(":memory:")
    assert store.link("tg:7", "dc:5")  # tg:7 asked for the link code
    known = Community(store)
    assert known.person("dc:5") == "tg:7"
    assert known.person("tg:7") == "tg:7" and known.person("tg:9") == "tg:9"


def test_the_median_turn_is_the_middle_time_of_the_turns_kept() -> None:
    known = a_community({"u1": "Ada"})
    assert known.median_turn("u1") is None  # no game by message yet
    known.turn_times["u1"] = deque([300.0, 60.0, 7200.0, 600.0])
    assert known.median_turn("u1") == (450.0, 4)  # (300 + 600) / 2
    assert known.median_turn("u2") is None


def by_message(seats: list[dict[str, Any]], options: Any, *turns: dict[str, Any]) -> dict[str, Any]:
    """An archived row whose record holds only its clock's turns: one that does not replay,
    so it is on no ladder, and only the names and the turn times are learned from it."""
    return {
        "chat": "c",
        "seats": seats,
        "options": options,
        "record": {"clock": {"turns": list(turns)}},
    }


def test_turn_times_are_learned_from_games_by_message_only() -> None:
    # /stats's time per turn counts a person's own turns of games played by message: a time
    # per turn (timeout > 0), or a clock bank over LIVE_BANK (3 h; a 3 h bank is live,
    # bot/core/timebank.py). A computer's turns at a seat its person left are not theirs.
    store = SQLiteStore(":memory:")
    ada, bob = {"name": "Ada", "user": "u1"}, {"name": "Bob", "user": None, "left_user": "u2"}
    cy = {"name": "Cy", "user": "u3"}
    day = {"timeout": 86400, "clock_bank": 0}
    store.archive("c", 1.0, by_message([ada, bob], day,
        {"seat": 0, "used": 100}, {"seat": 1, "used": 40},
        {"seat": 0, "used": 300}, {"seat": 1, "used": 7, "computer": True}))  # fmt: skip
    three_days = {"timeout": 0, "clock_bank": 3 * 86400}
    store.archive("c", 2.0, by_message([ada, cy], three_days,
        {"seat": 0, "used": 200}, {"seat": 1, "used": 900}))  # fmt: skip
    live = {"timeout": 0, "clock_bank": 3 * 3600}
    store.archive("c", 3.0, by_message([ada, cy], live, {"seat": 0, "used": 5000}))
    # A damaged row (its options not a mapping) still names its people, and counts no turn.
    store.archive(
        "c", 4.0, by_message([{"name": None, "user": "u4"}], "24h", {"seat": 0, "used": 60})
    )
    known = Community(store)
    assert known.median_turn("u1") == (200.0, 3)  # 100, 300 and 200; not the live 5000
    assert known.median_turn("u2") == (40.0, 1)
    assert known.median_turn("u3") == (900.0, 1)
    assert known.median_turn("u4") is None
    assert known.names == {"u1": "Ada", "u2": "Bob", "u3": "Cy", "u4": "u4"}


def test_the_median_turn_is_of_the_latest_500_turns() -> None:
    # 501 turns of 1 to 501 seconds: the first is dropped, the median of 2..501 is
    # (251 + 252) / 2.
    store = SQLiteStore(":memory:")
    turns = [{"seat": 0, "used": used} for used in range(1, 502)]
    store.archive("c", 1.0, by_message([{"name": "Ada", "user": "u1"}], {"timeout": 3600}, *turns))
    assert community.TURN_TIMES_KEPT == 500
    assert Community(store).median_turn("u1") == (251.5, 500)


def test_accounts_linked_by_another_process_are_one_person_at_the_next_read(
    tmp_path: Path,
) -> None:
    # The other platform's bot links dc:5 to tg:7 on the shared store (issue 49): what reads
    # the ladders next sees them as one person, and apart again once unlinked.
    service = make_service(tmp_path / "bot.db")
    before = community.of(service)
    assert community.fresh(service) is before  # nothing linked since: not rebuilt
    assert service.store.link("tg:7", "dc:5")
    linked = community.fresh(service)
    assert linked is community.of(service) and linked is not before
    assert linked.person("dc:5") == "tg:7"
    assert sorted(service.store.unlink("dc:5")) == ["dc:5", "tg:7"]
    apart = community.fresh(service)
    assert apart is community.of(service) and apart.person("dc:5") == "dc:5"


def test_a_forgotten_person_is_not_found_on_the_ladder() -> None:
    # After /forget me a person's games stay on the ladder under a former key: nobody
    # finds them by it, nor by the start of it.
    known = a_community({"u1": "Ada"})
    won(known, "c1", "u1", f"{community.FORMER}1")
    assert known.find("c1", f"{community.FORMER}1") is None
    assert known.find("c1", "form") is None
    assert known.find("c1", "ad") == "u1"


def test_a_forgotten_person_is_named_a_former_player() -> None:
    assert a_community({}).name(f"{community.FORMER}1", TEXTS) == "a former player"


def test_a_linked_accounts_seat_counts_for_its_person() -> None:
    # tg:7 asked for the link code, dc:5 redeemed it: dc:5's seats are tg:7's on the
    # ladders (issue 49), a seat it left too; a row that holds no seats stays as it is.
    people = {"dc:5": "tg:7", "tg:7": "tg:7"}
    row = {"chat": "c", "seats": [{"user": "dc:5", "name": "Ada"}, {"user": "u2", "name": "Bob"}]}
    assert community.merged(row, people) == {
        "chat": "c",
        "seats": [{"user": "tg:7", "name": "Ada"}, {"user": "u2", "name": "Bob"}],
    }
    left = {"seats": [{"user": None, "left_user": "dc:5"}, {"user": "u2"}]}
    assert community.merged(left, people)["seats"][0] == {"user": None, "left_user": "tg:7"}
    assert community.merged({"chat": "c"}, people) == {"chat": "c"}
    # Both accounts at one game count as the two they played as.
    both = {"seats": [{"user": "dc:5"}, {"user": "tg:7"}]}
    assert community.merged(both, people) == both
    left_one = {"seats": [{"user": "dc:5"}, {"user": None, "left_user": "tg:7"}]}
    assert community.merged(left_one, people) == left_one  # one of them left: still two


def test_a_game_a_linked_account_finishes_counts_for_its_person_unreplayed(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # dc:5 is tg:7's linked account; its game ends (example 01: the first seat wins): the win is
    # tg:7's, and the game handed over is taken as it is, its record not replayed.
    store = SQLiteStore(":memory:")
    store.link("tg:7", "dc:5")
    known = Community(store)
    record = json.loads((shared / "examples" / "01-genial-standard-2p.json").read_text())
    played = replay(Record.from_dict(record))

    def refuse(_: Record) -> None:
        raise RuntimeError("replayed although the game was handed over")

    monkeypatch.setattr(ratings, "replay", refuse)
    seats = [{"name": "Ada", "user": "dc:5"}, {"name": "Bob", "user": "u2"}]
    known.finished({"chat": "c", "finished_at": 5.0, "seats": seats, "record": record}, played)
    ada = known.ladder.standing("tg:7", "genial")
    assert ada is not None and (ada.games, ada.wins) == (1, 1)
    assert known.ladder.standing("dc:5", "genial") is None
    # Rebuilt from the store at the next start (the record replayed then): the same.
    monkeypatch.undo()
    again = Community(store).ladder
    assert again.standing("dc:5", "genial") is None
    rebuilt = again.standing("tg:7", "genial")
    assert rebuilt is not None and (rebuilt.games, rebuilt.wins) == (1, 1)
