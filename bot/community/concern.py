"""What the community hands the core: ``/top``, ``/stats``, ``/games``, ``/notify``,
``/review``, ``/puzzle``, ``/mydata``, ``/forget me``, ``/link`` and ``/unlink``; the
ladders it keeps for a service, a finished game rated and its review wanted, the notes a
turn ping needs, and after a table's due work its review and the daily puzzle."""

from __future__ import annotations

from bot.community import identity, ladders, privacy, puzzles, reviews, social
from bot.core.outbound import Outbound
from bot.core.tables import Concern, Context, Tables


def _finished(tables: Tables, ctx: Context) -> None:
    assert ctx.finished is not None
    # The game that just ended is at hand: rated without replaying its record.
    ladders.fresh(tables).finished(ctx.finished, ctx.game)
    # And reviewed by the expert as due work (bot.community.reviews), once.
    tables.store.want_review(ctx.table.chat, float(ctx.finished["finished_at"]))


def _after_due(tables: Tables, chat: str, now: float) -> list[Outbound]:
    # A game that ended with a command or just now: its review, once.
    reviews.due(tables, chat, now)
    return puzzles.due(tables, chat, now)


COMMUNITY = Concern(
    name="community",
    handlers={
        **social.HANDLERS,
        **privacy.HANDLERS,
        **reviews.HANDLERS,
        **puzzles.HANDLERS,
        **identity.HANDLERS,
    },
    setup=ladders.renew,
    turn_notes=ladders.TURN_NOTES,
    finished=_finished,
    after_due=_after_due,
)
