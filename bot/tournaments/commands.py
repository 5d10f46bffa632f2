"""Tournaments by message (issue 30): ``/tournament new``, ``join``, ``leave``, ``start``,
``cancel``, ``invite``, ``team`` and ``show``.

What is said comes from the ``[tournament]`` texts.
"""

from __future__ import annotations

import string

from bot.community import identity
from bot.core.commands import Tournament as TournamentCommand
from bot.core.commands import TournamentSpec
from bot.core.outbound import Button, Outbound
from bot.core.tables import Context, Handler, Reject, Tables
from bot.tournaments.chats import end_tables, withdraw
from bot.tournaments.cup import (
    CANCELLED,
    FINISHED,
    OPEN,
    RUNNING,
    Cup,
    Entrant,
    _load,
    _of_chat,
    _store,
)
from bot.tournaments.rounds import _least, work
from bot.tournaments.standings import describe, standings_message
from bot.words.texts import Texts, shown_name

#: Letters of tournament ids and invite codes: no 0/o or 1/l to misread.
_ALPHABET = "".join(c for c in string.ascii_lowercase + string.digits if c not in "o0l1")


def tournament(tables: Tables, ctx: Context, cmd: TournamentCommand) -> None:
    """``/tournament`` and its actions. A tournament keeps its own version: each action
    is loaded, changed and saved with what it says, tried again if another process
    changed the tournament meanwhile."""
    assert ctx.user is not None
    if cmd.action == "new":
        assert cmd.spec is not None
        _new(tables, ctx, cmd.spec)
    elif cmd.action == "team":
        _team(tables, ctx, cmd.target)
    elif cmd.action == "show":
        _show(tables, ctx, cmd.target)
    else:
        for _ in range(3):
            found = _find(tables, ctx, cmd.target, cmd.action)
            version, cup = found
            outs = _ACTIONS[cmd.action](tables, ctx, cup)
            if _save(tables, ctx, cup, version, outs):
                if cup.status == RUNNING and cmd.action in ("start", "leave"):
                    ctx.out += work(tables, cup.id, ctx.now)
                return
        raise Reject("error.busy")


def _find(tables: Tables, ctx: Context, target: str, action: str) -> tuple[int, Cup]:
    """The tournament a command is about: the one named, else the only one of this chat
    that the action fits (an open one to join, a running one to leave...)."""
    if target:
        found = _load(tables, target)
        if found is None:
            raise Reject("tournament.no_such", id=target)
        return found
    fits = {
        "join": (OPEN,),
        "start": (OPEN,),
        "invite": (OPEN,),
        "leave": (OPEN, RUNNING),
        "cancel": (OPEN, RUNNING),
    }[action]
    cups = [c for c in _of_chat(tables, ctx.chat.id) if c[1].status in fits]
    if action == "leave":
        assert ctx.user is not None
        cups = [c for c in cups if c[1].entrant(ctx.user.id)] or cups
    if not cups:
        raise Reject("tournament.none_here")
    if len(cups) > 1:
        ids = ", ".join(c[1].id for c in cups)
        raise Reject("tournament.which", ids=ids, action=action)
    return cups[0]


def _save(
    tables: Tables, ctx: Context, cup: Cup, version: int | None, outs: list[Outbound]
) -> bool:
    """Store the tournament over ``version`` with what it says; False if it changed."""
    if not _store(tables, cup, version, outs, ctx.now):
        return False
    ctx.out += outs
    return True


def _code(tables: Tables, length: int) -> str:
    return "".join(tables.rng.choice(_ALPHABET) for _ in range(length))


def _new(tables: Tables, ctx: Context, spec: TournamentSpec) -> None:
    assert ctx.user is not None
    texts = ctx.texts
    for _ in range(5):
        cup = Cup(
            id=_code(tables, 4),
            home=ctx.chat.id,
            # The chat's title as the service took it from the platform (shown short).
            title=texts("tournament.title", chat=ctx.chat.title or ctx.chat.id),
            host=ctx.user.id,
            host_name=ctx.user.name,
            system=spec.system,
            rounds=spec.rounds,
            size=spec.size,
            round_time=spec.round_time,
            game=spec.game,
            team=spec.team,
            clock=spec.clock,
            lang=texts.lang,
            created=ctx.now,
            starts_at=ctx.now + spec.start_in if spec.start_in else None,
        )
        cup.due_at = cup.starts_at
        lines = [
            texts("tournament.created", name=ctx.user.name, id=cup.id, what=describe(cup, texts))
        ]
        lines.append(_start_line(cup, texts, ctx.now))
        lines.append(texts("tournament.how_to_join", id=cup.id))
        out = Outbound(ctx.chat.id, "\n".join(lines), buttons=_join_button(cup, texts))
        if _save(tables, ctx, cup, None, [out]):
            return
    raise Reject("error.busy")


def _join_button(cup: Cup, texts: Texts) -> tuple[Button, ...]:
    return (Button(texts("tournament.button_join"), f"/tournament join {cup.id}"),)


def _start_line(cup: Cup, texts: Texts, now: float) -> str:
    if cup.starts_at is None:
        return texts("tournament.starts_by_host", name=cup.host_name)
    return texts("tournament.starts_in", left=texts.duration(max(60, int(cup.starts_at - now))))


def _join(tables: Tables, ctx: Context, cup: Cup) -> list[Outbound]:
    assert ctx.user is not None
    if cup.status != OPEN:
        raise Reject("tournament.begun", id=cup.id)
    if ctx.chat.id not in cup.chats:
        raise Reject("tournament.not_here", id=cup.id)
    # A person linked on both platforms (issue 49) is one entrant: in a team battle of a
    # Telegram group and a Discord server they play for one team, once.
    if any(cup.entrant(a) is not None for a in identity.accounts(tables, ctx.user.id)):
        raise Reject("tournament.already_in", id=cup.id)
    cup.entrants.append(Entrant(ctx.user.id, ctx.user.name, ctx.chat.id))
    text = ctx.texts("tournament.joined", name=ctx.user.name, id=cup.id, count=len(cup.entrants))
    return [Outbound(ctx.chat.id, text)]


def _need_host(ctx: Context, cup: Cup) -> None:
    """The host, or an admin of a chat the tournament is played from (an admin elsewhere,
    naming it by its id, is not one of its admins)."""
    assert ctx.user is not None
    if ctx.user.id != cup.host and not (ctx.admin and ctx.chat.id in cup.chats):
        raise Reject("tournament.host_only", host=cup.host_name)


def _start(tables: Tables, ctx: Context, cup: Cup) -> list[Outbound]:
    _need_host(ctx, cup)
    if cup.status != OPEN:
        raise Reject("tournament.begun", id=cup.id)
    least = _least(cup)
    if len(cup.entrants) < least:
        raise Reject("tournament.too_few", id=cup.id, count=least)
    cup.status = RUNNING
    cup.due_at = ctx.now
    return []


def _cancel(tables: Tables, ctx: Context, cup: Cup) -> list[Outbound]:
    _need_host(ctx, cup)
    assert ctx.user is not None
    cup.status = CANCELLED
    cup.due_at = None
    cup.finished_at = ctx.now
    text = ctx.texts("tournament.cancelled", id=cup.id, name=ctx.user.name)
    return [
        *(Outbound(chat, text) for chat in cup.chats),
        *end_tables(tables, cup, Texts(cup.lang), ctx.now),
    ]


def _invite(tables: Tables, ctx: Context, cup: Cup) -> list[Outbound]:
    _need_host(ctx, cup)
    if not cup.code:
        cup.code = _code(tables, 6)
    if not cup.teams:
        cup.teams = [cup.home]
        cup.team_names[cup.home] = shown_name(ctx.chat.title) or cup.home
    text = ctx.texts("tournament.invite", id=cup.id, code=cup.code)
    return [Outbound(ctx.chat.id, text)]


def _leave(tables: Tables, ctx: Context, cup: Cup) -> list[Outbound]:
    assert ctx.user is not None
    who = cup.entrant(ctx.user.id)
    if who is None or who.out:
        raise Reject("tournament.not_in", id=cup.id)
    if cup.status not in (OPEN, RUNNING):
        raise Reject("tournament.over", id=cup.id)
    return withdraw(tables, cup, who, ctx.texts, ctx.now)


def _team(tables: Tables, ctx: Context, code: str) -> None:
    """A community joins a team battle by its invite code: a chat admin enlists the chat
    as a team, and its people join from there."""
    assert ctx.user is not None
    tid = tables.store.tournament_by_code(code)
    if tid is None:
        raise Reject("tournament.bad_code")
    if not ctx.admin:
        raise Reject("tournament.admins_enlist")
    for _ in range(3):
        found = _load(tables, tid)
        if found is None:
            raise Reject("tournament.bad_code")
        version, cup = found
        if cup.status != OPEN:
            raise Reject("tournament.begun", id=cup.id)
        if ctx.chat.id in cup.chats:
            raise Reject("tournament.team_already", id=cup.id)
        cup.teams.append(ctx.chat.id)
        name = shown_name(ctx.chat.title) or ctx.chat.id
        cup.team_names[ctx.chat.id] = name
        texts = Texts(cup.lang)
        news = texts("tournament.team_joined", team=name, id=cup.id, count=len(cup.teams))
        here = ctx.texts("tournament.team_welcome", id=cup.id, what=describe(cup, ctx.texts))
        outs = [Outbound(c, news) for c in cup.chats if c != ctx.chat.id]
        outs.append(Outbound(ctx.chat.id, here, buttons=_join_button(cup, ctx.texts)))
        if _save(tables, ctx, cup, version, outs):
            return
    raise Reject("error.busy")


def _show(tables: Tables, ctx: Context, target: str) -> None:
    if target:
        found = _load(tables, target)
        if found is None:
            raise Reject("tournament.no_such", id=target)
        ctx.out.append(standings_message(tables, found[1], ctx.chat.id, ctx.texts, ctx.pictures))
        return
    cups = [c for _, c in _of_chat(tables, ctx.chat.id)]
    live = [c for c in cups if c.status in (OPEN, RUNNING)]
    if len(live) > 1:
        lines = [ctx.texts("tournament.list")]
        lines += [
            ctx.texts(
                "tournament.list_line",
                id=c.id,
                what=describe(c, ctx.texts),
                status=ctx.texts(f"tournament.status_{c.status}"),
            )
            for c in live
        ]
        ctx.out.append(Outbound(ctx.chat.id, "\n".join(lines)))
        return
    shown = live or [c for c in cups if c.status == FINISHED][-1:]
    if not shown:
        raise Reject("tournament.none_yet")
    ctx.out.append(standings_message(tables, shown[0], ctx.chat.id, ctx.texts, ctx.pictures))


_ACTIONS = {
    "join": _join,
    "start": _start,
    "cancel": _cancel,
    "invite": _invite,
    "leave": _leave,
}


HANDLERS: dict[type, Handler] = {TournamentCommand: tournament}
