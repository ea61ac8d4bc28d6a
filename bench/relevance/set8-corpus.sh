#!/usr/bin/env bash
# set8-corpus.sh OUT: build the corpus of queries-set8.json (the eighth
# relevance set) from Go module zips. One sub-folder per project under OUT,
# holding only the documentation sources, each file keeping its real
# extension (.mdx stays .mdx, .rst stays .rst).
#
# Modules (exact versions, as the query set was written on them, 2026-11-27):
#   github.com/hyperledger/fabric        v1.4.12  docs/source (Sphinx)          -> OUT/fabric     (.rst, .md)
#   entgo.io/ent                         v0.14.1  doc/md, doc/website/blog      -> OUT/ent        (.mdx, .md, Docusaurus)
#   github.com/goreleaser/goreleaser/v2  v2.5.0   www/docs (mkdocs)             -> OUT/goreleaser (.md)
# and the module's root CHANGELOG.md where it has one (fabric), as
# OUT/NAME/CHANGELOG.md.
#
# Fetching works as in gomod-corpus.sh, set6-corpus.sh and set7-corpus.sh
# (debian-lib.sh's gomod_start, module_dir, project and copy): `go mod
# download` into a temporary module cache, checked against the checksum
# database; it needs the go command and the module proxy. Versions are
# exact, so the corpus is the same on every run.
set -euo pipefail
# shellcheck source=debian-lib.sh
. "$(dirname "$0")/debian-lib.sh" # for corpus_out, gomod_start, module_dir, project and copy

corpus_out "$0" "$@"
gomod_start

# fabric: the Sphinx sources of Hyperledger Fabric 1.4 (reStructuredText,
# with `.. note::`/`.. warning::`/`.. code:: bash`/`.. toctree::`, and the
# markdown pages Sphinx reads through recommonmark: ordering service,
# access control, config update, HSM, Kafka to Raft migration); the
# whatsnew.rst, releases.rst and upgrade pages, the glossary and the FAQ;
# not images, diagrams, templates, theme files or the Sphinx conf.py. 1.4.12
# is the last 1.4 (LTS) release; 2.x has a go.mod without /v2 and is not
# served by the module proxy.
project fabric github.com/hyperledger/fabric@v1.4.12 docs/source '(' -name '*.rst' -o -name '*.md' ')'

# ent: the Docusaurus docs (MDX with `import Tabs`, <Tabs>/<TabItem>,
# <InstallationInstructions/> and :::info/:::note admonitions, and plain
# .md pages: schema, CRUD, hooks, privacy, migrations, the GraphQL and gRPC
# tutorials) and the blog (doc/website/blog); not components/ (the
# _*.mdx snippets other pages import) or the site's React code.
project ent entgo.io/ent@v0.14.1 doc/md '(' -name '*.md' -o -name '*.mdx' ')' -not -path './components/*'
entdir=$(module_dir entgo.io/ent@v0.14.1) # already in the temporary cache
copy "$entdir/doc/website/blog" "$out/ent/blog" '(' -name '*.md' -o -name '*.mdx' ')'
chmod -R u+w "$out/ent"

# goreleaser: the mkdocs site (markdown with `!!! tip`/`!!! warning`
# admonitions, `=== "tab"` blocks and {{ version }} shortcodes: one page per
# customization, the errors pages, cookbooks, deprecations.md, and the blog's
# release posts, one per minor version); not includes/ (the snippets
# other pages pull in with --8<--), overrides/ or static/.
project goreleaser github.com/goreleaser/goreleaser/v2@v2.5.0 www/docs -name '*.md' -not -path './includes/*'

for p in fabric ent goreleaser; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
