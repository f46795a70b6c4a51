#!/usr/bin/env bash
# Build Shu's image and run it with PostgreSQL + pgvector under compose, on a machine that reaches
# Debian's mirrors and PyPI but no image registry: the base is made from Debian's packages
# (container/make-base.sh), PostgreSQL is container/postgres built on it, every container uses the
# host's network and everything stays on 127.0.0.1. Then: ingest the example knowledge base in the
# running container, ask the README's question over HTTP and require a cited answer; print each
# step's time and the image sizes; tear everything down (compose down -v), on failure too.
#   scripts/container-check.sh
# As root it installs what is missing (Debian's docker.io, docker-compose, debootstrap) and starts
# dockerd (stopped again at the end). Exits non-zero on any failure.
# Settings (environment): SHU_CHECK_PORT (18000), SHU_CHECK_PG_PORT (55433), SHU_BASE_IMAGE
# (shu-base:bookworm), SHU_CHECK_KEEP=1 (leave the containers and volumes up), SHU_BUILD_CA_FILE
# (a PEM file of extra CAs pip must trust while building; default: the CAs this machine added
# under /usr/local/share/ca-certificates, for a TLS-intercepting proxy).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PORT="${SHU_CHECK_PORT:-18000}"
PG_PORT="${SHU_CHECK_PG_PORT:-55433}"
BASE="${SHU_BASE_IMAGE:-shu-base:bookworm}"
IMAGE="${SHU_CHECK_IMAGE:-shu:local}"
PG_IMAGE="${SHU_CHECK_PG_IMAGE:-shu-postgres:15}"
PROJECT="shu-check"
QUESTION="How many API requests per minute does the Pro plan allow?"
PERSONA="lumen-support"
DOCKERD_LOG="/tmp/shu-check-dockerd.log"

log() { echo "container-check: $*" >&2; }
fail() { log "FAILED: $*"; exit 1; }
now() { date +%s.%N; }
timings=()
step_start=0
start_step() { step_start="$(now)"; log "$1"; }
end_step() { timings+=("$(awk -v a="$step_start" -v b="$(now)" -v n="$1" 'BEGIN { printf "%-8s %6.1f s", n, b - a }')"); }

started_dockerd=""
compose_up=""
compose() {
    SHU_IMAGE="$IMAGE" SHU_POSTGRES_IMAGE="$PG_IMAGE" SHU_BASE_IMAGE="$BASE" SHU_PORT="$PORT" \
        SHU_PG_PORT="$PG_PORT" SHU_PG_PASSWORD="shu-check" SHU_EXAMPLE=0 \
        "${COMPOSE[@]}" -p "$PROJECT" -f "$ROOT/compose.yaml" "$@"
}

cleanup() {
    local code=$?
    set +e
    if [ -n "$compose_up" ]; then
        if [ "$code" != 0 ]; then
            log "the containers' last log lines:"
            compose logs --no-color --tail=40 >&2
        fi
        if [ "${SHU_CHECK_KEEP:-0}" = 1 ]; then
            log "SHU_CHECK_KEEP=1: left up, and dockerd too (${COMPOSE[*]} -p $PROJECT -f $ROOT/compose.yaml down -v removes them)"
        else
            compose down -v --remove-orphans >/dev/null 2>&1 || log "compose down failed"
        fi
    fi
    if [ -n "$started_dockerd" ] && [ "${SHU_CHECK_KEEP:-0}" != 1 ]; then
        kill "$started_dockerd" 2>/dev/null && wait "$started_dockerd" 2>/dev/null
        log "stopped the dockerd this check started"
    fi
    [ "$code" = 0 ] || log "exit $code"
    exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

total_start="$(now)"

# 1. tools: Debian's docker.io, docker-compose and debootstrap
start_step "tools: docker.io, docker-compose, debootstrap"
missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if ! docker compose version >/dev/null 2>&1 && ! command -v docker-compose >/dev/null; then
    missing+=(docker-compose)
fi
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || fail "missing ${missing[*]} and this user cannot install them"
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
        || fail "apt-get install ${missing[*]}"
fi
if docker compose version >/dev/null 2>&1; then COMPOSE=(docker compose); else COMPOSE=(docker-compose); fi
end_step tools

# 2. the daemon
start_step "dockerd"
if ! docker info >/dev/null 2>&1; then
    [ "$(id -u)" = 0 ] || fail "no Docker daemon, and this user cannot start one"
    for opts in "" "--iptables=false --bridge=none"; do
        # shellcheck disable=SC2086
        dockerd $opts >"$DOCKERD_LOG" 2>&1 &
        started_dockerd=$!
        for _ in $(seq 1 30); do
            docker info >/dev/null 2>&1 && break 2
            kill -0 "$started_dockerd" 2>/dev/null || break
            sleep 1
        done
        log "dockerd ${opts:-with default networking} did not come up (log: $DOCKERD_LOG)"
        kill "$started_dockerd" 2>/dev/null; wait "$started_dockerd" 2>/dev/null || true
        started_dockerd=""
    done
    docker info >/dev/null 2>&1 || fail "dockerd would not start: $(tail -3 "$DOCKERD_LOG")"
fi
end_step dockerd

for port in "$PORT" "$PG_PORT"; do
    if python3 -c "import socket, sys; s = socket.socket(); sys.exit(s.connect_ex(('127.0.0.1', $port)) != 0)"; then
        fail "127.0.0.1:$port is taken (SHU_CHECK_PORT / SHU_CHECK_PG_PORT choose others)"
    fi
done

# 3. the base from Debian's packages
start_step "base: $BASE (debootstrap + docker import)"
"$ROOT/container/make-base.sh" "$BASE" || fail "making the base $BASE"
end_step base

# 4. the images (one build at a time: the cores are shared)
ca_args=()
if [ -n "${SHU_BUILD_CA_FILE:-}" ]; then
    ca_args=(--build-arg "EXTRA_CA_CERTS=$(cat "$SHU_BUILD_CA_FILE")")
elif compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    ca_args=(--build-arg "EXTRA_CA_CERTS=$(cat /usr/local/share/ca-certificates/*.crt)")
fi
start_step "build: $IMAGE on $BASE"
docker build --network host --build-arg "BASE_IMAGE=$BASE" "${ca_args[@]}" -t "$IMAGE" "$ROOT" \
    >/tmp/shu-check-build.log 2>&1 || { tail -40 /tmp/shu-check-build.log >&2; fail "docker build $IMAGE"; }
end_step build
start_step "build: $PG_IMAGE on $BASE"
docker build --network host --build-arg "BASE_IMAGE=$BASE" -t "$PG_IMAGE" "$ROOT/container/postgres" \
    >/tmp/shu-check-build-pg.log 2>&1 || { tail -40 /tmp/shu-check-build-pg.log >&2; fail "docker build $PG_IMAGE"; }
end_step build-pg

# 5. compose up, until both are healthy
start_step "compose up ($PROJECT: Shu on 127.0.0.1:$PORT, PostgreSQL on 127.0.0.1:$PG_PORT)"
compose down -v --remove-orphans >/dev/null 2>&1 || true
compose_up=1
compose up -d --no-build >/dev/null 2>&1 || { compose up -d --no-build; fail "compose up"; }
healthy() { [ "$(docker inspect -f '{{.State.Health.Status}}' "$(compose ps -q "$1")" 2>/dev/null)" = healthy ]; }
for _ in $(seq 1 180); do
    healthy postgres && healthy shu && break
    sleep 1
done
healthy postgres || fail "postgres is not healthy"
healthy shu || fail "shu is not healthy"
end_step start

# 6. ingest the example knowledge base in the running container (into the PostgreSQL store)
start_step "ingest: shu-example in the shu container"
compose exec -T shu shu-example >/tmp/shu-check-ingest.log 2>&1 || { cat /tmp/shu-check-ingest.log >&2; fail "ingest"; }
tail -3 /tmp/shu-check-ingest.log >&2
end_step ingest

# 7. the README's question over HTTP: a cited answer
start_step "ask over HTTP: $QUESTION"
python3 - "$PORT" "$QUESTION" "$PERSONA" <<'PY' || fail "ask"
import json, sys, urllib.request

port, question, persona = sys.argv[1:]
base = f"http://127.0.0.1:{port}"
health = json.load(urllib.request.urlopen(f"{base}/healthz", timeout=10))
assert health.get("status") == "ok", health
request = urllib.request.Request(
    f"{base}/v1/ask",
    data=json.dumps({"question": question, "persona": persona}).encode(),
    headers={"Content-Type": "application/json"},
)
with urllib.request.urlopen(request, timeout=120) as response:
    answer = json.load(response)
markdown = answer.get("markdown") or ""
citations = answer.get("citations") or []
print(markdown, file=sys.stderr)
problems = []
if answer.get("insufficient") or answer.get("out_of_scope"):
    problems.append("declined")
if not citations:
    problems.append("no citations")
if "[^" not in markdown:
    problems.append("no [^…] citation in the Markdown")
if not any(c.isdigit() for c in answer.get("text", "")):
    problems.append("no number in the answer")
if problems:
    sys.exit("not a cited answer: " + ", ".join(problems))
print("cited: " + "; ".join(f"{c['doc_id']} §{c['section_path']}" for c in citations), file=sys.stderr)
PY
end_step ask

if [ "${SHU_CHECK_KEEP:-0}" != 1 ]; then
    start_step "compose down -v"
    compose down -v --remove-orphans >/dev/null 2>&1 || fail "compose down"
    compose_up=""
    end_step down
fi

log "images:"
docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' \
    | grep -E "^(${IMAGE%%:*}|${PG_IMAGE%%:*}|${BASE%%:*}):" | sed 's/^/  /' >&2
log "timings:"
step_start="$total_start"; end_step total
printf '  %s\n' "${timings[@]}" >&2
log "passed"
