"""The table page and the seat page over HTTP: what each may see, moves by the page going
through the service as typed commands, live updates, and every bad request refused."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from PIL import Image

from bot.web.guard import Limits
from bot.web.pages import NO_CHART
from bot.web.tokens import TOKEN_LIFE
from tests.bot.web.board import Events, Site, path_of, running, started_room

#: The coloured squares the turn messages show for the colour letters (issue 44, item 32).
SQUARES = {"R": "🟥", "G": "🟩", "B": "🟦", "O": "🟧", "Y": "🟨", "P": "🟪"}


def told(move: str) -> str:
    """A placement as the chat is told it: ``RG A2 B3`` -> ``🟥🟩 A2 B3``."""
    tile, _, cells = move.partition(" ")
    return f"{''.join(SQUARES[c] for c in tile)} {cells}"


pytestmark = pytest.mark.usefixtures("backend")


def _first_move(site: Site, name: str) -> str:
    look = site.state(name)
    first, seconds = next(iter(look["cells"].items()))
    return f"1 {first} {seconds[0]}"


def test_the_table_link_cannot_be_made_from_the_chat_id(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        link = site.board.table_link(site.chat)
        tid = path_of(link).rsplit("/", 1)[1]
        assert len(tid) == 20 and site.chat not in link
        # Another secret gives another id: the id is a keyed hash, not the chat id coded.
        from bot.web.tokens import Signer

        assert Signer(b"another").table_id(site.chat) != tid
        status, _, page = site.request("GET", path_of(link))
        assert status == 200 and b'data-table="' + tid.encode() + b'"' in page


def test_a_watcher_sees_board_scores_turn_and_no_rack(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        look = site.state()
        assert look["seat"] is None and look["rack"] == [] and look["cells"] == {}
        assert look["turn"] == "Ann to move"
        assert [s["names"] for s in look["sides"]] == [["Ann"], ["Bob"]]
        # No tile placed yet: every colour of both players at 0 (RULES.md: scores start at 0).
        assert all(p == 0 for s in look["sides"] for _, p in s["scores"])
        # The 2-player board: radius 5, 1 + 3*5*6 = 91 cells, six start symbols.
        assert look["board"].count('class="cell"') == 91
        assert look["board"].count('fill="#5c4838" stroke=') == 6  # theme.PRINTED cells


def test_a_seat_sees_its_own_rack_only(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        table = site.service.table(site.chat)
        assert table is not None and table.record is not None
        ann, bob = site.state("Ann"), site.state("Bob")
        assert ann["seat"] == 0 and bob["seat"] == 1
        assert len(ann["rack"]) == 6 and len(bob["rack"]) == 6
        # Ann is to move: her page knows where a tile may go; Bob's waits.
        assert ann["my_turn"] and ann["cells"] and not bob["my_turn"] and bob["cells"] == {}
        # The racks are the first 12 tiles of the draw order, Ann's then Bob's (the deal).
        bag = table.record["bag"]
        assert sorted(t["name"] for t in ann["rack"]) == sorted(bag[:6])
        assert sorted(t["name"] for t in bob["rack"]) == sorted(bag[6:12])


def test_a_tap_move_goes_through_the_service_and_reaches_the_chat(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        before = site.service.table(site.chat)
        assert before is not None
        move = _first_move(site, "Ann")
        status, answer = site.command("Ann", "play", move)
        assert status == 200 and answer["ok"], answer
        after = site.service.table(site.chat)
        assert after is not None and after.version == before.version + 1
        assert after.record is not None and len(after.record["moves"]) == 1
        # The chat gets what the typed command would have said: one turn message.
        kinds = [o.kind for o in site.delivered]
        assert kinds.count("turn") == 1
        look = site.state()
        assert look["turn"] == "Bob to move" and len(look["moves"]) == 1


def test_a_stale_page_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        move = _first_move(site, "Ann")
        table = site.service.table(site.chat)
        assert table is not None
        status, answer = site.command("Ann", "play", move, version=table.version - 1)
        assert status == 409 and "earlier turn" in answer["error"]
        after = site.service.table(site.chat)
        assert after is not None and after.to_dict() == table.to_dict()
        assert site.delivered == []


def test_a_move_out_of_turn_is_refused(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        move = _first_move(site, "Ann")
        table = site.service.table(site.chat)
        status, answer = site.command("Bob", "play", move)
        assert status == 409 and answer["error"]
        after = site.service.table(site.chat)
        assert after is not None and table is not None and after.to_dict() == table.to_dict()


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b"x" * (1 << 20), 413),  # a megabyte of junk
        (b"not json", 400),
        (b"[1, 2]", 400),
        (b'{"command": "play"}', 403),  # no seat token
    ],
)
def test_junk_bodies_get_a_short_json_error(tmp_path: Path, body: bytes, status: int) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        table = site.service.table(site.chat)
        got, headers, data = site.request("POST", f"/api/t/{site.tid}/command", body)
        assert got == status and headers["content-type"].startswith("application/json")
        assert data.startswith(b'{"error": ') and len(data) < 200
        after = site.service.table(site.chat)
        assert after is not None and table is not None and after.to_dict() == table.to_dict()


def test_bad_fields_are_refused(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        token = site.token("Ann")
        url = f"/api/t/{site.tid}/command"
        for payload, want in [
            ({"seat": token, "command": "abort", "version": 1}, "unknown command"),
            ({"seat": token, "command": "play", "move": "1 A2", "version": 1}, "not a placement"),
            (
                {"seat": token, "command": "play", "move": "1 A2 B3 ; /abort", "version": 1},
                "not a placement",
            ),
            ({"seat": token, "command": "play", "move": "1 A2 B3"}, "no table version"),
        ]:
            status, answer = site.post(url, payload)
            assert status == 400 and answer["error"] == want


def test_forged_expired_and_foreign_tokens_are_refused(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        token = site.token("Ann")
        body, mac = token.split(".")
        forged = body + "." + ("A" if mac[0] != "A" else "B") + mac[1:]
        status, answer = site.get(f"/api/t/{site.tid}/state?seat={forged}")
        assert status == 403 and answer["error"] == "seat token forged"
        other = site.board.signer.seat_token("B" * 20, site.room.person("Ann").id)
        status, answer = site.get(f"/api/t/{site.tid}/state?seat={other}")
        assert status == 403 and answer["error"] == "seat token of another table"
        site.service.clock.advance(TOKEN_LIFE + 1)  # type: ignore[attr-defined]
        status, answer = site.get(f"/api/t/{site.tid}/state?seat={token}")
        assert status == 403 and answer["error"] == "seat token expired"
        status, _, _ = site.request("GET", f"/s/{token}")
        assert status == 403


def test_an_unknown_table_is_a_404(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        for path in ("/t/AAAAAAAAAAAAAAAAAAAA", "/api/t/AAAAAAAAAAAAAAAAAAAA/state", "/t/x"):
            status, _headers, data = site.request("GET", path)
            assert status == 404 and data == b'{"error": "no such table"}'


def test_page_loads_are_rate_limited_per_address(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    stopped = [0.0]
    with running(room, Limits(pages_burst=5, pages_rate=1.0), clock=lambda: stopped[0]) as site:
        codes = [site.request("GET", f"/t/{site.tid}")[0] for _ in range(6)]
        # The clock stands still: five in the burst, the sixth refused.
        assert codes == [200] * 5 + [429]
        stopped[0] += 2.0  # two seconds later, two more
        assert [site.request("GET", f"/t/{site.tid}")[0] for _ in range(3)] == [200, 200, 429]


def test_moves_are_limited_per_seat_not_per_address(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    limits = Limits(pages_burst=1000, moves_burst=3, moves_rate=1.0)
    with running(room, limits, clock=lambda: 0.0) as site:
        # Two players behind one address (127.0.0.1): each has a burst of 3 of its own.
        ann = [site.command("Ann", "hint")[0] for _ in range(3)]
        bob = [site.command("Bob", "hint")[0] for _ in range(3)]
        assert 429 not in ann + bob
        assert site.command("Ann", "hint")[0] == 429
        assert site.command("Bob", "hint")[0] == 429


def test_two_players_behind_one_address_play_fast_within_the_default_limits(
    tmp_path: Path,
) -> None:
    # Issue 45: two players at a club sent 40 commands in 10 s and got 429 from the budget
    # their address shared (a burst of 20, then 2 a second: 20 + 2 * 9.75 = 39.5 tokens).
    # Per seat, each has 20 commands in 10 s against a burst of 20: never refused.
    room = started_room(tmp_path)
    now = [0.0]
    with running(room, Limits(), clock=lambda: now[0]) as site:
        codes = []
        for n in range(40):
            codes.append(site.command(("Ann", "Bob")[n % 2], "hint")[0])
            now[0] += 0.25
        assert 429 not in codes


def test_a_seats_looks_have_their_own_budget(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room, Limits(pages_burst=2, seat_burst=2), clock=lambda: 0.0) as site:
        watch = f"/api/t/{site.tid}/state"
        assert [site.get(watch)[0] for _ in range(3)] == [200, 200, 429]
        # The address's budget is spent; each seat still has its own two.
        for name in ("Ann", "Bob"):
            seat = f"{watch}?seat={site.token(name)}"
            assert [site.get(seat)[0] for _ in range(3)] == [200, 200, 429]
        # A forged token has no seat: it counts against the spent address.
        token = site.token("Ann")
        forged = token[:-1] + ("A" if token[-1] != "A" else "B")
        status, answer = site.get(f"{watch}?seat={forged}")
        assert status == 429 and answer["error"] == "too many requests: wait a little"


def test_every_answer_has_a_policy_without_inline_script(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        for path in (
            f"/t/{site.tid}",
            f"/s/{site.token('Ann')}",
            "/static/app.js",
            "/static/aim.js",
        ):
            status, headers, _data = site.request("GET", path)
            assert status == 200
            csp = headers["content-security-policy"]
            assert "script-src 'self'" in csp and "unsafe-inline" not in csp
            assert headers["x-content-type-options"] == "nosniff"
        _, _, page = site.request("GET", f"/t/{site.tid}")
        # Every script has a src; no element has an event attribute or a style attribute.
        assert re.findall(rb"<script[^>]*>", page) == [
            b'<script src="/static/aim.js" defer>',
            b'<script src="/static/access.js" defer>',
            b'<script src="/static/discord.js" defer>',
            b'<script src="/static/app.js" defer>',
        ]
        assert not re.search(rb"\son[a-z]+=", page) and b"style=" not in page


def test_names_are_data_never_markup(tmp_path: Path) -> None:
    names = ("<script>alert(1)</script>", '"><img src=x onerror=alert(2)>')
    room = started_room(tmp_path, names)
    with running(room) as site:
        _, _, page = site.request("GET", f"/t/{site.tid}")
        assert b"alert" not in page  # the page itself carries no name
        look = site.state()
        assert [s["names"][0] for s in look["sides"]] == list(names)
        assert "alert" not in look["board"]  # the board carries labels only
        # The script sets every server text with textContent, never innerHTML.
        for name in ("app.js", "aim.js"):
            _, _, script = site.request("GET", f"/static/{name}")
            assert b"innerHTML" not in script and b"insertAdjacentHTML" not in script


def test_watchers_and_seats_get_live_updates_from_a_typed_move(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        watcher = Events(site.port, f"/api/t/{site.tid}/events")
        bob = Events(site.port, f"/api/t/{site.tid}/events?seat={site.token('Bob')}")
        first, first_bob = watcher.next(), bob.next()
        assert first["turn"] == "Ann to move" and not first_bob["my_turn"]
        move = _first_move(site, "Ann")
        room.ok("Ann", f"/play {move}")  # typed in the chat: the page learns it by polling
        now, now_bob = watcher.next(), bob.next()
        assert now["version"] == first["version"] + 1 and now["turn"] == "Bob to move"
        assert now_bob["my_turn"] and len(now_bob["rack"]) == 6 and now["rack"] == []
        watcher.close()
        bob.close()


def test_no_byte_to_a_watcher_or_other_seat_holds_a_rack_or_the_draw_order(
    tmp_path: Path,
) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        table = site.service.table(site.chat)
        assert table is not None and table.record is not None
        bag = table.record["bag"]
        ann_rack, bob_rack = bag[:6], bag[6:12]
        streams = {
            None: Events(site.port, f"/api/t/{site.tid}/events"),
            "Ann": Events(site.port, f"/api/t/{site.tid}/events?seat={site.token('Ann')}"),
            "Bob": Events(site.port, f"/api/t/{site.tid}/events?seat={site.token('Bob')}"),
        }
        for s in streams.values():
            s.next()
        status, _ = site.command("Ann", "play", _first_move(site, "Ann"))
        assert status == 200
        for s in streams.values():
            s.next()
        sent = {who: b"".join(s.raw) for who, s in streams.items()}
        for who in (None, "Ann", "Bob"):
            _, _, state = site.request(
                "GET", f"/api/t/{site.tid}/state" + (f"?seat={site.token(who)}" if who else "")
            )
            sent[who] += state
        for s in streams.values():
            s.close()

        def holds(data: bytes, tiles: list[str]) -> bool:
            pattern = rb"\W{1,12}".join(t.encode() for t in tiles)
            return re.search(pattern, data) is not None

        def rack_of(data: bytes) -> list[bytes]:
            return re.findall(rb'"rack": \[(.*?)\]', data)

        # The upcoming draws, four in a row in any notation, reach nobody.
        upcoming = bag[12:16]
        for data in sent.values():
            assert not holds(data, upcoming) and b'"bag"' not in data
        # Every look holds a rack list (never an empty pass): the watcher's are all empty.
        watcher, seats = rack_of(sent[None]), rack_of(sent["Ann"]) + rack_of(sent["Bob"])
        assert watcher and all(r == b"" for r in watcher)
        assert rack_of(sent["Ann"]) and rack_of(sent["Bob"])
        assert all(b'"slot"' in r for r in seats)
        # Bob's rack never reaches Ann's page (nor the watcher's), and his page never
        # shows Ann's first rack: each rack list is its own seat's.
        bob_names = sorted(bob_rack)
        for r in rack_of(sent["Ann"]):
            assert sorted(re.findall(rb'"name": "(\w\w)"', r)) != [n.encode() for n in bob_names]
        first_bob = rack_of(sent["Bob"])[0]
        assert sorted(x.decode() for x in re.findall(rb'"name": "(\w\w)"', first_bob)) == bob_names
        assert sorted(
            x.decode() for x in re.findall(rb'"name": "(\w\w)"', rack_of(sent["Ann"])[0])
        ) == sorted(ann_rack)


def test_genial_spezial_is_played_on_the_page_to_its_end(tmp_path: Path) -> None:
    room = started_room(tmp_path, ("Ann", "Bob"), game="Spezial")
    with running(room) as site:
        look = site.state()
        assert look["game"] == "spezial" and look["board"].count('class="cell"') > 200
        for _ in range(400):
            table = site.service.table(site.chat)
            assert table is not None
            if table.status != "playing":
                break
            name = next(n for n in ("Ann", "Bob") if site.state(n)["my_turn"])
            mine = site.state(name)
            assert mine["rack"] == []  # Genial Spezial has no hidden tiles
            first = sorted(mine["cells"])[0]
            move = f"{first} {mine['cells'][first][0]}"
            status, points = site.get(
                f"/api/t/{site.tid}/preview?seat={site.token(name)}&move={move.replace(' ', '+')}"
            )
            assert status == 200, points
            status, answer = site.command(name, "play", move)
            assert status == 200, answer
        table = site.service.table(site.chat)
        assert table is not None and table.status != "playing"
        assert site.state()["over"] and site.state()["result"]


def test_a_move_by_another_process_on_the_store_shows_live(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        watcher = Events(site.port, f"/api/t/{site.tid}/events")
        first = watcher.next()
        # Another bot process on the same store: a service of its own, its own caches.
        from tests.bot.helpers import Clock, Room, make_service

        other = Room(make_service(tmp_path / "t.db", clock=Clock()))
        other.people.update(room.people)
        move = _first_move(site, "Ann")
        other.ok("Ann", f"/play {move}")
        now = watcher.next()
        assert now["version"] == first["version"] + 1 and now["turn"] == "Bob to move"
        watcher.close()


def test_hints_on_the_page_are_placements_to_draw_never_typed_commands(tmp_path: Path) -> None:
    # Issue 48: the page draws hints on the board; nothing is typed, nothing said in a chat.
    room = started_room(tmp_path, hints="hints on")
    with running(room) as site:
        look = site.state("Ann")
        version = look["version"]
        status, answer = site.command("Ann", "hint")
        assert status == 200 and answer["ok"] and "said" not in answer
        hints = answer["hints"]
        assert len(hints) == 3 and site.delivered == []
        rack = {t["slot"]: t for t in look["rack"]}
        for hint in hints:
            first, second = hint["cells"]
            assert second in look["cells"][first]  # a legal placement's two cells
            tile = rack[hint["slot"]]  # the rack's tile, its first symbol on the first cell
            assert hint["symbols"] == [tile["first"], tile["second"]]
            assert hint["move"] == f"{hint['slot']} {first} {second}"
            assert "/" not in json.dumps(hint)  # no command in it
            assert all(p > 0 for p in hint["points"].values())
        assert site.state("Ann")["version"] == version  # a hint changes nothing
        # Taken as it is, the first hint is a move the table accepts.
        assert site.command("Ann", "play", hints[0]["move"])[0] == 200
        status, answer = site.command("Ann", "hint")  # not her turn now
        assert (
            status == 409
            and answer["error"] == "Hints are for your own turn, when you place a tile."
        )


def test_hints_on_the_page_need_hints_on_and_the_current_board(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        status, answer = site.command("Ann", "hint")
        assert status == 409 and answer["error"].startswith("Hints are off at this table")
    room = started_room(tmp_path / "on", hints="hints on")
    with running(room) as site:
        stale = site.state("Ann")["version"] - 1
        status, answer = site.command("Ann", "hint", version=stale)
        assert (status, answer["error"]) == (409, "The board changed meanwhile: look again.")


def test_the_page_speaks_the_tables_language(tmp_path: Path) -> None:
    room = started_room(tmp_path, lang="lang de")
    with running(room) as site:
        look = site.state("Ann")
        assert look["lang"] == "de" and look["words"]["confirm"] == "Legen"
        assert look["turn"] == "Ann ist am Zug" and look["words"]["colour_R"] == "Rot"


def test_the_clock_of_a_timed_table(tmp_path: Path) -> None:
    room = started_room(tmp_path, timeout="timeout 24h")
    with running(room) as site:
        table = site.service.table(site.chat)
        assert table is not None and table.turn_started is not None
        assert site.state()["deadline"] == table.turn_started + 24 * 3600


def test_a_finished_game_replays_from_the_empty_board(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        status, answer = site.get(f"/api/t/{site.tid}/replay/0")
        assert status == 409 and answer["error"] == "no finished game to replay"
        room.ok("Ann", "/abort", admin=True)
        status, answer = site.get(f"/api/t/{site.tid}/replay/0")
        # Aborted before a placement: the empty board, no tile on it.
        assert status == 200 and 'fill="#24262e" stroke' not in answer["board"]
        status, answer = site.get(f"/api/t/{site.tid}/replay/x")
        assert status == 400


def test_open_pages_are_limited_per_address_and_per_seat(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room, Limits(pages_burst=100, live_per_address=2, live_per_seat=1)) as site:
        watch = f"/api/t/{site.tid}/events"
        streams = [Events(site.port, watch) for _ in range(2)]
        for s in streams:
            s.next()
        status, answer = site.get(watch)
        assert status == 429 and answer["error"] == "too many open pages from this address"
        # A seat's live page is counted by its seat: the address's are all open.
        ann = Events(site.port, f"{watch}?seat={site.token('Ann')}")
        ann.next()
        status, answer = site.get(f"{watch}?seat={site.token('Ann')}")
        assert status == 429 and answer["error"] == "too many open pages from this seat"
        bob = Events(site.port, f"{watch}?seat={site.token('Bob')}")
        assert bob.next()["seat"] == 1
        for s in (*streams, ann, bob):
            s.close()


def test_a_look_is_built_once_per_version_however_many_ask(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        built: list[str | None] = []
        real = site.service.page_look

        def counting(chat: str, user: str | None = None) -> object:
            built.append(user)
            return real(chat, user)

        site.service.page_look = counting  # type: ignore[method-assign]
        for _ in range(5):
            site.state()
        assert built == [None]  # five watchers' loads, one build
        status, _ = site.command("Ann", "play", _first_move(site, "Ann"))
        assert status == 200
        built.clear()
        for _ in range(3):
            site.state()
        assert built == [None]  # a new version: built once again


def test_a_board_of_its_own_leaves_a_moves_messages_for_the_bot(tmp_path: Path) -> None:
    from bot.web import through_outbox
    from tests.bot.helpers import Clock, make_service

    room = started_room(tmp_path)
    # The bot's process: a service of its own on the same store, which posts the letters.
    bot_side = make_service(tmp_path / "t.db", clock=Clock())
    for waiting in room.service.waiting(room.chat.id):  # what the start said: posted
        room.service.delivered(waiting)
    assert bot_side.waiting(room.chat.id) == []
    with running(room, deliver=through_outbox(room.service)) as site:
        move = _first_move(site, "Ann")
        status, answer = site.command("Ann", "play", move)
        assert status == 200 and answer == {"ok": True, "said": []}
        told = bot_side.waiting(room.chat.id)
        (turn,) = [o for o in told if o.user is None]
        assert turn.kind == "turn" and turn.text.startswith("Ann placed")
        # Bob's rack for his turn waits too, for him alone.
        assert [(o.kind, o.user) for o in told if o.user] == [("rack", room.person("Bob").id)]


def test_a_board_of_its_own_lets_the_computer_answer_a_move_at_once(tmp_path: Path) -> None:
    """In a web board's own process (``genial-bot web``), a page's move that passes the turn
    to a computer player is answered there and then: the computer's placement waits in the
    outbox with the move, for the bot's processes to post, without waiting for their clock."""
    from bot.web import through_outbox
    from tests.bot.helpers import Clock, Room, make_service

    room = Room(make_service(tmp_path / "t.db", clock=Clock()))
    for line in ("/join", "/addbot greedy", "/start"):
        room.say("Ann", line)
    bot_side = make_service(tmp_path / "t.db", clock=Clock())
    for waiting in room.service.waiting(room.chat.id):  # what the start said: posted
        room.service.delivered(waiting)
    with running(room, deliver=through_outbox(room.service)) as site:
        status, answer = site.command("Ann", "play", _first_move(site, "Ann"))
        assert status == 200 and answer == {"ok": True, "said": []}
        public = [o for o in bot_side.waiting(room.chat.id) if o.user is None]
        # One message with one board: Ann's placement and the computer's answer.
        assert len(public) == 1 and public[0].text.startswith("Ann placed")
        assert public[0].text.count(" placed ") == 2
        assert site.state("Ann")["my_turn"]  # the computer has moved: Ann's turn again


def _golden_placement(site: Site, name: str) -> tuple[str, str] | None:
    """A legal placement of ``name`` now whose second cell is a free golden space."""
    mine = site.state(name)
    golden = set(mine["golden"])
    for first, seconds in sorted(mine["cells"].items()):
        for second in seconds:
            if second in golden and first not in golden:
                return first, second
    return None


def test_a_spezial_page_chooses_the_colour_of_a_golden_space(tmp_path: Path) -> None:
    room = started_room(tmp_path, ("Ann", "Bob"), game="Spezial")
    with running(room) as site:
        assert site.state()["golden"] == []  # a watcher's look: no choice to make
        found = None
        for _ in range(40):  # play on until the mover can cover a golden space
            name = next(n for n in ("Ann", "Bob") if site.state(n)["my_turn"])
            look = site.state(name)
            assert look["golden_colours"] == ["B", "G", "O", "P"]
            found = _golden_placement(site, name)
            if found is not None:
                break
            first = sorted(look["cells"])[0]
            assert site.command(name, "play", f"{first} {look['cells'][first][0]}")[0] == 200
        assert found is not None, "no placement on a golden space in 40 moves"
        first, second = found

        def preview(move: str) -> dict[str, object]:
            status, data = site.get(
                f"/api/t/{site.tid}/preview?seat={site.token(name)}&move={move.replace(' ', '+')}"
            )
            assert status == 200, data
            return dict(data)

        default = preview(f"{first} {second}")
        (given,) = default["golden"]  # one golden space covered: one colour given
        assert given in "BGOP"
        other = next(c for c in "BGOP" if c != given)
        chosen = preview(f"{first} {second} {other}")
        assert chosen["golden"] == [other]
        # The golden point moves from the default colour to the chosen one; nothing else.
        d_pts, c_pts = dict(default["points"]), dict(chosen["points"])  # type: ignore[call-overload]
        assert c_pts.get(other, 0) == d_pts.get(other, 0) + 1
        assert c_pts.get(given, 0) == d_pts.get(given, 0) - 1
        status, answer = site.command(name, "play", f"{first} {second} {other}")
        assert status == 200, answer
        table = site.service.table(site.chat)
        assert table is not None and table.record is not None
        assert table.record["moves"][-1] == f"{first} {second} {other}"


def test_the_panel_shows_each_players_time_bank(tmp_path: Path) -> None:
    from tests.bot.helpers import START

    room = started_room(tmp_path, clock="clock 3d+1d")
    room.service.clock.now = START + 3600  # type: ignore[attr-defined]
    with running(room) as site:
        look = site.state()
        # Ann is to move and has used an hour of her three days; Bob's bank is whole.
        assert [s["clock"] for s in look["sides"]] == ["2d 23h", "3d"]
        assert look["deadline"] == START + 3 * 86400


def test_the_replay_slider_shows_the_experts_review_of_each_move(tmp_path: Path) -> None:
    from engine.review import GameReview
    from tests.bot.community.test_reviews import finished_room

    room = finished_room(tmp_path)
    [(row, data)] = room.service.store.reviews("chat-1")
    assert data is not None
    first = next(p for p in GameReview.from_dict(data).placements if p.number == 0)
    name = row["seats"][first.seat]["name"]
    with running(room) as site:
        status, at_one = site.get(f"/api/t/{site.tid}/replay/1")
        assert status == 200 and at_one["board"].startswith("<svg")
        # The slider at move 1: the review of the first placement, who played what.
        assert at_one["review"].startswith(f"{name}: {told(first.played)} (")
        assert site.get(f"/api/t/{site.tid}/replay/0")[1]["review"] == ""  # the empty board


def test_under_the_replay_slider_the_review_charts_each_sides_chance_to_win(
    tmp_path: Path,
) -> None:
    from tests.bot.community.test_reviews import finished_room

    room = finished_room(tmp_path)
    with running(room) as site:
        status, headers, png = site.request("GET", f"/api/t/{site.tid}/chances.png")
        assert status == 200 and png.startswith(b"\x89PNG")
        assert headers.get("content-type") == "image/png"
        # The very chart the chat's review shows (the table's language, its seats' names).
        assert png == room.service.review_chart(room.chat.id)
    # A table still playing has no review to chart: a picture of 1 x 1 (no 404, which the
    # browser's console would log as an error), which the page keeps hidden.
    playing = started_room(tmp_path / "playing")
    with running(playing) as site:
        status, _, empty = site.request("GET", f"/api/t/{site.tid}/chances.png")
        assert status == 200 and empty == NO_CHART
        assert Image.open(io.BytesIO(empty)).size == (1, 1)


def test_the_board_stops_at_once_with_live_pages_still_open(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        watcher = Events(site.port, f"/api/t/{site.tid}/events")
        watcher.next()  # the page is live
        site.board.stop_thread()  # would wait for the open stream (up to a minute) before
        # The board ended the stream itself: what is left of it is the end of the first
        # look's event and the last, empty chunk of the response (HTTP/1.1 chunked).
        assert watcher.res.fp.read().endswith(b"\r\n0\r\n\r\n")
        watcher.close()


def test_one_tables_seat_token_plays_at_no_other_table(tmp_path: Path) -> None:
    from tests.bot.helpers import Room

    room = started_room(tmp_path)
    other = Room(room.service, "chat-2", "Other room")
    for name in ("Ann", "Bob"):
        other.say(name, "/join")
    other.say("Ann", "/start")
    with running(room) as site:
        # Ann is to move at both tables; her seat's token of chat-2, sent to chat-1.
        elsewhere = site.board.signer.seat_token(
            site.board.table_id("chat-2"), site.room.person("Ann").id
        )
        before = site.service.table(site.chat)
        assert before is not None
        status, answer = site.post(
            f"/api/t/{site.tid}/command",
            {
                "seat": elsewhere,
                "command": "play",
                "move": _first_move(site, "Ann"),
                "version": before.version,
            },
        )
        assert status == 403 and answer["error"] == "seat token of another table"
        after = site.service.table(site.chat)
        assert after is not None and after.to_dict() == before.to_dict()


def test_spezial_hints_name_cells_and_no_symbols(tmp_path: Path) -> None:
    room = started_room(tmp_path, game="Spezial", hints="hints on")
    with running(room) as site:
        look = site.state("Ann")
        status, answer = site.command("Ann", "hint")
        assert status == 200 and len(answer["hints"]) == 3
        for hint in answer["hints"]:
            first, second = hint["cells"]
            assert second in look["cells"][first]
            assert hint["slot"] is None and hint["symbols"] == []
            assert hint["move"].split()[:2] == [first, second]


def test_a_bonus_placement_is_in_the_look_though_bonus_owed_is_counted_down(
    tmp_path: Path, shared: Path
) -> None:
    from tests.bot.play.test_play import seeded_room

    # Bob's OY J6 I6 brings yellow to 18 (tests/bot/play: "Genial! 18 in yellow"): he
    # places again, and the engine has already counted that bonus off.
    room = seeded_room(tmp_path, shared, "01-genial-standard-2p", 26, ["Ada", "Bob"])
    with running(room) as site:
        assert not site.state("Bob")["bonus"]
        room.ok("Bob", "/play OY J6 I6")
        bob, watcher = site.state("Bob"), site.state()
        assert bob["my_turn"] and bob["bonus_owed"] == 0 and bob["bonus"]
        assert watcher["bonus"] and watcher["to_move"] == 1
        assert bob["words"]["bonus_watch"] == "Bonus placement: {name} places again."
