#!/usr/bin/env bash
# set18-corpus.sh OUT: build the corpus of queries-set18.json (the
# eighteenth relevance set) from two Go module zips: the documentation
# sources of a log database (a Hugo site of ~200 Markdown pages with its
# release notes per version, upgrade and migration guides, design documents
# and release-process pages inside the tree as they ship) and of a web
# framework (a Docusaurus site of ~55 Markdown pages with its "what's new"
# page, which is also the v2 -> v3 migration guide).
#
#   github.com/grafana/loki/v3     v3.3.2           docs/sources (Hugo, shortcodes, front
#                                                   matter): get-started, setup (install,
#                                                   upgrade, migrate), configure, send-data
#                                                   (promtail and its ~30 pipeline stages,
#                                                   alloy, fluent-bit, otel, ...), query
#                                                   (LogQL), operations, reference (HTTP API),
#                                                   release-notes/ (v2.3 .. v3.3), community/
#                                                   (design documents, LIDs, release process)
#                                                                                 -> OUT/loki
#   github.com/gofiber/fiber/v3    v3.0.0-beta.4    docs (Docusaurus Markdown): api/ (app, ctx,
#                                                   bind, redirect, log, hooks, constants),
#                                                   middleware/ (one page each, 29), client/,
#                                                   guide/, extra/ (faq, benchmarks), intro,
#                                                   whats_new.md (new in v3 and the migration
#                                                   guide from v2)                -> OUT/fiber
#
# Fetching works as in set10-corpus.sh (debian-lib.sh's corpus_out,
# gomod_start, module_dir, copy): each zip is checked against the checksum
# database by go mod download. Versions are exact.
set -euo pipefail
# shellcheck source=debian-lib.sh
. "$(dirname "$0")/debian-lib.sh" # for corpus_out, gomod_start, module_dir and copy

corpus_out "$0" "$@"
gomod_start

ldir=$(module_dir github.com/grafana/loki/v3@v3.3.2)
copy "$ldir/docs/sources" "$out/loki" -name '*.md'

fdir=$(module_dir github.com/gofiber/fiber/v3@v3.0.0-beta.4)
copy "$fdir/docs" "$out/fiber" -name '*.md'
chmod -R u+w "$out"

for p in loki fiber; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
