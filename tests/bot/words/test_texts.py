"""Message catalogues: every language complete, every engine error explained."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from bot.words.texts import (
    LANGUAGES,
    Texts,
    _flatten,
    catalogue,
    placeholders,
    plural_category,
    plural_ids,
)
from engine.errors import REASONS, IllegalMove
from engine.genial import GenialGame
from engine.spezial import SpezialGame
from engine.tiles import COLOURS, Tile

BOT = Path(__file__).resolve().parents[3] / "bot"
OTHERS = [lang for lang in LANGUAGES if lang != "en"]
# Message families whose ids the code builds from a value (f"end.{reason}").
FAMILIES = {
    "colour": {c.value for c in COLOURS},
    "lang": set(LANGUAGES),
    "end": {"board_full", "immediate_win", "out_of_tiles", "all_tiles_placed"},
    "value": {"on", "off", "no_timeout", "order_join", "order_random"},
    "button": {"order_join", "order_random"},
    "error": set(REASONS),
}


def test_four_languages() -> None:
    assert set(LANGUAGES) == {"en", "de", "nl", "fr"}


@pytest.mark.parametrize("lang", OTHERS)
def test_every_language_has_every_message(lang: str) -> None:
    english, other = catalogue("en"), catalogue(lang)
    assert sorted(set(english) - set(other)) == [], "missing"
    assert sorted(set(other) - set(english)) == [], "unknown to English"


@pytest.mark.parametrize("lang", OTHERS)
def test_same_placeholders_in_every_language(lang: str) -> None:
    english, other = catalogue("en"), catalogue(lang)
    differ = {k: (placeholders(english[k]), placeholders(other[k])) for k in english}
    assert {k: v for k, v in differ.items() if v[0] != v[1]} == {}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_formats(lang: str) -> None:
    texts = Texts(lang)
    for key, template in catalogue(lang).items():
        params = dict.fromkeys(placeholders(template), "X")
        text = texts(key, **params)
        assert text.strip(), key
        assert "{" not in text and "}" not in text, key


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_engine_error_has_a_message(lang: str) -> None:
    messages = catalogue(lang)
    assert sorted(r for r in REASONS if f"error.{r}" not in messages) == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_message_families_are_complete(lang: str) -> None:
    messages = catalogue(lang)
    missing = [f"{p}.{v}" for p, values in FAMILIES.items() for v in values]
    assert [k for k in missing if k not in messages] == []


def _ids_in_code() -> set[str]:
    """Message ids written as literals in the bot's code: the first argument of calls like
    ``texts("turn.yours", ...)`` and of ``Reject``/``CommandError``."""
    ids: set[str] = set()
    shaped = re.compile(r"[a-z_]+\.[a-z_]+")
    for path in BOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            first = node.args[0]
            if (
                isinstance(first, ast.Constant)
                and isinstance(first.value, str)
                and shaped.fullmatch(first.value)
            ):
                ids.add(first.value)
    return ids


def test_every_id_in_the_code_is_in_the_catalogue() -> None:
    used = _ids_in_code()
    assert len(used) > 80  # the scan found the calls
    english = catalogue("en")
    # Module paths and file names match the shape too; they are not message ids.
    not_messages = {
        i
        for i in used
        if i.endswith((".py", ".toml", ".png", ".json")) or i.startswith(("bot.", "engine."))
    }
    known = set(english) | plural_ids(english)
    assert sorted(used - not_messages - known) == []


def test_catalogue_files_are_the_languages() -> None:
    files = {p.stem for p in (BOT / "words" / "locales").glob("*.toml")}
    assert files == set(LANGUAGES)


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="no messages in 'es'"):
        catalogue("es")


def test_placeholders_are_named() -> None:
    assert placeholders("{name} placed {move}: {points}") == {"name", "move", "points"}
    assert placeholders("no placeholders") == frozenset()


def test_english_examples() -> None:
    texts = Texts("en")
    assert texts("turn.points", points=3, colour=texts.colour("R")) == "+3 red"
    assert texts("error.not_your_turn", name="Bob") == "It is not your turn: Bob is to move."
    german = Texts("de")
    assert german("turn.points", points=1, colour=german.colour("B")) == "+1 Blau"


# --- the game's own words (../shared/GLOSSARY.md) --------------------------------------

# Per language: patterns that must not occur anywhere in its catalogue (the wrong terms of
# issue 15), and glossary terms that must. Patterns are case-sensitive regular expressions.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    # One name for each thing: Genial (not also Ingenious), a computer player.
    "en": (r"\bIngenious\b", r"computer opponent", r"\blowest \{"),
    "de": (
        r"(?<!Einfach )Genial(?! Spezial)",  # the box says "Einfach Genial"
        r"Ablage",
        r"Leiste",
        r"niedrigste",
        r"Brett",  # Brett and Spielbrett: the board is the Spielplan
        r"Computergegner",
        r"Startsymbol",
        r"\b(rot|grün|blau|gelb|lila)\b",  # colours named as nouns are capitalised
    ),
    "nl": (
        r"Genial(?! Spezial)",
        r"\bste(en|nen)\b",
        r"\bzak\b",
        r"scorebalk",
        r"bonusbeurt",
        r"solospel",
        r"teamspel",
        r"startsymbool",
        r"computertegenstander",
        r"\b[Vv]oor de start",  # ambiguous: before is "vóór"
    ),
    "fr": (
        r"Genial",  # the French box has the accent: Génial
        r"chevalet",
        r"coup bonus",
        r"plus basses?\b",
        r"\bsac\b",
        r"symbole de départ",
        r"jeu en équipes?",
        r"solitaire",
    ),
}
REQUIRED: dict[str, tuple[str, ...]] = {
    "en": (
        "Genial!",
        "rack",
        "bag",
        "track",
        "bonus placement",
        "start symbol",
        "swap",
        "lowest colour",
        "team game",
        "solo game",
    ),
    "de": (
        "Einfach Genial",
        "Einfach genial!",
        "Stein",
        "Vorrat",
        "Beutel",
        "Tafel",
        "Bonuszug",
        "aufgedruckte",
        "tauschen",
        "schwächste Farbe",
        "Teamspiel",
        "Solospiel",
        "Spielplan",
    ),
    "nl": (
        "Genius",
        "Genius!",
        "tegel",
        "plankje",
        "buidel",
        "scorebord",
        "bonustegel",
        "symbool op het bord",
        "ruilen",
        "laagst scorende kleur",
        "teamvariant",
        "solitaire",
        "vóór de start",
    ),
    "fr": (
        "Génial",
        "Génial\u202f!",
        "tuile",
        "réserve",
        "pioche",
        "piste",
        "tour bonus",
        "symbole imprimé",
        "échanger",
        "couleur la plus faible",
        "partie en équipe",
        "partie en solo",
    ),
}


def _all_text(lang: str) -> str:
    return "\n".join(catalogue(lang).values())


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_wrong_terms(lang: str) -> None:
    found = {}
    for key, text in catalogue(lang).items():
        hits = [p for p in FORBIDDEN[lang] if re.search(p, text)]
        if hits:
            found[key] = hits
    assert found == {}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_glossary_terms_are_used(lang: str) -> None:
    text = _all_text(lang)
    assert [term for term in REQUIRED[lang] if term not in text] == []


def test_german_colours_are_capitalised_nouns() -> None:
    german = Texts("de")
    assert [german.colour(c) for c in "RGBOYP"] == ["Rot", "Grün", "Blau", "Orange", "Gelb", "Lila"]
    assert german("turn.genial", mark=18, colour=german.colour("Y")) == (
        "Einfach genial! 18 in Gelb: Bonuszug."
    )


# Seat (a place at the table) and slot (a position on the rack): a different word for each.
SEAT_AND_SLOT = {
    "en": ("seat", "slot"),
    "de": ("Platz", "Stelle"),
    "nl": ("plaats", "positie"),
    "fr": ("place", "emplacement"),
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_seat_and_rack_slot_are_different_words(lang: str) -> None:
    seat, slot = SEAT_AND_SLOT[lang]
    messages = catalogue(lang)
    assert seat in messages["error.already_seated"] and seat in messages["turn.taken_over"]
    about_slots = ["error.bad_slot", "error.cannot_parse", "error.tile_not_on_rack", "rack.how"]
    for key in about_slots:
        assert slot in messages[key], key
        assert not re.search(rf"\b{seat}\b", messages[key]), key


# French cannot elide before an inserted name ("de Anna", "de Ordinateur 1"): a name never
# follows a word that elides.
NAMES = r"\{(name|host|by|target|names|players|first|second)\}"


def test_french_never_needs_elision_before_a_name() -> None:
    wrong = re.compile(rf"\b(de|que|le|la|ce|ne|je|me|te|se|jusque|lorsque|puisque) {NAMES}")
    assert {k: v for k, v in catalogue("fr").items() if wrong.search(v)} == {}


# --- plural forms (Babel's CLDR plural rules) --------------------------------------------


def test_plural_categories() -> None:
    # French counts 0 as singular, English, German and Dutch do not.
    assert [plural_category("fr", n) for n in (0, 1, 2)] == ["one", "one", "other"]
    for lang in ("en", "de", "nl"):
        assert [plural_category(lang, n) for n in (0, 1, 2)] == ["other", "one", "other"]


# score.title and turn.bag for 0, 1 and 2, worked out by hand.
PLURALS = {
    "en": (
        ["Scores, G, after 0 moves:", "Scores, G, after 1 move:", "Scores, G, after 2 moves:"],
        ["0 tiles left in the bag.", "1 tile left in the bag.", "2 tiles left in the bag."],
    ),
    "de": (
        [
            "Punktestand, G, nach 0 Zügen:",
            "Punktestand, G, nach 1 Zug:",
            "Punktestand, G, nach 2 Zügen:",
        ],
        ["Noch 0 Steine im Beutel.", "Noch 1 Stein im Beutel.", "Noch 2 Steine im Beutel."],
    ),
    "nl": (
        ["Stand, G, na 0 zetten:", "Stand, G, na 1 zet:", "Stand, G, na 2 zetten:"],
        ["Nog 0 tegels in de buidel.", "Nog 1 tegel in de buidel.", "Nog 2 tegels in de buidel."],
    ),
    "fr": (
        [
            "Scores, G, après 0 coup\u00a0:",
            "Scores, G, après 1 coup\u00a0:",
            "Scores, G, après 2 coups\u00a0:",
        ],
        [
            "Il reste 0 tuile dans la pioche.",
            "Il reste 1 tuile dans la pioche.",
            "Il reste 2 tuiles dans la pioche.",
        ],
    ),
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_plurals_by_count(lang: str) -> None:
    texts = Texts(lang)
    scores, bag = PLURALS[lang]
    assert [texts("score.title", game="G", count=n) for n in (0, 1, 2)] == scores
    assert [texts("turn.bag", count=n) for n in (0, 1, 2)] == bag


def test_plural_board_and_export_titles() -> None:
    english, german = Texts("en"), Texts("de")
    assert english("board.title", game="Genial", count=1) == "Genial after 1 move."
    assert english("export.full", count=1).startswith("The complete game record (1 move),")
    assert german("export.partial", count=1).startswith("Die Partie bisher (1 Zug).")
    assert Texts("nl")("board.title", game="Genius", count=1) == "Genius na 1 zet."
    assert Texts("fr")("turn.bonus_lost", count=2) == (
        "2 tours bonus sont perdus\u00a0: la réserve est vide."
    )


def test_a_form_the_catalogue_lacks_falls_back_to_other() -> None:
    # French says "many" for a million; the catalogue gives one and other only.
    assert plural_category("fr", 1_000_000) == "many"
    assert Texts("fr")("board.title", game="G", count=1_000_000) == "G après 1000000 coups."


def test_a_plural_message_needs_its_count() -> None:
    with pytest.raises(KeyError, match="count"):
        Texts("en")("board.title", game="G", moves=3)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_plural_messages_have_the_forms_their_language_uses(lang: str) -> None:
    messages = catalogue(lang)
    used = {plural_category(lang, n) for n in range(10_001)} | {"other"}
    forms = {
        key: {k.removeprefix(key + ".") for k in messages if k.startswith(key + ".")}
        for key in plural_ids(messages)
    }
    assert len(forms) >= 10
    assert {k: v for k, v in forms.items() if v != used} == {}


def test_a_plural_table_needs_other() -> None:
    with pytest.raises(ValueError, match=r"'board\.title' needs 'other'"):
        _flatten({"board": {"title": {"one": "x"}}})
    with pytest.raises(ValueError, match="needs 'other'"):
        _flatten({"board": {"title": {"one": "x", "other": "y", "plenty": "z"}}})


# --- /rules ---------------------------------------------------------------------------------

# Telegram's limit for one message is 4096 characters; the rules stay well under it.
RULES_LIMIT = 2500


@pytest.mark.parametrize("lang", LANGUAGES)
def test_rules_fit_one_message_and_name_every_number(lang: str) -> None:
    texts = Texts(lang)
    genial, spezial = texts("rules.genial"), texts("rules.spezial")
    assert len(genial) < RULES_LIMIT and len(spezial) < RULES_LIMIT
    # Board part by players (1/2, 3, 4), the caps 18 and 36, the rack of 6 and the
    # team seats 1 and 3 against 2 and 4.
    for number in ("2", "3", "4", "6", "18", "36"):
        assert re.search(rf"\b{number}\b", genial), number
    assert re.search(r"\b20\b", spezial)


#: ``/play RG A2 B3``, ``/play 1 A2 B3`` (a rack slot), ``/play J8 J9 P`` (Genial Spezial).
GENIAL_EXAMPLE = re.compile(r"/play ([1-6]|[A-Za-z]{2}) ([A-Z]\d{1,2}) ([A-Z]\d{1,2})\b")
SPEZIAL_EXAMPLE = re.compile(r"/play ([A-Z]\d{1,2}) ([A-Z]\d{1,2})(?: ([BGOP]))?\b")
DOCS = [BOT.parent / "README.md", *sorted((BOT.parent / "docs").glob("*.md"))]


def _example_texts() -> list[tuple[str, str]]:
    texts = [(f"{lang}:{key}", text) for lang in LANGUAGES for key, text in catalogue(lang).items()]
    return texts + [(path.name, path.read_text()) for path in DOCS]


def test_example_moves_can_be_the_first_move_of_any_game() -> None:
    # A newcomer types the example first: in Genial it must touch a start symbol (RULES.md
    # 2.3), on the board of every player count, whichever tile the rack slot holds.
    bad = []
    genial = spezial = 0
    for where, text in _example_texts():
        for slot_or_tile, cell1, cell2 in GENIAL_EXAMPLE.findall(text):
            genial += 1
            tile = "RG" if slot_or_tile.isdigit() else slot_or_tile.upper()
            for players, mode in [(1, "solo"), (2, None), (3, None), (4, None), (4, "team")]:
                game = GenialGame(players, mode, seed=0)
                move = game.parse(f"{tile} {cell1} {cell2}")
                game.racks[0][0] = Tile.of(move.first, move.second)
                try:
                    game.check(move)
                except IllegalMove as exc:
                    bad.append((where, f"{tile} {cell1} {cell2}", players, mode, exc.reason))
        for cell1, cell2, colour in SPEZIAL_EXAMPLE.findall(text):
            spezial += 1
            for players in (2, 3, 4):
                game = SpezialGame(players, seed=0)
                try:
                    game.check(game.parse(f"{cell1} {cell2} {colour}"))
                except IllegalMove as exc:
                    bad.append((where, f"{cell1} {cell2} {colour}", players, exc.reason))
    assert bad == []
    assert genial > 10 and spezial > 10
