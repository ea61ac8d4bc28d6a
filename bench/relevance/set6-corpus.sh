#!/usr/bin/env bash
# set6-corpus.sh OUT: build the corpus of queries-set6.json (the sixth
# relevance set) from Go module zips. One sub-folder per project under OUT,
# holding only the documentation sources, each file keeping its real
# extension (.mdx stays .mdx, .rst stays .rst).
#
# Modules (exact versions, as the query set was written on them, 2026-11-26):
#   github.com/hashicorp/vault   v1.14.10  website/content (docs, api-docs)  -> OUT/vault   (.mdx)
#   github.com/cilium/cilium     v1.15.19  Documentation (Sphinx)            -> OUT/cilium  (.rst)
#   github.com/rclone/rclone     v1.76.0   docs/content (Hugo)               -> OUT/rclone  (.md)
# and the module's root CHANGELOG.md where it has one (vault, cilium), as
# OUT/NAME/CHANGELOG.md; rclone keeps its changelog in docs/content.
#
# Fetching works as in gomod-corpus.sh (debian-lib.sh's gomod_start,
# module_dir and project): `go mod download` into a temporary module cache,
# checked against the checksum database; it needs the go command and the
# module proxy. Versions are exact, so the corpus is the same on every run.
set -euo pipefail
# shellcheck source=debian-lib.sh
. "$(dirname "$0")/debian-lib.sh" # for corpus_out, gomod_start and project

corpus_out "$0" "$@"
gomod_start

# vault: the site's docs/ and api-docs/ (MDX with JSX: <Tabs>/<Tab>,
# <CodeBlockConfig>, <Note>, <Warning>, <Highlight>, <EnterpriseAlert>);
# not partials/ (snippets other pages @include). 1.14 is the last release
# under the MPL.
project vault github.com/hashicorp/vault@v1.14.10 website/content -name '*.mdx' -not -path './partials/*'

# cilium: the Sphinx sources (reStructuredText with directives: note,
# warning, code-block, tabs, include, ...); not the generated command
# reference (cmdref/, markdown), images, scripts and theme files.
project cilium github.com/cilium/cilium@v1.15.19 Documentation -name '*.rst'

# rclone: the Hugo site (one page per backend and per command, the big
# docs.md, filtering, FAQ, changelog.md).
project rclone github.com/rclone/rclone@v1.76.0 docs/content -name '*.md'

for p in vault cilium rclone; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
