#!/usr/bin/env bash
# set13-corpus.sh OUT: build the corpus of queries-set13.json (the
# thirteenth relevance set) from one Debian package and two Go module zips:
# three documentation sites as their sources are kept, each with its release
# notes beside the pages (issue 27: release notes ranked first).
#
#   python3.11-doc (Debian 12)        3.11.2-6+deb12u9  Sphinx _sources: library/, howto/,
#                                                       faq/, tutorial/, using/, reference/,
#                                                       whatsnew/ (2.0 .. 3.11 + changelog) -> OUT/python (.rst)
#   github.com/hashicorp/nomad        v1.5.6            website/content (docs, intro, tools,
#                                                       plugins, api-docs; not partials/)
#                                                       + CHANGELOG.md                    -> OUT/nomad  (.mdx, .md)
#   github.com/golangci/golangci-lint v1.55.2           docs/src/docs (.mdx) + CHANGELOG.md
#                                                       + README.md                       -> OUT/golangci-lint
#
# Fetching works as in set12-corpus.sh (debian-lib.sh's corpus_out,
# gomod_start, module_dir, copy, fetch_packages; run 'apt-get update'
# first). Versions are exact; the Debian package's is checked.
set -euo pipefail
# shellcheck source=debian-lib.sh
. "$(dirname "$0")/debian-lib.sh" # for corpus_out, gomod_start, module_dir, project, copy and fetch_packages

corpus_out "$0" "$@"
gomod_start
chmod 755 "$tmp" # apt-get download runs as _apt
chown _apt "$tmp" 2>/dev/null || true
declare -A want_version=([python3.11-doc]=3.11.2-6+deb12u9)

# python: the rst sources Sphinx keeps beside the HTML, named *.rst: the
# library reference (one page per module, ~300), the HOWTOs, the FAQ pages,
# the tutorial, "Python Setup and Usage", the language reference, and
# whatsnew/: one "What's New In Python X.Y" page per release since 2.0 and
# changelog.rst (every bpo/gh entry of 3.11). Not the C API, extending,
# distutils or installing pages.
fetch_packages "$tmp" python3.11-doc
src="$tmp/x-python3.11-doc/usr/share/doc/python3.11/html/_sources"
for d in library howto faq tutorial using reference whatsnew; do
	copy "$src/$d" "$out/python/$d" \( -name '*.rst.txt' -o -name '*.rst.txt.gz' \)
done
cp "$src/glossary.rst.txt" "$out/python/glossary.rst.txt"
gunzip_all "$out/python"
find "$out/python" -type f -name '*.rst.txt' -print0 | while IFS= read -r -d '' f; do
	mv "$f" "${f%.txt}"
done

# nomad: the website's MDX pages (docs: job specification, one page per
# command and per driver, configuration, concepts, upgrade guides; api-docs:
# one page per HTTP API group; intro; tools; plugins) and the root
# CHANGELOG.md (every release).
project nomad github.com/hashicorp/nomad@v1.5.6 website/content -name '*.mdx' -not -path './partials/*'

# golangci-lint: the documentation site (usage: install, quick start,
# configuration, false positives, performance, integrations, FAQ;
# contributing; product) and the root CHANGELOG.md and README.md.
project golangci-lint github.com/golangci/golangci-lint@v1.55.2 docs/src/docs -name '*.mdx'
gdir=$(module_dir github.com/golangci/golangci-lint@v1.55.2) # already in the temporary cache
cp "$gdir/README.md" "$out/golangci-lint/README.md"
chmod -R u+w "$out/golangci-lint"

for p in python nomad golangci-lint; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
