#!/usr/bin/env bash
# One export through the real server, for bench/export/run.sh (WHARF_EXPORT_CMD):
#   wharf-export.sh path   DEST SOURCE_FILE         the document is {"path": SOURCE_FILE}
#   wharf-export.sh base64 DEST BASE64_TEXT_FILE    the document is {"base64": <the text>}
#   wharf-export.sh prepare path|base64 SOURCE       builds that request's params ahead of time
# It starts `wharf` with a script presenter that saves to DEST (overwriting), sends
# presentExporter with one document, waits for dialog/completed, shuts the server down and
# waits for it to exit. The load driver (bench/out/wharf-load) speaks the protocol; the base64
# text goes over the pipe as a JSON string, as a client would send it.
#
# The params are what a client has in hand before it asks (base64 -d is handed its input
# ready-made, too): `prepare` writes them next to SOURCE (SOURCE.params-FORM.json) before any
# clock starts, and an export uses that file when it is newer than SOURCE. Without it they are
# built here, inside whatever is timing this script.
set -euo pipefail
usage() { echo "usage: wharf-export.sh path|base64 DEST SOURCE, or wharf-export.sh prepare path|base64 SOURCE" >&2; exit 2; }
[[ $# -eq 3 ]] || usage
here=$(cd "$(dirname "$0")/../.." && pwd)

# The params of presentExporter with one document, SOURCE in the given form, to stdout.
params() {
    local form=$1 source=$2
    case $form in
        path) printf '{"documents":[{"filename":"document","writableContentTypes":["public.data"],"contents":{"path":"%s"}}],"contentType":"public.data"}' "$source" ;;
        base64) printf '{"documents":[{"filename":"document","writableContentTypes":["public.data"],"contents":{"base64":"'; tr -d '\n' < "$source"; printf '"}}],"contentType":"public.data"}' ;;
        *) usage ;;
    esac
}

if [[ $1 == prepare ]]; then
    form=$2 source=$3
    params "$form" "$source" > "$source.params-$form.json.partial"
    mv "$source.params-$form.json.partial" "$source.params-$form.json"
    exit 0
fi

form=$1 destination=$2 source=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/wharf-export.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf '[{"save":{"path":"%s","overwrite":true}}]' "$destination" > "$work/script.json"
params_file="$source.params-$form.json"
if [[ ! -f $params_file || ! $params_file -nt $source ]]; then
    params_file="$work/params.json"
    params "$form" "$source" > "$params_file"
fi
# A 64 MiB document is an 85 MiB base64 string, over the default --max-message-bytes (64 MiB):
# the limit is raised to what the message needs, as a client sending such documents must ask.
limit=$(( $(stat -c %s "$params_file") + 4096 ))
[ "$limit" -lt 67108864 ] && limit=67108864
"$here/bench/out/wharf-load" cycles -q -n 1 -m presentExporter -p "@$params_file" -- \
    "${WHARF:-$here/.build/release/wharf}" --presenter "script:$work/script.json" --state-dir "$work/state" \
    --max-message-bytes "$limit" >/dev/null
