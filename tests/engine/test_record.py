"""Record validation and round trips (RECORD.md)."""

from __future__ import annotations

import json
import random

import pytest

from engine.errors import InvalidRecord
from engine.genial import GenialGame
from engine.record import Record, replay, summary
from engine.tiles import tile_set


def genial(**overrides: object) -> dict[str, object]:
    data: dict[str, object] = {"game": "genial", "mode": "standard", "players": 2, "moves": []}
    data.update(overrides)
    return data


@pytest.mark.parametrize(
    ("data", "detail"),
    [
        ([], "JSON object"),
        (genial(game="chess"), '"game"'),
        (genial(players=0), '"players"'),
        (genial(players="2"), '"players"'),
        (genial(mode="team", players=3), "cannot be played by 3"),
        (genial(mode="solo", players=2), "cannot be played by 2"),
        (genial(mode="blitz"), '"mode"'),
        (genial(moves="RG A2 A3"), '"moves"'),
        (genial(bag=["RG"] * 120), "120 tiles"),
        (genial(bag=["RX", *[t.name for t in tile_set()][1:]]), "bad tile"),
        (genial(seed="x"), '"seed"'),
        (genial(tokens=["B1"]), "Genial Spezial"),
        (genial(colour="red"), "unknown keys: colour"),
        ({"game": "spezial", "players": 1, "moves": []}, "2 to 4"),
    ],
)
def test_invalid_records_say_what_is_wrong(data: object, detail: str) -> None:
    with pytest.raises(InvalidRecord) as info:
        Record.from_dict(data)
    assert info.value.reason == "invalid_record"
    assert detail in str(info.value)


def test_bad_json() -> None:
    with pytest.raises(InvalidRecord, match="not JSON"):
        Record.from_json("{")


def test_mode_defaults() -> None:
    assert Record.from_dict({"game": "genial", "players": 1}).mode == "solo"
    assert Record.from_dict({"game": "genial", "players": 3}).mode == "standard"


def test_record_round_trip_through_json() -> None:
    game = GenialGame(4, "team", seed=11)
    rng = random.Random(11)
    for _ in range(30):
        game.play(rng.choice(game.legal_moves()))
    text = json.dumps(game.record())
    again = replay(Record.from_json(text))
    assert summary(again) == summary(game)
    assert Record.from_json(text).to_dict() == json.loads(text)


def test_a_seeded_record_without_a_bag_replays_the_same_game() -> None:
    game = GenialGame(2, seed=99)
    game.play(game.legal_moves()[0])
    record = {"game": "genial", "players": 2, "seed": 99, "moves": game.moves}
    assert summary(replay(Record.from_dict(record))) == summary(game)


def test_replay_names_the_failing_move() -> None:
    record = Record.from_dict(genial(bag=[t.name for t in tile_set()], moves=["RG A2 A3", "oops"]))
    with pytest.raises(ValueError) as info:
        replay(record)
    # Seat 0 holds six RG (the set in order), so move 1 is legal and move 2 is not.
    assert getattr(info.value, "move_number", None) == 1
