# genial-bot in a container: the bot built into a virtual environment in one stage (with a C
# compiler for the computer players' C loops) and copied into a slim Python without one, run
# as a user of its own, the SQLite store in /var/lib/genial.
#   docker build -t genial-bot .
#   docker run -d --restart unless-stopped -v genial:/var/lib/genial \
#       --env-file genial.env genial-bot        # genial.env (mode 0600): GENIAL_TELEGRAM_TOKEN=...
# Every setting can be given as GENIAL_<SECTION>__<KEY> (docs/operating.md); compose.yaml
# runs two processes on PostgreSQL.
#
# The base image is pinned by the digest of its multi-platform index, so that a build today
# and a build next month start from the same bytes. To move to a newer python:3.12-slim (its
# security updates), look up the tag's current digest and replace the one below, then build
# and run the tests (docs/operating.md: Containers):
#   docker buildx imagetools inspect python:3.12-slim     # the "Digest:" line
ARG PYTHON_IMAGE=python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea

FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
# A C compiler for the computer players' C loops (engine/ai/_kernel.c: about a third of the
# CPU per move; without it the install falls back to the pure-Python players). Only this
# stage has it: the image the bot runs in gets the built module, not the compiler.
# hadolint ignore=DL3008
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY engine ./engine
COPY render ./render
COPY bot ./bot
# pip compiles every module to bytecode as it installs: the bot starts from .pyc files,
# which it cannot write itself at run time (the environment belongs to root). Then the
# boards' pieces are drawn ahead of time with the Pillow just installed, into the installed
# package (render/assets/pieces.bin, never committed: render/prebuilt.py), so a new
# process's first boards load them instead of drawing them (15-25 ms of CPU less each). -P:
# the installed package is the one imported, not the copy in /src (the working folder).
RUN python -m venv /opt/genial-bot && /opt/genial-bot/bin/pip install . \
    && /opt/genial-bot/bin/python -P -m render pieces

FROM ${PYTHON_IMAGE}
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
COPY --from=build /opt/genial-bot /opt/genial-bot
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/genial --create-home genial
# By number: a host or an orchestrator (runAsNonRoot) can tell it is no root without the
# image's /etc/passwd.
USER 10001:10001
WORKDIR /var/lib/genial
# The store lives in /var/lib/genial: mount a named volume there (docker run -v, or
# compose.yaml's). No VOLUME line: it would give every container that does not mount one
# (each PostgreSQL worker) an anonymous volume of its own, left behind on every update.
ENV PATH=/opt/genial-bot/bin:$PATH \
    GENIAL_BOT__STORAGE=/var/lib/genial/genial.sqlite3 \
    GENIAL_METRICS__PORT=9464
# The operator's view answers on 127.0.0.1 inside the container (so no EXPOSE): a scraper
# in another container needs GENIAL_METRICS__LISTEN=0.0.0.0 and the port published. It
# answers from the start: 503 while the bot waits for a store not reachable yet (the
# container is then unhealthy but running), 200 once it serves. `genial-bot health` asks
# it on the port the settings name (GENIAL_METRICS__PORT, or [metrics] port), whatever it is.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["genial-bot", "health"]
# The exec form: genial-bot is the container's first process and gets `docker stop`'s
# SIGTERM itself (a clean stop, exit status 0). The platform is named: a missing or
# misspelt token is then a setting to fix (status 2, the line says which variable),
# never a console that reads no input and exits 0. Status 2 is a setting to fix, 1 a
# failure that may mend (docs/operating.md: What restarts what). For Discord:
#   docker run ... genial-bot genial-bot discord
CMD ["genial-bot", "telegram"]
