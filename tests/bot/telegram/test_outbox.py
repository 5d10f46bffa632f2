"""A table's outbox and the Bot API's retries on their own, each case the gap a surviving
mutant showed (docs/mutation.md): what each failure means
(:func:`bot.telegram.botapi.failure`, with Telegram's own words), which chat a message was
for when Telegram says the chat is gone, how often and after which pauses a request is
sent again, and what the operator's log says at each turn.

The outbox runs here against stand-ins: a ``deliver_one`` that fails as scripted, and a
service that records the ``/abort`` it is sent and keeps its outbox in a list.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut

from bot.core.outbound import Attachment, Chat, Outbound, Stored, User
from bot.telegram.botapi import AGAIN, GIVE_UP, GONE, PAUSED, UNKNOWN, BotAPI, failure
from bot.telegram.limiter import ChatRateLimiter
from bot.telegram.messages import Origin
from bot.telegram.outbox import Outbox
from bot.telegram.pace import Pace

GROUP = "-100123"
ADA = "11"

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


def caused(exc: Exception, cause: BaseException) -> Exception:
    exc.__cause__ = cause
    return exc


@pytest.mark.parametrize(
    ("exc", "meaning"),
    [
        ("flood", AGAIN),
        (Forbidden("Forbidden: bot was blocked by the user"), GONE),
        (Forbidden("Forbidden: bot was kicked from the supergroup chat"), GONE),
        (Forbidden("Forbidden: bot is not a member of the channel chat"), GONE),
        (Forbidden("Forbidden: user is deactivated"), GONE),
        (BadRequest("Bad Request: chat not found"), GONE),
        (BadRequest("Bad Request: group chat was deleted"), GONE),
        (BadRequest("Bad Request: message thread not found"), GONE),
        (BadRequest("Bad Request: TOPIC_DELETED"), GONE),
        (BadRequest("Bad Request: TOPIC_CLOSED"), PAUSED),
        (Forbidden("Forbidden: bot can't initiate conversation with a user"), GIVE_UP),
        (BadRequest("Bad Request: message is too long"), GIVE_UP),
        (BadRequest("Bad Request: can't parse entities"), GIVE_UP),
        (caused(TimedOut(), httpx.PoolTimeout("pool")), AGAIN),
        (caused(TimedOut(), httpx.ConnectTimeout("connect")), AGAIN),
        (caused(TimedOut(), httpx.ReadTimeout("read")), UNKNOWN),
        (TimedOut(), UNKNOWN),
        (caused(NetworkError("refused"), httpx.ConnectError("refused")), AGAIN),
        (caused(NetworkError("dropped"), httpx.RemoteProtocolError("dropped")), UNKNOWN),
        (NetworkError("Bad Gateway"), AGAIN),
        (ValueError("not Telegram's"), GIVE_UP),
    ],
)
def test_what_a_failure_means_for_its_message(exc: Exception | str, meaning: str) -> None:
    # A flood wait is made here: python-telegram-bot warns of its type when one is made.
    assert failure(RetryAfter(3) if exc == "flood" else exc) == meaning


class Service:
    """Records the commands the outbox sends (``fails`` makes them raise), and keeps the
    stored outbox as a list."""

    def __init__(self, fails: bool = False) -> None:
        self.fails = fails
        self.handled: list[tuple[str, str, str, str, bool]] = []
        self.box: list[Outbound] = []
        self._ids = itertools.count(1)

    def said(self, *outs: Outbound) -> list[Outbound]:
        """``outs`` as a command that changed the table returns them: stored."""
        stored = [replace(out, stored=Stored(next(self._ids), 0, 0.0)) for out in outs]
        self.box += stored
        return stored

    def waiting(self, chat: str | None = None) -> list[Outbound]:
        return [out for out in self.box if chat is None or out.chat == chat]

    def delivered(self, out: Outbound) -> None:
        self.box = [o for o in self.box if o.stored != out.stored]

    def undelivered(self, outs: list[Outbound]) -> list[Outbound]:
        fresh = [out for out in outs if out.stored is None]
        return [out for out in outs if out.stored is not None] + self.said(*fresh)

    def forget_waiting(self, chat: str) -> None:
        self.box = [out for out in self.box if out.chat != chat]

    def texts(self) -> list[str]:
        return [out.text for out in self.box]

    def handle(self, chat: Chat, user: User, text: str, *, admin: bool = False) -> list[Any]:
        self.handled.append((chat.id, user.id, user.name, text, admin))
        if self.fails:
            raise RuntimeError("the store is down")
        return []


class Messages:
    """Delivers, or raises the next scripted failure for the outbound's text."""

    def __init__(self, **failures: Exception) -> None:
        self.failures = failures
        self.delivered: list[str] = []

    async def deliver_one(self, out: Outbound, origin: Origin | None) -> None:
        fault = self.failures.pop(out.text, None)
        if fault is not None:
            raise fault
        self.delivered.append(out.text)


def outbox(messages: Messages, service: Service, first_name: str | None = "Genial Bot") -> Outbox:
    api = SimpleNamespace(bot=SimpleNamespace(id=42, first_name=first_name))
    return Outbox(service, api, messages)  # type: ignore[arg-type]


def typed_privately() -> Origin:
    """Ada's /play for the group's table, typed in her private chat with the bot."""
    return Origin(GROUP, ADA, User(ADA, "Ada"), None, 7)


def logged(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "bot.telegram.outbox"]


def test_what_telegram_did_not_take_waits_in_order(caplog: pytest.LogCaptureFixture) -> None:
    messages = Messages(board=RetryAfter(3))
    service = Service()
    box = outbox(messages, service)
    outs = service.said(Outbound(GROUP, "board", "turn"), Outbound(GROUP, "rack", "rack", user=ADA))
    with caplog.at_level(logging.WARNING):
        asyncio.run(box.deliver(outs, None))
    assert messages.delivered == []
    assert service.texts() == ["board", "rack"]
    assert logged(caplog) == [
        (
            logging.WARNING,
            f"could not deliver a turn message of table {GROUP} "
            "(Flood control exceeded. Retry in 3 seconds); it waits",
        )
    ]
    asyncio.run(box.flush(GROUP))  # the clock's next look
    assert messages.delivered == ["board", "rack"] and service.box == []


def test_an_answer_telegram_did_not_take_waits_in_the_outbox_with_its_command() -> None:
    messages = Messages(help=RetryAfter(3))
    service = Service()
    box = outbox(messages, service)
    origin = typed_privately()
    # /help changed nothing, so it was not stored: it is now that Telegram refused it.
    asyncio.run(
        box.deliver([Outbound(GROUP, "help", "info"), Outbound(GROUP, "more", "info")], origin)
    )
    assert messages.delivered == [] and service.texts() == ["help", "more"]
    assert [box.origins[out.stored.id] for out in service.box if out.stored] == [origin] * 2
    asyncio.run(box.flush(GROUP))
    assert messages.delivered == ["help", "more"] and service.box == [] and box.origins == {}


def test_a_gone_group_closes_its_table_even_for_a_command_typed_privately(
    caplog: pytest.LogCaptureFixture,
) -> None:
    gone = Forbidden("Forbidden: bot was kicked from the supergroup chat")
    messages = Messages(board=gone)
    service = Service()
    box = outbox(messages, service)
    outs = service.said(Outbound(GROUP, "board", "turn"), Outbound(GROUP, "later", "info"))
    with caplog.at_level(logging.WARNING):
        asyncio.run(box.deliver(outs, typed_privately()))
    # Closed as an admin's /abort would, in the bot's own name; what waited is forgotten.
    assert service.handled == [(GROUP, "42", "Genial Bot", "/abort", True)]
    assert messages.delivered == [] and service.box == [] and box.origins == {}
    assert logged(caplog) == [
        (
            logging.WARNING,
            f"closed table {GROUP}: its chat is gone for the bot "
            "(Forbidden: bot was kicked from the supergroup chat)",
        )
    ]


def test_a_bot_without_a_first_name_closes_the_table_as_genial() -> None:
    service = Service()
    box = outbox(Messages(board=BadRequest("Bad Request: chat not found")), service, None)
    asyncio.run(box.deliver(service.said(Outbound(GROUP, "board", "turn")), None))
    assert service.handled == [(GROUP, "42", "Genial", "/abort", True)]


def test_a_player_who_blocked_the_bot_loses_their_rack_not_the_table(
    caplog: pytest.LogCaptureFixture,
) -> None:
    messages = Messages(rack=Forbidden("Forbidden: bot was blocked by the user"))
    service = Service()
    box = outbox(messages, service)
    outs = service.said(Outbound(GROUP, "rack", "rack", user=ADA), Outbound(GROUP, "board", "turn"))
    with caplog.at_level(logging.WARNING):
        asyncio.run(box.deliver(outs, None))
    assert service.handled == []
    assert messages.delivered == ["board"] and service.box == []
    assert logged(caplog) == [
        (
            logging.WARNING,
            "could not deliver a rack message: Forbidden: bot was blocked by the user",
        )
    ]


def test_a_message_that_may_have_arrived_is_not_sent_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    messages = Messages(board=TimedOut())
    service = Service()
    box = outbox(messages, service)
    outs = service.said(Outbound(GROUP, "board", "turn"), Outbound(GROUP, "later", "info"))
    with caplog.at_level(logging.WARNING):
        asyncio.run(box.deliver(outs, None))
    assert messages.delivered == ["later"] and service.box == []
    assert logged(caplog) == [
        (
            logging.WARNING,
            f"a turn message of table {GROUP} may not have arrived (Timed out); not sent again",
        )
    ]


def test_a_failure_that_is_no_telegram_answer_is_logged_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    messages = Messages(board=ValueError("a bug"))
    box = outbox(messages, Service())
    with caplog.at_level(logging.WARNING):
        asyncio.run(box.deliver([Outbound(GROUP, "board", "turn")], None))
    (record,) = [r for r in caplog.records if r.name == "bot.telegram.outbox"]
    assert (record.levelno, record.getMessage()) == (
        logging.ERROR,
        "could not deliver a turn message",
    )
    assert record.exc_info is not None and isinstance(record.exc_info[1], ValueError)


def test_a_table_that_cannot_be_closed_says_so(caplog: pytest.LogCaptureFixture) -> None:
    service = Service(fails=True)
    box = outbox(Messages(board=BadRequest("Bad Request: chat not found")), service)
    with caplog.at_level(logging.WARNING):
        asyncio.run(box.deliver(service.said(Outbound(GROUP, "board", "turn")), None))
    assert len(service.handled) == 1
    assert logged(caplog) == [(logging.ERROR, f"could not close table {GROUP}")]


# --- BotAPI.retry: network errors sent again, with growing pauses ---------------------------


class Flaky:
    """A request that fails with the given errors, one a call, then answers "ok"."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.calls = 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


def refused() -> Exception:
    return caused(NetworkError("refused"), httpx.ConnectError("refused"))


@pytest.fixture
def pauses(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr("bot.telegram.botapi.asyncio.sleep", sleep)
    return slept


def test_network_errors_are_sent_again_after_doubling_pauses(
    pauses: list[float], caplog: pytest.LogCaptureFixture
) -> None:
    api = BotAPI(send_retries=3, backoff=0.5)
    call = Flaky(refused(), refused(), refused())
    with caplog.at_level(logging.WARNING):
        assert asyncio.run(api.retry(call)) == "ok"
    assert call.calls == 4 and pauses == [0.5, 1.0, 2.0]
    assert [r.getMessage() for r in caplog.records if r.name == "bot.telegram.botapi"] == [
        "network error (refused); trying again in 0.5 s",
        "network error (refused); trying again in 1.0 s",
        "network error (refused); trying again in 2.0 s",
    ]


def test_the_last_network_error_is_raised_after_the_retries(pauses: list[float]) -> None:
    api = BotAPI(send_retries=2, backoff=0.5)
    call = Flaky(*(refused() for _ in range(5)))
    with pytest.raises(NetworkError, match="refused"):
        asyncio.run(api.retry(call))
    assert call.calls == 3  # the first try and two retries


def test_a_timeout_is_sent_again_unless_it_was_a_new_message(pauses: list[float]) -> None:
    api = BotAPI(send_retries=3, backoff=0.5)
    edit = Flaky(TimedOut())  # an edit or a button's answer: repeated freely
    assert asyncio.run(api.retry(edit)) == "ok" and edit.calls == 2
    post = Flaky(TimedOut())  # a new message: Telegram may have posted it
    with pytest.raises(TimedOut):
        asyncio.run(api.retry(post, resend=False))
    assert post.calls == 1


def test_requests_count_in_the_rate_limiters_budget_or_else_in_the_apis_own() -> None:
    # Under the rate limiter that paces each chat the budget is its own, which counts what
    # it sends; under another limiter the API keeps a budget of its own and counts each
    # request to a chat in it (from its answer on, at the service's clock).
    api = BotAPI(send_retries=0, backoff=0.5, clock=lambda: 100.0)

    async def send_message(chat_id: int, text: str) -> str:
        return "ok"

    api.app = SimpleNamespace(bot=SimpleNamespace(rate_limiter=object()))  # type: ignore[assignment]
    own = api.pace
    assert asyncio.run(api.retry(send_message, chat_id=5, text="hi")) == "ok"
    assert asyncio.run(api.retry(send_message, 5, "hi")) == "ok"  # the chat named first
    assert own.used(5) == 2
    limiter = ChatRateLimiter()
    api.app = SimpleNamespace(bot=SimpleNamespace(rate_limiter=limiter))  # type: ignore[assignment]
    assert api.pace is limiter.pace and limiter.pace is not own
    assert asyncio.run(api.retry(send_message, chat_id=5, text="hi")) == "ok"
    assert (own.used(5), limiter.pace.used(5)) == (2, 0)  # the limiter counts what it sends


def test_a_chat_is_crowded_while_a_flood_wait_holds_it_or_its_window_is_full() -> None:
    # Only under the rate limiter that paces each chat (groups take 3 messages a minute
    # here): crowded while a flood wait holds the chat, or while ``count`` more messages
    # would not fit its window; never under a limiter that holds nothing back.
    now = [1000.0]

    def clock() -> float:
        return now[0]

    api = BotAPI(send_retries=0, backoff=0.5, clock=clock)
    group, other = -100, -200
    assert not api.crowded(group)  # no Application attached yet
    pace = Pace(clock, group=(3, 60.0))
    for _ in range(2):
        pace.note(group)
        pace.answered(group)  # two messages at 1000: one more fits until 1060
    paced = ChatRateLimiter(pace)
    api.app = SimpleNamespace(bot=SimpleNamespace(rate_limiter=paced))  # type: ignore[assignment]
    assert not api.crowded(group) and api.crowded(group, 2)
    pace.note(group)
    pace.answered(group)
    assert api.crowded(group)
    now[0] = 1059.5  # the first of them leaves the window in half a second
    assert api.crowded(group)
    unpaced = ChatRateLimiter(pace, pacing=False)
    api.app = SimpleNamespace(bot=SimpleNamespace(rate_limiter=unpaced))  # type: ignore[assignment]
    assert not api.crowded(group)
    api.app = SimpleNamespace(bot=SimpleNamespace(rate_limiter=paced))  # type: ignore[assignment]
    now[0] = 1060.0
    assert not api.crowded(group)

    async def refused(*_: Any) -> None:
        raise RetryAfter(30)

    # A request that posts nothing (its window stays empty) draws a flood wait of 30 s.
    data = {"chat_id": other, "message_id": 1}
    with pytest.raises(RetryAfter):
        asyncio.run(paced.process_request(refused, (), {}, "deleteMessage", data, 0))
    assert pace.used(other) == 0 and api.crowded(other)
    now[0] = 1089.5
    assert api.crowded(other)
    now[0] = 1090.0
    assert not api.crowded(other)


@pytest.mark.parametrize("crowded", [True, False])
def test_turns_waiting_for_a_full_group_are_told_together(crowded: bool) -> None:
    # Three turn messages with their boards wait for the group (a flood wait held them),
    # then Ada's rack. While the group has no room for them all, they go as few messages
    # as fit Telegram's 1,024 characters of a caption: 400 + 2 + 400 fit, a third does not.
    # With room, each goes as it is.
    board = Attachment("board.png", b"png")
    turns = [Outbound(GROUP, letter * 400, "turn", attachment=board) for letter in "abc"]
    messages = Messages()
    service = Service()
    api = SimpleNamespace(
        bot=SimpleNamespace(id=42, first_name="Genial"),
        crowded=lambda chat, count=1: crowded,
    )
    box = Outbox(service, api, messages)  # type: ignore[arg-type]
    service.said(*turns, Outbound(GROUP, "rack", "rack", user=ADA))
    asyncio.run(box.flush(GROUP))
    a, b, c = (t.text for t in turns)
    if crowded:
        assert messages.delivered == [f"{a}\n\n{b}", c, "rack"]
    else:
        assert messages.delivered == [a, b, c, "rack"]
    assert service.box == []  # every letter told, once


def test_a_table_flushed_by_a_command_and_the_clock_at_once_posts_each_letter_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "/tournament start" typed in a forum's General topic: the command holds the lock of
    # the General topic's table only, and delivers the letters of the tournament's table
    # in its own topic. While Telegram is slow to answer the first of them, the clock looks
    # at the outbox (its retry of waiting letters, or a wake from the store) and flushes
    # that topic too, under the topic's lock, which nobody holds. The letters are this
    # process's own claims, so the store hands them to both. Each must be posted once
    # (issue 43: nothing lost or doubled): "The game begins" twice was seen under load.
    general, topic = GROUP, f"{GROUP}/7"

    async def inline(call: Any, /, *args: Any, **kwargs: Any) -> Any:
        return call(*args, **kwargs)

    # The stand-in service answers at once: the only pause is Telegram's slow answer below,
    # so the clock's flush runs as far as it can while the command's post is under way.
    monkeypatch.setattr(asyncio, "to_thread", inline)
    clock: list[asyncio.Future[None]] = []

    class Slow(Messages):
        async def deliver_one(self, out: Outbound, origin: Origin | None) -> None:
            if out.text == "begins" and not clock:
                clock.append(asyncio.ensure_future(box.flush(topic)))
                await asyncio.sleep(0)  # Telegram answers later: the clock runs meanwhile
            await super().deliver_one(out, origin)

    messages = Slow()
    service = Service()
    box = outbox(messages, service)
    origin = Origin(general, general, User(ADA, "Ada"), None, 7)
    outs = service.said(
        Outbound(general, "paired", "info"),
        Outbound(topic, "begins", "turn"),
        Outbound(topic, "rack", "rack", user=ADA),
    )

    async def command() -> None:
        await box.deliver(outs, origin)
        await asyncio.gather(*clock)

    asyncio.run(command())
    assert len(clock) == 1  # the clock did look while the command's post was under way
    assert messages.delivered == ["paired", "begins", "rack"]
    assert service.box == []


class Seated(Service):
    """A service whose table ``title`` has these seats (user, left); ``lost``: the store
    cannot be read."""

    def __init__(self, seats: list[tuple[str | None, bool]], lost: bool = False) -> None:
        super().__init__()
        self.seats = seats
        self.lost = lost
        self.asked: list[str] = []

    def table(self, chat: str) -> Any:
        self.asked.append(chat)
        if self.lost:
            raise RuntimeError("the store is down")
        seats = [SimpleNamespace(user=user, left=left) for user, left in self.seats]
        return SimpleNamespace(title="Kitchen", options=SimpleNamespace(lang="en"), seats=seats)


class PrivateBot:
    """The Bot API's ``send_message``: records each private word; fails once for ``fails``."""

    def __init__(self, fails: dict[int, Exception]) -> None:
        self.id, self.first_name, self.rate_limiter = 42, "Genial", None
        self.fails = fails
        self.sent: list[tuple[int, str]] = []

    async def send_message(self, chat_id: int, text: str) -> None:
        self.sent.append((chat_id, text))
        fault = self.fails.pop(chat_id, None)
        if fault is not None:
            raise fault


def test_the_players_of_a_table_whose_chat_is_gone_are_told_privately_once(
    pauses: list[float], caplog: pytest.LogCaptureFixture
) -> None:
    # Ada plays; Bob left; a computer has no chat; Cy's word times out (a new message:
    # Telegram may have posted it, so it is not sent again); Dee comes after him.
    service = Seated([("11", False), ("12", True), (None, False), ("13", False), ("14", False)])
    bot = PrivateBot({13: TimedOut()})
    api = BotAPI(send_retries=3, backoff=0.5)
    api.app = SimpleNamespace(bot=bot)  # type: ignore[assignment]
    messages = Messages(board=RetryAfter(3))
    box = Outbox(service, api, messages)  # type: ignore[arg-type]
    asyncio.run(box.deliver(service.said(Outbound(GROUP, "board", "turn")), None))
    assert box.held == {GROUP}  # a flood wait first: the board is held
    messages.failures["board"] = BadRequest("Bad Request: chat not found")
    with caplog.at_level(logging.INFO):
        asyncio.run(box.flush(GROUP))  # then Telegram says the group is gone
    gone = (
        "I can no longer post at table Kitchen (its topic was deleted, or I was removed from "
        "the group), so its game has ended. To play again, /join where I can post."
    )
    assert service.asked == [GROUP]
    assert bot.sent == [(11, gone), (13, gone), (14, gone)]
    assert (logging.INFO, f"could not tell 13 about table {GROUP}: Timed out") in logged(caplog)
    assert service.handled == [(GROUP, "42", "Genial", "/abort", True)]
    assert box.held == set()


def test_a_private_table_whose_player_blocked_the_bot_tells_nobody() -> None:
    # Ada's game in her private chat: that chat is the one that cannot be reached.
    service = Seated([(ADA, False), (None, False)])
    bot = PrivateBot({})
    api = BotAPI(send_retries=0, backoff=0.5)
    api.app = SimpleNamespace(bot=bot)  # type: ignore[assignment]
    box = Outbox(service, api, Messages(board=Forbidden("Forbidden: bot was blocked by the user")))  # type: ignore[arg-type]
    asyncio.run(box.deliver(service.said(Outbound(ADA, "board", "turn")), None))
    assert service.handled == [(ADA, "42", "Genial", "/abort", True)] and bot.sent == []


def test_players_not_told_when_the_table_cannot_be_read(caplog: pytest.LogCaptureFixture) -> None:
    service = Seated([("11", False)], lost=True)
    box = outbox(Messages(board=BadRequest("Bad Request: chat not found")), service)
    with caplog.at_level(logging.INFO):
        asyncio.run(box.deliver(service.said(Outbound(GROUP, "board", "turn")), None))
    assert (
        logging.INFO,
        f"could not tell the players of table {GROUP}: the store is down",
    ) in logged(caplog)
    assert len(service.handled) == 1


def test_a_closed_topic_and_then_a_gone_chat_forget_the_pause() -> None:
    service = Seated([])
    box = outbox(Messages(board=BadRequest("Bad Request: TOPIC_CLOSED")), service)
    asyncio.run(box.deliver(service.said(Outbound(GROUP, "board", "turn")), None))
    assert box.paused == box.told_paused == box.held == {GROUP}
    # The topic is deleted while closed: the next word to the table is refused for good.
    asyncio.run(box._gone(GROUP, BadRequest("Bad Request: TOPIC_DELETED")))
    assert box.paused == box.told_paused == box.held == set()


@pytest.mark.parametrize(
    ("size", "board", "together"), [(511, True, 2), (512, True, 1), (2000, False, 2)]
)
def test_merged_turns_fill_a_caption_or_a_text_to_its_limit_and_keep_the_last_board(
    size: int, board: bool, together: int
) -> None:
    # Turns told together are joined by a blank line (2 characters): two of 511 make a
    # caption of 1,024, Telegram's limit, and fit; two of 512 do not. Without a board the
    # limit is a text's, 4,096: two of 2,000 fit. A merged message shows the last turn's
    # board, and goes back the way the last turn's command came.
    boards = [Attachment(f"{n}.png", bytes([n])) if board else None for n in range(3)]
    turns = [Outbound(GROUP, str(n) * size, "turn", attachment=boards[n]) for n in range(3)]
    got: list[tuple[str, Attachment | None, Origin | None]] = []

    class Told(Messages):
        async def deliver_one(self, out: Outbound, origin: Origin | None) -> None:
            got.append((out.text, out.attachment, origin))

    service = Service()
    api = SimpleNamespace(bot=SimpleNamespace(id=42, first_name="Genial"), crowded=lambda *_: True)
    box = Outbox(service, api, Told())  # type: ignore[arg-type]
    stored = service.said(*turns)
    origin = typed_privately()
    box.origins = {out.stored.id: origin for out in stored if out.stored is not None}
    asyncio.run(box.flush(GROUP))
    first = "\n\n".join(t.text for t in turns[:together])
    assert got[0] == (first, boards[together - 1], origin)
    assert [text for text, _, _ in got] == [first, *(t.text for t in turns[together:])]
