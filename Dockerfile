# Orchard in a container; the README's "Running it" has the docker run line.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    ORCHARD_DB=/data/orchard.db
RUN useradd --create-home --uid 10001 orchard && mkdir /data && chown orchard /data
WORKDIR /app

# The dependencies in a layer of their own, read from pyproject.toml alone: a change to the
# code reuses this layer instead of installing them again. The postgres extra (asyncpg) too,
# so that one image runs on either database (ORCHARD_DB).
COPY pyproject.toml ./
RUN python -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; print('\n'.join(p['dependencies'] + p['optional-dependencies']['postgres']))" > /tmp/requirements.txt \
    && pip install --no-cache-dir -r /tmp/requirements.txt && rm /tmp/requirements.txt

COPY README.md ./
COPY bot ./bot
COPY cogs ./cogs
COPY db ./db
RUN pip install --no-cache-dir --no-deps .

USER orchard
VOLUME ["/data"]
# `orchard health` reads the gateway heartbeat the bot records in its database.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 CMD ["orchard", "health"]
# Exec form: orchard is PID 1 and gets docker stop's SIGTERM itself (it installs a handler,
# finishes the moves in flight and exits 0 within docker's 10 s).
CMD ["orchard"]
