#!/usr/bin/env bash
# set14-corpus.sh OUT: build the corpus of queries-set14.json (the
# fourteenth relevance set) from two Go module zips: two documentation sites
# that keep a copy of every page per released version, so most pages have
# near-duplicates that differ in a few lines.
#
#   github.com/open-policy-agent/gatekeeper/v3  v3.14.0  website/docs (the next version)
#                                                        + website/versioned_docs (v3.6.x .. v3.13.x) -> OUT/gatekeeper (.md)
#   github.com/vmware-tanzu/velero              v1.13.2  site/content/docs/{main,v1.13,v1.12,v1.11,v1.10}
#                                                        + site/content/posts (the blog)             -> OUT/velero (.md)
#
# Fetching works as in set10-corpus.sh (debian-lib.sh's corpus_out,
# gomod_start, module_dir, copy): `go mod download` into a temporary module
# cache, checked against the checksum database. Versions are exact.
set -euo pipefail
# shellcheck source=debian-lib.sh
. "$(dirname "$0")/debian-lib.sh" # for corpus_out, gomod_start, module_dir, folder and copy

corpus_out "$0" "$@"
gomod_start

# gatekeeper: website/docs (31 pages: install, constraint templates, audit,
# mutation, external data, gator CLI, sync, exempt namespaces, metrics, ...)
# and versioned_docs/version-v3.N.x/ (the same pages as each release had them).
folder gatekeeper github.com/open-policy-agent/gatekeeper/v3@v3.14.0 website -name '*.md' \( -path './docs/*' -o -path './versioned_docs/*' \)

# velero: the docs of the main branch and of the last four releases (each
# folder holds the same ~70 pages: install, backup and restore reference,
# file system backup, CSI, hooks, resource filtering, troubleshooting,
# upgrade-to-1.N, API types) and the blog posts (release announcements).
vdir=$(module_dir github.com/vmware-tanzu/velero@v1.13.2)
for v in main v1.13 v1.12 v1.11 v1.10; do
	copy "$vdir/site/content/docs/$v" "$out/velero/docs/$v" -name '*.md'
done
copy "$vdir/site/content/posts" "$out/velero/posts" -name '*.md'
chmod -R u+w "$out/velero"

for p in gatekeeper velero; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
