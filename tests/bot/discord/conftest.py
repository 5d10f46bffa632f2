"""Every Discord test runs SimCord with the patience of the other tests
(``patient_simcord``) and Discord's contexts beyond servers (``contexts``)."""

from tests.bot.discord import contexts, patient_simcord

patient_simcord.install()
contexts.install()
