#!/bin/bash
# reproduce bench/churn by hand: 500-file upstream, ctx add, one change
set -e
W=${UPD20_WORK:-/tmp/upd20/w}; CTX=${CTX:-/tmp/ctx-after}; rm -rf $W; mkdir -p $W/up
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=b@x.invalid GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=b@x.invalid GIT_CONFIG_NOSYSTEM=1
txt=$(printf 'Some documentation text. %.0s' $(seq 80))
for i in $(seq 0 499); do d=$W/up/docs/part$((i%10)); mkdir -p $d; printf '# Page %d\n\n%s\n' $i "$txt" > $d/$(printf page%03d.md $i); done
cd $W/up && git init -q -b main && git add -A && git commit -qm initial
mkdir -p $W/proj
CTX_CACHE=$W/cache "$CTX" -C $W/proj init >/dev/null
CTX_CACHE=$W/cache "$CTX" -C $W/proj add $W/up --path docs --alias docs >/dev/null 2>&1
git clone -q --depth 1 file://$W/up $W/native
