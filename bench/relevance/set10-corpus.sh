#!/usr/bin/env bash
# set10-corpus.sh OUT: build the corpus of queries-set10.json (the tenth
# relevance set) from Go module zips. One sub-folder per project under OUT,
# holding only the documentation sources (all markdown).
#
# Modules (exact versions, as the query set was written on them, 2026-11-28):
#   github.com/containerd/containerd/v2  v2.1.4   docs + root pages        -> OUT/containerd (.md)
#   github.com/coredns/coredns           v1.11.3  plugin READMEs, notes,   -> OUT/coredns    (.md)
#                                                 man pages, root pages
#
# Fetching works as in gomod-corpus.sh and set6/7/8/9-corpus.sh
# (debian-lib.sh's corpus_out, gomod_start, module_dir, project, copy): `go
# mod download` into a temporary module cache, checked against the checksum
# database; it needs the go command and the module proxy. Versions are
# exact, so the corpus is the same on every run.
set -euo pipefail
# shellcheck source=debian-lib.sh
. "$(dirname "$0")/debian-lib.sh" # for corpus_out, gomod_start, module_dir, project and copy

corpus_out "$0" "$@"
gomod_start

# containerd: docs/ (getting started, the CRI plugin's config and registry
# pages, hosts.md, snapshotters/, garbage collection, namespaces, ops,
# transfer, tracing, NRI, user namespaces, the 2.0 upgrade notes, the man
# pages, and historical/: 2017's design notes and weekly reports) and the
# root RELEASES.md, BUILDING.md and README.md.
project containerd github.com/containerd/containerd/v2@v2.1.4 docs -name '*.md'
cdir=$(module_dir github.com/containerd/containerd/v2@v2.1.4) # already in the temporary cache
for f in README.md RELEASES.md BUILDING.md; do cp "$cdir/$f" "$out/containerd/$f"; done
chmod -R u+w "$out/containerd"

# coredns: one README.md per plugin (plugin/NAME/README.md: every page has
# the same file name, its title is the plugin's name), the release notes
# (notes/coredns-X.Y.Z.md, 69 of them), the man pages coredns.1.md and
# corefile.5.md, plugin.md (writing a plugin) and the root README.md; not
# .github/ or test data.
project coredns github.com/coredns/coredns@v1.11.3 . -name '*.md' -not -path './.github/*' -not -path '*/testdata/*' -not -name 'ADOPTERS.md' -not -name 'GOVERNANCE.md'

for p in containerd coredns; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
