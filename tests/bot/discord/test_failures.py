"""What the Discord client makes of each way a call to Discord can fail."""

from __future__ import annotations

import aiohttp
import discord

from bot.discord.failures import DROP, GONE, RETRY, failure
from tests.bot.discord.faults import http_error


def test_what_a_failure_means() -> None:
    wait = {"Retry-After": "2.5"}
    assert failure(http_error(429, 0, "rate limited", **wait)) == (RETRY, 2.5)
    assert failure(discord.RateLimited(7.0)) == (RETRY, 7.0)
    assert failure(http_error(502, 0, "Bad Gateway")) == (RETRY, None)
    assert failure(TimeoutError()) == (RETRY, None)
    assert failure(aiohttp.ServerDisconnectedError()) == (RETRY, None)
    assert failure(http_error(403, 50013, "Missing Permissions")) == (RETRY, None)
    assert failure(http_error(404, 10003, "Unknown Channel")) == (GONE, None)
    assert failure(http_error(403, 50001, "Missing Access")) == (GONE, None)
    assert failure(http_error(400, 50035, "Invalid Form Body")) == (DROP, None)
    assert failure(http_error(404, 10008, "Unknown Message")) == (DROP, None)
