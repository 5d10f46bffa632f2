"""Every Discord test runs SimCord with the patience of the other tests
(``patient_simcord``), Discord's contexts beyond servers (``contexts``) and its
``LAUNCH_ACTIVITY`` answer (``launches``)."""

from tests.bot.discord import contexts, launches, patient_simcord

patient_simcord.install()
contexts.install()
launches.install()
