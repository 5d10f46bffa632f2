"""The stored outbox (issue 23): what a command or the clock says is written in the
transaction of the table change, claimed by the process that delivers it, and waits in the
store until a platform delivered it; a process killed before it delivered leaves it to the
next one, in order, once. Runs on SQLite and on PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.outbound import Attachment, Button, Outbound, User
from bot.core.table import LOBBY, Table
from bot.core.tables import LETTER_LEASE
from bot.store import StaleTable, StoreDown
from bot.store.base import Letter
from tests.bot.backends import store_at
from tests.bot.helpers import Clock, make_service

pytestmark = pytest.mark.usefixtures("backend")

ADA = User("id-ada", "Ada")
BOB = User("id-bob", "Bob")


def lobby(chat: str = "c", version: int = 1) -> Table:
    return Table(chat=chat, title="Kitchen", version=version, status=LOBBY)


def test_letters_are_written_with_the_table_and_only_with_it(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    one, two = Letter("c", '{"n":1}', b"\x89PNG\x00\xff"), Letter("c", '{"n":2}')
    ids = store.save(lobby(version=1), None, [one, two], owner="p1", now=100.0, lease=60.0)
    assert len(ids) == 2 and ids[0] < ids[1]
    # A save that loses the race writes no letter either.
    with pytest.raises(StaleTable):
        store.save(lobby(version=2), 7, [Letter("c", '{"n":3}')], owner="p1", now=101.0, lease=60)
    assert store.waiting() == ["c"]
    # p1 delivers them (its own claim is renewed); their bytes come back as written.
    got = store.letters("p1", 102.0, 60.0)
    assert [(x.id, x.body, x.attachment, x.since) for x in got] == [
        (ids[0], '{"n":1}', b"\x89PNG\x00\xff", 100.0),
        (ids[1], '{"n":2}', None, 100.0),
    ]
    store.posted([ids[0]])
    assert [x.id for x in store.letters("p1", 103.0, 60.0)] == [ids[1]]
    assert store.waiting() == ["c"]


def test_a_chat_claimed_by_a_live_process_is_left_to_it(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    first = store.save(
        lobby("a"), None, [Letter("a", "1"), Letter("a", "2")], owner="p1", now=100.0, lease=60.0
    )
    store.post([Letter("b", "3")], owner=None, now=100.0, lease=0.0)
    # p2 gets chat b only: a's letters are p1's until its claim runs out at 160.
    assert [x.chat for x in store.letters("p2", 159.0, 60.0)] == ["b"]
    assert store.letters("p2", 159.0, 60.0, chat="a") == []
    # p1 was killed: after its lease p3 takes chat a whole, in order (b is p2's now).
    assert [x.id for x in store.letters("p3", 160.5, 60.0)] == first
    assert sorted(store.claimants()) == ["p2", "p3"]
    # A process known to be gone gives up its letters at once.
    store.release_owner("p3")
    assert [x.id for x in store.letters("p4", 161.0, 60.0, chat="a")] == first


def test_unclaimed_letters_wait_for_anyone_and_a_gone_chat_drops_them(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    ids = store.save(lobby("a"), None, [Letter("a", "1")], owner="p1", now=100.0, lease=60.0)
    store.unclaim("p2", ids)  # not p2's: nothing changes
    assert store.letters("p2", 101.0, 60.0) == []
    store.unclaim("p1", ids)  # the platform did not take it: any process tries again
    assert [x.id for x in store.letters("p2", 101.0, 60.0)] == ids
    store.drop_letters("a")
    assert store.waiting() == []


def test_a_moved_table_takes_its_letters_along(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    store.save(lobby("old"), None, [Letter("old", "1")], owner=None, now=1.0, lease=0.0)
    assert store.move("old", "new")
    assert [x.chat for x in store.letters("p", 2.0, 60.0)] == ["new"]


# --- the service -------------------------------------------------------------------------


def test_an_accepted_command_is_stored_until_delivered(tmp_path: Path) -> None:
    clock = Clock()
    bot = make_service(tmp_path / "t.db", clock=clock)
    out = bot.handle("c", ADA, "/join")
    assert [o.kind for o in out] == ["lobby"] and out[0].stored is not None
    # Another process sees the letter but leaves it: this one is delivering it.
    other = make_service(tmp_path / "t.db", clock=clock)
    assert other.waiting() == []
    # This process was killed before it posted: once its claim ran out, the other
    # delivers exactly what it would have said, buttons and all.
    clock.advance(121)
    (again,) = other.waiting()
    assert again.stored == out[0].stored
    assert (again.chat, again.text, again.kind, again.user, again.buttons) == (
        out[0].chat,
        out[0].text,
        out[0].kind,
        out[0].user,
        out[0].buttons,
    )
    other.delivered(again)
    assert other.waiting() == [] and not other.anything_waiting()


def test_answers_that_change_nothing_are_not_stored(tmp_path: Path) -> None:
    bot = make_service(tmp_path / "t.db")
    bot.handle("c", ADA, "/join")
    for text in ("/help", "/score", "/play RG A1 A2", "/nonsense"):
        assert all(o.stored is None for o in bot.handle("c", BOB, text)), text


def test_a_board_image_waits_as_it_was_drawn(tmp_path: Path) -> None:
    clock = Clock()
    bot = make_service(tmp_path / "t.db", clock=clock, pictures=True)
    bot.handle("c", ADA, "/join")
    bot.handle("c", BOB, "/join")
    for o in bot.waiting():
        bot.delivered(o)
    out = bot.handle("c", ADA, "/start")
    boards = [o for o in out if o.kind == "turn"]
    assert boards and boards[0].attachment is not None
    assert boards[0].attachment.data.startswith(b"\x89PNG\r\n\x1a\n")
    clock.advance(121)
    later = make_service(tmp_path / "t.db", clock=clock).waiting()
    # Everything the start said, in order (the board, then each player's rack privately).
    assert [(o.kind, o.user) for o in later] == [(o.kind, o.user) for o in out]
    assert later[[o.kind for o in later].index("turn")].attachment == boards[0].attachment


def test_what_the_platform_did_not_take_waits_for_any_process(tmp_path: Path) -> None:
    bot = make_service(tmp_path / "t.db")
    (joined,) = bot.handle("c", ADA, "/join")
    help_text = bot.handle("c", ADA, "/help")
    # The platform refused both for now: the stored one is given up to anyone, the answer
    # that was never stored is stored now.
    bot.undelivered([joined, *help_text])
    other = make_service(tmp_path / "t.db")
    got = other.waiting()
    assert [o.kind for o in got] == ["lobby", *(o.kind for o in help_text)]
    assert got[0].stored == joined.stored and got[1].text == help_text[0].text


def test_letters_round_trip_every_field() -> None:
    from bot.core import letters

    out = Outbound(
        "c",
        "Ada placed RG A1 A2.\nBob",
        "turn",
        user=None,
        attachment=Attachment("board.png", b"\x00\x01", "image/png"),
        buttons=(Button("My tiles", "/hand"),),
        mentions=("id-bob",),
    )
    kept = letters.letter(out)
    back = letters.outbound(Letter(kept.chat, kept.body, kept.attachment, 7, 5.0))
    assert back.stored is not None and back.stored.id == 7 and back.stored.since == 5.0
    assert back.stored.key == letters.key_of(kept) and 0 <= back.stored.key < 2**63
    assert back == Outbound(
        **{**{f: getattr(out, f) for f in out.__slots__}, "stored": back.stored}
    )
    with pytest.raises(ValueError):
        letters.outbound(Letter("c", '{"text": "x"}'))


def test_a_letter_the_bot_did_not_write_is_dropped_not_delivered(tmp_path: Path) -> None:
    clock = Clock()
    bot = make_service(tmp_path / "t.db", clock=clock)
    # A letter without the fields the bot writes (another program's row), then one of ours.
    bot.store.post([Letter("c", '{"text": "x"}')], owner=None, now=clock.now, lease=0.0)
    (joined,) = bot.handle("c", ADA, "/join")
    bot.undelivered([joined])
    # Only ours is handed to the platform; the other is taken out of the outbox for good.
    got = bot.waiting()
    assert [(o.kind, o.stored) for o in got] == [("lobby", joined.stored)]
    bot.delivered(got[0])
    assert bot.store.waiting() == []
    clock.advance(LETTER_LEASE + 1)
    assert make_service(tmp_path / "t.db", clock=clock).waiting() == []


def test_while_the_store_is_away_the_outbox_waits_and_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock()
    bot = make_service(tmp_path / "t.db", clock=clock)
    (joined,) = bot.handle("c", ADA, "/join")
    (help_text, *_) = bot.handle("c", ADA, "/help")
    assert joined.stored is not None and help_text.stored is None

    def away(*args: object, **kwargs: object) -> None:
        raise StoreDown("the server is away")

    for name in ("letters", "posted", "post", "unclaim", "waiting", "drop_letters", "nudge"):
        monkeypatch.setattr(bot.store, name, away)
    # Nothing to deliver, no table known to wait, but look again soon: it may be back.
    assert bot.waiting() == [] and bot.waiting_tables() == []
    assert bot.anything_waiting()
    # A delivery, a refusal, a nudge and a gone chat while it is away raise nothing ...
    bot.delivered(joined)
    bot.nudge()
    bot.forget_waiting("other")
    # ... and what the platform did not take comes back as it was (not stored).
    assert bot.undelivered([help_text]) == [help_text]
    monkeypatch.undo()
    # The delivery of the lobby could not be noted: it waits, and is delivered once more
    # (rather than lost) by the next process once this one's claim ran out.
    clock.advance(LETTER_LEASE + 1)
    assert [o.stored for o in make_service(tmp_path / "t.db", clock=clock).waiting()] == [
        joined.stored
    ]
