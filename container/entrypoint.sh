#!/bin/sh
# The image's entrypoint. `serve` (the default command) runs `shu serve` on $SHU_HOST:$SHU_PORT,
# after ingesting the example knowledge base when SHU_EXAMPLE=1 (once: `shu-example` skips a
# copy already made). Anything else runs as given: `docker run … shu shu keys create --user ana`.
set -e
if [ "${1:-serve}" = serve ]; then
    [ $# -gt 0 ] && shift
    if [ "${SHU_EXAMPLE:-0}" = 1 ]; then
        shu-example
    fi
    exec shu serve --host "${SHU_HOST:-127.0.0.1}" --port "${SHU_PORT:-8000}" "$@"
fi
exec "$@"
