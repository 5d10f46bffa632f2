"""What a table's play hands the core: the lobby's, the moves', the looks', the votes' and
the takebacks' commands, the clock's step of a due table (a reminder, a computer's turn, a
move for a person out of time), and a table's clocks given back after an outage."""

from __future__ import annotations

from bot.core import timebank
from bot.core.tables import Concern
from bot.play import absence, clock, credit, lobby, moves, show, takeback

PLAY = Concern(
    name="play",
    handlers={
        **lobby.HANDLERS,
        **moves.HANDLERS,
        **show.HANDLERS,
        **absence.HANDLERS,
        **takeback.HANDLERS,
    },
    # A vacation pauses the clock of the person to move.
    turn_notes=(timebank.AWAY,),
    table_step=clock.due_step,
    credit_table=credit.credit_table,
)
