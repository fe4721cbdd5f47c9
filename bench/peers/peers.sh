#!/usr/bin/env bash
# Runs the official Python and TypeScript agent SDKs against the fake CLI (the testkit's fake-claude) on the
# same work as this repository's `bench` examples, so that our figures stand beside theirs from
# one run on one machine.
#   bench/peers/peers.sh [REPEAT] [RTT]
#     REPEAT: corpus repetitions for the stream test (default 3000 ≈ 62 MB, 93k messages)
#     RTT: can_use_tool round trips for the latency test (default 5000)
# Needs cargo, python3 with venv, node and npm. Installs the SDKs into $PEERS_DIR
# (default /tmp/agent-sdk-peers).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
REPEAT=${1:-3000} RTT=${2:-5000}
PEERS_DIR=${PEERS_DIR:-/tmp/agent-sdk-peers}
mkdir -p "$PEERS_DIR"
target="${CARGO_TARGET_DIR:-$repo/target}"
cargo build -q --release --manifest-path "$repo/Cargo.toml" -p claude-agent-testkit --bin fake-claude
FAKE=$target/release/fake-claude
[ -x "$FAKE" ] || { echo "peers.sh: no fake CLI at $FAKE after the build" >&2; exit 1; }
if [ ! -x "$PEERS_DIR/venv/bin/python" ]; then
  python3 -m venv "$PEERS_DIR/venv" && "$PEERS_DIR/venv/bin/pip" install -q claude-agent-sdk==0.2.189
fi
if [ ! -d "$PEERS_DIR/ts/node_modules/@anthropic-ai/claude-agent-sdk" ]; then
  mkdir -p "$PEERS_DIR/ts" && (cd "$PEERS_DIR/ts" && npm init -y >/dev/null && npm install -q --no-audit --no-fund @anthropic-ai/claude-agent-sdk@0.3.332 >/dev/null)
fi
cp "$here/peer_ts.mjs" "$PEERS_DIR/ts/"
export FAKE_CLAUDE_CORPUS=$repo/core/tests/corpus.jsonl
echo "fake CLI: $FAKE   corpus: $(wc -l <"$FAKE_CLAUDE_CORPUS") lines x $REPEAT"
FAKE_CLAUDE_REPEAT=$REPEAT FAKE_CLAUDE_RTT=0 "$PEERS_DIR/venv/bin/python" "$here/peer_py.py" stream "$FAKE"
FAKE_CLAUDE_REPEAT=$REPEAT FAKE_CLAUDE_RTT=0 node "$PEERS_DIR/ts/peer_ts.mjs" stream "$FAKE"
rep=$(mktemp)
FAKE_CLAUDE_REPEAT=0 FAKE_CLAUDE_RTT=$RTT FAKE_CLAUDE_REPORT=$rep "$PEERS_DIR/venv/bin/python" "$here/peer_py.py" rtt "$FAKE" >/dev/null 2>&1
echo "python-sdk rtt: $(tail -n1 "$rep")"
FAKE_CLAUDE_REPEAT=0 FAKE_CLAUDE_RTT=$RTT FAKE_CLAUDE_REPORT=$rep node "$PEERS_DIR/ts/peer_ts.mjs" rtt "$FAKE" >/dev/null 2>&1
echo "typescript-sdk rtt: $(tail -n1 "$rep")"
rm -f "$rep"
