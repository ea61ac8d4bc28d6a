#!/usr/bin/env bash
# set9-corpus.sh OUT: build the corpus of queries-set9.json (the ninth
# relevance set) from a Debian *-doc package and Go module zips. One
# sub-folder per project under OUT, holding only the documentation sources,
# each file keeping its real extension (.mdx stays .mdx, .rst stays .rst).
#
# Sources (exact versions, as the query set was written on them, 2026-11-27):
#   sphinx-doc (Debian 12)             5.3.0-4  html/_sources (Sphinx's rst)   -> OUT/sphinx  (.rst)
#   github.com/ollama/ollama           v0.17.4  docs (Mintlify)                -> OUT/ollama  (.mdx, .md)
#   github.com/argoproj/argo-cd/v3     v3.6.1   docs (mkdocs)                  -> OUT/argocd  (.md)
# and each project's changelog: Sphinx's upstream CHANGES (rst, shipped as
# changelog.gz) as OUT/sphinx/CHANGES.rst, Argo CD's root CHANGELOG.md as
# OUT/argocd/CHANGELOG.md (ollama's module has none).
#
# The Debian package is fetched as in debian-corpus.sh (debian-lib.sh's
# fetch_packages: `apt-get download` and `dpkg -x`, nothing installed; it
# needs `apt-get update` to have run once). The modules are fetched as in
# gomod-corpus.sh and set6/7/8-corpus.sh (gomod_start, module_dir, project,
# copy): `go mod download` into a temporary module cache, checked against
# the checksum database. Versions are exact, so the corpus is the same on
# every run (a new Debian revision of sphinx-doc is warned about and keeps
# the file names).
set -euo pipefail
# shellcheck source=debian-lib.sh
. "$(dirname "$0")/debian-lib.sh" # for corpus_out, fetch_packages, gunzip_all, gomod_start, module_dir, project and copy

corpus_out "$0" "$@"
gomod_start # sets $tmp (removed on exit)

declare -A want_version=(
	[sphinx-doc]='5.3.0-4'
)
deb="$tmp/deb"
mkdir -p "$deb"
# apt-get download fetches as user _apt where it can write the folder (else it warns and fetches as root)
chmod 755 "$tmp" "$deb"
chown _apt "$deb" 2>/dev/null || true
fetch_packages "$deb" sphinx-doc

# sphinx: the reStructuredText sources of Sphinx 5.3's own documentation,
# which Sphinx keeps beside the HTML (_sources/*.rst.txt, renamed *.rst):
# the tutorial, usage/ (configuration.rst with every conf.py value, the
# directives, roles and domains pages, one page per extension), extdev/
# (the extension API, deprecated.rst), the man pages, the FAQ and the
# glossary; `.. confval::`, `.. rst:directive::`, `.. versionadded::`,
# `.. note::` and `.. code-block::` throughout. changes.rst only includes
# CHANGES, so the upstream CHANGES itself (every release to 5.3.0) is added
# as CHANGES.rst.
sdoc="$deb/x-sphinx-doc/usr/share/doc/sphinx-doc"
copy "$sdoc/html/_sources" "$out/sphinx" '(' -name '*.rst.txt' -o -name '*.rst.txt.gz' ')'
gunzip_all "$out/sphinx"
find "$out/sphinx" -type f -name '*.rst.txt' -print0 | while IFS= read -r -d '' f; do
	mv "$f" "${f%.txt}"
done
gunzip -c "$sdoc/changelog.gz" >"$out/sphinx/CHANGES.rst"

# ollama: the Mintlify docs (MDX with <Note> in 21 pages, <Tabs>/<Tab>
# (one tab per client: CLI, cURL, Python, JavaScript), <CodeGroup>, <Card>
# and <Info> components around the text and code: install pages per OS,
# the FAQ, the Modelfile reference, capabilities/, api/, integrations/)
# and the few plain .md pages (api.md, development.md, examples.md); not
# images, the docs.json navigation or the extract-examples tool.
project ollama github.com/ollama/ollama@v0.17.4 docs '(' -name '*.md' -o -name '*.mdx' ')' -not -path './tools/*'

# argocd: the mkdocs site (markdown with `> [!NOTE]`/`> [!WARNING]`
# alerts in 106 pages and `!!! note` admonitions in a few: getting
# started, the FAQ, user-guide/ with the generated CLI reference in
# user-guide/commands/, operator-manual/ with one upgrade page per minor
# version in upgrading/, notifications/, applicationset/,
# user-management/, the developer guide); not proposals/ (design
# documents, not user docs), snyk/ (vulnerability scan reports), assets/
# or the example yaml files. The module asks for a newer Go than may be
# here: module_dir still unpacks it (the script only reads files).
project argocd github.com/argoproj/argo-cd/v3@v3.6.1 docs -name '*.md' -not -path './proposals/*' -not -path './snyk/*' -not -path './assets/*'

for p in sphinx ollama argocd; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
