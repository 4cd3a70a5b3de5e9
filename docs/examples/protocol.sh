#!/bin/sh
# A host app's first exchange with the logwatch daemon (docs/protocol.md), in
# plain shell with socat; prints the raw JSON lines.
#
# Usage: sh protocol.sh [SOCKET]   (default $LOGWATCH_SOCKET, then
# $XDG_RUNTIME_DIR/logwatch/logwatch.sock). It changes the state of a session
# named example-1 and a tab named example-tab, nothing else.
set -eu
SOCK=${1:-${LOGWATCH_SOCKET:-${XDG_RUNTIME_DIR:-/nonexistent}/logwatch/logwatch.sock}}
tmp=$(mktemp -d)
trap 'touch "$tmp/done"; rm -rf "$tmp"' EXIT

# One request, one answer. socat sends the line, half-closes, and waits up to
# 1 s (-t 1) for the answer. (nc -U works the same: nc -U -q 1 "$SOCK".)
printf '%s\n' '{"op":"status"}' | socat -t 1 - "UNIX-CONNECT:$SOCK"

# A subscription: the connection stays open while its input does (until
# $tmp/done exists); the answer, the snapshot and every change land in
# $tmp/stream.
{
  printf '%s\n' '{"op":"subscribe"}'
  while [ ! -e "$tmp/done" ]; do sleep 0.05; done
} | socat - "UNIX-CONNECT:$SOCK" >"$tmp/stream" &
i=0
until [ -s "$tmp/stream" ]; do # the first answer: the stream is live
  i=$((i + 1)); [ $i -lt 200 ] || { echo "no answer to subscribe" >&2; exit 1; }
  sleep 0.05
done

# Several requests on one connection: the answers come back in order, one
# line each, the last one a refusal.
hook() {
  printf '{"op":"hook","agent":"claude","tab":"example-tab","payload":{"hook_event_name":"%s","session_id":"example-1","cwd":"/tmp/example"}}\n' "$1"
}
{
  hook UserPromptSubmit
  hook Stop
  printf '%s\n' '{"op":"ack","session":"example-1"}' '{"op":"tab_closed","tab":"example-tab"}' '{"op":"nope"}'
} | socat -t 1 - "UNIX-CONNECT:$SOCK"

i=0
until grep -v '"snapshot":true' "$tmp/stream" | grep -q '"session":"example-1".*"state":"ended"'; do
  i=$((i + 1)); [ $i -lt 200 ] || { echo "the stream never showed the tab closed" >&2; exit 1; }
  sleep 0.05
done
touch "$tmp/done"
wait
cat "$tmp/stream"
