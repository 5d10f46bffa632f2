"""One person on two platforms (issue 49): ``/link`` and ``/unlink``.

``/link`` gives a one-time code, valid :data:`CODE_LIFETIME` seconds; ``/link CODE``, sent
with an account on the other platform, links the two accounts as one person, named by
the account that asked for the code. From then on the ladders count every game of either
account as the person's (rebuilt from the archive with the links: the same ratings as if
they had always been one account), ``/games`` lists the tables of both, ``/mydata``
covers both and ``/forget me`` forgets both. ``/unlink`` makes them two again.

Every answer is private (only the person sees their code). Which platform an account is
on is read from its id, as the platforms sharing a store read chat ids: a Discord
snowflake is past the 52 bits of any Telegram id.
"""

from __future__ import annotations

import secrets

from bot.community import ladders
from bot.core.commands import Link, Unlink
from bot.core.outbound import Outbound
from bot.core.parsing import LINK_ALPHABET
from bot.core.tables import Context, Handler, Reject, Tables

#: How long a link code works, in seconds.
CODE_LIFETIME = 600.0
#: Letters of a code.
CODE_LENGTH = 6
#: Tries at a code no other account holds now.
_TRIES = 5


def platform_of(account: str) -> str:
    """``discord`` or ``telegram`` for a platform's user id, ``other`` for anything else
    (the console's names)."""
    if not (account.isascii() and account.isdigit()):
        return "other"
    return "discord" if int(account) >= 1 << 52 else "telegram"


def accounts(tables: Tables, user: str) -> list[str]:
    """The accounts that are the same person as ``user``, ``user`` first."""
    others = [a for a in tables.store.linked(user) if a != user]
    return [user, *others]


def link(tables: Tables, ctx: Context, cmd: Link) -> None:
    assert ctx.user is not None
    me, store = ctx.user.id, tables.store
    minutes = str(int(CODE_LIFETIME // 60))
    if cmd.code is None:
        if store.linked(me):
            raise Reject("link.taken")
        for _ in range(_TRIES):
            code = "".join(secrets.choice(LINK_ALPHABET) for _ in range(CODE_LENGTH))
            if store.give_link_code(me, code, ctx.now + CODE_LIFETIME):
                break
        else:  # pragma: no cover - 31**6 codes, a handful alive at a time
            raise RuntimeError("no free link code")
        text = ctx.texts("link.code", code=code, minutes=minutes)
        ctx.out.append(Outbound(ctx.chat.id, text, "info", user=me))
        return
    owner = store.redeem_link_code(cmd.code, ctx.now)
    if owner is None:
        raise Reject("link.bad_code", minutes=minutes)
    if platform_of(owner) == platform_of(me):
        raise Reject("link.same_platform")
    if not store.link(owner, me):
        raise Reject("link.taken")
    ladders.renew(tables)
    ctx.out.append(Outbound(ctx.chat.id, ctx.texts("link.done"), "info", user=me))


def unlink(tables: Tables, ctx: Context, cmd: Unlink) -> None:
    assert ctx.user is not None
    if not tables.store.unlink(ctx.user.id):
        raise Reject("link.none")
    ladders.renew(tables)
    ctx.out.append(Outbound(ctx.chat.id, ctx.texts("link.undone"), "info", user=ctx.user.id))


HANDLERS: dict[type, Handler] = {Link: link, Unlink: unlink}
