"""A tournament's players and the chats they play from (issue 30): a player who leaves
(``/tournament leave``, or the chat they joined from, or asking to be forgotten) and their
game of the round lost, a chat that moved (a Telegram group that became a supergroup), and
a game command typed at a player's place routed to their tournament table.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection

from bot.core.commands import Command
from bot.core.outbound import Outbound
from bot.core.table import CLOSED, PLAYING
from bot.core.tables import Reject, Tables
from bot.play import lobby
from bot.store import StaleTable
from bot.tournaments import places
from bot.tournaments.cup import OPEN, RUNNING, Cup, Entrant, Pairing, _load, _store
from bot.tournaments.rounds import _unnote, work
from bot.words.texts import Said, Texts


def withdraw(tables: Tables, cup: Cup, who: Entrant, texts: Texts, now: float) -> list[Outbound]:
    """``who`` leaves ``cup``: before the start they are simply gone; once it runs, their
    game of this round is lost (a two-player game ends there, a larger table plays on with
    the computer in their seat) and they are paired no more."""
    if cup.status == OPEN:
        cup.entrants.remove(who)
        text = texts("tournament.left_before", name=who.name, id=cup.id)
        return [Outbound(who.chat, text)]
    who.out = True
    out: list[Outbound] = []
    if cup.played:
        for p in cup.played[-1].pairings:
            if who.user in p.players and p.places is None and who.user not in p.forfeits:
                p.forfeits.append(who.user)
                out += _forfeit_at_table(tables, cup, p, who, now)
    cup.due_at = now
    text = texts("tournament.left", name=who.name, id=cup.id)
    return [*(Outbound(chat, text) for chat in cup.chats), *out]


def end_tables(tables: Tables, cup: Cup, texts: Texts, now: float) -> list[Outbound]:
    """The running tables of a cancelled tournament: their games end here, each told so
    (no round's deadline is left to end them), and moves typed beside them go nowhere."""
    out: list[Outbound] = []
    if not cup.played:
        return out
    for p in cup.played[-1].pairings:
        if p.places is not None or not p.opened:
            continue
        out += _close(tables, p.chat, texts("tournament.cancelled_table", id=cup.id), now)
        _unnote(tables, p)
    return out


def _close(tables: Tables, chat: str, text: str, now: float) -> list[Outbound]:
    """Tournament table ``chat``'s game ends where it stands, saying ``text``."""
    with tables.locks.hold(chat):
        t = tables.store.load(chat)
        if t is None or t.status != PLAYING:
            return []
        ctx = tables.clock_context(t, now)
        t.version += 1
        t.players = list(t.seats)
        t.status = CLOSED
        t.seats = []
        t.due_at = t.turn_started = None
        t.pending, t.pending_cells = [], []
        ctx.out.append(ctx.scene.chat_message([text]))
        if not tables.save(ctx):
            return []
        tables.forget(chat)
        return ctx.out


def _forfeit_at_table(
    tables: Tables, cup: Cup, p: Pairing, who: Entrant, now: float
) -> list[Outbound]:
    """The leaver's seat at their running table: a two-player game ends (the other player
    won), at a larger table a computer plays the seat on."""
    if not p.opened:
        return []
    with tables.locks.hold(p.chat):
        t = tables.store.load(p.chat)
        if t is None or t.status != PLAYING:
            return []
        ctx = tables.clock_context(t, now)
        t.version += 1
        seat = t.seat_of(who.user)
        if seat is None:
            return []
        live = [u for u in p.players if u not in p.forfeits]
        if len(live) <= 1:
            t.players = list(t.seats)
            t.status = CLOSED
            t.seats = []
            t.due_at = t.turn_started = None
            t.pending, t.pending_cells = [], []
            ctx.out.append(
                ctx.scene.chat_message([ctx.texts("tournament.forfeit_end", name=who.name)])
            )
        else:
            lobby.vacate(tables, ctx, seat, ctx.texts("tournament.forfeit_seat", name=who.name))
        if not tables.save(ctx):
            return []
        if t.status == CLOSED:
            tables.forget(p.chat)
        else:
            tables.keep(ctx, t.version)
        return ctx.out


def left_chat(
    tables: Tables, chat: str | Collection[str] | None, user: str, now: float
) -> list[Outbound]:
    """``user`` left ``chat`` (the platform says so; several chats: a server's channels):
    they leave every open or running tournament they joined from it, as ``/tournament
    leave`` would; ``chat`` ``None``: every tournament they are in (they asked to be
    forgotten)."""
    out: list[Outbound] = []
    if isinstance(chat, str):
        chat = {chat}
    if chat is None or len(chat) > 1:
        ids = tables.store.tournaments_with(json.dumps(user))
    else:
        ids = tables.store.tournaments_of(next(iter(chat), ""))
    for tid in ids:
        for _ in range(3):
            found = _load(tables, tid)
            if found is None:
                break
            version, cup = found
            who = cup.entrant(user)
            if cup.status not in (OPEN, RUNNING) or who is None or who.out:
                break
            if chat is not None and who.chat not in chat:
                break
            said = withdraw(tables, cup, who, Texts(cup.lang), now)
            if _store(tables, cup, version, said, now):
                out += said
                if cup.status == RUNNING:
                    out += work(tables, cup.id, now)
                break
    return out


def moved_chat(tables: Tables, old: str, new: str, separator: str) -> list[str]:
    """Chat ``old`` became chat ``new`` (a Telegram group that became a supergroup; its
    topics ``old`` + ``separator`` + thread move along): every tournament played from it
    follows, its home, teams, entrants and places, the running tables' places and the notes
    that route a player's moves typed there. Returns the tournaments that moved."""

    def moved(chat: str) -> str:
        if chat == old:
            return new
        return new + chat[len(old) :] if chat.startswith(old + separator) else chat

    done: list[str] = []
    for tid in tables.store.tournaments_with(json.dumps(old)[1:-1]):
        for _ in range(3):
            found = _load(tables, tid)
            if found is None:
                break
            version, cup = found
            before = cup.to_dict()
            cup.home = moved(cup.home)
            cup.teams = [moved(c) for c in cup.teams]
            cup.team_names = {moved(c): n for c, n in cup.team_names.items()}
            for e in cup.entrants:
                e.chat = moved(e.chat)
            # Each table whose places moved, with its players' places before.
            changed: list[tuple[Pairing, dict[str, str]]] = []
            for r in cup.played:
                for p in r.pairings:
                    seen = {u: moved(c) for u, c in p.seen_at.items()}
                    if seen != p.seen_at:
                        changed.append((p, dict(p.seen_at)))
                        p.seen_at = seen
            if cup.to_dict() == before:
                break
            if not _store(tables, cup, version, [], tables.clock()):
                continue  # changed meanwhile: read again
            for p, was in changed:
                _move_places(tables, p, was, moved)
            done.append(tid)
            break
    return done


def _move_places(
    tables: Tables, p: Pairing, was: dict[str, str], moved: Callable[[str], str]
) -> None:
    """A tournament table's places after a chat moved (``was``: each player's place
    before): its stored places, and the note naming the table under each moved place
    (what its player types there goes to it)."""
    with tables.locks.hold(p.chat):
        for _ in range(3):
            t = tables.store.load(p.chat)
            if t is None or not t.tournament:
                break
            info = dict(t.tournament)
            info["places"] = {u: moved(c) for u, c in (info.get("places") or {}).items()}
            info["shared"] = [moved(c) for c in info.get("shared") or []]
            if info == t.tournament:
                break
            version = t.version
            t.tournament, t.version = info, version + 1
            try:
                tables.store.save(t, version)
            except StaleTable:
                continue
            tables.forget(p.chat)
            break
    for user, place in p.seen_at.items():
        before = was.get(user, place)
        if before == place:
            continue
        key = places.AT.format(user=user)
        noted = tables.store.note(before, key)
        if noted is not None:
            tables.store.set_note(place, key, noted)
            tables.store.set_note(before, key, None)


# --- finding a tournament's table from a player's place -------------------------------


def routed(tables: Tables, chat: str, user: str, command: Command) -> str | None:
    """The tournament table a game command typed in ``chat`` is for: the one it names (by
    its tournament's id), else one of ``user``'s tournament tables seen there, the one
    where it is their turn if several.

    Raises:
        Reject: ``tournament.no_table`` for a named table that is none of theirs here,
            ``tournament.which_table`` (naming them) when it is their turn at several.
    """
    if not command.at_seat:
        return None
    found = places.noted(tables.store.note(chat, places.AT.format(user=user)))
    if command.table:
        named = [c for c in found if places.tournament_of(c) == command.table]
        if not named:  # typed where the table is not seen (the private chat)
            mine = tables.store.playing(user)
            named = [c for c in mine if places.tournament_of(c) == command.table]
        if not named or named[-1] == chat:
            raise Reject("tournament.no_table", id=command.table)
        return named[-1]
    if len(found) <= 1:
        return found[0] if found else None
    waiting: list[tuple[str, str]] = []
    for table_chat in found:
        t = tables.store.load(table_chat)
        if t is None or t.status != PLAYING or t.record is None:
            continue
        facts = tables.game_facts(t)
        if facts is not None and t.seats[facts[1]].user == user:
            waiting.append((table_chat, str(t.tournament.get("name") or t.title)))
    if len(waiting) == 1:
        return waiting[0][0]
    if waiting:
        names = "; ".join(name for _, name in waiting)
        first = places.tournament_of(waiting[0][0])
        raise Reject("tournament.which_table", tables=Said(names), id=first)
    return found[0]
