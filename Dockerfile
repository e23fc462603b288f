# cardtable in a container: docs/production.md explains building, running and updating it.
#
#   docker build -t cardtable .
#   docker run -d --name cardtable --init --env-file .env -v cardtable-data:/data cardtable
#
# Or `docker compose up -d` with compose.yaml beside this file.

ARG PYTHON_VERSION=3.11

# -- build: the project as a wheel (its dependencies come from the lockfile below) ------
FROM python:${PYTHON_VERSION}-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
WORKDIR /src
COPY . .
RUN pip wheel --no-deps --wheel-dir /wheels .

# -- run ---------------------------------------------------------------------------------
FROM python:${PYTHON_VERSION}-slim
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

# The exact dependencies, each checked against its hash, then the project alone.
COPY requirements.lock /tmp/requirements.lock
RUN pip install --require-hashes -r /tmp/requirements.lock && rm /tmp/requirements.lock
COPY --from=build /wheels /tmp/wheels
RUN pip install --no-deps /tmp/wheels/*.whl && rm -r /tmp/wheels

# A user of its own (a fixed uid, so a volume's owner stays the same across images).
RUN groupadd --system --gid 10001 cardtable \
 && useradd --system --uid 10001 --gid cardtable --no-create-home \
      --home-dir /data --shell /usr/sbin/nologin cardtable \
 && mkdir /data && chown cardtable:cardtable /data

# The games live in /data (keep it on a volume); the health endpoint listens on 8080.
ENV DATABASE_PATH=/data/cardtable.db \
    HEALTH_HOST=0.0.0.0 \
    HEALTH_PORT=8080
VOLUME ["/data"]
EXPOSE 8080
WORKDIR /data
USER 10001:10001

HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot.app.health", "/healthz"]
# SIGTERM (docker stop) lets the bot close its tables and the database; see compose.yaml's
# stop_grace_period for how long it is given.
STOPSIGNAL SIGTERM
CMD ["cardtable"]
