#!/usr/bin/env bash
# End-to-end smoke test of `ctx mcp` with the MCP Inspector's CLI from npm
# (@modelcontextprotocol/inspector --cli): tools/list, a search, a
# get_document, resources/read of ctx://index, and one isError case.
#
# Skips (exit 0, with a message) when node/npx is missing, or when the
# Inspector cannot be installed (no network) unless CTX_INSPECTOR_REQUIRED=1.
# The Inspector is installed once into $CTX_INSPECTOR_DIR (default: the user
# cache dir). Fails (exit 1) on any wrong answer.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "mcp-inspector: $*" >&2; }

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  say "SKIP: node/npm not found; install Node.js 18+ to run the MCP Inspector smoke test"
  exit 0
fi

version="${INSPECTOR_VERSION:-0.15.0}"
dir="${CTX_INSPECTOR_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ctx-ci/inspector-$version}"
cli="$dir/node_modules/@modelcontextprotocol/inspector-cli/build/index.js"
. .ci/npm.sh
[ -f "$cli" ] || npm_install_or_skip "$dir" "@modelcontextprotocol/inspector@$version"
if [ ! -f "$cli" ]; then
  say "FAIL: the Inspector CLI is not at $cli (layout changed? set INSPECTOR_VERSION)"
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go build -o "$work/ctx" ./cmd/ctx

# A small project: one package, a lock; the server builds the index itself
# on the first call (it re-indexes whatever is stale).
proj="$work/proj"
mkdir -p "$proj/.context/packages/guide/docs"
cat >"$proj/.context/packages/guide/README.md" <<'EOF'
# Guide

Start with docs/setup.md.
EOF
cat >"$proj/.context/packages/guide/docs/setup.md" <<'EOF'
---
title: Setup guide
tags: [onboarding]
---
# Setup

## Install

Run the installer. The word zanzibar is only here.

## Configure

Edit the config file.
EOF
# What `ctx install` leaves beside the files: the state that says this
# machine installed the package (without it ctx neither indexes nor serves
# a committed packages/ folder: project.InstalledHere, mcppkg21).
mkdir -p "$proj/.context/.state"
printf '{"withheld":null,"commit":"a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1","files":[]}' >"$proj/.context/.state/guide.json"
cat >"$proj/.context/context.lock" <<'EOF'
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
EOF

fails=0
# inspect NAME CHECK ARGS...: runs the Inspector CLI against ctx mcp and
# checks its JSON output with the node expression CHECK (r is the result).
inspect() {
  local name="$1" check="$2"
  shift 2
  local out
  if ! out="$(timeout 120 node "$cli" "$work/ctx" mcp -C "$proj" "$@" 2>"$work/stderr")"; then
    say "FAIL: $name: the Inspector exited with an error:"
    cat "$work/stderr" >&2
    echo "$out" >&2
    fails=$((fails + 1))
    return
  fi
  if ! printf '%s' "$out" | node -e '
      let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
        let r; try { r = JSON.parse(s) } catch (e) { console.error("not JSON: " + s.slice(0, 300)); process.exit(1) }
        const ok = (function (r) { return eval(process.argv[1]) })(r);
        if (!ok) { console.error("unexpected answer: " + s.slice(0, 600)); process.exit(1) }
      })' "$check"; then
    say "FAIL: $name"
    fails=$((fails + 1))
    return
  fi
  say "ok: $name"
}

inspect "tools/list: the core tools, every tool read-only" \
  'const n = r.tools.map(t => t.name); ["get_document","get_overview","get_section","list_contexts","search","get_links","find_documents"].every(x => n.includes(x)) && r.tools.every(t => t.annotations && t.annotations.readOnlyHint === true)' \
  --method tools/list
inspect "search finds the passage" \
  'const h = r.structuredContent.hits; !r.isError && h.length > 0 && h[0].package === "guide" && h[0].path === "docs/setup.md" && /zanzibar/i.test(h[0].snippet)' \
  --method tools/call --tool-name search --tool-arg query=zanzibar
inspect "search takes a packages array (a plain array in the schema)" \
  '!r.isError && r.structuredContent.hits.length > 0 && r.structuredContent.hits.every(h => h.package === "guide")' \
  --method tools/call --tool-name search --tool-arg query=zanzibar --tool-arg 'packages=["guide"]'
inspect "get_document returns the document" \
  '!r.isError && r._meta.totalLines === 13 && r.content[0].text.includes("The word zanzibar is only here.") && r.content.some(c => c.type === "resource_link" && c.uri === "ctx://packages/guide/docs/setup.md")' \
  --method tools/call --tool-name get_document --tool-arg package=guide --tool-arg path=docs/setup.md
inspect "resources/read ctx://index" \
  'r.contents.length === 1 && r.contents[0].uri === "ctx://index" && r.contents[0].text.includes("guide")' \
  --method resources/read --uri ctx://index
inspect "a path outside the package is an isError result" \
  'r.isError === true && /outside|refused/.test(r.content[0].text) && !r.content[0].text.includes("root:")' \
  --method tools/call --tool-name get_document --tool-arg package=guide --tool-arg path=../../../../etc/passwd
inspect "an unknown package says did you mean" \
  'r.isError === true && r.content[0].text.includes("Did you mean \"guide\"")' \
  --method tools/call --tool-name get_document --tool-arg package=gide --tool-arg path=README.md

if [ "$fails" -gt 0 ]; then
  say "$fails check(s) failed"
  exit 1
fi
say "all checks passed (Inspector $version)"
