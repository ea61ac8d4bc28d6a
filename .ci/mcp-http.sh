#!/usr/bin/env bash
# End-to-end test of `ctx mcp --http` with two clients from npm: the MCP
# Inspector's CLI over streamable HTTP (tools/list, a search) and the
# TypeScript SDK's StreamableHTTPClientTransport (a session: tools/list, a
# search, DELETE at close), plus a request without the token (401), and
# SIGTERM (exit 0).
#
# Skips (exit 0, with a message) when node/npm is missing, or when the
# packages cannot be installed (no network) unless CTX_INSPECTOR_REQUIRED=1.
# The pinned versions are installed once into $CTX_MCP_HTTP_DIR (default:
# the user cache dir). Fails (exit 1) on any wrong answer.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "mcp-http: $*" >&2; }

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  say "SKIP: node/npm not found; install Node.js 20+ to run the MCP over HTTP test"
  exit 0
fi

inspector="${INSPECTOR_HTTP_VERSION:-0.21.1}" # the first CLI line with --header
sdk="${TS_SDK_VERSION:-1.32.2}"
dir="${CTX_MCP_HTTP_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ctx-ci/mcp-http-$inspector-$sdk}"
cli="$dir/node_modules/@modelcontextprotocol/inspector/cli/build/index.js"
sdkdir="$dir/node_modules/@modelcontextprotocol/sdk"
. .ci/npm.sh
{ [ -f "$cli" ] && [ -f "$sdkdir/package.json" ]; } || npm_install_or_skip "$dir" "@modelcontextprotocol/inspector@$inspector" "@modelcontextprotocol/sdk@$sdk"
if [ ! -f "$cli" ]; then
  say "FAIL: the Inspector CLI is not at $cli (layout changed? set INSPECTOR_HTTP_VERSION)"
  exit 1
fi

work="$(mktemp -d)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/ctx" ./cmd/ctx

proj="$work/proj"
mkdir -p "$proj/.context/packages/guide/docs"
printf '# Setup\n\n## Install\n\nRun the installer. The word zanzibar is only here.\n' >"$proj/.context/packages/guide/docs/setup.md"
# What `ctx install` leaves beside the files: the state that says this
# machine installed the package (without it ctx neither indexes nor serves
# a committed packages/ folder: project.InstalledHere, mcppkg21).
mkdir -p "$proj/.context/.state"
printf '{"withheld":null,"commit":"a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1","files":[]}' >"$proj/.context/.state/guide.json"
cat >"$proj/.context/context.lock" <<'JSON'
{
  "packages": {
    "guide": {
      "commit": "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1",
      "hash": "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
      "path": "docs",
      "ref": "main",
      "source": "https://example.com/guide.git",
      "tree": "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2",
      "updated": "2026-01-01T00:00:00Z"
    }
  },
  "version": 1
}
JSON

token="ci-token-$(date +%s)-0123456789"
HOME="$work/home" CTX_MCP_TOKEN="$token" "$work/ctx" -C "$proj" mcp --http :0 2>"$work/stderr" &
pid=$!
url=""
for _ in $(seq 300); do
  url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$work/stderr" | head -1 || true)"
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$url" ]; then
  say "FAIL: ctx mcp --http printed no URL:"
  cat "$work/stderr" >&2
  exit 1
fi
say "server at $url"

fails=0
# check NAME CHECK CMD...: runs CMD, checks its JSON output with the node
# expression CHECK (r is the result).
check() {
  local name="$1" expr="$2"
  shift 2
  local out
  if ! out="$(timeout 120 "$@" 2>"$work/client-stderr")"; then
    say "FAIL: $name: exited with an error:"
    cat "$work/client-stderr" >&2
    echo "$out" >&2
    fails=$((fails + 1))
    return
  fi
  if ! printf '%s' "$out" | node -e '
      let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
        let r; try { r = JSON.parse(s) } catch (e) { console.error("not JSON: " + s.slice(0, 300)); process.exit(1) }
        const ok = (function (r) { return eval(process.argv[1]) })(r);
        if (!ok) { console.error("unexpected answer: " + s.slice(0, 600)); process.exit(1) }
      })' "$expr"; then
    say "FAIL: $name"
    fails=$((fails + 1))
    return
  fi
  say "ok: $name"
}

inspect=(node "$cli" "$url" --transport http --header "Authorization: Bearer $token")
check "Inspector CLI over HTTP: tools/list" \
  '["get_document","get_overview","get_section","list_contexts","search","get_links","find_documents"].every(x => r.tools.map(t => t.name).includes(x))' \
  "${inspect[@]}" --method tools/list
check "Inspector CLI over HTTP: search" \
  '!r.isError && r.structuredContent.hits.length > 0 && r.structuredContent.hits[0].path === "docs/setup.md"' \
  "${inspect[@]}" --method tools/call --tool-name search --tool-arg query=zanzibar

cat >"$work/ts-client.mjs" <<'JS'
const [sdk, url, token] = process.argv.slice(2);
const { Client } = await import(sdk + "/dist/esm/client/index.js");
const { StreamableHTTPClientTransport } = await import(sdk + "/dist/esm/client/streamableHttp.js");
const unauth = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: "{}" });
const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: "Bearer " + token } } });
const client = new Client({ name: "ctx-ci", version: "0" });
await client.connect(transport);
const tools = await client.listTools();
const res = await client.callTool({ name: "search", arguments: { query: "zanzibar" } });
const session = transport.sessionId;
await transport.terminateSession(); // DELETE
await client.close();
console.log(JSON.stringify({ status: unauth.status, auth: unauth.headers.get("www-authenticate"), session, tools: tools.tools.length, res }));
JS
check "TypeScript SDK streamable HTTP client: 401 without the token, a session, a search, DELETE" \
  'r.status === 401 && /^Bearer/.test(r.auth) && r.session && r.tools >= 7 && !r.res.isError && r.res.structuredContent.hits[0].path === "docs/setup.md"' \
  node "$work/ts-client.mjs" "$sdkdir" "$url" "$token"

kill -TERM "$pid"
code=0
wait "$pid" || code=$?
pid=""
if [ "$code" -ne 0 ]; then
  say "FAIL: ctx mcp --http exited $code after SIGTERM, want 0:"
  cat "$work/stderr" >&2
  fails=$((fails + 1))
else
  say "ok: SIGTERM: exit 0"
fi
if grep -q "$token" "$work/stderr"; then
  say "FAIL: the token is in the server's log"
  fails=$((fails + 1))
fi

if [ "$fails" -gt 0 ]; then
  say "$fails check(s) failed"
  exit 1
fi
say "all checks passed (Inspector $inspector, TypeScript SDK $sdk)"
