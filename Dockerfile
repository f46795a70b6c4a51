# Shu in a container: `shu serve` as a non-root user, the store, models and knowledge folders on
# the /data volume, a health check on /healthz, the example knowledge base optional.
#   docker build -t shu .
#   docker run --network host -v shu-data:/data -e SHU_EXAMPLE=1 shu      # http://127.0.0.1:8000
# With no registry: build on a base made from Debian's packages (container/make-base.sh),
#   docker build --network host --build-arg BASE_IMAGE=shu-base:bookworm -t shu .
# The base needs python3 (>= 3.11) with venv; only `python3` is used, never /usr/local/bin/python.
# Layers are ordered for rebuilds: the dependencies are installed again only when their list in
# pyproject.toml changes; a change to src/ rebuilds Shu's wheel and the last layers (seconds).
# See docs/container.md.
ARG BASE_IMAGE=python:3.11-slim-bookworm

# The dependencies, read from pyproject.toml (project.dependencies + the extras asked for).
FROM ${BASE_IMAGE} AS requirements
# postgres: the PostgreSQL store (psycopg, pgvector); "" for SQLite only; "postgres,int8" adds int8
ARG SHU_EXTRAS=postgres
COPY pyproject.toml /tmp/pyproject.toml
RUN python3 -c "import tomllib; p = tomllib.load(open('/tmp/pyproject.toml', 'rb'))['project']; \
extras = [e for e in '${SHU_EXTRAS}'.split(',') if e]; \
deps = p['dependencies'] + [d for e in extras for d in p['optional-dependencies'][e]]; \
open('/requirements.txt', 'w').write('\n'.join(d for d in deps if not d.startswith('shu[')) + '\n')"

# A virtual environment with the dependencies only.
FROM ${BASE_IMAGE} AS deps
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
# The CA (PEM text) of a TLS-intercepting proxy between this build and PyPI, if there is one:
# pip trusts it while building, and it never reaches the image. (PIP_CERT rather than --cert:
# pip's isolated build environments inherit the environment, not the options.)
ARG EXTRA_CA_CERTS=""
RUN mkdir -p /opt/shu/build && python3 -m venv /opt/shu/venv \
    && if [ -n "$EXTRA_CA_CERTS" ]; then \
        cat /etc/ssl/certs/ca-certificates.crt > /opt/shu/build/pip-ca.pem \
        && printf '%s\n' "$EXTRA_CA_CERTS" >> /opt/shu/build/pip-ca.pem \
        && export PIP_CERT=/opt/shu/build/pip-ca.pem; fi \
    && /opt/shu/venv/bin/pip install -q --upgrade pip
COPY --from=requirements /requirements.txt /opt/shu/build/requirements.txt
RUN if [ -f /opt/shu/build/pip-ca.pem ]; then export PIP_CERT=/opt/shu/build/pip-ca.pem; fi \
    && /opt/shu/venv/bin/pip install -q -r /opt/shu/build/requirements.txt

# Shu's wheel (its build backend, pyproject's build-system.requires, in a venv of its own).
FROM deps AS wheel
WORKDIR /src
RUN if [ -f /opt/shu/build/pip-ca.pem ]; then export PIP_CERT=/opt/shu/build/pip-ca.pem; fi \
    && python3 -m venv /opt/shu/build/venv \
    && /opt/shu/build/venv/bin/pip install -q "setuptools>=68" wheel
COPY pyproject.toml README.md ./
COPY src ./src
RUN /opt/shu/build/venv/bin/pip wheel -q --no-deps --no-build-isolation -w /wheels .

FROM ${BASE_IMAGE}
# 1: the example knowledge base (examples/personas) ships in the image, for SHU_EXAMPLE=1 or
# `shu-example`; 0 leaves it out.
ARG SHU_EXAMPLES=1
ARG SHU_UID=10001
LABEL org.opencontainers.image.title="Shu" \
      org.opencontainers.image.description="Cited answers from your own documents, offline" \
      org.opencontainers.image.licenses="Apache-2.0"
ENV PATH=/opt/shu/venv/bin:$PATH \
    SHU_HOME=/data/home \
    SHU_MODELS_DIR=/data/models \
    SHU_KNOWLEDGE=/data/knowledge \
    SHU_HOST=127.0.0.1 \
    SHU_PORT=8000 \
    SHU_EXAMPLE=0 \
    HF_HUB_OFFLINE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
RUN (getent group shu >/dev/null || groupadd --gid "$SHU_UID" shu) \
    && useradd --uid "$SHU_UID" --gid shu --home-dir /data --no-create-home --shell /usr/sbin/nologin shu \
    && mkdir -p /data/home /data/models /data/knowledge \
    && chown -R shu:shu /data
COPY examples/personas /opt/shu/examples/personas
RUN if [ "$SHU_EXAMPLES" != 1 ]; then rm -rf /opt/shu/examples; fi
COPY container/entrypoint.sh /usr/local/bin/shu-entrypoint
COPY container/shu-example.sh /usr/local/bin/shu-example
COPY --from=deps /opt/shu/venv /opt/shu/venv
COPY --from=wheel /wheels /tmp/wheels
RUN chmod 755 /usr/local/bin/shu-entrypoint /usr/local/bin/shu-example \
    && pip install -q --no-deps --no-index /tmp/wheels/*.whl \
    && rm -rf /tmp/wheels \
    && HOME=/tmp/shu-version shu --version && rm -rf /tmp/shu-version
USER shu
WORKDIR /data
# The store (<home>/shu.db, or PostgreSQL's through SHU_STORE__URL), installed models and the
# persona folders (RAW-DOCS/ uploads land there) outlive the container.
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=5s --start-period=120s --retries=5 \
    CMD ["python3", "-c", "import os, sys, urllib.request; r = urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('SHU_PORT', '8000'), timeout=4); sys.exit(r.status != 200)"]
ENTRYPOINT ["shu-entrypoint"]
CMD ["serve"]
