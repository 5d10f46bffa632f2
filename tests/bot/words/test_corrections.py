"""Issue 44, items 33 to 35: the French, German and Dutch corrections, each checked in the
rendered catalogue against the words written here by hand (the glossary,
/work/shared/GLOSSARY.md, being the authority on the game's words)."""

from __future__ import annotations

import re
from pathlib import Path

from bot.words.texts import Texts, catalogue
from tests.bot.helpers import Room, make_service

NB = "\u00a0"


# --- French (item 33) --------------------------------------------------------------------


def test_french_options_say_yes_and_no(tmp_path: Path) -> None:
    fr = Texts("fr")
    assert (fr("value.on"), fr("value.off")) == ("oui", "non")
    room = Room(make_service(tmp_path / "fr.db"))
    room.ok("Ada", "/join")
    room.ok("Ada", "/option lang fr")
    (options,) = room.ok("Ada", "/option")
    lines = options.text.splitlines()
    assert f"Réserve de temps{NB}: non" in lines
    assert f"Annulations{NB}: oui" in lines


def test_french_calls_a_rating_cote() -> None:
    fr = catalogue("fr")
    # A person's rating: "cote"; the ladder and the standings stay "classement".
    for key in (
        "telegram.commands.stats",
        "discord.command.stats",
        "discord.command.forget",
        "privacy.mydata",
        "privacy.forget_ask",
        "privacy.forgotten",
    ):
        assert "classement" not in fr[key], key
        assert "cote" in fr[key], key
    stats_help = next(line for line in fr["help.text"].splitlines() if "/stats" in line)
    assert "victoires, cote ici" in stats_help
    assert "le classement de ce chat" in fr["telegram.commands.top"]


def test_french_words_one_way() -> None:
    fr = catalogue("fr")
    assert fr["web.replay"] == "Revoir la partie"
    assert fr["button.again"] == "Rejouer"
    assert fr["level.random"] == "aléatoire"
    assert Texts("fr")("tournament.place", place=2) == "rang 2"
    assert "le joueur dont c'est le tour a" in fr["puzzle.show"]
    assert {k: v for k, v in fr.items() if re.search(r"\badmins?\b", v)} == {}
    # "joueurs ordinateurs", agreeing in number, never "joueurs ordinateur".
    assert {k: v for k, v in fr.items() if re.search(r"joueurs ordinateur\b", v)} == {}


# --- German (item 34) --------------------------------------------------------------------


def test_german_takeback_of_a_turn_says_so() -> None:
    de = Texts("de")
    assert de("undo.done", name="alice", count=3).startswith(
        "Der letzte Zug von alice ist samt Bonuszügen zurückgenommen (3 Züge)."
    )
    assert de("undo.done", name="alice", count=1).startswith(
        "Der Zug von alice ist zurückgenommen (1 Zug)."
    )


def test_german_help_clock_reads_well() -> None:
    clock = catalogue("de")["help.clock"]
    assert "Ist die Zeit abgelaufen, stimmen die anderen ab: /skip" in clock
    assert "Meine Uhren halten in allen meinen Partien an, und Hinweise bleiben aus;" in clock
    # One colon a clause: never "Zeit abgelaufen: Die anderen stimmen ab: /skip".
    assert "abgelaufen: Die anderen stimmen ab:" not in clock


def test_german_corrected_words() -> None:
    de = catalogue("de")
    assert "Sitzrunde" not in de["error.already_started"]
    assert de["telegram.commands.expel"] == (
        "Abstimmung: Ein Computer übernimmt den Platz der Person ohne Zeit"
    )
    assert de["level.random"] == "zufällig"


#: Whole sentences after a colon start with a capital, as the rest of the German
#: catalogue does ("Zeit abgelaufen: Die anderen ..."), each rendered and checked here.
CAPITALS = {
    "error.admins_only": "verlassen: Das darf",
    "puzzle.right": "Richtig: Das ist der beste Zug",
    "puzzle.wrong": ": Versuch es noch einmal.",
    "review.pending": "fertig: Frag in einer Minute",
    "tournament.cancelled_few": ": Es braucht mindestens",
    "tournament.robin_pairs": "gespielt: Jeder trifft jeden einmal.",
    "telegram.commands.skip": "Abstimmung: Ein Computer zieht",
}


def test_german_capitals_after_a_colon_one_way() -> None:
    de = catalogue("de")
    assert {k: v for k, v in CAPITALS.items() if v not in de[k]} == {}


def test_german_names_buttons_in_quotes() -> None:
    de = Texts("de")
    ready = de("rematch.ready", name="alice", start=de("button.start"))
    assert ready.endswith("kann „Starten“ drücken.")


# --- Dutch (item 35) ---------------------------------------------------------------------


def test_dutch_corrected_words() -> None:
    nl = catalogue("nl")
    assert "De tegels op het plankje: {rack}." in nl["puzzle.show"]
    assert "Je tegels" not in nl["puzzle.show"]
    for form in ("one", "other"):
        assert "Alle anderen aan tafel moeten akkoord gaan: /undo yes" in nl[f"undo.asked.{form}"]
    assert nl["notify.on"].startswith("Meldingen staan aan:")
    assert nl["notify.off"].startswith("Meldingen staan uit.")
    assert {k: v for k, v in nl.items() if "Beurtbericht" in v} == {}
    assert nl["level.greedy"] == "gulzig"
    assert "/start begint nu een partij solitaire" in nl["lobby.solo_next"]
    assert "reageert even niet" in nl["error.store_down"]
