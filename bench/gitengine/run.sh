#!/usr/bin/env bash
# Compare gitengine with native git (partial, shallow, sparse clone) on a
# large repository served over smart HTTP on 127.0.0.1.
#
#   bench/gitengine/run.sh [RUNS]
#
# Builds (once) bench/out/gitengine/src: /work/shared/corpus (copied) plus
# generated markdown, >= 20,000 files and >= 200 MB, and a bare copy served
# by git http-backend. Prints a markdown table; see README.md for results.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-3}
OUT=bench/out/gitengine
CORPUS=${CORPUS:-/work/shared/corpus}
FOLDER=${FOLDER:-corpus/rust-book}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
go -C bench build -o "$OUT/gebench" ./gitengine

export GIT_CONFIG_NOSYSTEM=1 HOME="$OUT/home" GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@ctx.invalid \
  GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@ctx.invalid
mkdir -p "$HOME"

if [ ! -d "$OUT/root/big.git" ]; then
  rm -rf "$OUT/src" "$OUT/root"
  mkdir -p "$OUT/src"
  cp -r "$CORPUS" "$OUT/src/corpus"
  "$OUT/gebench" gen "$OUT/src/bulk" 15000 190000000
  git -C "$OUT/src" init -q -b master
  git -C "$OUT/src" add -A
  git -C "$OUT/src" commit -q -m "big repository for the gitengine benchmark"
  mkdir -p "$OUT/root"
  git clone -q --bare --no-local "$OUT/src" "$OUT/root/big.git"
  git -C "$OUT/root/big.git" repack -adq
fi
echo "repository: $(git -C "$OUT/src" ls-files | wc -l) files, $(du -sh --exclude=.git "$OUT/src" | cut -f1) work tree, $(du -sh "$OUT/root/big.git" | cut -f1) packed; folder $FOLDER: $(git -C "$OUT/src" ls-files "$FOLDER" | wc -l) files" >&2

WORK=$(mktemp -d "$OUT/work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg), git $(git --version | cut -d' ' -f3)" >&2
"$OUT/gebench" run -root "$OUT/root" -repo big.git -src "$OUT/src" -folder "$FOLDER" -runs "$RUNS" -work "$WORK"
