"""Message catalogues: every language complete, every engine error explained."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from bot.commands import LANGUAGES
from bot.texts import Texts, catalogue, placeholders
from engine.errors import REASONS
from engine.tiles import COLOURS

BOT = Path(__file__).resolve().parents[2] / "bot"
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
    not_messages = {i for i in used if i.endswith((".py", ".toml", ".png", ".json"))}
    assert sorted(used - not_messages - set(english)) == []


def test_catalogue_files_are_the_languages() -> None:
    files = {p.stem for p in (BOT / "locales").glob("*.toml")}
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
    assert german("turn.points", points=1, colour=german.colour("B")) == "+1 blau"
