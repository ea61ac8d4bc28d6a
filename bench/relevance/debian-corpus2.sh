#!/usr/bin/env bash
# debian-corpus2.sh OUT: build the corpus of queries-debian2.json from Debian
# packages. One sub-folder per project under OUT, holding only the
# documentation sources (markdown, reStructuredText), decompressed.
#
# Packages (Debian 12 "bookworm"; versions as apt-cache policy listed them
# when the query set was written, 2026-11-26):
#   nodejs-doc         18.20.4+dfsg-1~deb12u3  -> OUT/node    (.md: the API docs)
#   npm                9.2.0~ds1-1             -> OUT/npm     (.md: CLI docs, changelog)
#   python-pytest-doc  7.2.1-2                 -> OUT/pytest  (.rst: Sphinx _sources)
#   cmake-doc          3.25.1-1                -> OUT/cmake   (.rst: Sphinx _sources)
#
# Renames, so that each file carries the extension of its real format:
#   Sphinx's _sources/*.rst.txt are rst                   -> *.rst
#   npm's changelog (upstream CHANGELOG.md, as Debian names it) -> CHANGELOG.md
#
# The packages are fetched with `apt-get download` and unpacked with
# `dpkg -x` into a temporary folder, so nothing is installed. It needs
# `apt-get update` to have run once on the machine. If the archive now holds
# another version than the one above (a security update), the script says so
# on stderr and goes on: the want paths of the query set are file names, and
# a new Debian revision of the same upstream release keeps them.
set -euo pipefail
# shellcheck source=debian-lib.sh
. "$(dirname "$0")/debian-lib.sh"

corpus_out "$0" "$@"

declare -A want_version=(
	[nodejs-doc]='18.20.4+dfsg-1~deb12u3'
	[npm]='9.2.0~ds1-1'
	[python-pytest-doc]='7.2.1-2'
	[cmake-doc]='3.25.1-1'
)

tmp=$(mktemp -d)
# apt-get download fetches as user _apt where it can write the folder (else it warns and fetches as root)
chmod 755 "$tmp"
chown _apt "$tmp" 2>/dev/null || true
trap 'rm -rf "$tmp"' EXIT

fetch_packages "$tmp" nodejs-doc npm python-pytest-doc cmake-doc

# sphinx_rst DIR: Sphinx's _sources/*.rst.txt are rst; name them *.rst.
sphinx_rst() {
	find "$1" -type f -name '*.rst.txt' -print0 | while IFS= read -r -d '' f; do
		mv "$f" "${f%.txt}"
	done
}

# node: the API reference, one markdown page per module (fs, http, streams,
# child_process, ...), plus cli, errors, deprecations, esm, packages.
copy "$tmp/x-nodejs-doc/usr/share/doc/nodejs/api" "$out/node" \( -name '*.md' -o -name '*.md.gz' \)
gunzip_all "$out/node"

# npm: the command pages, configuring-npm and using-npm guides, the README,
# and the upstream changelog (Debian ships it as changelog.gz).
npmdoc=$tmp/x-npm/usr/share/doc/npm
for d in commands configuring-npm using-npm; do
	copy "$npmdoc/$d" "$out/npm/$d" \( -name '*.md' -o -name '*.md.gz' \)
done
for f in README.md README.md.gz; do
	if [ -f "$npmdoc/$f" ]; then cp "$npmdoc/$f" "$out/npm/$f"; fi
done
cp "$npmdoc/changelog.gz" "$out/npm/CHANGELOG.md.gz"
gunzip_all "$out/npm"

# pytest: the rst sources Sphinx keeps beside the HTML (how-to guides,
# reference, explanation, examples, changelog, release announcements).
copy "$tmp/x-python-pytest-doc/usr/share/doc/python-pytest-doc/html/_sources" "$out/pytest" \( -name '*.rst.txt' -o -name '*.rst.txt.gz' \)
gunzip_all "$out/pytest"
sphinx_rst "$out/pytest"

# cmake: the rst sources Sphinx keeps beside the HTML (commands, variables,
# properties, modules, policies, generators, guides, release notes).
copy "$tmp/x-cmake-doc/usr/share/doc/cmake-data/html/_sources" "$out/cmake" \( -name '*.rst.txt' -o -name '*.rst.txt.gz' \)
gunzip_all "$out/cmake"
sphinx_rst "$out/cmake"

for p in node npm pytest cmake; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
