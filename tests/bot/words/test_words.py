"""Issue 27, item 6: the words a native-speaker review found wrong, each point checked in
every language against what was written here by hand."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from bot.core import games, narrate
from bot.words.texts import LANGUAGES, Texts, catalogue, letters, placeholders, squared
from engine.genial import GenialGame
from engine.moves import Placement
from engine.tiles import Colour, Tile
from tests.bot.helpers import Room, make_service

RED, GREEN, BLUE = "\U0001f7e5", "\U0001f7e9", "\U0001f7e6"
ORANGE, YELLOW, PURPLE = "\U0001f7e7", "\U0001f7e8", "\U0001f7ea"
#: Discord takes 2,000 characters; every /rules keeps 300 of them spare (a header, a
#: longer translation later).
RULES_ROOM = 2000 - 300


def _room(tmp_path: Path, lang: str, *, seed: int = 1) -> Room:
    room = Room(make_service(tmp_path / f"{lang}.db", seed=seed))
    room.ok("Ada", "/join")
    room.ok("Ada", f"/option lang {lang}")
    return room


# --- /history 1: plural forms -----------------------------------------------------------

HISTORY_ONE = {
    "en": "Genial: the last move",
    "de": "Einfach Genial: der letzte Zug",
    "nl": "Genius: de laatste zet",
    "fr": "Génial\u00a0: le dernier coup",
}
HISTORY_TWO = {
    "en": "Genial: the last 2 moves",
    "de": "Einfach Genial: die letzten 2 Züge",
    "nl": "Genius: de laatste 2 zetten",
    "fr": "Génial\u00a0: les 2 derniers coups",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_history_of_one_move_is_singular(tmp_path: Path, lang: str) -> None:
    room = _room(tmp_path, lang)
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    rng = random.Random(2)
    room.play_turn(rng)
    (one,) = room.ok("Ada", "/history 1")
    assert one.text.splitlines()[0] == HISTORY_ONE[lang]
    room.play_turn(rng)
    (two,) = room.ok("Ada", "/history 2")
    assert two.text.splitlines()[0] == HISTORY_TWO[lang]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_replay_of_one_move_is_singular(lang: str) -> None:
    texts = Texts(lang)
    one, many = texts("replay.text", game="G", count=1), texts("replay.text", game="G", count=5)
    assert re.search(r"\b1 (move|Zug|zet|coup)\.$", one), one
    assert re.search(r"\b5 (moves|Züge|zetten|coups)\.$", many), many


# --- Genial Spezial /rules --------------------------------------------------------------

FOUR_COLOURS = {
    "en": "four colours",
    "de": "vier Farben",
    "nl": "vier kleuren",
    "fr": "quatre couleurs",
}
THROUGH_TOWERS = {
    "en": "a chain never connects through a tower",
    "de": "über einen Turm oder fremde Steine hinweg geht keine Kette weiter",
    "nl": "een ketting loopt nooit door een toren",
    "fr": "une chaîne ne passe jamais par une tour",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_spezial_rules_say_four_colours_and_no_chain_through_towers(lang: str) -> None:
    texts = Texts(lang)
    rules = texts("rules.spezial")
    assert FOUR_COLOURS[lang] in rules
    # The four colours Genial Spezial scores in, by name, whatever a player's tiles are.
    for letter in "BGOP":
        assert texts.colour(letter).casefold() in rules.casefold(), letter
    assert THROUGH_TOWERS[lang] in rules


# --- two boards, a colour reaches 18 ----------------------------------------------------

TWO_BOARDS = {"de": "zwei Tafeln bis 36", "nl": "dubbel scorebord tot 36"}
#: What reaches 18 is a colour, never a tile.
TILE_REACHES_18 = {
    "en": "placement that reaches 18",
    "de": "ein Stein 18",
    "nl": "een tegel 18",
    "fr": "tuile qui atteint 18",
}
COLOUR_REACHES_18 = {
    "en": "A colour that reaches 18",
    "de": "Erreicht eine Farbe 18",
    "nl": "Haalt een kleur 18",
    "fr": "Une couleur qui atteint 18",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_colour_reaches_18_on_two_boards(lang: str) -> None:
    rules = Texts(lang)("rules.genial")
    team, solo = rules.splitlines()[-2:]
    assert TILE_REACHES_18[lang] not in rules
    assert COLOUR_REACHES_18[lang] in team
    if lang in TWO_BOARDS:
        assert TWO_BOARDS[lang] in team and TWO_BOARDS[lang] in solo


# --- the rating word --------------------------------------------------------------------

RATING_WORD = {"en": "rating", "de": "Wertungszahl", "nl": "rating", "fr": "cote"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_rating_is_not_called_points_or_scoring(lang: str) -> None:
    messages = catalogue(lang)
    word = RATING_WORD[lang]
    for key in ("top.title", "top.title_global", "stats.game", "stats.global"):
        assert word in messages[key], key
    for key, text in messages.items():
        # "1086 points" reads as a score of the game in French.
        assert not re.search(r"\{rating\} points", text), key
    assert not re.search(r"\bWertung\b(?!:)", catalogue("de")["help.text"])


# --- /games is the reader's ------------------------------------------------------------

GAMES_TITLE = {
    "en": "Your running tables (1):",
    "de": "Deine laufenden Tische (1):",
    "nl": "Je lopende tafels (1):",
    "fr": "Tes tables en cours (1)\u00a0:",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_games_title_speaks_to_the_player(tmp_path: Path, lang: str) -> None:
    room = _room(tmp_path, lang)
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    (mine,) = room.ok("Ada", "/games")
    assert mine.text.splitlines()[0] == GAMES_TITLE[lang]


# --- buttons named as they read ---------------------------------------------------------

START = {"en": "Start", "de": "Starten", "nl": "Starten", "fr": "Commencer"}
AGAIN = {"en": "Play again", "de": "Noch einmal", "nl": "Nog een keer", "fr": "Rejouer"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_help_names_the_start_button_as_it_reads(tmp_path: Path, lang: str) -> None:
    room = _room(tmp_path, lang)
    (lobby,) = room.ok("Ada", "/addbot")
    assert START[lang] in [b.label for b in lobby.buttons]
    (help_text,) = room.ok("Ada", "/help all")
    rematch = next(line for line in help_text.text.splitlines() if line.startswith("/rematch"))
    # German names a button in its quotes (issue 44, item 34): „Starten“.
    left, right = ("„", "“") if lang == "de" else ("", "")
    assert f"{left}{START[lang]}{right}." in rematch
    assert f" {left}{AGAIN[lang]}{right})" in rematch
    if lang != "en":
        assert not re.search(r"\bStart\.", rematch)


# --- computer levels --------------------------------------------------------------------

GREEDY = {"en": "greedy", "de": "gierig", "nl": "gulzig", "fr": "glouton"}
COMPUTER = {
    "en": "Computer 1 (computer",
    "de": "Computer 1 (Computer",
    "nl": "Computer 1 (computer",
    "fr": "Ordinateur 1 (ordinateur",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_computer_levels_in_the_table_language(tmp_path: Path, lang: str) -> None:
    room = _room(tmp_path, lang)
    (lobby,) = room.ok("Ada", "/addbot greedy")
    assert f"2. {COMPUTER[lang]}, {GREEDY[lang]})" in lobby.text.splitlines()
    (help_text,) = room.ok("Ada", "/help")
    # Typed as the English word, named in the table's language beside it.
    typed = "greedy" if lang == "en" else f"greedy ({GREEDY[lang]})"
    assert typed in help_text.text
    bad = room.error("Ada", "/addbot clever")
    assert typed in bad


def test_a_configured_level_without_a_name_keeps_its_own() -> None:
    texts = Texts("de")
    assert texts.level("turbo") == "turbo"
    assert texts.levels(["random", "turbo"]) == "random (zufällig), turbo"


# --- colours as squares, letters for typing ---------------------------------------------


def test_the_rack_shows_squares_after_the_slots_to_type() -> None:
    # Issue 44, item 32: the private rack text shows each tile as the turn messages do (the
    # letters are English initials); a player types the slot, or the squares copied.
    rack = [Tile.of(Colour.RED, Colour.GREEN), Tile.of(Colour.BLUE, Colour.BLUE)]
    assert games.rack_text(rack) == f"1 {RED}{GREEN}  2 {BLUE}{BLUE}"


def test_squared_and_letters_undo_each_other() -> None:
    assert squared("RG A2 B3") == f"{RED}{GREEN} A2 B3"
    assert letters(squared("OY J6 I6")) == "OY J6 I6"
    assert squared("swap") == "swap" and squared("J8 J9 P") == "J8 J9 P"


def test_a_told_placement_shows_squares() -> None:
    game = GenialGame(2, seed=0)
    a2, b3 = game.area.parse_label("A2"), game.area.parse_label("B3")
    told = narrate.told_move(game, Placement(Colour.YELLOW, Colour.PURPLE, a2, b3))
    assert told == f"{YELLOW}{PURPLE} A2 B3"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_scores_and_moves_show_colour_squares(tmp_path: Path, lang: str) -> None:
    room = _room(tmp_path, lang)
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    out = room.play_turn(random.Random(4))
    (turn,) = [o for o in out if o.kind == "turn"][:1]
    # "Ada placed 🟥🟩 A2 B3": no colour letters (English initials) in what is told.
    placed = turn.text.splitlines()[0]
    assert re.search(r"[\U0001f7e5-\U0001f7ea]{2} [A-Z]\d+ [A-Z]\d+", placed), placed
    assert not re.search(r"\b[RGBOYP]{2} [A-Z]\d", placed), placed
    (score,) = room.ok("Ada", "/score")
    row = score.text.splitlines()[1]
    squares = "".join(re.findall(r"[\U0001f7e5-\U0001f7ea]", row))
    assert squares == RED + GREEN + BLUE + ORANGE + YELLOW + PURPLE
    assert not re.search(r"\b[RGBOYP]\d", row), row


# --- the table's name after a preposition -----------------------------------------------

# English reads well with the chat's name after "at" ("Your turn at Test room").
TABLE_WORD = {"de": "am Tisch", "nl": "aan tafel", "fr": "à la table"}


@pytest.mark.parametrize("lang", list(TABLE_WORD))
def test_ping_names_the_table_with_a_noun(lang: str) -> None:
    ping = catalogue(lang)["notify.ping"]
    before = ping.split("{table}")[0]
    assert before.endswith(f"{TABLE_WORD[lang]} "), ping


# --- decimal commas ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "expected"), [("en", "4.5"), ("de", "4,5"), ("nl", "4,5"), ("fr", "4,5")]
)
def test_decimals_in_the_language(lang: str, expected: str) -> None:
    assert Texts(lang).decimal(4.5) == expected
    assert Texts(lang).decimal(12.0) == expected.replace("4", "12").replace("5", "0")


@pytest.mark.parametrize("lang", ["de", "nl", "fr"])
def test_stats_average_has_a_decimal_comma(tmp_path: Path, lang: str) -> None:
    room = _room(tmp_path, lang, seed=5)
    room.ok("Ada", "/addbot random")
    room.ok("Ada", "/start")
    room.play_out(random.Random(5))
    stats = room.ok("Ada", "/stats")[0].text
    line = stats.splitlines()[1]
    # The average lowest colour, like "4,5"; never "4.5".
    assert re.search(r"\d,\d\b", line), line
    assert not re.search(r"\d\.\d", line), line


# --- Dutch ranges -----------------------------------------------------------------------


def test_dutch_ranges_include_their_end() -> None:
    # "1 tot 6" reads as 1 to 5; "1 t/m 6" is 1 up to and including 6.
    for key, text in catalogue("nl").items():
        # (A clock time's "22:00 tot 08:00" is meant: quiet until eight, not through it.)
        assert not re.search(r"(?<!:)\b\d+ tot (\d|\{)", text), key
    assert "(1 t/m {most})" in catalogue("nl")["usage.top"]
    assert "1 t/m 6" in catalogue("nl")["error.tile_not_on_rack"]


# --- French spacing ---------------------------------------------------------------------

#: Typed text quoted in a message, where French spacing does not apply.
TYPED = ("alice: /join",)


def test_french_has_a_non_breaking_space_before_double_punctuation() -> None:
    for key, text in catalogue("fr").items():
        for typed in TYPED:
            text = text.replace(typed, "")
        for m in re.finditer(r"(.)([:;!?])(?!\d)", text):  # (not a clock time: 18:00)
            assert m.group(1) in "\u00a0\u202f", (key, text[max(0, m.start() - 15) : m.end()])
        # And inside the guillemets: « Mes tuiles ».
        assert not re.search(r"« | »", text), key


def test_french_spacing_survives_the_placeholders() -> None:
    texts = Texts("fr")
    assert texts("lobby.title", table="Salon", game="Génial") == "Table Salon\u00a0: Génial"
    assert "Génial\u202f!" in texts("turn.genial", mark="18", colour="rouge")


# --- room under Discord's limit ---------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("key", ["rules.genial", "rules.spezial"])
def test_rules_leave_room_under_discords_limit(lang: str, key: str) -> None:
    text = Texts(lang)(key)
    assert len(text) <= RULES_ROOM, (lang, key, len(text))


def test_new_placeholders_are_in_every_language() -> None:
    for lang in LANGUAGES:
        assert {"start", "again", "levels"} <= placeholders(catalogue(lang)["help.text"])
