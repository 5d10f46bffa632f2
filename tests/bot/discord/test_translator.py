"""Slash commands in the players' language: the catalogue's texts in Discord's menu."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.discord.client import GenialClient
from bot.discord.commands import COMMANDS, SETTINGS
from bot.discord.translator import (
    LOCALES,
    CatalogueTranslator,
    command_key,
    parameter_key,
    parameter_name_key,
    setting_key,
    translation,
)
from bot.words.texts import catalogue
from tests.bot.discord.support import world

#: Discord's rule for command and option names (its API reference, "Application Command
#: Naming"), narrowed to the scripts our languages use; letters must be lower case.
NAME = re.compile(r"^[-_\w]{1,32}$")
MAX_DESCRIPTION = 100
MAX_CHOICE_NAME = 100
LANGS = ("en", "de", "nl", "fr")

#: Every command and its parameters, written out by hand: a command added without its
#: texts, or a parameter renamed in the code only, fails here.
EXPECTED = {
    "join": (),
    "leave": (),
    "start": (),
    "swap": (),
    "keep": (),
    "hand": (),
    "board": (),
    "score": (),
    "hint": (),
    "export": (),
    "abort": (),
    "help": ("everything",),  # issue 44, item 29: /help all
    "rules": (),
    "replay": (),
    "rematch": (),
    "games": (),
    "mydata": (),
    "forget": (),
    "link": ("code",),
    "unlink": (),
    "top": ("page", "everywhere"),
    "stats": ("player",),
    "history": ("moves",),
    "look": ("cell",),  # issue 48: a cell and its lines in words
    "notify": ("switch", "value"),
    "addbot": ("level",),
    "option": ("setting", "value"),
    "play": ("tile", "cell1", "cell2", "golden"),
    "kick": ("player",),
    "skip": (),
    "expel": (),
    "wait": (),
    "back": (),
    "undo": ("answer",),
    "away": ("time",),
    "tournament": ("action", "details"),
    "review": (),
    "puzzle": ("answer",),
}


def _tree() -> app_commands.CommandTree[Any]:
    client = discord.Client(intents=discord.Intents.none())
    tree: app_commands.CommandTree[Any] = app_commands.CommandTree(client)
    for command in COMMANDS:
        tree.add_command(command)
    return tree


async def _payloads() -> dict[str, dict[str, Any]]:
    """What the bot registers with Discord, translations included, by command name."""
    tree, translator = _tree(), CatalogueTranslator()
    return {c.name: await c.get_translated_payload(tree, translator) for c in COMMANDS}


def test_every_command_and_parameter_is_known() -> None:
    got = {c.name: tuple(p.name for p in c.parameters) for c in COMMANDS}
    assert got == EXPECTED


@pytest.mark.parametrize("lang", LANGS)
def test_every_command_and_parameter_has_texts_in_every_language(lang: str) -> None:
    messages = catalogue(lang)
    keys = [command_key(c) for c in EXPECTED]
    keys += [parameter_key(c, p) for c, params in EXPECTED.items() for p in params]
    keys += [parameter_name_key(p) for params in EXPECTED.values() for p in params]
    keys += [setting_key(word) for word in SETTINGS]
    assert [k for k in keys if not messages.get(k, "").strip()] == []


@pytest.mark.parametrize("lang", LANGS)
def test_texts_keep_discords_limits(lang: str) -> None:
    messages = catalogue(lang)
    for command, params in EXPECTED.items():
        assert 1 <= len(messages[command_key(command)]) <= MAX_DESCRIPTION, command
        for param in params:
            description = messages[parameter_key(command, param)]
            assert 1 <= len(description) <= MAX_DESCRIPTION, (command, param)
            name = messages[parameter_name_key(param)]
            assert NAME.match(name) and name == name.lower(), name
    for word in SETTINGS:
        assert 1 <= len(messages[setting_key(word)]) <= MAX_CHOICE_NAME, word


def test_english_names_are_the_parameters_own() -> None:
    # Discord sends the canonical (English) name back; the code reads it under that name.
    english = catalogue("en")
    for params in EXPECTED.values():
        for param in params:
            assert english[parameter_name_key(param)] == param


@pytest.mark.asyncio
async def test_registered_commands_carry_the_translations() -> None:
    payloads = await _payloads()
    for name, params in EXPECTED.items():
        payload = payloads[name]
        assert payload["name"] == name
        assert "name_localizations" not in payload or payload["name_localizations"] == {}
        assert payload["description"] == catalogue("en")[command_key(name)]
        locales = payload["description_localizations"]
        assert locales == {
            locale.value: catalogue(lang)[command_key(name)] for locale, lang in LOCALES.items()
        }
        options = {o["name"]: o for o in payload.get("options", [])}
        assert sorted(options) == sorted(params)
        for param in params:
            option = options[param]
            assert option["description"] == catalogue("en")[parameter_key(name, param)]
            assert option["description_localizations"] == {
                locale.value: catalogue(lang)[parameter_key(name, param)]
                for locale, lang in LOCALES.items()
            }
            assert option["name_localizations"] == {
                locale.value: catalogue(lang)[parameter_name_key(param)]
                for locale, lang in LOCALES.items()
            }


@pytest.mark.asyncio
async def test_translations_worked_out_by_hand() -> None:
    payloads = await _payloads()
    play = payloads["play"]
    assert play["description"] == "Place a tile: the tile, then two cells"
    assert play["description_localizations"] == {
        "de": "Einen Stein legen: den Stein, dann zwei Felder",
        "nl": "Een tegel leggen: de tegel, dan twee velden",
        "fr": "Poser une tuile\u00a0: la tuile, puis deux cases",
    }
    tile = next(o for o in play["options"] if o["name"] == "tile")
    assert tile["name_localizations"] == {"de": "stein", "nl": "tegel", "fr": "tuile"}
    assert tile["description_localizations"]["de"] == (
        "Ein Stein aus deinem Vorrat (etwa RG) oder seine Stelle 1-6"
    )
    setting = next(o for o in payloads["option"]["options"] if o["name"] == "setting")
    genial = next(c for c in setting["choices"] if c["value"] == "genial")
    assert genial["name"] == "Genial (standard game)"
    assert genial["name_localizations"] == {
        "de": "Einfach Genial (Grundspiel)",
        "nl": "Genius (standaardspel)",
        "fr": "Génial (jeu de base)",
    }
    assert [c["value"] for c in setting["choices"]] == list(SETTINGS)


@pytest.mark.asyncio
async def test_english_and_other_locales_stay_as_they_are() -> None:
    tree, translator = _tree(), CatalogueTranslator()
    play = next(c for c in COMMANDS if c.name == "play")
    description = play.description
    assert isinstance(description, str)
    context = app_commands.TranslationContext(
        app_commands.TranslationContextLocation.command_description, play
    )
    text = app_commands.locale_str(description, key=command_key("play"))
    for locale in (discord.Locale.american_english, discord.Locale.british_english):
        assert await translator.translate(text, locale, context) is None
    # A language without a catalogue shows the English too.
    assert await translator.translate(text, discord.Locale.spain_spanish, context) is None
    assert await translator.translate(text, discord.Locale.german, context) == (
        "Einen Stein legen: den Stein, dann zwei Felder"
    )
    # A text without a message key is not ours to translate.
    assert translation(app_commands.locale_str("plain"), discord.Locale.german) is None
    assert tree.get_command("play") is play


@pytest.mark.asyncio
async def test_the_bot_registers_its_commands_translated(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        client: GenialClient = w.client
        assert isinstance(client.tree.translator, CatalogueTranslator)
        registered = w.env.backend.commands[None]
        by_name = {name: payload for (name, _), payload in registered.items()}
        assert sorted(by_name) == sorted(EXPECTED)
        hand = by_name["hand"]
        assert hand["description_localizations"] == {
            "de": "Meine Steine zeigen (nur du siehst sie)",
            "nl": "Laat mijn tegels zien (alleen jij ziet ze)",
            "fr": "Me montrer mes tuiles (toi seul les vois)",
        }
        # The names stay English: what every help text and answer calls them.
        assert all(not p.get("name_localizations") for p in by_name.values())
