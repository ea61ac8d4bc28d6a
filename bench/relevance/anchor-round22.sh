#!/bin/bash
# anchor-round22.sh TAG [SETS...] (round 22, anchor22): the readable relevance sets
# on private work dirs built afresh by this tree (so that link texts are
# extracted by its links.go), each against the base ranks m22 of
# /work/relm23/run.sh. With bench/relevance/anchor-round22.patch applied:
# CTX_ANCHOR_BONUS=0.1 (A, coverage multiplier) or CTX_ANCHOR_FIELD=0.5 (B,
# BM25F field). Build the binary first: go -C bench build -o /tmp/anchor22-bin-full ./relevance
TAG=$1; shift
R=$(cd "$(dirname "$0")" && pwd) D=/tmp/anchor22-work
for s in ${*:-the58 heldout debian debian2 gomod set8 set10}; do
  case $s in the58) c=/work/shared/corpus q=$R/queries.json w=$D/idx-the58;; heldout) c=/work/shared/corpus q=$R/queries-heldout.json w=$D/idx-the58;; *) c=/work/corpus-$s q=$R/queries-$s.json w=$D/idx-$s;; esac
  /tmp/anchor22-bin-full -corpus $c -queries $q -work $w -save $D/$TAG-$s.json -against /work/relm23/m22-$s.json > $D/$TAG-$s.log 2>&1
  printf '%-8s %s  %s\n' $s "$(grep -o 'Recall@1.*' $D/$TAG-$s.log | tail -1)" "$(grep -o '^changed.*' $D/$TAG-$s.log | sed 's/; Wilcoxon.*//')"
done
