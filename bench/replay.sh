#!/usr/bin/env bash
# Turn-end latency on the peer recordings (issue 6): recorded turn-end write →
# our done/ready, beside the peer's own transitions. Virtual time.
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./bench/replaybench -scenarios ../shared/realworld/irrlicht-scenarios
