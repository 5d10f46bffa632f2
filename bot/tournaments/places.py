"""Where a tournament's tables are played (issue 30): a tournament game is a table of its
own, under a chat id of its own (``tournament:<id>:<round>:<table>``) that no platform
knows, and each of its players sees it in a real chat, their *place*: a forum topic or a
thread opened for the table, or else their community's chat itself, where the table's
messages carry its name.

What the table says is fanned out here to those places (each public message to every
place once, a private one to its player's place), before it is stored in the outbox; and
what a player types in their place reaches the table through a note (``tournament.at:``
and their id) that names it. The tournament itself hears of a game's end from
:func:`poke`, in the same way as any change: by a new version of its row.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from bot.core.outbound import Outbound
from bot.core.table import Table
from bot.store import SavedTournament, StaleTable, Store
from bot.words.texts import Texts

#: How the chat id of a tournament's table begins.
PREFIX = "tournament:"
#: The note, under a place's chat, naming the tournament tables a person plays there
#: (their ids, space-separated): what they type there goes to that table.
AT = "tournament.at:{user}"
#: Attempts at noting a game's end on a tournament that other processes keep changing.
POKE_TRIES = 5


def is_tournament_table(chat: str) -> bool:
    return chat.startswith(PREFIX)


def tournament_of(chat: str) -> str:
    """The id of the tournament whose table ``chat`` is ("" for another chat)."""
    return chat.split(":")[1] if is_tournament_table(chat) and chat.count(":") == 3 else ""


def fan_out(t: Table, outs: list[Outbound]) -> list[Outbound]:
    """``outs`` of tournament table ``t`` as its players' places receive them: a public
    message once to each place, a private one to its player's place; in a place shared
    with other tables (a community's own chat) a public text starts with the table's name.
    A place's message mentions only the players who see the table there."""
    info = t.tournament
    places: dict[str, str] = dict(info.get("places") or {})
    shared = set(info.get("shared") or [])
    everywhere = sorted(set(places.values()))
    if not everywhere:
        return outs
    name = str(info.get("name") or t.title)
    fanned: list[Outbound] = []
    for out in outs:
        if out.chat != t.chat:
            fanned.append(out)
            continue
        targets = [places.get(out.user, everywhere[0])] if out.user is not None else everywhere
        for place in targets:
            # A private message names its table already (the rack "at" it).
            named = place in shared and out.text and out.user is None
            text = f"{name}\n{out.text}" if named else out.text
            # Only the players seen in this place are mentioned here: another community's
            # player may be of another platform, whose id means nothing here (the text
            # names them).
            mentions = tuple(u for u in out.mentions if places.get(u, place) == place)
            fanned.append(replace(out, chat=place, text=text, mentions=mentions, source=t.chat))
    return fanned


def noted(value: str | None) -> list[str]:
    """The tables a place's note names."""
    return [] if not value else value.split()


def saved(data: dict[str, Any], version: int) -> SavedTournament:
    """A tournament's data as the store keeps it: the columns come from the data."""
    code = data.get("code") or None
    chats = tuple(dict.fromkeys([str(data["home"]), *(str(c) for c in data.get("teams") or [])]))
    return SavedTournament(
        id=str(data["id"]),
        version=version,
        status=str(data["status"]),
        data=data,
        due_at=data.get("due_at"),
        code=str(code) if code else None,
        chats=chats,
    )


def poke(store: Store, tid: str, now: float) -> None:
    """A game of tournament ``tid`` ended at ``now``: its due work is brought to now, as a
    new version of the tournament, so a process pairing the round meanwhile finds its
    tournament changed and looks again (a game's end is never missed)."""
    for _ in range(POKE_TRIES):
        found = store.load_tournament(tid)
        if found is None:
            return
        version, data = found
        if data.get("status") != "running":
            return
        due = data.get("due_at")
        data["due_at"] = now if due is None else min(float(due), now)
        try:
            store.save_tournament(saved(data, version + 1), version)
        except StaleTable:
            continue
        return


def finished_lines(store: Store, chat: str, player: str, texts: Texts) -> list[str]:
    """For ``/stats``: the finished tournaments of ``chat`` that ``player`` played, with
    their place in each and who won (as kept at each one's end)."""
    lines = []
    for tid in store.tournaments_of(chat):
        found = store.load_tournament(tid)
        if found is None:
            continue
        data = found[1]
        final = data.get("final") or {}
        if data.get("status") != "finished" or player not in final:
            continue
        lines.append(
            texts(
                "tournament.stats_line",
                title=str(data.get("title", tid)),
                id=tid,
                rank=int(final[player]),
                count=len(final),
                names=", ".join(str(n) for n in data.get("winners") or []),
            )
        )
    return [texts("tournament.stats_head"), *lines] if lines else []


def tournaments_of_person(store: Store, user: str) -> list[dict[str, Any]]:
    """Every tournament that holds ``user`` (for ``/mydata``), as stored."""
    found = []
    for tid in store.tournaments_with(json.dumps(user)):
        kept = store.load_tournament(tid)
        if kept is not None:
            found.append(kept[1])
    return found


def forget_in_tournaments(store: Store, user: str, alias: str, name: str) -> None:
    """``/forget me`` in tournaments: everywhere a tournament names ``user`` (as a player,
    a host, in a pairing, a bye or the final ranks) it names ``alias`` instead, and their
    name is ``name``; the results stay whole for everyone else's standings."""
    quoted, instead = json.dumps(user), json.dumps(alias)
    for tid in store.tournaments_with(quoted):
        for _ in range(POKE_TRIES):
            found = store.load_tournament(tid)
            if found is None:
                break
            version, data = found
            names = {
                str(e.get("name"))
                for e in data.get("entrants") or []
                if isinstance(e, dict) and e.get("user") == user
            }
            if data.get("host") == user:
                names.add(str(data.get("host_name")))
                data["host_name"] = name
            data["winners"] = [name if w in names else w for w in data.get("winners") or []]
            # Every JSON string that is exactly the user id (a key or a value) becomes the
            # alias: their seat in each pairing, their bye, their final rank.
            data = json.loads(json.dumps(data).replace(quoted, instead))
            for e in data.get("entrants") or []:
                if isinstance(e, dict) and e.get("user") == alias:
                    e["name"] = name
            try:
                store.save_tournament(saved(data, version + 1), version)
            except StaleTable:
                continue
            break
