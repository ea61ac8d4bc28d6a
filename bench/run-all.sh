#!/usr/bin/env bash
# Runs every benchmark of ctx one after another, so that they share one quiet
# machine and one moment, and writes each one's output to bench/out/*.log.
# The results, with the machine, are written up in bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(pwd)/bench/out"
mkdir -p "$out"
corpus="${CORPUS:-$(cd .. && pwd)/shared/corpus}"

machine() {
  echo "date: $(date -u +%FT%TZ)"
  echo "cpu: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "mem: $(free -g | awk '/Mem:/ {print $2}') GiB; $(go version); $(git --version)"
  echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
}

machine | tee "$out/machine.txt"

echo "== package manager (issue 3): 10-package install vs native git, update with nothing new" >&2
go test ./workspace -run '^$' -bench 'InstallVsNative|InstallCLIVsNative|UpdateNothingNew' -benchtime 5x -count 3 | tee "$out/workspace.log"

echo "== index while fetching (issue 18): install of 20 corpus packages, indexed as they land vs after" >&2
CTX_BENCH_CORPUS="$corpus" go test ./workspace -run '^$' -bench 'InstallIndexWhileFetching' -benchtime 3x -count 1 | tee "$out/stream.log"

echo "== gitengine (issue 2): sparse fetch of a folder of a 21k-file repo vs native git" >&2
bash bench/gitengine/run.sh 3 | tee "$out/gitengine.log"

echo "== indexer (issue 5): full build, incremental, search latency on the corpus" >&2
go -C bench run ./indexer -corpus "$corpus" | tee "$out/indexer.log"

echo "== relevance (issue 5, 14): held-out queries on the corpus; one-call answers over MCP" >&2
go -C bench run ./relevance -corpus "$corpus" -onecall -maxtokens 3000 | tee "$out/relevance.log"

echo "== relevance, second held-out set (issue 15): 60 queries written blind to the ranker" >&2
go -C bench run ./relevance -corpus "$corpus" -queries relevance/queries-heldout.json | tee "$out/relevance-heldout.log"

echo "== crash (issues 9, 18): SIGKILL of the shipped binary at random moments, then recovery checks" >&2
go build -o "$out/ctx-crash" ./cmd/ctx
go -C bench run ./crash -ctx "$out/ctx-crash" -kills 300 -files 300 -seed 7 | tee "$out/crash.log"

echo "== nav (issue 14): calls and tokens to list, browse by folder, outline; pages at 1,000 packages" >&2
go -C bench run ./nav -corpus "$corpus" | tee "$out/nav.log"

echo "== mcp (issue 6): start to initialize, search round trips over stdio" >&2
go -C bench run ./mcp -corpus "$corpus" -work "$out/mcp-work" -starts 40 -searches 400 | tee "$out/mcp.log"

echo "== scale (issue 18): 1x, 3x, 10x the corpus; 1,000 packages; install of 100 vs native git (writes $out/scale.md, scale.png)" >&2
go -C bench run ./scale -corpus "$corpus" -out "$out" | tee "$out/scale.log"

machine | tee -a "$out/machine.txt"
