#!/bin/sh
# Copy the example knowledge base that ships in the image (/opt/shu/examples/personas) into the
# knowledge folder on the volume ($SHU_KNOWLEDGE, /data/knowledge) and ingest it. Ingesting writes
# the generated RAG/ Markdown into the persona folders, so it never runs on the image's copy.
# A persona folder already on the volume is kept as it is (a second run only ingests: incremental).
set -e
src=/opt/shu/examples/personas
dest="${SHU_KNOWLEDGE:-/data/knowledge}"
if [ ! -d "$src" ]; then
    echo "shu-example: this image was built without the example (SHU_EXAMPLES=0)" >&2
    exit 1
fi
mkdir -p "$dest"
for persona in "$src"/*/; do
    name="$(basename "$persona")"
    if [ ! -e "$dest/$name" ]; then
        cp -R "$persona" "$dest/$name"
    fi
done
exec shu ingest "$dest" "$@"
