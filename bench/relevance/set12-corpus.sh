#!/usr/bin/env bash
# set12-corpus.sh OUT: build the corpus of queries-set12.json (the twelfth
# relevance set) from two Go module zips and one Debian package, three
# shapes of documentation that the other sets have little of:
#
#   github.com/mark3labs/mcp-go      v1.2.1    www/docs/pages (.mdx, a Vocs site)   -> OUT/mcp-go    (.mdx)
#   github.com/kyverno/chainsaw      v0.2.12   website/docs (mkdocs: many small pages,
#                                              a generated page per CLI command and per
#                                              JMESPath function)                   -> OUT/chainsaw  (.md)
#   borgbackup-doc (Debian 12)       1.2.4-1   Sphinx _sources/*.rst.txt            -> OUT/borg      (.rst)
#
# Fetching works as in set10-corpus.sh for the modules (debian-lib.sh's
# corpus_out, gomod_start, module_dir, copy) and as in debian-corpus2.sh for
# the Debian package (fetch_packages: apt-get download, needs Debian 12's
# package lists: run 'apt-get update' first). Versions are exact; the Debian
# package's is checked and a different one is warned about.
set -euo pipefail
# shellcheck source=debian-lib.sh
. "$(dirname "$0")/debian-lib.sh" # for corpus_out, gomod_start, module_dir, copy and fetch_packages

corpus_out "$0" "$@"
gomod_start
chmod 755 "$tmp"             # apt-get download runs as _apt
chown _apt "$tmp" 2>/dev/null || true
declare -A want_version=([borgbackup-doc]=1.2.4-1)

# mcp-go: the documentation site's pages, all MDX (servers, clients,
# transports, quick start, core concepts).
mcp=$(module_dir github.com/mark3labs/mcp-go@v1.2.1)
copy "$mcp/www/docs/pages" "$out/mcp-go" -name '*.mdx'

# chainsaw: the documentation site (quick start, test and step syntax,
# operations, configuration options, examples, guides, and the generated
# reference: one page per command, per API version, per JMESPath function).
chainsaw=$(module_dir github.com/kyverno/chainsaw@v0.2.12)
copy "$chainsaw/website/docs" "$out/chainsaw" -name '*.md'
chmod -R u+w "$out/mcp-go" "$out/chainsaw"

# borg: the rst sources Sphinx keeps beside the HTML (quick start, FAQ,
# installation, deployment, internals, one usage page per command, and the
# change log). The usage pages' option tables are generated .rst.inc files
# that Debian does not ship: those pages hold the description and examples.
fetch_packages "$tmp" borgbackup-doc
copy "$tmp/x-borgbackup-doc/usr/share/doc/borgbackup/html/_sources" "$out/borg" \( -name '*.rst.txt' -o -name '*.rst.txt.gz' \)
gunzip_all "$out/borg"
find "$out/borg" -type f -name '*.rst.txt' -print0 | while IFS= read -r -d '' f; do
	mv "$f" "${f%.txt}"
done

for p in mcp-go chainsaw borg; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
