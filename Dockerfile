# genial-bot in a container: a slim Python, the bot installed from this checkout into a
# virtual environment, run as a user of its own, the SQLite store on a volume.
#   docker build -t genial-bot .
#   docker run -d --restart unless-stopped -v genial:/var/lib/genial -e GENIAL_TELEGRAM_TOKEN=... genial-bot
# Every setting can be given as GENIAL_<SECTION>__<KEY> (docs/operating.md); compose.yaml
# runs two processes on PostgreSQL.
FROM python:3.12-slim

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY engine ./engine
COPY render ./render
COPY bot ./bot
# A C compiler for the computer players' C loops (engine/ai/_kernel.c: about a third of the
# CPU per move; without it the install falls back to the pure-Python players).
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/genial-bot && /opt/genial-bot/bin/pip install --no-compile .
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/genial --create-home genial

USER genial
WORKDIR /var/lib/genial
VOLUME /var/lib/genial
ENV PATH=/opt/genial-bot/bin:$PATH \
    GENIAL_BOT__STORAGE=/var/lib/genial/genial.sqlite3 \
    GENIAL_METRICS__PORT=9464
EXPOSE 9464
# The operator's view answers on 127.0.0.1 inside the container; a scraper in another
# container needs GENIAL_METRICS__LISTEN=0.0.0.0 (and the port published). It answers from
# the start: 503 while the bot waits for a store not reachable yet (the container is then
# unhealthy but running), 200 once it serves.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:9464/healthz', timeout=4)"]
# The exec form: genial-bot is the container's first process and gets `docker stop`'s
# SIGTERM itself (a clean stop, exit status 0). Status 2 is a setting to fix, 1 a failure
# that may mend (docs/operating.md: What restarts what); choose the restart policy by it.
CMD ["genial-bot"]
