"""What a group that plays over weeks asks for: ``/top``, ``/stats``, ``/games``,
``/notify``, and the private turn pings.

The ladders, the archive of finished games and the texts of these answers are
:mod:`bot.community.ladders`; this module is the commands that read them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.community import identity, puzzles, ratings
from bot.community import ladders as community
from bot.core import deadlines, images, messages, timebank
from bot.core.commands import Games, Notify, Stats, Top
from bot.core.durations import format_left
from bot.core.games import Game
from bot.core.outbound import Outbound
from bot.core.table import PLAYING
from bot.core.tables import Context, Handler, Reject, Tables
from bot.store import DamagedTable


@dataclass(frozen=True, slots=True)
class RunningGame:
    """A running table a person sits at (``/games``): ``game`` is genial, team, solo or
    spezial; ``deadline`` when the turn runs out (seconds since the epoch), if it does."""

    chat: str
    title: str
    game: str
    to_move: str
    my_turn: bool
    deadline: float | None
    #: When the turn began (seconds since the epoch): how long the table has waited.
    since: float | None = None
    #: The time the person to move has left as the list was made (their clock paused
    #: while they are away, none while the others vote on them), if their turn has a limit.
    left: float | None = None


def top(tables: Tables, ctx: Context, cmd: Top) -> None:
    scope = ratings.GLOBAL if cmd.everyone else ctx.chat.id
    lines = community.top_lines(community.fresh(tables), scope, cmd.page, ctx.texts)
    if lines is None:
        if cmd.everyone:
            raise Reject("top.empty_global")
        if community.top_lines(community.of(tables), ratings.GLOBAL, 1, ctx.texts) is not None:
            # A private chat (or a new group) has no ladder of its own: say where one is.
            raise Reject("top.empty_here")
        raise Reject("top.empty")
    ctx.out.append(ctx.scene.chat_message(lines))


def stats(tables: Tables, ctx: Context, cmd: Stats) -> None:
    assert ctx.user is not None
    player: str | None = ctx.user.id
    community.fresh(tables)
    if cmd.player is not None:
        player = community.of(tables).find(ctx.chat.id, cmd.player)
        if player is None:
            raise Reject("stats.who", target=cmd.player)
    assert player is not None
    asker = ctx.user.name if player == ctx.user.id else None
    # A linked account is on the ladders as its person (issue 49).
    player = community.of(tables).person(player)
    head, per_game = community.stats(community.of(tables), ctx.chat.id, player, ctx.texts, asker)
    turn = community.of(tables).median_turn(player)
    if turn is not None:
        median, count = turn
        head = [*head, ctx.texts("stats.turn_time", median=format_left(median), count=count)]
    # The finished tournaments the player played here (issue 30).
    cups = [
        line
        for concern in tables.concerns
        if concern.stats_lines is not None
        for line in concern.stats_lines(tables, ctx.chat.id, player, ctx.texts)
    ]
    head = [*head, *puzzles.solved_lines(tables, player, ctx.texts)]
    if not per_game:
        ctx.out.append(ctx.scene.chat_message([*head, *cups]))
        return
    for n, part in enumerate(per_game):
        lines = [*(head if n == 0 else []), *part.lines]
        chart = None
        if ctx.pictures and part.history:
            name = community.of(tables).name(player, ctx.texts)
            title = f"{name} · {ctx.texts(f'game.{part.game}')}"
            chart = images.chart(part.history, title)
        ctx.out.append(ctx.scene.chat_message(lines, attachment=chart))
    if cups:
        ctx.out.append(ctx.scene.chat_message(cups))


def games(tables: Tables, ctx: Context, cmd: Games) -> None:
    assert ctx.user is not None
    found = running_games(tables, ctx.user.id, ctx.now)
    tx = ctx.texts
    if not found:
        lines = [tx("games.none")]
    else:
        lines = [tx("games.title", number=len(found))]
        for g in found:
            turn = tx("games.your_turn") if g.my_turn else tx("games.turn", name=g.to_move)
            left = "" if g.left is None else format_left(g.left)
            key = "games.line_deadline" if left else "games.line"
            # One line per table (a title's line break would shift the links).
            title = " ".join(g.title.split())
            lines.append(tx(key, table=title, game=tx(f"game.{g.game}"), turn=turn, left=left))
    # The platform adds to each table's line a link to its latest message.
    tables_shown = tuple(g.chat for g in found)
    text = "\n".join(lines)
    ctx.out.append(Outbound(ctx.chat.id, text, "info", user=ctx.user.id, tables=tables_shown))


def running_games(tables: Tables, user: str, now: float) -> list[RunningGame]:
    """Every running table ``user`` sits at, across chats, read from the store's players
    index without any table's lock: with the tables of the accounts linked with theirs
    on the other platform (issue 49)."""
    found = []
    mine = identity.accounts(tables, user)
    chats = dict.fromkeys(chat for account in mine for chat in tables.store.playing(account))
    for chat in chats:
        try:
            t = tables.store.load(chat)
        except DamagedTable:
            continue
        if t is None:
            continue
        facts = tables.game_facts(t)
        if facts is None or facts[0]:
            continue
        _, to_move, mode = facts
        ctx = tables.clock_context(t, now)
        seat = t.seats[to_move]
        deadline = None if seat.computer else t.deadline
        timeout = t.options.timeout
        if deadline is None and timeout and not seat.computer and t.turn_started is not None:
            deadline = t.turn_started + timeout  # stored before deadlines were
        found.append(
            RunningGame(
                chat=t.chat,
                title=t.title or t.chat,
                game=mode.replace("standard", "genial"),
                to_move=ctx.scene.name(seat),
                my_turn=seat.user in mine,
                deadline=deadline,
                since=t.turn_started,
                left=None if seat.computer else timebank.turn_left(t, to_move, now),
            )
        )
    # The games waiting for me longest first, then the others (longest waiting first).
    found.sort(key=lambda g: (not g.my_turn, g.since if g.since is not None else now))
    return found


#: Notes under a person's id: quiet hours (``22-8``), time zone, the digest's last day.
QUIET = community.QUIET
ZONE = community.ZONE
DIGESTED = "notify-digested"
#: A daily digest at an hour: the notify note's value starts so (``digest:8``).
DIGEST = "digest:"


def notify(tables: Tables, ctx: Context, cmd: Notify) -> None:
    assert ctx.user is not None
    user, store = ctx.user.id, tables.store
    if cmd.setting == "where":
        # Pings on, to the person's account on that platform, whichever account is seated.
        mine = identity.accounts(tables, user)
        if not any(identity.platform_of(a) == cmd.value for a in mine):
            raise Reject("notify.where_unlinked", platform=cmd.value.capitalize())
        for account in mine:
            store.set_note(account, community.NOTIFY, "on")
            store.set_note(account, community.WHERE, cmd.value)
    elif cmd.setting == "digest":
        store.set_note(user, community.NOTIFY, f"{DIGEST}{cmd.value}")
    elif cmd.setting == "quiet":
        store.set_note(user, QUIET, cmd.value or None)
    elif cmd.setting == "tz":
        try:
            zone = ZoneInfo(cmd.value)
        except (ZoneInfoNotFoundError, ValueError):
            raise Reject("notify.bad_tz", value=cmd.value) from None
        store.set_note(user, ZONE, zone.key)
    elif cmd.on is not None:
        store.set_note(user, community.NOTIFY, "on" if cmd.on else None)
    ctx.out.append(Outbound(ctx.chat.id, settings_text(tables, ctx, user), "info", user=user))


def settings_text(tables: Tables, ctx: Context, user: str) -> str:
    """How ``user``'s pings come, in lines."""
    tx, store = ctx.texts, tables.store
    asked = store.note(user, community.NOTIFY)
    zone = zone_of(tables, user).key
    if asked == "on":
        lines = [tx("notify.on")]
    elif asked and asked.startswith(DIGEST):
        lines = [tx("notify.digest", hour=f"{_digest_hour(asked):02d}", tz=zone)]
    else:
        lines = [tx("notify.off")]
    where = store.note(user, community.WHERE)
    if asked is not None and where is not None and len(identity.accounts(tables, user)) > 1:
        lines.append(tx("notify.where", platform=where.capitalize()))
    quiet = _quiet_hours(store.note(user, QUIET))
    if quiet is not None:
        lines.append(tx("notify.quiet", start=f"{quiet[0]:02d}", end=f"{quiet[1]:02d}", tz=zone))
    lines.append(tx("notify.how"))
    return "\n".join(lines)


def _digest_hour(asked: str) -> int:
    hour = asked[len(DIGEST) :]
    return int(hour) if hour.isdigit() and int(hour) < 24 else 8


def _note(tables: Tables, ctx: Context | None, user: str, key: str) -> str | None:
    """A person's note, read with the table where a turn needs it (``ctx``)."""
    return tables.store.note(user, key) if ctx is None else tables.person_note(ctx, user, key)


def zone_of(tables: Tables, user: str, ctx: Context | None = None) -> ZoneInfo:
    """The person's time zone (``/notify tz``), UTC unless they said."""
    name = _note(tables, ctx, user, ZONE)
    try:
        return ZoneInfo(name) if name else ZoneInfo("UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _quiet_hours(note: str | None) -> tuple[int, int] | None:
    start, _, end = (note or "").partition("-")
    if not (start.isdigit() and end.isdigit()):
        return None
    return int(start), int(end)


def quiet_until(tables: Tables, user: str, now: float, ctx: Context | None = None) -> float | None:
    """When ``user``'s quiet hours end, if ``now`` is within them (in their time zone;
    ``22-8`` runs across midnight)."""
    hours = _quiet_hours(_note(tables, ctx, user, QUIET))
    if hours is None:
        return None
    start, end = hours
    local = datetime.fromtimestamp(now, zone_of(tables, user, ctx))
    hour = local.hour
    inside = start <= hour < end if start < end else hour >= start or hour < end
    return _next_hour(local, end) if inside else None


def next_digest(
    tables: Tables, user: str, hour: int, now: float, ctx: Context | None = None
) -> float:
    """The next time it is ``hour`` o'clock in ``user``'s time zone, after ``now``."""
    return _next_hour(datetime.fromtimestamp(now, zone_of(tables, user, ctx)), hour)


def _next_hour(local: datetime, hour: int) -> float:
    """The first moment after ``local`` whose wall clock shows ``hour``:00 (the next day
    counted on the wall clock, so a change to summer time moves no digest)."""
    at = local.replace(hour=hour, minute=0, second=0, microsecond=0)
    if at <= local:
        day = at.date() + timedelta(days=1)
        at = datetime(day.year, day.month, day.day, hour, tzinfo=local.tzinfo)
    return at.timestamp()


def held_ping(tables: Tables, ctx: Context, game: Game) -> None:
    """The ping held back at the table (quiet hours, a digest) is due: sent if its turn is
    still the one being played, as a ping or as the person's digest of every game waiting
    for them (once a day)."""
    t = ctx.table
    user, turn = t.ping_user, t.ping_turn
    t.ping_at, t.ping_user, t.ping_turn = None, None, ""
    seat = t.seats[game.to_move]
    if user is None or seat.user != user or turn != f"{t.seed}:{len(game.moves)}":
        return  # no longer true: the turn passed
    key = community.PING.format(user=user)
    if tables.store.note(t.chat, key) == turn:
        return
    asked = tables.store.note(user, community.NOTIFY) or ""
    if asked.startswith(DIGEST):
        digest(tables, ctx, user)
    elif asked == "on":
        _send_ping(tables, ctx, game, user)
    ctx.pinged.append((t.chat, key, turn))


def digest(tables: Tables, ctx: Context, user: str) -> None:
    """``user``'s daily digest: every game where it is their turn, longest waiting first,
    each with a link to its latest message; never twice on one day of theirs."""
    today = datetime.fromtimestamp(ctx.now, zone_of(tables, user)).date().isoformat()
    if tables.store.note(user, DIGESTED) == today:
        return
    waiting = [g for g in running_games(tables, user, ctx.now) if g.my_turn]
    if not waiting:
        return
    tx = ctx.texts
    lines = [tx("notify.digest_title", count=len(waiting))]
    for g in waiting:
        waited = format_left(ctx.now - g.since) if g.since is not None else "0s"
        title = " ".join(g.title.split())
        game = tx(f"game.{g.game}")
        lines.append(tx("notify.digest_line", table=title, game=game, waited=waited))
    tables.store.set_note(user, DIGESTED, today)
    shown = tuple(g.chat for g in waiting)
    text = "\n".join(lines)
    ctx.out.append(Outbound(ctx.table.chat, text, "ping", user=user, tables=shown))


def ping(tables: Tables, ctx: Context, game: Game) -> None:
    """A private note to the person whose turn it now is, if they asked for pings, did
    not just act themselves and play with at least one other person: once per turn
    (keyed by the game's seed and the moves played when it began, noted once the table
    is saved). During their quiet hours it is held back until the hours end, and with a
    daily digest until the digest's hour; held back, it is dropped if the turn passes."""
    t = ctx.table
    if game.over or t.status != PLAYING:
        return
    seat = t.seats[game.to_move]
    if seat.user is None or (ctx.user is not None and ctx.user.id == seat.user):
        return
    if sum(s.user is not None for s in t.seats) < 2:
        return  # the only person here: the computer players answer them at once
    asked = tables.person_note(ctx, seat.user, community.NOTIFY)
    if asked is None or (asked != "on" and not asked.startswith(DIGEST)):
        return
    away = tables.away(ctx, seat.user)
    key = community.PING.format(user=seat.user)
    turn = f"{t.seed}:{len(game.moves)}"
    if tables.store.note(t.chat, key) == turn:
        return
    if asked.startswith(DIGEST):
        held: float | None = next_digest(tables, seat.user, _digest_hour(asked), ctx.now, ctx)
    else:
        held = quiet_until(tables, seat.user, ctx.now, ctx)
    if away is not None:
        held = away if held is None else max(held, away)  # on vacation: none meanwhile
    if held is not None:
        t.ping_at, t.ping_user, t.ping_turn = held, seat.user, turn
        deadlines.hold(t, held)
        return
    ctx.pinged.append((t.chat, key, turn))
    _send_ping(tables, ctx, game, seat.user)


def _send_ping(tables: Tables, ctx: Context, game: Game, user: str) -> None:
    text = ctx.texts("notify.ping", table=ctx.scene.title, game=ctx.scene.game_title(game))
    board = messages.board_attachment(ctx.scene, game)
    to, chat = user, ctx.table.chat
    where = tables.person_note(ctx, user, community.WHERE)
    if where is not None and identity.platform_of(user) != where:
        # A person linked on both platforms wants their pings on the other one: to their
        # account there, in its private chat (that platform's process delivers it).
        other = [a for a in identity.accounts(tables, user) if identity.platform_of(a) == where]
        if other:
            to = chat = other[0]
    ctx.out.append(Outbound(chat, text, "ping", user=to, attachment=board))
    ctx.table.pinged = to


def retract_ping(ctx: Context) -> None:
    """The turn a ping was sent for has passed (played, timed out, taken back, the game
    over): the ping is no longer true, so the platform deletes it where it can (a
    direct message the bot sent: Telegram, Discord; the console cannot). A digest is
    about several tables and stays."""
    t = ctx.table
    if t.pinged is not None:
        # A ping to a person's account on the other platform went to its private chat.
        seated = t.pinged in {s.user for s in t.seats}
        chat = t.chat if seated else t.pinged
        ctx.out.append(Outbound(chat, "", "unping", user=t.pinged))
        t.pinged = None


HANDLERS: dict[type, Handler] = {Top: top, Stats: stats, Games: games, Notify: notify}
