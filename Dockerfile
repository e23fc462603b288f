# cardtable in a container: docs/production.md explains building, running and updating it.
#
#   docker build -t cardtable .
#   docker run -d --name cardtable --init --env-file .env -v cardtable-data:/data cardtable
#
# Or `docker compose up -d` with compose.yaml beside this file.

# The base image of both stages, pinned by digest: a tag such as 3.11-slim moves to a
# new build every few weeks, so the same Dockerfile could build on different systems; a
# digest names one image. This is the multi-platform index of python:3.11-slim as
# docker-library/repo-info recorded it (Python 3.11.16 on Debian trixie, built
# 2026-08-13). To move to a newer build (a deliberate, reviewed change), put the digest
# that `docker buildx imagetools inspect python:3.11-slim` prints (its first "Digest:")
# here, rebuild and run the tests. docs/production.md: "Updating the pinned images".
ARG PYTHON_IMAGE=python:3.11-slim@sha256:a630a63cdb314e2d138a2fca3e375e319e8568346ffafac5b980f888630ac4f1

# -- build: the project as a wheel (its dependencies come from the lockfile below) ------
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
WORKDIR /src
COPY . .
RUN pip wheel --no-deps --wheel-dir /wheels .

# -- run ---------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE}
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
