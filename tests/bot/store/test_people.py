"""The store's link codes and linked accounts (issue 49), on SQLite and on PostgreSQL: a
code works once and until it expires, an account is linked to one person at most, and
unlinking from either side leaves nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.backends import store_at

pytestmark = pytest.mark.usefixtures("backend")


def test_a_code_is_redeemed_once_before_it_expires(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    assert store.give_link_code("50001", "AAAAAA", 100.0)
    assert not store.give_link_code("50002", "AAAAAA", 100.0)  # held by another account
    assert store.redeem_link_code("AAAAAA", 99.0) == "50001"
    assert store.redeem_link_code("AAAAAA", 99.0) is None  # once
    assert store.give_link_code("50001", "BBBBBB", 100.0)
    assert store.redeem_link_code("BBBBBB", 100.0) is None  # expired at 100: and gone
    assert store.give_link_code("50001", "CCCCCC", 100.0)
    assert store.give_link_code("50001", "DDDDDD", 200.0)  # replaces CCCCCC
    assert store.redeem_link_code("CCCCCC", 1.0) is None
    assert store.redeem_link_code("DDDDDD", 1.0) == "50001"


def test_an_account_is_linked_to_one_person_at_most(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    tg, dc, other = "50001", "1100000000000000001", "1100000000000000002"
    assert not store.link(tg, tg)
    assert store.link(tg, dc)
    assert store.links() == {tg: tg, dc: tg}
    assert not store.link(tg, other)  # the person is linked already
    assert not store.link(other, dc)  # and so is the account
    assert store.links() == {tg: tg, dc: tg}
    assert store.linked(dc) == sorted([tg, dc])
    assert store.linked(other) == []
    assert store.unlink(dc) == sorted([tg, dc])  # from either side, the whole link
    assert store.links() == {}
    assert store.unlink(dc) == []


def test_forgetting_an_account_forgets_its_link_and_code(tmp_path: Path) -> None:
    store = store_at(tmp_path / "t.db")
    tg, dc = "50001", "1100000000000000001"
    store.link(tg, dc)
    store.give_link_code(tg, "AAAAAA", 100.0)
    store.forget_player(tg, "former:x", "a former player")
    assert store.links() == {}
    assert store.redeem_link_code("AAAAAA", 1.0) is None
