#!/usr/bin/env bash
# set15-corpus.sh OUT: build the corpus of queries-set15.json (the
# fifteenth relevance set) from two Go module zips: two documentation sites
# that keep a copy of every page per release in the repository, in layouts
# other than set 14's: Hugo folders named by bare version numbers ("1.32")
# beside "main", and Docusaurus MDX with the unreleased "next" docs in
# docs/docs beside versioned_docs/version-vX.Y.
#
#   github.com/projectcontour/contour  v1.33.8  site/content/docs/{main,1.32,1.31,1.30,1.29}  -> OUT/contour/docs (.md)
#                                               site/content/resources (unversioned pages)   -> OUT/contour/resources (.md)
#                                               changelogs/ (release notes, one per release) -> OUT/contour/changelogs (.md)
#   github.com/ory/kratos              v0.5.5-alpha.1  docs/docs (next) + docs/versioned_docs/version-v0.1 .. v0.5
#                                                                                             -> OUT/kratos (.md, .mdx)
#
# Fetching works as in set10-corpus.sh (debian-lib.sh's corpus_out,
# gomod_start, module_dir, copy): `go mod download` into a temporary module
# cache, checked against the checksum database. Versions are exact.
set -euo pipefail
# shellcheck source=debian-lib.sh
. "$(dirname "$0")/debian-lib.sh" # for corpus_out, gomod_start, module_dir, folder and copy

corpus_out "$0" "$@"
gomod_start

# contour: the Hugo site's docs for the main branch and the last four
# releases (site/config.yaml: latest_version "1.32"; each folder holds the
# same ~58 pages: config/ (one page per HTTPProxy feature), guides/,
# troubleshooting/, configuration, deploy options, upgrading Envoy), the
# unversioned resources/ pages (FAQ, upgrading, compatibility matrix,
# support, security) and the release notes of every release since 1.10.
cdir=$(module_dir github.com/projectcontour/contour@v1.33.8)
for v in main 1.32 1.31 1.30 1.29; do
	copy "$cdir/site/content/docs/$v" "$out/contour/docs/$v" -name '*.md'
done
copy "$cdir/site/content/resources" "$out/contour/resources" -name '*.md'
copy "$cdir/changelogs" "$out/contour/changelogs" -name '*.md'
chmod -R u+w "$out/contour"

# kratos: the Docusaurus site's docs/docs (the next release's pages) and
# versioned_docs/version-v0.1 .. version-v0.5 (docs/versions.json: v0.5 is
# the latest release), Markdown and MDX; not the code samples (.txt, .js)
# beside the self-service flow pages.
folder kratos github.com/ory/kratos@v0.5.5-alpha.1 docs \( -name '*.md' -o -name '*.mdx' \) \( -path './docs/*' -o -path './versioned_docs/*' \)

for p in contour kratos; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
