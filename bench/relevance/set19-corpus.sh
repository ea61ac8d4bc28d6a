#!/usr/bin/env bash
# set19-corpus.sh OUT: build the corpus of queries-set19.json (the
# nineteenth relevance set) from two Go module zips, in two shapes that
# sets 1-18 do not hold: a man-page-heavy tool (one Markdown man page per
# subcommand, ~170, in the NAME / SYNOPSIS / DESCRIPTION / OPTIONS /
# EXAMPLES / SEE ALSO layout, most of their text option entries shared
# between pages, plus a few tutorials) and a plugin agent whose reference is
# ~390 small, near-alike README pages, one per plugin (a title, a one-line
# summary, a configuration block, metrics), beside a docs/ folder and the
# change log.
#
#   github.com/containers/podman/v5   v5.3.1    docs/source/markdown: the man pages,
#                                               the .md.in templates expanded as the
#                                               docs build does (set19-expand-podman.py),
#                                               docs/tutorials     -> OUT/podman
#   github.com/influxdata/telegraf    v1.33.0   plugins/*/*/README.md (inputs, outputs,
#                                               processors, aggregators, parsers,
#                                               serializers, secretstores), docs/*.md,
#                                               CHANGELOG.md, README.md -> OUT/telegraf
#
# Fetching works as in set10-corpus.sh (debian-lib.sh's corpus_out,
# gomod_start, module_dir, copy): each zip is checked against the checksum
# database by go mod download. Versions are exact. Needs python3.
set -euo pipefail
here=$(dirname "$0")
# shellcheck source=debian-lib.sh
. "$here/debian-lib.sh" # for corpus_out, gomod_start, module_dir and copy

corpus_out "$0" "$@"
gomod_start
if ! command -v python3 >/dev/null; then
	echo "$(basename "$0"): the python3 command is not on PATH; install Python 3" >&2
	exit 1
fi

pdir=$(module_dir github.com/containers/podman/v5@v5.3.1)
python3 "$here/set19-expand-podman.py" "$pdir/docs/source/markdown" "$out/podman/markdown"
copy "$pdir/docs/tutorials" "$out/podman/tutorials" -name '*.md'

tdir=$(module_dir github.com/influxdata/telegraf@v1.33.0)
copy "$tdir/plugins" "$out/telegraf/plugins" -name README.md
copy "$tdir/docs" "$out/telegraf/docs" -name '*.md'
cp "$tdir/CHANGELOG.md" "$tdir/README.md" "$out/telegraf/"
chmod -R u+w "$out"

for p in podman telegraf; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
