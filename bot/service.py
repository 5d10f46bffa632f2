"""The service as the platforms know it: the core (:mod:`bot.core.service`) with every
concern handed to it, and the looks the platforms ask of the concerns.

This is the one module that imports the concerns (``bot/play``, ``bot/community``,
``bot/tournaments``, and the web board's ``bot/pages``) and composes them: each concern
says in its ``concern`` module what it hands the core (its commands' handlers and its
hooks, :class:`bot.core.tables.Concern`); a new concern is one more line in
:data:`CONCERNS`. Platforms import this module, never a concern.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import replace
from typing import Any

from bot.community import ladders, social
from bot.community.concern import COMMUNITY
from bot.core.looks import PageLook, SeatLook
from bot.core.outbound import Button, Outbound
from bot.core.service import PageRunner, TableService
from bot.core.tables import Concern
from bot.pages import hints as page_hints
from bot.pages import links as weblinks
from bot.pages import looks as pages
from bot.play import show
from bot.play.concern import PLAY
from bot.store import StoreBusy, StoreDown
from bot.tournaments import chats as tournament_chats
from bot.tournaments import places
from bot.tournaments import standings as tournament_standings
from bot.tournaments.concern import TOURNAMENTS
from bot.tournaments.places import PREFIX as TOURNAMENT_PREFIX
from bot.tournaments.places import is_tournament_table
from bot.words.texts import Texts

# What platforms may know of a tournament's chat ids (its web page, its shard).
__all__ = ["CONCERNS", "TOURNAMENT_PREFIX", "PageRunner", "Service", "is_tournament_table"]

log = logging.getLogger(__name__)

#: What handles the commands and does the due work, in the order their hooks are called.
CONCERNS: tuple[Concern, ...] = (PLAY, COMMUNITY, TOURNAMENTS)


class Service(TableService):
    """The platform-neutral bot: tables, games, computer players, deadlines, the
    community and tournaments. Takes the arguments of :class:`bot.core.tables.Tables`
    (the store, the settings, and the clock, random source and pictures switch, injected
    so tests control them); the concerns are :data:`CONCERNS` unless given."""

    def __init__(self, *args: Any, concerns: tuple[Concern, ...] = CONCERNS, **kwargs: Any) -> None:
        super().__init__(*args, concerns=concerns, **kwargs)

    @property
    def community(self) -> ladders.Community:
        """The ladders built from the finished games (kept by the community concern)."""
        return ladders.of(self)

    # --- for adapters: what the concerns show -----------------------------------------

    def left_chat(self, chat: str, user: str) -> list[Outbound]:
        """``user`` left ``chat`` (for platforms that hear of it): they leave the
        tournaments they joined from there, their remaining games lost (issue 30)."""
        return self.left_chats({chat}, user)

    def left_chats(self, chats: Collection[str], user: str) -> list[Outbound]:
        """``user`` left all of ``chats`` at once (a Discord server's channels and
        threads): they leave the tournaments they joined from any of them."""
        try:
            return tournament_chats.left_chat(self, chats, user, self.clock())
        except (StoreBusy, StoreDown) as exc:
            log.warning("a leaver's tournaments wait: %s", exc)
            return []

    def seat_look(self, chat: str, user: str) -> SeatLook | None:
        """:meth:`seat_view` in plain values for adapters (their rack, their turn, the cells
        a tile fits on); ``None`` if no game runs at ``chat`` or the user has no seat."""
        with self.locks.hold(chat):
            found = self.seat_game(chat, user)
            return None if found is None else show.seat_look(*found)

    def running_games(self, user: str) -> list[social.RunningGame]:
        """Every running table ``user`` sits at, across chats, for platforms that show
        them their own way (with a link to the table's latest message)."""
        return social.running_games(self, user, self.clock())

    def tournament_look(self, tid: str) -> dict[str, Any] | None:
        """Tournament ``tid`` as its web page shows it
        (:func:`bot.tournaments.standings.page_look`)."""
        return tournament_standings.page_look(self, tid)

    def move_tournaments(self, old: str, new: str, separator: str) -> list[str]:
        """Chat ``old`` became ``new`` (a Telegram group that became a supergroup, with
        its topics ``old`` + ``separator`` + thread): the tournaments played from it follow
        (issue 30). Returns their ids."""
        return tournament_chats.moved_chat(self, old, new, separator)

    def page_look(self, chat: str, user: str | None = None) -> PageLook | None:
        """The web page of ``chat``'s table for ``user``: a seated player's page holds their
        rack and legal cells; anyone else's (``user=None``) the public board only. ``None``
        if the chat has no table."""
        return pages.look(self, chat, user)

    def cell_look(self, chat: str, label: str) -> list[str] | None:
        """Cell ``label`` of ``chat``'s board and its lines in words, as ``/look`` tells
        them; ``None`` without a game there or such a cell."""
        return pages.cell_look(self, chat, label)

    def preview(self, chat: str, user: str, move: str) -> dict[str, Any] | None:
        """What ``user``'s placement ``move`` (as typed after ``/play``) would score now,
        changing nothing: ``points`` by colour letter and ``golden``, the colour of each
        golden space covered; ``None`` if it is no legal placement of theirs now."""
        return pages.seat_preview(self, chat, user, move)

    def page_hints(self, chat: str, user: str, version: int) -> dict[str, Any]:
        """The web page's Hint for ``user`` at ``chat``'s table as seen at ``version``:
        ``hints``, the suggested placements as values to draw on the board (cells, the
        symbols on them, the points, the move to send), or ``error``, why not (the typed
        /hint's rules), in the table's language."""
        return page_hints.seat_hints(self, chat, user, version)

    def web_links(self, out: Outbound) -> Outbound:
        """``out`` with a link button to its table's web page when ``[web] public_url`` is
        set (docs/web.md): the table's page under a turn, a result or a lobby; the player's
        own page (a signed, expiring link) under their rack and their turn ping, when the
        board runs in this process (``[web] port``), so its moves can be carried out. Else
        ``out`` itself. For platforms, which show the button their way."""
        web = self.settings.web
        seat = out.user is not None and out.kind in weblinks.SEAT_LINKED and web.port
        cup = out.about if places.is_tournament_table(out.about) else ""
        linked = out.user is None and out.kind in weblinks.LINKED
        if not web.public_url or not (seat or linked or cup):
            return out
        signer = getattr(self, "_web_signer", None)
        if signer is None:
            signer = self._web_signer = weblinks.Signer(weblinks.web_secret(self), self.clock)
        texts = Texts(self.language(out.chat))
        if cup:  # a tournament's standings: its page
            url = f"{web.public_url}/c/{signer.note_table(self, cup)}"
            return replace(
                out, buttons=(*out.buttons, Button(texts("web.tournament"), "", url=url))
            )
        tid = signer.note_table(self, out.chat)
        if out.user is not None:
            url = f"{web.public_url}/s/{signer.seat_token(tid, out.user)}"
            button = Button(texts("web.play"), "", url=url)
        else:
            button = Button(texts("web.open"), "", url=f"{web.public_url}/t/{tid}")
        return replace(out, buttons=(*out.buttons, button))

    def replay_board(self, chat: str, placed: int) -> str | None:
        """The board of ``chat``'s finished game after ``placed`` moves, as SVG (the page's
        replay slider); ``None`` while a game runs or without a game."""
        return pages.replay_at(self, chat, placed)

    def review_chart(self, chat: str) -> bytes | None:
        """The chart of the review of ``chat``'s finished game (each side's chance to win
        after every move) as PNG, for under the page's replay slider; ``None`` without a
        review of that game (yet)."""
        return pages.review_chart(self, chat)

    def review_of_move(self, chat: str, placed: int) -> str:
        """What the expert's review of ``chat``'s finished game says of its move number
        ``placed`` (from 1; the replay slider at that move); empty without a review."""
        lines = pages.review_lines(self, chat)
        if not lines or not 0 < placed <= len(lines):
            return ""
        return lines[placed - 1]
