"""Slash commands in the players' language: Discord's menu texts from the catalogues.

Discord shows a command's description, its parameters' names and descriptions and the
names of fixed choices in the language of each person's client, when the bot registers a
translation for it. Every such text in :mod:`bot.discord.commands` is a
:class:`~discord.app_commands.locale_str` whose English is the English catalogue's and
whose extra ``key`` names the message; :class:`CatalogueTranslator`, installed on the
command tree before the commands are registered, answers each of Discord's locales we have
a catalogue for with that message.

Command names stay the English ones everywhere: every help text, lobby and answer in every
language names them so (``/join``, ``/play``), and a menu showing ``/beitreten`` would
contradict them.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContextTypes, locale_str

from bot.words.texts import DEFAULT_LANGUAGE, Texts

#: Discord's locales we have a catalogue for (English is the commands' own language).
LOCALES: dict[discord.Locale, str] = {
    discord.Locale.german: "de",
    discord.Locale.dutch: "nl",
    discord.Locale.french: "fr",
}
#: The extra of a :class:`locale_str` that names its message.
KEY = "key"


def text(key: str) -> locale_str:
    """A menu text: the English message ``key``, to be translated by its key."""
    return locale_str(Texts(DEFAULT_LANGUAGE)(key), **{KEY: key})


def command_key(command: str) -> str:
    return f"discord.command.{command}"


def parameter_key(command: str, parameter: str) -> str:
    return f"discord.parameter.{command}_{parameter}"


def parameter_name_key(parameter: str) -> str:
    return f"discord.parameter_name.{parameter}"


def setting_key(word: str) -> str:
    return f"discord.setting.{word}"


class CatalogueTranslator(app_commands.Translator):
    """Discord's menu texts in German, Dutch and French, from the message catalogues."""

    async def translate(
        self, string: locale_str, locale: discord.Locale, context: TranslationContextTypes
    ) -> str | None:
        """The message for ``locale``; ``None`` (Discord shows the English) for English,
        a locale without a catalogue, or a text without a message key."""
        return translation(string, locale)


def translation(string: locale_str, locale: discord.Locale) -> str | None:
    """What :meth:`CatalogueTranslator.translate` answers (a plain function, for tests)."""
    lang = LOCALES.get(locale)
    extras: dict[str, Any] = string.extras
    key = extras.get(KEY)
    if lang is None or not isinstance(key, str):
        return None
    return Texts(lang)(key)
