"""Issue 44, item 31: counts in every language, rendered from the catalogues for 0, 1, 2
and (for points) 1.5, each line written here by hand: plural forms by the language's rule
(French counts 0 and 1.5 as singular), and a decimal comma in German, Dutch and French."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from bot.words.texts import LANGUAGES, Texts
from tests.bot.helpers import Room, make_service

NB = "\u00a0"
NNB = "\u202f"
COUNTS = (0, 1, 2, Fraction(3, 2))

TOURNAMENT_LINE = {
    "en": ["0 points", "1 point", "2 points", "1.5 points"],
    "de": ["0 Punkte", "1 Punkt", "2 Punkte", "1,5 Punkte"],
    "nl": ["0 punten", "1 punt", "2 punten", "1,5 punten"],
    "fr": ["0 point", "1 point", "2 points", "1,5 point"],
}
TIE_BREAKS = {"en": "(Buchholz 2.5, ", "de": "(Buchholz 2,5, ", "nl": "(Buchholz 2,5, "}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_tournament_points_agree_with_their_number(lang: str) -> None:
    texts = Texts(lang)
    colon = f"{NB}:" if lang == "fr" else ":"
    lines = [
        texts(
            "tournament.line",
            rank=1,
            name="Ada",
            count=n,
            buchholz=texts.number(Fraction(5, 2)),
            sb=texts.number(Fraction(7, 3)),
        )
        for n in COUNTS
    ]
    assert [line.split(" (")[0] for line in lines] == [
        f"1. Ada{colon} {points}" for points in TOURNAMENT_LINE[lang]
    ]
    assert TIE_BREAKS.get(lang, "(Buchholz 2,5, ") in lines[0]
    sb = "2.33" if lang == "en" else "2,33"
    assert lines[0].endswith(f"Sonneborn-Berger {sb})")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_team_scores_agree_with_their_number(lang: str) -> None:
    texts = Texts(lang)
    team = "Équipe" if lang == "fr" else "Team"
    colon = f"{NB}:" if lang == "fr" else ":"
    assert [texts("tournament.team_score", team="X", count=n) for n in COUNTS] == [
        f"{team} X{colon} {points}" for points in TOURNAMENT_LINE[lang]
    ]
    here = [texts("tournament.team_score_here", team="X", count=n) for n in COUNTS]
    assert [h.rsplit(" ", 2)[-2:] for h in here] == [p.split(" ") for p in TOURNAMENT_LINE[lang]]


def test_numbers_as_people_read_them() -> None:
    assert [Texts("en").number(v) for v in (3, Fraction(4, 2), Fraction(3, 2), 2.0)] == [
        "3",
        "2",
        "1.5",
        "2",
    ]
    assert [Texts(lang).number(Fraction(7, 3)) for lang in ("de", "nl", "fr")] == ["2,33"] * 3


JOINED = {
    "en": ["(players so far: 0).", "(players so far: 1).", "(players so far: 2)."],
    "de": ["(bisher 0 Spieler).", "(bisher 1 Spieler).", "(bisher 2 Spieler)."],
    "nl": ["(tot nu toe 0 spelers).", "(tot nu toe 1 speler).", "(tot nu toe 2 spelers)."],
    "fr": [f"(joueurs inscrits{NB}: {n})." for n in (0, 1, 2)],
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_players_so_far(lang: str) -> None:
    texts = Texts(lang)
    said = [texts("tournament.joined", name="Ada", id="T1", count=n) for n in (0, 1, 2)]
    assert ["(" + s.split(" (", 1)[1] for s in said] == JOINED[lang]


REVIEW_SEAT = {
    "en": ["(0 of 19 placements)", "(1 of 19 placements)", "(2 of 19 placements)"],
    "de": ["(0 von 19 Zügen)", "(1 von 19 Zügen)", "(2 von 19 Zügen)"],
    "nl": ["(0 van 19 zetten)", "(1 van 19 zetten)", "(2 van 19 zetten)"],
    "fr": ["(0 coup sur 19)", "(1 coup sur 19)", "(2 coups sur 19)"],
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_review_accuracy_counts(lang: str) -> None:
    texts = Texts(lang)
    said = [texts("review.seat", name="Ada", accuracy=5, count=n, placements=19) for n in (0, 1, 2)]
    assert ["(" + s.split(" (", 1)[1] for s in said] == REVIEW_SEAT[lang]


TALLY = {
    "en": ["0 of 3 have voted", "1 of 3 has voted", "2 of 3 have voted"],
    "de": ["0 von 3 haben abgestimmt", "1 von 3 hat abgestimmt", "2 von 3 haben abgestimmt"],
    "nl": ["0 van 3 hebben gestemd", "1 van 3 heeft gestemd", "2 van 3 hebben gestemd"],
    "fr": [f"0 sur 3 a voté{NNB}", f"1 sur 3 a voté{NNB}", f"2 sur 3 ont voté{NNB}"],
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_votes_so_far(lang: str) -> None:
    texts = Texts(lang)
    said = [texts("absence.tally", count=n, people=3) for n in (0, 1, 2)]
    assert [s.split(";")[0] for s in said] == TALLY[lang]


TAKEN_BACK = {
    "en": ["(taken back by consent: M)", "(2 moves taken back by consent: M)"],
    "de": ["(im Einvernehmen zurückgenommen: M)", "(2 Züge im Einvernehmen zurückgenommen: M)"],
    "nl": ["(met instemming teruggenomen: M)", "(2 zetten met instemming teruggenomen: M)"],
    "fr": [
        f"(coup annulé d'un commun accord{NB}: M)",
        f"(2 coups annulés d'un commun accord{NB}: M)",
    ],
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_takeback_of_several_moves_is_plural(lang: str) -> None:
    texts = Texts(lang)
    said = [texts("history.taken_back", moves="M", count=n).strip() for n in (1, 2)]
    assert said == TAKEN_BACK[lang]


# --- durations in the table's language (item 32) -----------------------------------------

#: 1 day is 24 hours (days from two days on), then 3 days, 1 hour, 2 minutes, 90 seconds.
DURATIONS = {
    "en": ["24h", "3d", "1h", "2m", "90s"],
    "de": ["24 Stunden", "3 Tage", "1 Stunde", "2 Minuten", "90 Sekunden"],
    "nl": ["24 uur", "3 dagen", "1 uur", "2 minuten", "90 seconden"],
    "fr": ["24 heures", "3 jours", "1 heure", "2 minutes", "90 secondes"],
}
OFF = {"en": "off", "de": "aus", "nl": "uit", "fr": "non"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_durations_in_the_language(lang: str) -> None:
    texts = Texts(lang)
    seconds = [86400, 3 * 86400, 3600, 120, 90]
    assert [texts.duration(s) for s in seconds] == DURATIONS[lang]
    assert texts.duration(0) == OFF[lang]


ROUND_TIME = {
    "en": "Swiss, 3 rounds, 2 players a table, 3d a round, Genial",
    "de": "Schweizer System, 3 Runden, 2 Spieler pro Tisch, 3 Tage pro Runde, Einfach Genial",
}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_tournament_tells_its_round_time_in_its_language(tmp_path: Path, lang: str) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    room.ok("Ada", f"/option lang {lang}")
    room.ok("Ada", "/leave")
    (made,) = room.ok("Ada", "/tournament new swiss 3 rounds 2 players 3d")
    assert ROUND_TIME[lang] in made.text
