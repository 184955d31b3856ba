# Orchard in a container: docker build -t orchard . && docker run --env-file .env -v orchard-data:/data orchard
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 ORCHARD_DB=/data/orchard.db
RUN useradd --create-home --uid 10001 orchard && mkdir /data && chown orchard /data
WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
COPY db ./db
RUN pip install --no-cache-dir .

USER orchard
VOLUME ["/data"]
CMD ["orchard"]
