#!/usr/bin/env bash
# Every tool of `ctx mcp` (stdio) through two clients from npm, on the demo
# project (`ctx demo --dir`, no network):
#   - the current MCP Inspector CLI (2.x): tools/list with --strict must
#     report no schema problem, then tools/call of every listed tool;
#   - the TypeScript SDK's stdio client: every listed tool, resources/list
#     (paged) and a read, the ask-docs prompt, completion of an alias.
# The calls are in .ci/mcp-calls.json: a tool the server lists without an
# entry there fails the run, so a new tool must join it.
#
# Skips (exit 0, with a message) when node/npm is missing, or when the
# packages cannot be installed (no network) unless CTX_INSPECTOR_REQUIRED=1.
# Fails (exit 1) on any wrong answer.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "mcp-clients: $*" >&2; }

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  say "SKIP: node/npm not found; install Node.js 20+ to run the MCP clients test"
  exit 0
fi

inspector="${INSPECTOR_VERSION2:-2.12.0}"
sdk="${TS_SDK_VERSION:-1.32.2}"
dir="${CTX_MCP_CLIENTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ctx-ci/mcp-clients-$inspector-$sdk}"
cli="$dir/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
. .ci/npm.sh
{ [ -f "$cli" ] && [ -f "$dir/node_modules/@modelcontextprotocol/sdk/package.json" ]; } || npm_install_or_skip "$dir" "@modelcontextprotocol/inspector@$inspector" "@modelcontextprotocol/sdk@$sdk"
if [ ! -f "$cli" ]; then
  say "FAIL: the Inspector CLI is not at $cli (layout changed? set INSPECTOR_VERSION2)"
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go build -o "$work/ctx" ./cmd/ctx
"$work/ctx" demo --dir "$work/demo" >/dev/null 2>&1
proj="$work/demo/project"

INSPECTOR_V="$inspector" SDK_V="$sdk" NODE_PATH="$dir/node_modules" CTX="$work/ctx" PROJ="$proj" INSPECTOR="$cli" \
  node --input-type=module -e "$(cat .ci/mcp-clients.mjs)" .ci/mcp-calls.json
