"""The web board platform: every table's page, live, and each seat's page to play by taps
(see docs/web.md). :class:`bot.web.server.WebBoard` serves it inside another platform's
process or, through :func:`main`, in a process of its own (``genial-bot web``)."""
