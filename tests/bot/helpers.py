"""Test drivers for the table service: a fake clock, and a chat room that records every
outbound and plays for the people in it.

The room chooses people's moves from the engine's legal moves (the engine is the oracle of
what may be played, reading the game rebuilt from the stored record); what the bot says is
checked against values worked out from the rules or by hand.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path

from bot.core import games
from bot.core.config import Settings
from bot.core.outbound import Chat, Outbound, User
from bot.core.table import PLAYING, Table
from bot.service import Service
from tests.bot.backends import store_at

START = 1_700_000_000.0


class Clock:
    """A clock that only moves when told."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        self.now += seconds
        return self.now


def make_service(
    db: Path | str,
    *,
    seed: int = 1,
    clock: Clock | None = None,
    pictures: bool = False,
    settings: Settings | None = None,
) -> Service:
    return Service(
        store_at(db),
        settings or Settings(),
        clock=clock or Clock(),
        rng=random.Random(seed),
        pictures=pictures,
    )


def user(name: str) -> User:
    return User(f"id-{name.lower()}", name)


class Room:
    """One chat with a table, as its people see it."""

    def __init__(self, service: Service, chat: str = "chat-1", title: str = "Test room") -> None:
        self.service = service
        self.chat = Chat(chat, title)
        self.log: list[Outbound] = []
        self.people: dict[str, User] = {}

    def person(self, name: str) -> User:
        u = self.people.get(name)
        if u is None:
            u = self.people[name] = user(name)
        return u

    def say(self, name: str, text: str, *, admin: bool = False) -> list[Outbound]:
        """``name`` sends ``text``; everything the bot answers (and then does by itself, at
        the clock's current time) is logged and returned."""
        out = self.service.handle(self.chat, self.person(name), text, admin=admin)
        out += self.service.due(self.service.clock(), chat=self.chat.id)
        self.log += out
        return out

    def ok(self, name: str, text: str, *, admin: bool = False) -> list[Outbound]:
        out = self.say(name, text, admin=admin)
        errors = [o.text for o in out if o.kind == "error"]
        assert not errors, f"{text!r} was rejected: {errors}"
        return out

    def error(self, name: str, text: str, *, admin: bool = False) -> str:
        """The one error answer to ``text``; asserts the table did not change."""
        before = self.service.store.load(self.chat.id)
        out = self.say(name, text, admin=admin)
        assert [o.kind for o in out] == ["error"], out
        assert out[0].user is None
        after = self.service.store.load(self.chat.id)
        assert (before.to_dict() if before else None) == (after.to_dict() if after else None)
        return out[0].text

    def due(self, now: float) -> list[Outbound]:
        out = self.service.due(now)
        self.log += out
        return out

    def table(self) -> Table:
        t = self.service.store.load(self.chat.id)
        assert t is not None
        return t

    def game(self) -> games.Game:
        record = self.table().record
        assert record is not None
        return games.rebuild(record)

    def playing(self) -> bool:
        return self.table().status == PLAYING

    def to_move(self, game: games.Game | None = None) -> str:
        """The name of the person to move (``game``: the table's game, if already rebuilt)."""
        t = self.table()
        seat = t.seats[(self.game() if game is None else game).to_move]
        assert seat.user is not None, "a computer player is to move"
        return next(n for n, u in self.people.items() if u.id == seat.user)

    def play_turn(self, rng: random.Random) -> list[Outbound]:
        """The person to move makes a random legal move, typed as players type it."""
        game = self.game()
        move = rng.choice(game.legal_moves())
        text = games.format_move(game, move)
        command = f"/{text}" if text in ("swap", "keep") else f"/play {text}"
        return self.ok(self.to_move(game), command)

    def play_out(self, rng: random.Random, limit: int = 1000) -> int:
        """Play random legal moves for the people until the game ends; the number played."""
        n = 0
        while self.playing():
            self.play_turn(rng)
            n += 1
            assert n < limit
        return n

    def chat_texts(self, kinds: Iterable[str] | None = None) -> list[str]:
        wanted = set(kinds) if kinds is not None else None
        return [o.text for o in self.log if o.user is None and (wanted is None or o.kind in wanted)]
