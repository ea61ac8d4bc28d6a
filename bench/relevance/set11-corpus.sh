#!/usr/bin/env bash
# set11-corpus.sh OUT: build the corpus of queries-set11.json (the eleventh
# relevance set: packages named by topic words) from Go module zips and one
# npm package. Each sub-folder of OUT is named by a generic topic word, as a
# team's packages often are, and holds real documentation of that kind from
# one project (markdown only):
#
#   OUT/api        github.com/gofiber/fiber/v3                  v3.1.0   docs/api, docs/client, docs/middleware (Fiber's API reference)
#   OUT/security   github.com/oauth2-proxy/oauth2-proxy/v7      v7.15.6  docs/docs (OAuth2 Proxy: authentication, providers, TLS, sessions)
#   OUT/standards  markdownlint (npm)                           0.40.0   doc/ (one page per Markdown style rule)
#   OUT/ops        github.com/matrix-org/dendrite               v0.13.8  docs/ (Dendrite: installing and administering a Matrix homeserver)
#   OUT/guides     github.com/danielgtaylor/huma/v2             v2.37.2  docs/docs (Huma: tutorial, how-to guides, features)
#   OUT/testing    github.com/testcontainers/testcontainers-go  v0.45.0  docs/ (Testcontainers for Go: features, modules, CI setup)
#
# Fetching works as in set10-corpus.sh (debian-lib.sh's corpus_out,
# gomod_start, module_dir, copy: `go mod download` into a temporary module
# cache, checked against the checksum database); markdownlint comes from the
# npm registry by `npm pack` (needs npm). Versions are exact, so the corpus
# is the same on every run. No CHANGELOG is copied: the folders hold one
# kind of page each.
set -euo pipefail
# shellcheck source=debian-lib.sh
. "$(dirname "$0")/debian-lib.sh" # for corpus_out, gomod_start and folder

corpus_out "$0" "$@"
gomod_start
if ! command -v npm >/dev/null; then
	echo "$(basename "$0"): the npm command is not on PATH; install Node.js and npm" >&2
	exit 1
fi

fiber=github.com/gofiber/fiber/v3@v3.1.0
folder api "$fiber" docs/api -name '*.md'
folder api/client "$fiber" docs/client -name '*.md'
folder api/middleware "$fiber" docs/middleware -name '*.md'
folder security github.com/oauth2-proxy/oauth2-proxy/v7@v7.15.6 docs/docs -name '*.md'
folder ops github.com/matrix-org/dendrite@v0.13.8 docs -name '*.md' -not -path './_*'
folder guides github.com/danielgtaylor/huma/v2@v2.37.2 docs/docs -name '*.md'
folder testing github.com/testcontainers/testcontainers-go@v0.45.0 docs -name '*.md'

# markdownlint: its rules' pages (doc/md001.md ... and Rules.md), as the
# npm package ships them.
(cd "$tmp" && npm pack markdownlint@0.40.0 --silent >/dev/null)
mkdir -p "$tmp/npm"
tar -xzf "$tmp"/markdownlint-0.40.0.tgz -C "$tmp/npm"
copy "$tmp/npm/package/doc" "$out/standards" -name '*.md'

for p in api security standards ops guides testing; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
