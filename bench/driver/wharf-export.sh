#!/usr/bin/env bash
# One export through the real server, for bench/export/run.sh (WHARF_EXPORT_CMD):
#   wharf-export.sh path   DEST SOURCE_FILE         the document is {"path": SOURCE_FILE}
#   wharf-export.sh base64 DEST BASE64_TEXT_FILE    the document is {"base64": <the text>}
# It starts `wharf` with a script presenter that saves to DEST (overwriting), sends
# presentExporter with one document, waits for dialog/completed, shuts the server down and
# waits for it to exit. The load driver (bench/out/wharf-load) speaks the protocol; the base64
# text goes over the pipe as a JSON string, as a client would send it.
set -euo pipefail
form=$1 destination=$2 source=$3
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/wharf-export.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf '[{"save":{"path":"%s","overwrite":true}}]' "$destination" > "$work/script.json"
case $form in
    path) printf '{"documents":[{"filename":"document","writableContentTypes":["public.data"],"contents":{"path":"%s"}}],"contentType":"public.data"}' "$source" > "$work/params.json" ;;
    base64) { printf '{"documents":[{"filename":"document","writableContentTypes":["public.data"],"contents":{"base64":"'; tr -d '\n' < "$source"; printf '"}}],"contentType":"public.data"}'; } > "$work/params.json" ;;
    *) echo "usage: wharf-export.sh path|base64 DEST SOURCE" >&2; exit 2 ;;
esac
# A 64 MiB document is an 85 MiB base64 string, over the default --max-message-bytes (64 MiB):
# the limit is raised to what the message needs, as a client sending such documents must ask.
limit=$(( $(stat -c %s "$work/params.json") + 4096 ))
[ "$limit" -lt 67108864 ] && limit=67108864
"$here/bench/out/wharf-load" cycles -q -n 1 -m presentExporter -p "@$work/params.json" -- \
    "$here/.build/release/wharf" --presenter "script:$work/script.json" --state-dir "$work/state" \
    --max-message-bytes "$limit" >/dev/null
