#!/usr/bin/env bash
# Hook round trip (issue 4): hook process start → change on a subscription,
# beside the bare process start measured in the same run; the hook client's
# wall time with no daemon and with a hung one.
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./bench/relaybench -bin "$LOGWATCH_BIN" -n "${RELAY_N:-200}"
