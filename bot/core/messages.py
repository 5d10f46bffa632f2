"""The bot's messages, built from a table, its game and the table's texts.

Chat messages get the spectator's view of the game (``view(None)``, no rack at all); a
rack goes only into a private message to the seat's own player.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.core import games, images, narrate, timebank
from bot.core.durations import format_clock, format_duration, format_left
from bot.core.games import Game
from bot.core.outbound import Attachment, Button, Outbound
from bot.core.table import LOBBY, PLAYING, Seat, Table
from bot.words.texts import LANGUAGES, Said, Texts, shown
from engine.genial import GenialGame
from engine.hexgrid import Hex

#: Timeouts offered as buttons in the options message.
TIMEOUT_PRESETS = (0, 3600, 86400)
#: Time banks offered as buttons there: by message, and live.
CLOCK_PRESETS = ("3d+1d", "10m+5s")


@dataclass
class Scene:
    """What a message is about: a table, its running (or last) game, in its language."""

    table: Table
    texts: Texts
    pictures: bool = True
    #: The moment the message is about (seconds since the epoch): time left is told as of
    #: then; ``None``: as the turn began.
    now: float | None = None

    @property
    def chat(self) -> str:
        return self.table.chat

    @property
    def title(self) -> str:
        return self.table.title or self.table.chat

    def button(self, key: str, command: str, **params: object) -> Button:
        """A button whose command carries the table's current version."""
        return Button(self.texts(key, **params), f"{command} #{self.table.version}")

    def at_seat(self, command: str) -> str:
        """A seat's command as a button sends it: at a tournament's table with the
        tournament's id, so a player with several tables in one chat reaches this one."""
        tid = self.table.tournament.get("id") if self.table.tournament else None
        return f"{command} {tid}" if tid else command

    def name(self, seat: Seat) -> str:
        """The seat's name as texts show it: told apart from another seat of the same
        name by its number ("Ann (2)"), and marked when a computer took it over."""
        name = self.person_name(seat)
        if seat.left:
            return self.texts("seat.taken_over", name=name)
        return name

    def person_name(self, seat: Seat) -> str:
        """The name of the person of a seat, with its seat number when another seat of
        the same game (or lobby) carries the same name."""
        seats = self.players if any(s is seat for s in self.players) else self.table.seats
        folded = seat.name.casefold()
        if sum(s.name.casefold() == folded for s in seats) < 2:
            return seat.name
        number = next((i for i, s in enumerate(seats) if s is seat), None)
        if number is None:
            return seat.name
        return self.texts("seat.twin", name=seat.name, number=number + 1)

    @property
    def players(self) -> list[Seat]:
        """The seats of the running or last game: the lobby's seats may change after the
        end while the last game keeps its players' names for its whole life."""
        t = self.table
        return t.seats if t.status == PLAYING or not t.players else t.players

    def names(self, game: Game | None = None) -> list[str]:
        """The game's players' names in seat order (one per seat of ``game`` if given)."""
        names = [self.name(s) for s in self.players]
        if game is not None and len(names) != game.players:
            # A table stored before games kept their players: name the missing seats.
            names = names[: game.players]
            names += [
                self.texts("seat.unknown", number=k + 1) for k in range(len(names), game.players)
            ]
        return names

    def chat_message(self, lines: Sequence[str], kind: str = "info", **kw: object) -> Outbound:
        return Outbound(self.chat, "\n".join(lines), kind, **kw)  # type: ignore[arg-type]

    def game_name(self, players: int | None = None) -> str:
        """The game the lobby's options make for ``players`` (default: those seated)."""
        opts = self.table.options
        n = len(self.table.seats) if players is None else players
        if opts.game == "spezial":
            return self.texts("game.spezial")
        if opts.team:
            return self.texts("game.team")
        if n == 1:
            return self.texts("game.solo")
        return self.texts("game.genial")

    def game_title(self, game: Game) -> str:
        """The name of a game itself (the options may have changed since it began)."""
        return self.texts(f"game.{games.mode(game).replace('standard', 'genial')}")


def error(chat: str, texts: Texts, key: str, params: dict[str, object]) -> Outbound:
    """An error answer. Every text placeholder may hold user input: it is quoted short and
    without control, format or bidi characters (the one place errors echo input); a list
    the bot made itself (:class:`Said`) is given whole."""
    safe = {
        k: shown(v) if isinstance(v, str) and not isinstance(v, Said) else v
        for k, v in params.items()
    }
    return Outbound(chat, texts(key, **safe), "error")


# --- lobby and options ------------------------------------------------------------------


def _still_seated(t: Table) -> list[str]:
    """The seats of a table's lobby still held from its last game, numbered as seated."""
    if t.status != LOBBY or t.record is None or not t.players:
        return []
    before = {(p.user, p.name) for p in t.players}
    return [f"{n}. {s.name}" for n, s in enumerate(t.seats, 1) if (s.user, s.name) in before]


def lobby(scene: Scene, news: Sequence[str] = ()) -> Outbound:
    """Who sits at the table, the options in one line, and buttons to join and start."""
    t, tx = scene.table, scene.texts
    solo_next = len(t.seats) == 1 and t.options.game == "genial" and not t.options.team
    # One seated player: the solo game is what /start would begin, not a choice made.
    game = tx("game.genial") if solo_next else scene.game_name()
    lines = [*news, tx("lobby.title", table=scene.title, game=game)]
    if not t.seats:
        lines.append(tx("lobby.empty"))
    for number, seat in enumerate(t.seats, 1):
        if seat.computer:
            level = tx.level(seat.level or "")
            lines.append(tx("lobby.seat_computer", number=number, name=seat.name, level=level))
        else:
            lines.append(tx("lobby.seat", number=number, name=seat.name))
    if solo_next:
        lines.append(tx("lobby.solo_next"))
    carried = _still_seated(t)
    if carried:
        # After a game the seats stay: a newcomer's /join, /addbot, /start would otherwise
        # sit down beside the last game's computer player without knowing it.
        lines.append(tx("lobby.still_seated", seats=", ".join(carried)))
    lines.append(options_summary(scene))
    if timebank.clocked(t):
        lines.append(clock_text(scene))
    if timebank.clocked(t) or t.options.grace >= 0:
        lines.append(grace_text(scene))
    lines.append(tx("lobby.how"))
    buttons = (
        scene.button("button.join", "/join"),
        scene.button("button.addbot", "/addbot"),
        scene.button("button.start", "/start"),
        Button(tx("button.options"), "/option"),
    )
    return scene.chat_message(lines, "lobby", buttons=buttons)


def _switch(tx: Texts, on: bool) -> str:
    return tx("value.on") if on else tx("value.off")


def timeout_text(tx: Texts, seconds: int) -> str:
    return tx("value.no_timeout") if not seconds else tx.duration(seconds)


def clock_text(scene: Scene) -> str:
    """The table's time control in one line (``/option clock``)."""
    o, tx = scene.table.options, scene.texts
    kind = "clock.live" if timebank.live(scene.table) else "clock.by_message"
    return tx(kind, clock=format_clock(o.clock_bank, o.clock_increment))


def grace_text(scene: Scene) -> str:
    """How long the others may vote on a player out of time (``/option grace``), marked
    when it is the default (one increment, more on a live clock: see :mod:`timebank`)."""
    t, tx = scene.table, scene.texts
    seconds = int(timebank.grace(t))
    value = format_duration(seconds) if seconds else tx("value.no_vote")
    if t.options.grace < 0:
        value = tx("value.default", value=value)
    return tx("options.grace", value=value)


def clock_line(scene: Scene, game: Game) -> str | None:
    """Each person's time left as of the scene's moment (the one to move: their bank less
    their turn's time so far), for the turn message of a table with a clock."""
    labels = clock_labels(scene, game)
    if labels is None:
        return None
    parts = [
        scene.texts("clock.seat", name=scene.name(seat), left=label)
        for seat, label in zip(scene.table.seats, labels, strict=True)
        if label is not None
    ]
    return scene.texts("clock.left", seats=" · ".join(parts)) if parts else None


def options_summary(scene: Scene) -> str:
    o, tx = scene.table.options, scene.texts
    return tx(
        "options.summary",
        timeout=timeout_text(tx, o.timeout),
        hints=_switch(tx, o.hints),
        order=tx(f"value.order_{o.order}"),
        lang=tx(f"lang.{o.lang}"),
    )


def options(scene: Scene, news: Sequence[str] = ()) -> Outbound:
    """The table's options with buttons that change them."""
    o, tx = scene.table.options, scene.texts
    lines = [
        *news,
        tx("options.title", table=scene.title),
        tx("options.game", value=scene.game_name()),
        tx("options.timeout", value=timeout_text(tx, o.timeout)),
        tx("options.hints", value=_switch(tx, o.hints)),
        tx("options.order", value=tx(f"value.order_{o.order}")),
        tx("options.lang", value=tx(f"lang.{o.lang}")),
        tx(
            "options.clock",
            value=format_clock(o.clock_bank, o.clock_increment)
            if o.clock_bank
            else tx("value.off"),
        ),
        tx("options.undo", value=_switch(tx, o.undo)),
        grace_text(scene),
        tx("options.how"),
        tx("options.how_clock"),
    ]
    b = scene.button
    buttons = [
        b("button.spezial", "/option game spezial")
        if o.game == "genial"
        else b("button.genial", "/option game genial")
    ]
    if o.game == "genial":
        buttons.append(
            b("button.team_off", "/option team off")
            if o.team
            else b("button.team_on", "/option team on")
        )
    buttons.append(
        b("button.hints_off", "/option hints off")
        if o.hints
        else b("button.hints_on", "/option hints on")
    )
    other = "join" if o.order == "random" else "random"
    buttons.append(b(f"button.order_{other}", f"/option order {other}"))
    for seconds in TIMEOUT_PRESETS:
        if seconds != o.timeout:
            buttons.append(
                b(
                    "button.timeout",
                    f"/option timeout {format_duration(seconds)}",
                    value=timeout_text(tx, seconds),
                )
            )
    current = format_clock(o.clock_bank, o.clock_increment)
    for preset in CLOCK_PRESETS:
        if preset != current:
            buttons.append(b("button.clock", f"/option clock {preset}", value=preset))
    if o.clock_bank:
        buttons.append(b("button.clock_off", "/option clock off"))
    for lang in LANGUAGES:
        if lang != o.lang:
            buttons.append(
                Button(tx(f"lang.{lang}"), f"/option lang {lang} #{scene.table.version}")
            )
    return scene.chat_message(lines, "options", buttons=tuple(buttons))


# --- turns ------------------------------------------------------------------------------


def prompt(
    scene: Scene, game: Game, again: bool = False
) -> tuple[list[str], tuple[Button, ...], tuple[str, ...]]:
    """Whose turn it is and what they may do: lines, buttons and the mention. ``again``:
    the same player places again (a bonus placement)."""
    tx = scene.texts
    seat_no = game.to_move
    seat = scene.table.seats[seat_no]
    name = scene.name(seat)
    lines: list[str] = []
    buttons: list[Button] = []
    # A game the computer plays to its end: every seat is the computer's now.
    computer = seat.computer or scene.table.autoplay
    if computer:
        lines.append(tx("turn.next_computer", name=scene.person_name(seat)))
    elif game.awaiting == "swap":
        side = games.side_of(game, seat_no)
        lowest = ", ".join(tx.colour(c.value) for c in game.lowest_colours(side))
        lines.append(tx("turn.swap_offered", name=name, colours=lowest))
        buttons += [
            scene.button("button.swap", scene.at_seat("/swap")),
            scene.button("button.keep", scene.at_seat("/keep")),
        ]
    elif again:
        lines.append(tx("turn.bonus_again", name=name))
    else:
        lines.append(tx("turn.yours", name=name))
    # Counted straight from the game: a whole view (board, unseen tiles, ranking) for one
    # number was four fifths of the prompt's time, every turn.
    if isinstance(game, GenialGame):
        lines.append(tx("turn.bag", count=len(game.bag)))
        if not computer:
            buttons.append(Button(tx("button.hand"), scene.at_seat("/hand")))
    else:
        lines.append(tx("turn.tiles_left", name=name, count=game.tiles_left(seat_no)))
    clock = clock_line(scene, game)
    if clock is not None:
        lines.append(clock)
    mentions = () if computer or seat.user is None else (seat.user,)
    return lines, tuple(buttons), mentions


def board_attachment(
    scene: Scene, game: Game, highlight: Sequence[str] = (), seats: Sequence[int] = ()
) -> Attachment | None:
    """The board image; ``highlight``: labels of cells placed on since the last person's
    turn (besides the engine's last placement), two per placement; ``seats``: the seat of
    each of those placements, to number them in order in their seats' colours."""
    if not scene.pictures:
        return None
    cells = [game.area.parse_label(label) for label in highlight]
    told: list[tuple[int, Hex, Hex]] = []
    if len(seats) * 2 == len(cells):
        told = [(seat, cells[2 * k], cells[2 * k + 1]) for k, seat in enumerate(seats)]
    picture = images.board(
        game.view(None), scene.names(game), game.version, cells, told, clock_labels(scene, game)
    )
    return replace(picture, description=board_alt(scene, game))


def board_alt(scene: Scene, game: Game) -> str:
    """The board picture in words (its alt text): how many moves, the last placement's
    symbols and cells, and each side's points by colour."""
    tx, view = scene.texts, game.view(None)
    area = game.area
    placed = list(getattr(view, "last_placements", ()) or ())
    if not placed and getattr(view, "last_placement", None) is not None:
        placed = [view.last_placement]
    said = []
    for p in placed:
        halves = []
        for cell, colour in (
            (p.cell1, getattr(p, "first", None)),
            (p.cell2, getattr(p, "second", None)),
        ):
            symbol = f"{tx(f'symbol.{colour.value}')} " if colour is not None else ""
            halves.append(symbol + area.label(cell))
        said.append(", ".join(halves))
    sides = narrate.side_names(game, scene.names(game), tx)
    scores = []
    for side, name in enumerate(sides):
        score = game.score(side)
        points = ", ".join(
            f"{tx(f'colour.{c.value}')} {score[c]}" for c in games.score_colours(game)
        )
        scores.append(f"{name} ({points})")
    return tx(
        "look.alt",
        count=len(game.moves),
        last="; ".join(said) or tx("look.alt_none"),
        scores="; ".join(scores),
    )


def clock_labels(scene: Scene, game: Game) -> list[str | None] | None:
    """Each seat's time left as of the scene's moment, for the board's panel and the turn
    message (a computer seat has no clock; a player out of time has none left);
    ``None`` for a table without one."""
    t = scene.table
    if not timebank.clocked(t) or len(t.banks) != len(t.seats):
        return None
    running = t.status == PLAYING and not game.over
    labels: list[str | None] = []
    for n, seat in enumerate(t.seats):
        to_move = running and n == game.to_move
        if seat.computer:
            labels.append(None)
        elif scene.now is None:
            labels.append(format_left(t.banks[n]))
        else:
            left = timebank.left(t, n, scene.now, to_move)
            labels.append(None if left is None else format_left(left))
    return labels


def turn(
    scene: Scene,
    game: Game,
    lines: Sequence[str],
    again: bool = False,
    highlight: Sequence[str] = (),
    seats: Sequence[int] = (),
) -> Outbound:
    """The one chat message of a turn: what happened, the board, who is to act (only while
    the game runs at the table: a finished or aborted game prompts nobody)."""
    live = scene.table.status == PLAYING and not game.over
    more, buttons, mentions = prompt(scene, game, again) if live else ([], (), ())
    return scene.chat_message(
        [*lines, *more],
        "turn",
        attachment=board_attachment(scene, game, highlight, seats),
        buttons=buttons,
        mentions=mentions,
    )


def left_seats(scene: Scene) -> set[int]:
    """The seats of the game a computer finished for a person who left or was expelled."""
    return {n for n, seat in enumerate(scene.players) if seat.left}


def result(scene: Scene, game: Game, reason: str | None) -> Outbound:
    """The end: why it ended, the places with the scores, and the result image."""
    tx, names = scene.texts, scene.names(game)
    lines = [tx("result.title", game=scene.game_title(game))]
    if reason:
        lines.append(narrate.end_reason(reason, game, names, tx))
    lines += narrate.ranking_lines(game, names, tx, left_seats(scene))
    # A tournament's table is played once: its players' next table is the next round's.
    tournament = bool(scene.table.tournament)
    if not tournament:
        lines.append(tx("result.again"))
    attachment = None
    if scene.pictures:
        view = game.view(None)
        if game.over and left_seats(scene):
            view = replace(view, ranking=narrate.rated_ranking(game, left_seats(scene)))
        attachment = images.result(view, names, game.version)
    again = () if tournament else (scene.button("button.again", "/rematch"),)
    return scene.chat_message(lines, "result", attachment=attachment, buttons=again)


def rack(
    scene: Scene, game: Game, seat_no: int, lines: Sequence[str] = (), start: bool = False
) -> Outbound | None:
    """A player's own tiles, privately: text (``1 RG  2 BB``) and image, with the swap
    buttons when the swap is theirs to decide. ``None`` for a computer player. ``start``:
    sent at the start of the game (to a player who does not begin, it says who does)."""
    seat = scene.table.seats[seat_no]
    if seat.user is None:
        return None
    tx = scene.texts
    text = [*lines]
    buttons: tuple[Button, ...] = ()
    attachment = None
    if games.is_spezial(game):
        view = game.view(seat_no)
        text.append(tx("rack.spezial", table=scene.title, count=view.tiles_left[seat_no]))
        if scene.pictures:
            attachment = images.rack(view, scene.names(game), game.version)
    else:
        view = game.view(seat_no)
        assert view.rack is not None
        text.append(tx("rack.tiles", table=scene.title, rack=games.rack_text(view.rack)))
        if scene.pictures and view.rack:
            attachment = images.rack(view, scene.names(game), game.version)
        if game.over:
            pass
        elif game.to_move != seat_no:
            name = scene.name(scene.table.seats[game.to_move])
            text.append(tx("rack.starts" if start else "rack.waiting", name=name))
        elif game.awaiting == "swap":
            text.append(tx("rack.swap"))
            buttons = (
                scene.button("button.swap", scene.at_seat("/swap")),
                scene.button("button.keep", scene.at_seat("/keep")),
            )
        else:
            # An example legal here and now (the 4-player board and the first move's start
            # symbols make any fixed one wrong somewhere), or none.
            example = games.example_placement(game, seat_no)
            if example is None:
                text.append(tx("rack.how"))
            else:
                text.append(tx("rack.how_example", example=f"/play {example}"))
    return Outbound(
        scene.chat, "\n".join(text), "rack", user=seat.user, attachment=attachment, buttons=buttons
    )


def scores(scene: Scene, game: Game) -> Outbound:
    tx = scene.texts
    lines = [tx("score.title", game=scene.game_title(game), count=len(game.moves))]
    lines += narrate.scores_lines(game, scene.names(game), tx)
    return scene.chat_message(lines)


def export(scene: Scene, game: Game) -> Outbound:
    """The record as a JSON file; the draw order (bag) only once the game is over."""
    record = game.record(with_bag=game.over)
    kept = scene.table.record or {}
    if isinstance(kept.get(timebank.CLOCK), dict):
        record[timebank.CLOCK] = kept[timebank.CLOCK]
    if kept.get("takebacks"):
        # The draw orders the moves taken back were played with are hidden like the bag.
        record["takebacks"] = [
            {k: v for k, v in tb.items() if game.over or k != "bag"} for tb in kept["takebacks"]
        ]
    data = (json.dumps(record, indent=1) + "\n").encode()
    key = "export.full" if game.over else "export.partial"
    name = f"genial-{scene.table.chat}-{len(game.moves)}.json".replace("/", "_")
    return scene.chat_message(
        [scene.texts(key, count=len(game.moves))],
        "export",
        attachment=Attachment(name, data, "application/json"),
    )
