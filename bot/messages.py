"""The bot's messages, built from a table, its game and the table's texts.

Chat messages get the spectator's view of the game (``view(None)``, no rack at all); a
rack goes only into a private message to the seat's own player.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from bot import games, images, narrate
from bot.commands import LANGUAGES, format_duration
from bot.games import Game
from bot.outbound import Attachment, Button, Outbound
from bot.table import Seat, Table
from bot.texts import Texts

#: Timeouts offered as buttons in the options message.
TIMEOUT_PRESETS = (0, 3600, 86400)


@dataclass
class Scene:
    """What a message is about: a table, its running (or last) game, in its language."""

    table: Table
    texts: Texts
    pictures: bool = True

    @property
    def chat(self) -> str:
        return self.table.chat

    @property
    def title(self) -> str:
        return self.table.title or self.table.chat

    def button(self, key: str, command: str, **params: object) -> Button:
        """A button whose command carries the table's current version."""
        return Button(self.texts(key, **params), f"{command} #{self.table.version}")

    def name(self, seat: Seat) -> str:
        if seat.left:
            return self.texts("seat.taken_over", name=seat.name)
        return seat.name

    def names(self) -> list[str]:
        return [self.name(s) for s in self.table.seats]

    def chat_message(self, lines: Sequence[str], kind: str = "info", **kw: object) -> Outbound:
        return Outbound(self.chat, "\n".join(lines), kind, **kw)  # type: ignore[arg-type]

    def game_name(self, players: int | None = None) -> str:
        opts = self.table.options
        n = len(self.table.seats) if players is None else players
        if opts.game == "spezial":
            return self.texts("game.spezial")
        if opts.team:
            return self.texts("game.team")
        if n == 1:
            return self.texts("game.solo")
        return self.texts("game.genial")


def error(chat: str, texts: Texts, key: str, params: dict[str, object]) -> Outbound:
    return Outbound(chat, texts(key, **params), "error")


# --- lobby and options ------------------------------------------------------------------


def lobby(scene: Scene, news: Sequence[str] = ()) -> Outbound:
    """Who sits at the table, the options in one line, and buttons to join and start."""
    t, tx = scene.table, scene.texts
    lines = [*news, tx("lobby.title", table=scene.title, game=scene.game_name())]
    if not t.seats:
        lines.append(tx("lobby.empty"))
    for number, seat in enumerate(t.seats, 1):
        if seat.computer:
            lines.append(tx("lobby.seat_computer", number=number, name=seat.name, level=seat.level))
        else:
            lines.append(tx("lobby.seat", number=number, name=seat.name))
    lines.append(options_summary(scene))
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
    return tx("value.no_timeout") if not seconds else format_duration(seconds)


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
        tx("options.how"),
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
    if seat.computer:
        lines.append(tx("turn.next_computer", name=seat.name))
    elif game.awaiting == "swap":
        side = games.side_of(game, seat_no)
        lowest = ", ".join(tx.colour(c.value) for c in game.lowest_colours(side))
        lines.append(tx("turn.swap_offered", name=name, colours=lowest))
        buttons += [scene.button("button.swap", "/swap"), scene.button("button.keep", "/keep")]
    elif again:
        lines.append(tx("turn.bonus_again", name=name))
    else:
        lines.append(tx("turn.yours", name=name))
    view = game.view(None)
    if not games.is_spezial(game):
        lines.append(tx("turn.bag", count=view.bag_size))
        if not seat.computer:
            buttons.append(Button(tx("button.hand"), "/hand"))
    else:
        lines.append(tx("turn.tiles_left", name=name, count=view.tiles_left[seat_no]))
    mentions = () if seat.computer or seat.user is None else (seat.user,)
    return lines, tuple(buttons), mentions


def board_attachment(scene: Scene, game: Game) -> Attachment | None:
    if not scene.pictures:
        return None
    return images.board(game.view(None), scene.names(), game.version)


def turn(scene: Scene, game: Game, lines: Sequence[str], again: bool = False) -> Outbound:
    """The one chat message of a turn: what happened, the board, who is to act."""
    more, buttons, mentions = prompt(scene, game, again) if not game.over else ([], (), ())
    return scene.chat_message(
        [*lines, *more],
        "turn",
        attachment=board_attachment(scene, game),
        buttons=buttons,
        mentions=mentions,
    )


def result(scene: Scene, game: Game, reason: str | None) -> Outbound:
    """The end: why it ended, the places with the scores, and the result image."""
    tx, names = scene.texts, scene.names()
    lines = [tx("result.title", game=scene.game_name(game.players))]
    if reason:
        lines.append(narrate.end_reason(reason, game, names, tx))
    lines += narrate.ranking_lines(game, names, tx)
    lines.append(tx("result.again"))
    attachment = images.result(game.view(None), names, game.version) if scene.pictures else None
    return scene.chat_message(lines, "result", attachment=attachment)


def rack(scene: Scene, game: Game, seat_no: int, lines: Sequence[str] = ()) -> Outbound | None:
    """A player's own tiles, privately: text (``1 RG  2 BB``) and image, with the swap
    buttons when the swap is theirs to decide. ``None`` for a computer player."""
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
            attachment = images.rack(view, scene.names(), game.version)
    else:
        view = game.view(seat_no)
        assert view.rack is not None
        text.append(tx("rack.tiles", table=scene.title, rack=games.rack_text(view.rack)))
        if scene.pictures and view.rack:
            attachment = images.rack(view, scene.names(), game.version)
        if game.over:
            pass
        elif game.to_move != seat_no:
            name = scene.name(scene.table.seats[game.to_move])
            text.append(tx("rack.waiting", name=name))
        elif game.awaiting == "swap":
            text.append(tx("rack.swap"))
            buttons = (scene.button("button.swap", "/swap"), scene.button("button.keep", "/keep"))
        else:
            text.append(tx("rack.how"))
    return Outbound(
        scene.chat, "\n".join(text), "rack", user=seat.user, attachment=attachment, buttons=buttons
    )


def scores(scene: Scene, game: Game) -> Outbound:
    tx = scene.texts
    lines = [tx("score.title", game=scene.game_name(game.players), count=len(game.moves))]
    lines += narrate.scores_lines(game, scene.names(), tx)
    return scene.chat_message(lines)


def export(scene: Scene, game: Game) -> Outbound:
    """The record as a JSON file; the draw order (bag) only once the game is over."""
    record = game.record(with_bag=game.over)
    data = (json.dumps(record, indent=1) + "\n").encode()
    key = "export.full" if game.over else "export.partial"
    name = f"genial-{scene.table.chat}-{len(game.moves)}.json".replace("/", "_")
    return scene.chat_message(
        [scene.texts(key, count=len(game.moves))],
        "export",
        attachment=Attachment(name, data, "application/json"),
    )
