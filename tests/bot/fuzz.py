"""A command fuzz for the table service: random people send random commands (real ones,
legal and illegal moves, buttons of old versions, unicode, huge and hostile inputs) to
several tables while the clock moves; every answer is checked.

Used by ``tests/bot/core/test_fuzz.py`` (a few thousand commands, text only) and by
``benchmarks/fuzz_commands.py`` (20,000 and more, with images).
"""

from __future__ import annotations

import random
import time
import traceback
from dataclasses import dataclass, field

from bot.core import games
from bot.core.outbound import Chat, Outbound, User
from bot.core.parsing import COMMAND_WORDS
from bot.core.table import PLAYING
from bot.core.timebank import LIVE_GRACE
from bot.service import Service
from bot.store import DamagedTable
from bot.words.texts import Texts

#: Longest answer allowed, apart from the help and the rules texts.
ANSWER_LIMIT = 1000
CHATS = tuple(Chat(f"fuzz-{k}", f"Fuzz table {k}") for k in range(4))
# Two people named Ann, a name with a right-to-left override, a long name.
PEOPLE = (
    User("1001", "Ann"),
    User("1002", "Ann"),
    User("1003", "Bob"),
    User("1004", "Cy\u202eevil"),
    User("1005", "D" * 300),
    User("1006", "Eve"),
)
HOSTILE = (
    "²",
    "³",
    "٣",
    "\u202e",
    "\x00\x07\x1b[31m",
    "9" * 5000,
    "Z" * 4000,
    "\U0001f600" * 50,
    "<@1002>",
    "<@!1003>",
    "@Ann",
    "#-1",
    "#99999999999",
    "\n/abort",
    "",
    " ",
)
OPTIONS = (
    "team",
    "team off",
    "spezial",
    "genial",
    "hints on",
    "hints off",
    "timeout 1m",
    "timeout 24h",
    "timeout 0",
    "order random",
    "order join",
    "lang de",
    "lang fr",
    "lang nl",
    "lang en",
    "lang xx",
    "nonsense",
)


@dataclass
class FuzzResult:
    commands: int = 0
    answers: int = 0
    images: int = 0
    games_started: int = 0
    games_finished: int = 0
    longest: int = 0
    exceptions: list[str] = field(default_factory=list)
    too_long: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _long_texts() -> set[str]:
    """Help and rules texts in every language: the answers allowed to be long."""
    out = set()
    for lang in ("en", "de", "nl", "fr"):
        tx = Texts(lang)
        # /rules tells the game's rules and then those of the clocks and the grace period
        # (bot/play/show.py).
        # (bot/play/show.py); Genial Spezial's clock paragraph has no swap and no bag.
        grace = tx("rules.grace", live=tx.duration(LIVE_GRACE))
        out.add(f"{tx('rules.genial')}\n{tx('rules.clock')}\n{grace}")
        out.add(f"{tx('rules.spezial')}\n{tx('rules.clock_spezial')}\n{grace}")
    return out


class Fuzz:
    """Sends random commands to a service and checks every answer."""

    def __init__(self, service: Service, rng: random.Random, clock: list[float]) -> None:
        self.service = service
        self.rng = rng
        self.clock = clock  # one mutable number: the service's clock reads clock[0]
        self.result = FuzzResult()
        self._long = _long_texts()
        self._sender = PEOPLE[0]

    def _game(self, chat: str) -> games.Game | None:
        try:
            t = self.service.store.load(chat)
        except DamagedTable:
            return None
        if t is None or t.status != PLAYING or t.record is None:
            return None
        # The service's own rebuilt game when it has the table's position (read only here:
        # legal moves), else one rebuilt from the record.
        cached = self.service._games.get(chat)
        if cached is not None and cached[0] == t.version:
            return cached[1]
        return games.rebuild(t.record)

    def command(self, chat: Chat, user: User) -> str:
        """One random command text for ``user`` at ``chat``."""
        r = self.rng
        roll = r.random()
        game = self._game(chat.id) if roll < 0.45 else None
        if game is not None:
            # A legal move of the seat to move, sent by whoever is chosen (often its owner).
            t = self.service.store.load(chat.id)
            assert t is not None
            seat = t.seats[game.to_move]
            if seat.user is not None and r.random() < 0.8:
                owner = next((p for p in PEOPLE if p.id == seat.user), None)
                if owner is not None:
                    user = owner
            moves = game.legal_moves()
            if moves:
                text = games.format_move(game, r.choice(moves))
                self._sender = user
                return f"/{text}" if text in ("swap", "keep") else f"/play {text}"
        self._sender = user
        if roll < 0.6:
            word = r.choice(("join", "join", "addbot", "start", "leave", "hand", "board", "score"))
            return f"/{word}"
        if roll < 0.7:
            return f"/option {r.choice(OPTIONS)}"
        if roll < 0.8:
            word = r.choice(COMMAND_WORDS)
            arg = r.choice(HOSTILE) if r.random() < 0.7 else self._junk()
            version = f" #{r.randrange(0, 40)}" if r.random() < 0.2 else ""
            return f"/{word} {arg}{version}"
        if roll < 0.88:
            target = r.choice(("1", "2", "3", "5", "Ann", "ann", "@Ann", "<@1003>", "Bob", "²"))
            return f"/kick {target}"
        if roll < 0.93:
            return r.choice(("/abort", "/hint", "/export", "/swap", "/keep", "/help", "/rules"))
        return self._junk()

    def _junk(self) -> str:
        r = self.rng
        size = r.choice((1, 5, 30, 300, 5000))
        alphabet = "/ AZaz09²³٣\u202e\u200f\x00\n\t#@<>!é字\U0001f600"
        return "".join(r.choice(alphabet) for _ in range(size))

    def check(self, sent: list[Outbound], what: str) -> None:
        for o in sent:
            self.result.answers += 1
            if o.attachment is not None and o.attachment.is_image:
                self.result.images += 1
            if o.kind == "result":
                self.result.games_finished += 1
            if o.text.startswith(("The game begins", "Das Spiel", "Het spel", "La partie")):
                self.result.games_started += 1
            size = len(o.text)
            # The expert's review of a game is long by its nature, as the rules are.
            review = what.startswith("/review")
            long_ok = review or o.text in self._long or (o.kind == "info" and "/rules" in o.text)
            if not long_ok:
                self.result.longest = max(self.result.longest, size)
                if size >= ANSWER_LIMIT:
                    self.result.too_long.append(f"{what[:60]!r}: {o.text[:120]!r} ({size})")

    def run(self, n: int) -> FuzzResult:
        """Send ``n`` commands; the clock moves and due work is done between them."""
        start = time.perf_counter()
        r = self.rng
        for _ in range(n):
            chat = r.choice(CHATS)
            user = r.choice(PEOPLE)
            text = self.command(chat, user)
            admin = r.random() < 0.1
            self.result.commands += 1
            try:
                sent = self.service.handle(chat, self._sender, text, admin=admin)
                self.check(sent, text)
                if r.random() < 0.3:
                    self.clock[0] += r.choice((1, 20, 31, 61, 3600))
                sent = self.service.due()
                self.check(sent, "due")
            except Exception:  # counting them is the point of a fuzz
                self.result.exceptions.append(f"{text[:60]!r}\n{traceback.format_exc()}")
        self.result.seconds = time.perf_counter() - start
        return self.result
