"""The review's sentences (bot/community/reviews.py) from a review made by hand: what the
lowest colour did, and what "turned" means."""

from __future__ import annotations

import pytest

from bot.community.reviews import summary
from bot.words.texts import Texts
from engine.review import GameReview, PlacementReview, SeatReview

COLOURS = ("R", "G", "B", "O", "Y", "P")


def review(turning_point: int | None = 1) -> GameReview:
    # Move 1 (Ada): 3 in red; the expert's 1 in each colour lifts her lowest colour from 0
    # to 1 and counts 6 (each colour up to 0 + 6): 3 less, lowest colour 0 instead of 1.
    # Move 2 (Bob): 1 in red where the expert's scores 3 in red: 2 less, and both leave the
    # lowest colour at 0.
    first = PlacementReview(
        number=0,
        seat=0,
        side=0,
        played="RR H11 I10",
        best="RG A1 A2",
        before=(0, 0, 0, 0, 0, 0),
        after_played=(3, 0, 0, 0, 0, 0),
        after_best=(1, 1, 1, 1, 1, 1),
    )
    second = PlacementReview(
        number=1,
        seat=1,
        side=1,
        played="RO B1 B2",
        best="RR C1 C2",
        before=(0, 0, 0, 0, 0, 0),
        after_played=(1, 0, 0, 0, 0, 0),
        after_best=(3, 0, 0, 0, 0, 0),
    )
    return GameReview(
        game="genial",
        mode=None,
        players=2,
        colours=COLOURS,
        placements=(first, second),
        swaps=(),
        seats=(
            SeatReview(seat=0, placements=1, accurate=0, costliest=(0,), swaps_missed=()),
            SeatReview(seat=1, placements=1, accurate=0, costliest=(1,), swaps_missed=()),
        ),
        lowest=((0, 0), (0, 0)),
        turning_point=turning_point,
    )


def test_the_lowest_colour_is_named_only_where_it_differs() -> None:
    lines = summary(review(), ["Ada", "Bob"], Texts("en"))
    assert (
        "  move 1: played 🟥🟥 H11 I10, best 🟥🟩 A1 A2: 3 points less;"
        " lowest colour 0 instead of 1" in lines
    )
    assert "  move 2: played 🟥🟧 B1 B2, best 🟥🟥 C1 C2: 2 points less" in lines
    assert not any("0 instead of 0" in line for line in lines)


@pytest.mark.parametrize(
    ("lang", "less"),
    [
        ("en", "2 points less"),
        ("de", "2 Punkte weniger"),
        ("nl", "2 punten minder"),
        ("fr", "2 points de moins"),
    ],
)
def test_no_language_says_the_same_lowest_colour_instead_of_itself(lang: str, less: str) -> None:
    lines = summary(review(turning_point=None), ["Ada", "Bob"], Texts(lang))
    [second] = [line for line in lines if "🟥🟧 B1 B2" in line]
    assert second.endswith(less)


@pytest.mark.parametrize(
    ("lang", "meaning"),
    [
        ("en", "the winner's lead over the runner-up in the lowest colour changed most"),
        ("de", "Vorsprung des Siegers vor dem Zweiten in der schwächsten Farbe am meisten"),
        ("nl", "voorsprong van de winnaar op de nummer twee in de laagst scorende kleur"),
        ("fr", "l'avance du vainqueur sur le deuxième dans la couleur la plus faible"),
    ],
)
def test_the_turning_point_says_what_turned(lang: str, meaning: str) -> None:
    lines = summary(review(turning_point=1), ["Ada", "Bob"], Texts(lang))
    [turned] = [line for line in lines if "2" in line and meaning in line]
    assert "🟥🟧 B1 B2" in turned and "Bob" in turned
