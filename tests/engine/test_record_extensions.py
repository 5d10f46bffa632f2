"""The record's extensions (docs/records.md): ``clock`` kept as it is, ``takebacks``
checked to replay, and :func:`take_back`: the same tiles in the bag, the undrawn order
shuffled, the drawn tiles where they were."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.errors import IllegalMove, InvalidRecord, NotationError
from engine.genial import GenialGame
from engine.record import Record, replay, take_back


def played(moves: int, seed: int = 3) -> Record:
    game = GenialGame(2, "standard", seed=seed)
    for _ in range(moves):
        game.play(game.legal_moves()[0])
    return Record.from_dict(game.record())


def test_take_back_puts_the_drawn_tiles_back_and_shuffles_the_undrawn_order() -> None:
    record = played(4)
    assert record.bag is not None
    # 12 tiles on the racks at the start, then one drawn after each of the 4 placements.
    taken = take_back(record, 2, random.Random(5))
    assert taken.moves == record.moves[:2]
    assert taken.bag is not None
    assert taken.bag[:14] == record.bag[:14]  # drawn by then: unchanged
    assert Counter(taken.bag[14:]) == Counter(record.bag[14:])
    assert taken.bag[14:] != record.bag[14:]
    (tb,) = taken.takebacks
    assert tb.after == 2 and tb.moves == record.moves[2:] and tb.bag == record.bag
    game = replay(Record.from_dict(taken.to_dict()))
    assert game.moves == list(record.moves[:2])


def test_a_takeback_that_does_not_replay_is_refused_with_its_move_number() -> None:
    record = played(2).to_dict()
    record["takebacks"] = [{"after": 1, "moves": ["RG A1 A2"], "bag": record["bag"]}]
    with pytest.raises((IllegalMove, NotationError)) as caught:
        replay(Record.from_dict(record))
    assert caught.value.move_number == 1


@pytest.mark.parametrize(
    ("takebacks", "says"),
    [
        ([{"after": 5, "moves": ["keep"]}], '"after" must count moves'),
        ([{"after": 1, "moves": []}], "must be a list of moves"),
        ([{"after": 1, "moves": ["x"], "when": 3}], "an object of"),
        ([{"after": 2, "moves": ["x"]}, {"after": 1, "moves": ["y"]}], "in the order"),
        ([{"after": 1, "moves": ["x"], "bag": ["RG"]}], "120 tiles"),
    ],
)
def test_bad_takebacks_are_named(takebacks: list[object], says: str) -> None:
    record = played(2).to_dict()
    record["takebacks"] = takebacks
    with pytest.raises(InvalidRecord) as caught:
        Record.from_dict(record)
    assert says in str(caught.value)


def test_the_clock_is_kept_as_it_is_and_must_be_an_object() -> None:
    record = played(1).to_dict()
    record["clock"] = {"bank": 600, "increment": 5, "turns": [{"seat": 0, "used": 3.5}]}
    parsed = Record.from_dict(record)
    assert parsed.to_dict()["clock"] == record["clock"]
    record["clock"] = [1, 2]
    with pytest.raises(InvalidRecord):
        Record.from_dict(record)
