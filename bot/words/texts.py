"""Every sentence the bot says, from one message catalogue per language.

Catalogues are TOML files in ``bot/words/locales`` (``en.toml``, ``de.toml``, ...): nested tables
give dotted ids (``error.occupied``), values are ``str.format`` templates with named
placeholders (``{name}``). A test checks that every language has every id with the same
placeholders, so a missing translation is caught before it reaches a chat.

Where a number meets a noun the message is a table of plural forms, one per CLDR plural
category the language uses (``one``, ``other``; ``other`` always), and its ``{count}``
placeholder chooses the form by the language's plural rule (Babel's CLDR data)::

    [board.title]
    one = "{game} after {count} move."
    other = "{game} after {count} moves."

The forms flatten to ids like ``board.title.one``; the bot asks for ``board.title``.
"""

from __future__ import annotations

import string
import tomllib
import unicodedata
from collections.abc import Sequence
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Any

from babel import Locale
from babel.numbers import format_decimal
from babel.plural import PluralRule

#: The languages the bot speaks: one catalogue each under ``locales/``.
LANGUAGES = ("en", "de", "nl", "fr")
DEFAULT_LANGUAGE = "en"
# The CLDR plural categories; a table keyed by them is one message in plural forms.
PLURAL_CATEGORIES = frozenset({"zero", "one", "two", "few", "many", "other"})
# The placeholder whose number chooses the plural form.
COUNT = "count"
#: Characters of user input quoted back at most (an error names the bad part, briefly).
QUOTE_LIMIT = 40
#: The colours as what the bot writes shows them: a coloured square reads the same in
#: every language, where the letters (R G B O Y P, English initials, kept for typing) do
#: not: in French three of the six are another colour's initial.
COLOUR_SQUARES = {
    "R": "\U0001f7e5",
    "G": "\U0001f7e9",
    "B": "\U0001f7e6",
    "O": "\U0001f7e7",
    "Y": "\U0001f7e8",
    "P": "\U0001f7ea",
}
#: Longest display name or chat title shown.
NAME_LIMIT = 48
#: Unicode categories never echoed: controls (Cc) and format characters (Cf, which hold
#: the bidi overrides and isolates that would reverse the rest of the line), line and
#: paragraph separators, and unassigned or private-use code points.
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


class Said(str):
    """Text the bot made itself (a list of the computer levels), passed to an error as it
    is: never shortened like a quote of user input, however long."""

    __slots__ = ()


def square(letter: str) -> str:
    """The coloured square of a colour letter (``R`` -> red square)."""
    return COLOUR_SQUARES[letter]


def squares(letters: str) -> str:
    """A tile's or a row's colour letters as coloured squares (``RG`` -> red, green)."""
    return "".join(COLOUR_SQUARES[c] for c in letters)


_LETTERS = str.maketrans({square: letter for letter, square in COLOUR_SQUARES.items()})


def letters(text: str) -> str:
    """Coloured squares back to the colour letters a player types: a told placement
    ``🟥🟩 A2 B3`` is the move ``RG A2 B3``."""
    return text.translate(_LETTERS)


def squared(move: str) -> str:
    """A Genial move as the chat is told it: its tile's letters as coloured squares
    (``RG A2 B3`` -> ``🟥🟩 A2 B3``); anything else as it is."""
    tile, _, cells = move.partition(" ")
    if len(tile) == 2 and all(c in COLOUR_SQUARES for c in tile) and cells:
        return f"{squares(tile)} {cells}"
    return move


def shown(text: str, limit: int = QUOTE_LIMIT) -> str:
    """User input made safe to echo: hidden characters dropped, runs of white space made
    one space, and cut to ``limit`` characters with an ellipsis. Every echo of input goes
    through here (error texts, display names, chat titles)."""
    cleaned = "".join(
        " " if ch.isspace() else ch
        for ch in text[: limit * 4]  # never scan a huge input whole
        if unicodedata.category(ch) not in _HIDDEN or ch.isspace()
    )
    cleaned = " ".join(cleaned.split())
    if len(cleaned) > limit or len(text) > limit * 4:
        cleaned = cleaned[: limit - 1].rstrip() + "…"
    return cleaned


#: What would make a name a mention: Telegram links ``@durov`` to that account, Discord
#: shows ``<@123>`` as the chip of that user (``<@&1>`` a role's, ``@everyone``). A name
#: keeps the look of its at sign, as the full-width one that no platform reads.
_MENTION_SIGNS = str.maketrans({"@": "\uff20"})


def shown_name(text: str, limit: int = NAME_LIMIT) -> str:
    """A display name or chat title made safe to show (:func:`shown`) that never becomes a
    mention of anyone on any platform."""
    return shown(text, limit).translate(_MENTION_SIGNS)


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, str]:
    if PLURAL_CATEGORIES & set(data) and (
        "other" not in data or not set(data) <= PLURAL_CATEGORIES
    ):
        raise ValueError(f"plural message {prefix[:-1]!r} needs 'other' and only CLDR forms")
    out: dict[str, str] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, name + "."))
        elif isinstance(value, str):
            out[name] = value
        else:
            raise ValueError(f"message {name!r} is not text")
    return out


@cache
def catalogue(lang: str) -> dict[str, str]:
    """The messages of a language by id (plural forms as ``id.one``, ``id.other``).

    Raises:
        ValueError: for a language without a catalogue, or a malformed plural message.
    """
    if lang not in LANGUAGES:
        raise ValueError(f"no messages in {lang!r}; languages: {', '.join(LANGUAGES)}")
    text = resources.files("bot.words").joinpath(f"locales/{lang}.toml").read_text("utf-8")
    return _flatten(tomllib.loads(text))


def plural_ids(messages: dict[str, str]) -> frozenset[str]:
    """The ids of the messages given in plural forms (``board.title``)."""
    return frozenset(k.removesuffix(".other") for k in messages if k.endswith(".other"))


def plural_category(lang: str, count: int) -> str:
    """The CLDR plural category of ``count`` in ``lang``: ``plural_category("fr", 0)`` is
    ``one``, ``plural_category("en", 0)`` is ``other``."""
    return str(_plural_rule(lang)(count))


@cache
def _plural_rule(lang: str) -> PluralRule:
    return Locale.parse(lang).plural_form


def placeholders(template: str) -> frozenset[str]:
    """The named placeholders of a template (``{name}`` -> ``name``)."""
    return frozenset(
        field.split(".")[0].split("[")[0]
        for _, field, _, _ in string.Formatter().parse(template)
        if field is not None
    )


class Texts:
    """The messages of one language, formatted: ``texts("turn.yours", name="Ada")``."""

    def __init__(self, lang: str = DEFAULT_LANGUAGE) -> None:
        self.lang = lang
        self._messages = catalogue(lang)

    def __call__(self, key: str, **params: object) -> str:
        """The message ``key`` with its placeholders filled in; a plural message takes the
        form that its ``count`` asks for.

        Raises:
            KeyError: for an id that no catalogue has, or a plural message without a
                ``count`` (bugs, not bad input).
        """
        count = params.get(COUNT)
        if isinstance(count, (Fraction, float, Decimal)):
            # A count with decimals (a tournament's 1.5 points) chooses its form by the
            # number as shown and is shown in the language's way ("1,5" in French).
            shown_count = _decimal(count)
            params = {**params, COUNT: shown_count}
            template = self._template(key, params, shown_count)
            return template.format_map({**params, COUNT: self.number(shown_count)})
        return self._template(key, params).format_map(params)

    def _template(self, key: str, params: dict[str, object], decimal: Decimal | None = None) -> str:
        for lang in dict.fromkeys((self.lang, DEFAULT_LANGUAGE)):
            messages = catalogue(lang)
            if key in messages:
                return messages[key]
            if f"{key}.other" in messages:
                count = params.get(COUNT)
                if decimal is not None:
                    form = str(_plural_rule(lang)(decimal))
                elif isinstance(count, int):
                    form = plural_category(lang, count)
                else:
                    raise KeyError(f"plural message {key!r} needs a number {COUNT}")
                return messages.get(f"{key}.{form}", messages[f"{key}.other"])
        raise KeyError(key)

    def has(self, key: str) -> bool:
        return key in self._messages or f"{key}.other" in self._messages

    def colour(self, letter: str) -> str:
        return self(f"colour.{letter}")

    def level(self, level: str) -> str:
        """A computer level's name in this language (``greedy`` is ``gierig`` in German);
        a level the catalogue does not know (a configured one) by its own name."""
        return self(f"level.{level}") if self.has(f"level.{level}") else level

    def levels(self, levels: Sequence[str]) -> Said:
        """The levels as a player types them, each with its name where that differs:
        ``random (zufällig), greedy (gierig)``; the whole list, even in an error."""
        named = (
            level if self.level(level) == level else f"{level} ({self.level(level)})"
            for level in levels
        )
        return Said(", ".join(named))

    def duration(self, seconds: int) -> str:
        """A duration spelled as :func:`~bot.core.durations.format_duration` chooses its
        unit (days from two days on), in this language's words: ``3d`` in English,
        ``3 Tage`` in German, ``3 jours`` in French; ``value.off`` for 0."""
        if seconds == 0:
            return self("value.off")
        if seconds % 86400 == 0 and seconds >= 2 * 86400:
            return self("duration.d", count=seconds // 86400)
        for unit, size in (("h", 3600), ("m", 60)):
            if seconds % size == 0:
                return self(f"duration.{unit}", count=seconds // size)
        return self("duration.s", count=seconds)

    def number(self, value: int | float | Fraction | Decimal) -> str:
        """A count or a score as people read it in this language: whole numbers as they
        are, others with at most two decimals: ``1.5`` in English, ``1,5`` in German,
        Dutch and French, ``2,33`` for 7/3."""
        if isinstance(value, int):
            return str(value)
        shown_value = _decimal(value)
        if shown_value == shown_value.to_integral_value():
            return str(int(shown_value))
        return str(format_decimal(shown_value, "0.##", locale=self.lang))

    def decimal(self, value: float, places: int = 1) -> str:
        """A number with ``places`` decimals in this language's way: ``4.5`` in English,
        ``4,5`` in German, Dutch and French."""
        return str(format_decimal(value, "0." + "0" * places, locale=self.lang))


def _decimal(value: float | Fraction | Decimal) -> Decimal:
    """``value`` as shown: at most two decimals, no trailing zeros (``Fraction(3, 2)`` ->
    ``1.5``, ``2.0`` -> ``2``)."""
    if isinstance(value, Fraction):
        exact = Decimal(value.numerator) / Decimal(value.denominator)
    else:
        exact = Decimal(str(value)) if isinstance(value, float) else value
    rounded = exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN).normalize()
    return rounded if rounded != rounded.to_integral_value() else rounded.quantize(Decimal(1))
