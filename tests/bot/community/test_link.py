"""One person on two platforms (issue 49, item 3): ``/link`` gives a one-time code that
``/link CODE`` redeems with an account on the other platform; from then on the two
accounts are one person on the ladders, in ``/games``, ``/mydata`` and ``/forget me``,
until ``/unlink``. Through the service, with Telegram's and Discord's kinds of ids, on
SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from bot.community import ladders, ratings
from bot.core.outbound import Chat, Outbound, User
from bot.service import Service
from bot.words.texts import Texts
from tests.bot import backends
from tests.bot.helpers import START, Clock, Room, make_service, user

pytestmark = pytest.mark.usefixtures("backend")

#: Ada's accounts: a Telegram user id (and her private chat with the bot, the same id)
#: and a Discord snowflake (past 2**52) with her DM channel's id.
ADA_TG = "50001"
ADA_DC = "1100000000000000001"
ADA_DC_DM = "1100000000000000009"
#: Bob on Telegram, Cleo on Discord.
BOB_TG = "50002"
CLEO_DC = "1100000000000000002"
#: A Telegram group and a Discord channel.
TG_GROUP = "-100500"
DC_CHANNEL = "1200000000000000000"
DC_CHANNEL_2 = "1200000000000000001"


def room(service: Service, chat: str, title: str, **people: str) -> Room:
    r = Room(service, chat, title)
    for name, account in people.items():
        r.people[name] = User(account, name.removesuffix("_dc").removesuffix("_tg"))
    return r


def code_of(out: list[Outbound]) -> str:
    """The code the one private answer to ``/link`` holds."""
    assert [(o.kind, o.user is not None) for o in out] == [("info", True)], out
    found = re.findall(r"\b[A-Z2-9]{6}\b", out[0].text)
    assert len(set(found)) == 1, out[0].text
    return found[0]


def link(service: Service) -> tuple[Room, Room]:
    """Ada links her Telegram account (asking for the code) and her Discord one."""
    tg = room(service, ADA_TG, "Ada", Ada=ADA_TG)
    dc = room(service, ADA_DC_DM, "Ada", Ada=ADA_DC)
    code = code_of(tg.ok("Ada", "/link"))
    done = dc.ok("Ada", f"/link {code}")
    assert [(o.kind, o.user) for o in done] == [("info", ADA_DC)]
    return tg, dc


def test_a_code_from_telegram_redeemed_on_discord_links_the_two_once(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    tg, dc = link(service)
    assert service.store.linked(ADA_TG) == sorted([ADA_TG, ADA_DC])
    assert service.store.linked(ADA_DC) == sorted([ADA_TG, ADA_DC])
    # Linked already: neither account gives a new code.
    assert "/unlink" in tg.error("Ada", "/link")
    assert "/unlink" in dc.error("Ada", "/link")


def test_a_code_works_once_and_for_ten_minutes(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    tg = room(service, ADA_TG, "Ada", Ada=ADA_TG)
    dc = room(service, ADA_DC_DM, "Ada", Ada=ADA_DC)
    code = code_of(tg.ok("Ada", "/link"))
    clock.advance(600)  # ten minutes: gone
    assert "10 minutes" in dc.error("Ada", f"/link {code}")
    assert service.store.linked(ADA_DC) == []
    # A new code, used a second before its ten minutes are up: linked.
    code = code_of(tg.ok("Ada", "/link"))
    clock.advance(599)
    dc.ok("Ada", f"/link {code}")
    dc.ok("Ada", "/unlink")
    # Once only: the same code again is wrong, even within its ten minutes.
    assert "works once" in dc.error("Ada", f"/link {code}")
    assert service.store.linked(ADA_DC) == []


def test_a_new_code_replaces_the_old_one(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    tg = room(service, ADA_TG, "Ada", Ada=ADA_TG)
    dc = room(service, ADA_DC_DM, "Ada", Ada=ADA_DC)
    first = code_of(tg.ok("Ada", "/link"))
    second = code_of(tg.ok("Ada", "/link"))
    assert first != second
    assert "works once" in dc.error("Ada", f"/link {first}")
    dc.ok("Ada", f"/link {second}")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("/link ZZZZZZ", "wrong or has expired"),  # no such code
        ("/link K7XQ2", "/link K7XQ2M"),  # five letters: not a code
        ("/link K7XQ2M K7XQ2M", "/link K7XQ2M"),  # two words
        ("/link K7XQ2O", "/link K7XQ2M"),  # an O, which no code has (read as 0)
        ("/unlink", "not linked"),
    ],
)
def test_bad_input_gets_a_short_clear_answer(tmp_path: Path, text: str, says: str) -> None:
    service = make_service(tmp_path / "t.db")
    dc = room(service, ADA_DC_DM, "Ada", Ada=ADA_DC)
    answer = dc.error("Ada", text)
    assert says in answer
    assert len(answer) < 200


def test_a_code_redeemed_on_the_same_platform_links_nothing(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    ada = room(service, ADA_TG, "Ada", Ada=ADA_TG)
    bob = room(service, BOB_TG, "Bob", Bob=BOB_TG)
    code = code_of(ada.ok("Ada", "/link"))
    assert "other one" in bob.error("Bob", f"/link {code}")
    assert service.store.linked(ADA_TG) == []


def test_the_code_is_told_to_the_person_alone_in_a_group(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    group = room(service, TG_GROUP, "Club", Ada=ADA_TG)
    out = group.ok("Ada", "/link")
    assert out[0].user == ADA_TG and out[0].private


def test_unlink_makes_two_accounts_again_from_either_side(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    _, dc = link(service)
    assert [o.user for o in dc.ok("Ada", "/unlink")] == [ADA_DC]
    assert service.store.linked(ADA_TG) == []
    assert service.store.linked(ADA_DC) == []
    # The store keeps no row of the link.
    where = backends.location(tmp_path / "t.db")
    assert not [v for t, _, v in backends.every_value(where) if t == "links"]


def play_game(service: Service, chat: str, title: str, seed: int, **people: str) -> None:
    r = room(service, chat, title, **people)
    for name in people:
        r.ok(name, "/join")
    r.ok(next(iter(people)), "/start")
    r.play_out(random.Random(seed))


def test_one_rating_per_ladder_for_a_linked_person(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    service = make_service(db)
    # Ada plays Bob on Telegram and Cleo on Discord, before and after linking.
    play_game(service, TG_GROUP, "Club", 1, Ada_tg=ADA_TG, Bob=BOB_TG)
    play_game(service, DC_CHANNEL, "genial", 2, Ada_dc=ADA_DC, Cleo=CLEO_DC)
    before = ladders.of(service).ladder
    tg_games = before.standing(ADA_TG, "genial")
    dc_games = before.standing(ADA_DC, "genial")
    assert tg_games is not None and dc_games is not None
    assert (tg_games.games, dc_games.games) == (1, 1)
    wins = tg_games.wins + dc_games.wins
    link(service)
    play_game(service, DC_CHANNEL_2, "genial-2", 3, Ada_dc=ADA_DC, Cleo=CLEO_DC)

    ladder = ladders.of(service).ladder
    assert ladder.standing(ADA_DC, "genial") is None  # one row: Ada's, by her first account
    ada = ladder.standing(ADA_TG, "genial")
    assert ada is not None and ada.games == 3
    assert wins <= ada.wins <= wins + 1
    # On the global ladder she is one line.
    top = "\n".join(ladders.top_lines(ladders.of(service), ratings.GLOBAL, 1, Texts("en")) or [])
    lines = [line for line in top.split("\n") if "Ada" in line]
    assert len(lines) == 1 and lines[0].endswith(f" · 3 · {ada.wins}")

    # The same ratings as if she had played all three games with one account: the archive
    # rebuilt with her Discord id written as her Telegram one.
    rows = json.loads(json.dumps(service.store.archived()).replace(ADA_DC, ADA_TG))
    one_account = ratings.rebuild_archive(rows).standing(ADA_TG, "genial")
    assert one_account is not None
    assert (ada.mu, ada.sigma, ada.games, ada.wins) == (
        one_account.mu,
        one_account.sigma,
        one_account.games,
        one_account.wins,
    )
    for scope in (TG_GROUP, DC_CHANNEL, DC_CHANNEL_2):
        assert ladder.standing(ADA_TG, "genial", scope) == ratings.rebuild_archive(rows).standing(
            ADA_TG, "genial", scope
        )
    # A restarted bot (the ladders rebuilt from the store) says the same.
    again = make_service(db)
    assert ladders.of(again).ladder.standing(ADA_TG, "genial") == ada
    # Unlinked: two players again, each rated by the games its account played.
    room(service, ADA_TG, "Ada", Ada=ADA_TG).ok("Ada", "/unlink")
    apart = ladders.of(service).ladder
    tg_after = apart.standing(ADA_TG, "genial")
    dc_after = apart.standing(ADA_DC, "genial")
    assert tg_after is not None and dc_after is not None
    assert (tg_after.games, dc_after.games) == (1, 2)
    assert (tg_after.mu, tg_after.sigma) == (tg_games.mu, tg_games.sigma)


def test_games_lists_the_tables_of_both_platforms(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    tg_table = room(service, TG_GROUP, "Club", Ada_tg=ADA_TG, Bob=BOB_TG)
    dc_table = room(service, DC_CHANNEL, "genial", Cleo=CLEO_DC, Ada_dc=ADA_DC)
    for r in (tg_table, dc_table):
        for name in r.people:
            r.ok(name, "/join")
        r.ok(next(iter(r.people)), "/start")
    tg, dc = link(service)
    for private in (tg, dc):
        out = private.ok("Ada", "/games")
        assert len(out) == 1
        assert set(out[0].tables) == {TG_GROUP, DC_CHANNEL}
        assert "2" in out[0].text.split("\n")[0]
    # Her turn at Telegram's table (she sat first there), Cleo's at Discord's.
    assert {g.chat: g.my_turn for g in service.running_games(ADA_DC)} == {
        TG_GROUP: True,
        DC_CHANNEL: False,
    }


def test_mydata_covers_both_accounts(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    play_game(service, TG_GROUP, "Club", 1, Ada_tg=ADA_TG, Bob=BOB_TG)
    play_game(service, DC_CHANNEL, "genial", 2, Ada_dc=ADA_DC, Cleo=CLEO_DC)
    _, dc = link(service)
    out = dc.ok("Ada", "/mydata")
    assert out[0].attachment is not None
    data = json.loads(out[0].attachment.data)
    assert data["user"] == ADA_DC
    assert [g["chat"] for g in data["finished_games"]] == [DC_CHANNEL]
    assert [other["user"] for other in data["linked"]] == [ADA_TG]
    # The linked account's part names her and is made when the whole file is.
    assert (data["linked"][0]["name"], data["linked"][0]["made_at"]) == ("Ada", START)
    assert data["made_at"] == START
    assert [g["chat"] for g in data["linked"][0]["finished_games"]] == [TG_GROUP]
    # Her one rating: two games, on the global ladder.
    glob = [r for r in data["ratings"] if r["ladder"] == "global"]
    assert [r["games"] for r in glob] == [2]


def test_forget_me_forgets_both_accounts(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    service = make_service(db)
    play_game(service, TG_GROUP, "Club", 1, Ada_tg=ADA_TG, Bob=BOB_TG)
    play_game(service, DC_CHANNEL, "genial", 2, Ada_dc=ADA_DC, Cleo=CLEO_DC)
    tg, dc = link(service)
    tg.ok("Ada", "/notify on")
    dc.ok("Ada", "/notify on")
    dc.ok("Ada", "/forget me")
    dc.ok("Ada", "/forget me")
    where = backends.location(db)
    held = sorted(
        {
            (t, c)
            for t, c, v in backends.every_value(where)
            if backends.holds(v, ADA_TG) or backends.holds(v, ADA_DC)
        }
    )
    assert held == []
    ladder = ladders.of(service).ladder
    assert ladder.standing(ADA_TG, "genial") is None
    assert ladder.standing(ADA_DC, "genial") is None
    # Bob and Cleo keep their games.
    assert (ladder.standing(BOB_TG, "genial") or pytest.fail()).games == 1
    assert (ladder.standing(CLEO_DC, "genial") or pytest.fail()).games == 1


def test_the_other_platforms_bot_on_the_store_sees_the_link(tmp_path: Path) -> None:
    # Telegram's bot and Discord's bot are two processes on one store: linked through
    # Discord's, Telegram's /top counts Ada once without a restart, and again twice once
    # she unlinks there.
    db = tmp_path / "t.db"
    discord = make_service(db)
    play_game(discord, TG_GROUP, "Club", 1, Ada_tg=ADA_TG, Bob=BOB_TG)
    play_game(discord, DC_CHANNEL, "genial", 2, Ada_dc=ADA_DC, Cleo=CLEO_DC)
    telegram = make_service(db)  # started after the games (it reads the archive then)
    group = room(telegram, TG_GROUP, "Club", Ada=ADA_TG)

    def ada_lines() -> list[str]:
        (out,) = group.ok("Ada", "/top global")
        return [line for line in out.text.split("\n") if "Ada" in line]

    assert len(ada_lines()) == 2
    link(discord)
    (line,) = ada_lines()
    assert " · 2 · " in line
    room(discord, ADA_DC_DM, "Ada", Ada=ADA_DC).ok("Ada", "/unlink")
    assert len(ada_lines()) == 2


def test_a_team_battle_counts_a_linked_person_once(tmp_path: Path) -> None:
    from tests.bot.tournaments.test_tournaments import Cup, new_cup

    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    tg = Cup(service, clock, Chat("-1001234567890", "Genial night"))
    dc = Cup(service, clock, Chat("998877665544332211", "Board games"))
    tid = new_cup(tg, "swiss 1 round 2 players 1d", ["Ann", "Bob"])
    tg.ok("Ann", "/tournament invite")
    dc.ok("Cid", f"/tournament team {tg.data(tid)['code']}", admin=True)
    # Ann's second account (Anna, on the other platform) is linked with hers: one person,
    # already in the battle for the Telegram group.
    assert service.store.link(user("Ann").id, user("Anna").id)
    assert f"in tournament {tid} already" in dc.error("Anna", "/tournament join")
    dc.ok("Cid", "/tournament join")
    assert [e["user"] for e in tg.data(tid)["entrants"]] == [
        user("Ann").id,
        user("Bob").id,
        user("Cid").id,
    ]


def test_notify_on_discord_sends_a_telegram_tables_pings_to_the_discord_account(
    tmp_path: Path,
) -> None:
    service = make_service(tmp_path / "t.db")
    rng = random.Random(4)
    dc_dm = room(service, ADA_DC_DM, "Ada", Ada=ADA_DC)
    # Not linked yet: nowhere to send them.
    assert "/link" in dc_dm.error("Ada", "/notify on telegram")
    table = room(service, TG_GROUP, "Club", Ada=ADA_TG, Bob=BOB_TG)
    table.ok("Ada", "/join")
    table.ok("Bob", "/join")
    table.ok("Ada", "/start")
    link(service)
    (said,) = dc_dm.ok("Ada", "/notify on discord")
    assert "Pings go to your account on Discord." in said.text
    for account in (ADA_TG, ADA_DC):
        assert service.store.note(account, "notify") == "on"
    # Telegram's bot delivers Telegram's chats only: the ping to Discord waits in the
    # outbox for Discord's bot.
    service.delivers = lambda chat: not (chat.isdigit() and int(chat) >= 1 << 52)
    while table.to_move() != "Bob":
        table.play_turn(rng)
    out = table.play_turn(rng)
    assert not [o for o in out if o.kind == "ping"]
    waiting = service.store.letters("discord-bot", START + 1, 60.0, chat=ADA_DC)
    assert len(waiting) == 1
    ping = json.loads(waiting[0].body)
    assert (ping["kind"], ping["user"]) == ("ping", ADA_DC)
    assert "Your turn at Club" in ping["text"]
    assert service.store.letters("discord-bot", START + 1, 60.0, chat=ADA_TG) == []
    # Her move on Telegram: the ping is taken back where it went.
    table.play_turn(rng)
    waiting = service.store.letters("discord-bot", START + 2, 60.0, chat=ADA_DC)
    assert [json.loads(w.body)["kind"] for w in waiting] == ["ping", "unping"]


def test_notify_on_a_platform_reads_back_as_typed() -> None:
    from bot.core.parsing import format_command, parse_command

    for text in ("/notify on discord", "/notify on telegram"):
        assert format_command(parse_command(text)) == text
