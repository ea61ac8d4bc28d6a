#!/usr/bin/env bash
# debian-corpus.sh OUT: build the corpus of queries-debian.json from Debian's
# *-doc packages. One sub-folder per project under OUT, holding only the
# documentation sources (markdown, reStructuredText, AsciiDoc), decompressed.
#
# Packages (Debian 12 "bookworm"; versions as apt-cache policy listed them
# when the query set was written, 2026-11-26):
#   docker-doc             20.10.24+dfsg1-1+deb12u1  -> OUT/docker      (.md)
#   git-doc                1:2.39.5-0+deb12u3        -> OUT/git         (.adoc)
#   python-sqlalchemy-doc  1.4.46+ds1-1              -> OUT/sqlalchemy  (.rst)
#   python-flask-doc       2.2.2-3                   -> OUT/flask       (.rst)
#
# Renames, so that each file carries the extension of its real format:
#   git's Documentation/*.txt are AsciiDoc sources  -> *.adoc
#   Flask's Sphinx _sources/*.rst.txt are rst       -> *.rst
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
	[docker-doc]='20.10.24+dfsg1-1+deb12u1'
	[git-doc]='1:2.39.5-0+deb12u3'
	[python-sqlalchemy-doc]='1.4.46+ds1-1'
	[python-flask-doc]='2.2.2-3'
)

tmp=$(mktemp -d)
# apt-get download fetches as user _apt where it can write the folder (else it warns and fetches as root)
chmod 755 "$tmp"
chown _apt "$tmp" 2>/dev/null || true
trap 'rm -rf "$tmp"' EXIT

fetch_packages "$tmp" docker-doc git-doc python-sqlalchemy-doc python-flask-doc

# docker: the CLI/daemon reference, Dockerfile reference, plugin and API docs (markdown).
copy "$tmp/x-docker-doc/usr/share/doc/docker-doc" "$out/docker" \( -name '*.md' -o -name '*.md.gz' \)
gunzip_all "$out/docker"

# git: the AsciiDoc sources of the manual pages, guides, howtos and technical docs.
copy "$tmp/x-git-doc/usr/share/doc/git-doc" "$out/git" \( -name '*.txt' -o -name '*.txt.gz' \)
gunzip_all "$out/git"
find "$out/git" -type f -name '*.txt' -print0 | while IFS= read -r -d '' f; do
	mv "$f" "${f%.txt}.adoc"
done

# sqlalchemy: the Sphinx rst sources (reference, tutorial, FAQ, changelogs, migration notes).
copy "$tmp/x-python-sqlalchemy-doc/usr/share/doc/python-sqlalchemy-doc/rst" "$out/sqlalchemy" \( -name '*.rst' -o -name '*.rst.gz' \)
gunzip_all "$out/sqlalchemy"

# flask: the rst sources Sphinx keeps beside the HTML (_sources/*.rst.txt).
copy "$tmp/x-python-flask-doc/usr/share/doc/python-flask-doc/html/_sources" "$out/flask" \( -name '*.rst.txt' -o -name '*.rst.txt.gz' \)
gunzip_all "$out/flask"
find "$out/flask" -type f -name '*.rst.txt' -print0 | while IFS= read -r -d '' f; do
	mv "$f" "${f%.txt}"
done

for p in docker git sqlalchemy flask; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
