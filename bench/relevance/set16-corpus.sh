#!/usr/bin/env bash
# set16-corpus.sh OUT: build the corpus of queries-set16.json (the sixteenth
# relevance set) from one Debian package, one Go module zip and one npm
# tarball: a Sphinx site kept as rst sources (directives, toctrees, one
# autodoc stub page per module), a Docusaurus site (Markdown read as MDX:
# admonitions, imports, JSX) and a Docusaurus section of MDX pages (imports,
# <Tabs>/<TabItem>, admonitions), the first two with their release notes,
# change log and migration pages beside the pages as they ship, the third
# with the pages of rules removed or moved in v8 that point to their
# replacements.
#
#   python-celery-doc (Debian 12)     5.2.6-5    Sphinx _sources: getting-started/, userguide/,
#                                                reference/ + internals/reference/ (autodoc stubs),
#                                                history/ (what's new and change logs per release),
#                                                faq, glossary, changelog, whatsnew-5.2  -> OUT/celery (.rst)
#   github.com/cosmos/cosmos-sdk      v0.50.15   docs/docs laid out as docs/pre.sh lays the site
#                                                (module READMEs under build/modules, ADRs under
#                                                build/architecture, spec, rfc, UPGRADING.md as
#                                                build/migrations/02-upgrading.md) + CHANGELOG.md,
#                                                RELEASE_NOTES.md                        -> OUT/cosmos-sdk (.md)
#   @typescript-eslint/eslint-plugin  8.18.0     docs/rules: one page per rule (133 .mdx), the
#     (npm)                                      deprecated and moved rules (.md) and the
#                                                overview README.md                      -> OUT/typescript-eslint/docs (.mdx, .md)
#
# Fetching works as in set13-corpus.sh (debian-lib.sh's corpus_out,
# gomod_start, module_dir, copy, fetch_packages; run 'apt-get update'
# first); the npm tarball with `npm pack` (checked against the registry's
# integrity hash). Versions are exact; the Debian package's is checked.
set -euo pipefail
# shellcheck source=debian-lib.sh
. "$(dirname "$0")/debian-lib.sh" # for corpus_out, gomod_start, module_dir, copy, gunzip_all and fetch_packages

corpus_out "$0" "$@"
gomod_start
chmod 755 "$tmp" # apt-get download runs as _apt
chown _apt "$tmp" 2>/dev/null || true
declare -A want_version=([python-celery-doc]=5.2.6-5)

# celery: every rst source Sphinx keeps beside the HTML, named *.rst: the
# getting-started pages (brokers, backends, first steps, next steps), the
# user guide (tasks, calling, canvas, workers, periodic tasks, routing,
# monitoring, configuration, ...), the autodoc stub of every public and
# internal module (reference/celery.*.rst, internals/reference/), history/
# (one "What's new in Celery X" page and one change log per release
# series), the FAQ, the glossary and the current change log.
fetch_packages "$tmp" python-celery-doc
src="$tmp/x-python-celery-doc/usr/share/doc/python-celery-doc/html/_sources"
copy "$src" "$out/celery" \( -name '*.rst.txt' -o -name '*.rst.txt.gz' \)
gunzip_all "$out/celery"
find "$out/celery" -type f -name '*.rst.txt' -print0 | while IFS= read -r -d '' f; do
	mv "$f" "${f%.txt}"
done

# cosmos-sdk: the Docusaurus site's pages (docs/docs: learn, build, user)
# with what docs/pre.sh copies into them before a build: each module's
# README (x/NAME/README.md -> build/modules/NAME/README.md; vesting and tx
# as auth's 1-vesting.md and 2-tx.md), the package READMEs, the ADRs
# (architecture), spec and rfc, and UPGRADING.md as the migration page;
# plus the root CHANGELOG.md and RELEASE_NOTES.md. Not what pre.sh fetches
# from the network (rosetta) or copies from nested modules (cosmovisor,
# confix, hubl, collections, orm, depinject, client/v2: not in this zip).
cdir=$(module_dir github.com/cosmos/cosmos-sdk@v0.50.15)
c="$out/cosmos-sdk"
copy "$cdir/docs/docs" "$c" \( -name '*.md' -o -name '*.mdx' \)
for d in "$cdir"/x/*/; do
	name=$(basename "$d")
	if [ -f "$d/README.md" ]; then
		mkdir -p "$c/build/modules/$name"
		cp "$d/README.md" "$c/build/modules/$name/README.md"
	fi
done
cp "$cdir/x/auth/vesting/README.md" "$c/build/modules/auth/1-vesting.md"
cp "$cdir/x/auth/tx/README.md" "$c/build/modules/auth/2-tx.md"
cp "$cdir/x/README.md" "$c/build/modules/README.md"
copy "$cdir/docs/architecture" "$c/build/architecture" -name '*.md'
copy "$cdir/docs/spec" "$c/build/spec" -name '*.md'
copy "$cdir/docs/rfc" "$c/build/rfc" -name '*.md'
mkdir -p "$c/build/migrations"
cp "$cdir/UPGRADING.md" "$c/build/migrations/02-upgrading.md"
cp "$cdir/CHANGELOG.md" "$c/CHANGELOG.md"
cp "$cdir/RELEASE_NOTES.md" "$c/RELEASE_NOTES.md"
chmod -R u+w "$c"

# typescript-eslint: the eslint plugin's rule pages as its npm package ships
# them (docs/rules: the Docusaurus sources of typescript-eslint.io/rules,
# MDX with Tabs components and admonitions; the rules removed or moved to
# the stylistic plugin in v8 keep a page that names their replacement).
if ! command -v npm >/dev/null; then
	echo "$(basename "$0"): the npm command is not on PATH; install Node.js and npm" >&2
	exit 1
fi
(cd "$tmp" && npm pack -q @typescript-eslint/eslint-plugin@8.18.0 >/dev/null)
mkdir -p "$tmp/tse"
tar -xzf "$tmp/typescript-eslint-eslint-plugin-8.18.0.tgz" -C "$tmp/tse"
copy "$tmp/tse/package/docs" "$out/typescript-eslint/docs" \( -name '*.md' -o -name '*.mdx' \)

for p in celery cosmos-sdk typescript-eslint; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
