#!/usr/bin/env bash
# set7-corpus.sh OUT: build the corpus of queries-set7.json (the seventh
# relevance set) from Go module zips. One sub-folder per project under OUT,
# holding only the documentation sources, each file keeping its real
# extension (.mdx stays .mdx, .rst stays .rst).
#
# Modules (exact versions, as the query set was written on them, 2026-11-27):
#   github.com/restic/restic             v0.18.0  doc (Sphinx)                -> OUT/restic (.rst)
#   github.com/go-task/task/v3           v3.40.1  website/docs, website/blog  -> OUT/task   (.mdx, Docusaurus)
#   github.com/open-policy-agent/opa     v1.4.2   docs/content (Hugo)         -> OUT/opa    (.md)
#   github.com/hashicorp/packer          v1.9.4   website/content (docs, guides) -> OUT/packer (.mdx)
# and the module's root CHANGELOG.md (all four), as OUT/NAME/CHANGELOG.md.
#
# Fetching works as in gomod-corpus.sh and set6-corpus.sh (debian-lib.sh's
# gomod_start, module_dir, project and copy): `go mod download` into a
# temporary module cache, checked against the checksum database; it needs
# the go command and the module proxy. Versions are exact, so the corpus is
# the same on every run.
set -euo pipefail
# shellcheck source=debian-lib.sh
. "$(dirname "$0")/debian-lib.sh" # for corpus_out, gomod_start, module_dir, project and copy

corpus_out "$0" "$@"
gomod_start

# restic: the Sphinx manual (reStructuredText: backup, restore, forget
# policies, scripting, tuning, troubleshooting, FAQ, design, REST backend),
# with `.. note::`, `.. warning::`, `.. code-block::`; not the man pages
# (doc/man, roff generated from the code), images or shell completions.
project restic github.com/restic/restic@v0.18.0 doc -name '*.rst'

# task: the Docusaurus site's current docs (MDX: <Tabs>/<TabItem> in the
# installation, usage and experiment pages, :::info/:::warning admonitions;
# the 2,300-line usage.mdx, changelog.mdx, deprecations/ and experiments/)
# and its two blog posts; not versioned_docs/ (a copy of the same pages) or
# the site's React code.
project task github.com/go-task/task/v3@v3.40.1 website/docs -name '*.mdx'
taskdir=$(module_dir github.com/go-task/task/v3@v3.40.1) # already in the temporary cache
copy "$taskdir/website/blog" "$out/task/blog" -name '*.mdx'
chmod -R u+w "$out/task"

# opa: the Hugo docs (markdown: the policy language, policy reference of
# every built-in, REST API, configuration, management APIs, the Envoy and
# Kubernetes tutorials, the v0 upgrade guide); not images.
project opa github.com/open-policy-agent/opa@v1.4.2 docs/content -name '*.md'

# packer: the site's docs/ and guides/ (MDX: <Tabs>/<Tab>, <CodeBlockConfig>,
# `->`/`~>` call-outs, @include of partials; one page per HCL function);
# not partials/ (snippets other pages @include). 1.9.4 is the last release
# under the MPL.
project packer github.com/hashicorp/packer@v1.9.4 website/content -name '*.mdx' -not -path './partials/*'

for p in restic task opa packer; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
