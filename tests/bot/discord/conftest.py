"""Every Discord test runs SimCord with the patience of the other tests
(``patient_simcord``)."""

from tests.bot.discord import patient_simcord

patient_simcord.install()
