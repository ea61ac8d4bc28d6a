#!/usr/bin/env bash
# set20-corpus.sh OUT: build the corpus of queries-set20.json (the twentieth
# relevance set, the readable one) from a Debian documentation package and a
# Go module zip: the Sphinx sources of a dataframe library (reStructuredText:
# long user-guide pages, getting-started tutorials, comparison pages, the
# development guide, and 85 "what's new" release notes inside the tree) and
# the Hugo sources of a time-series database (Markdown with front matter:
# very long component pages, generated flag lists, a FAQ, troubleshooting,
# guides, the anomaly-detection product with its own changelog and migration
# page, and seven yearly CHANGELOG pages inside the tree).
#
#   python-pandas-doc (Debian 12)  1.5.3+dfsg-2     html/_sources/*.rst.txt (renamed *.rst):
#                                                   user_guide, getting_started (install,
#                                                   intro tutorials, comparison with R/SQL/
#                                                   SAS/Stata/spreadsheets), reference/*.rst
#                                                   (not the 2,458 one-line autosummary stubs
#                                                   of reference/api/), development, ecosystem,
#                                                   whatsnew/ (v0.4.x .. v1.5.3)  -> OUT/pandas
#   github.com/VictoriaMetrics/VictoriaMetrics
#                                  v1.151.0         docs/ (Hugo Markdown): victoriametrics/
#                                                   (README, cluster, vmagent, vmalert, vmauth,
#                                                   vmbackup, vmctl/, MetricsQL, relabeling,
#                                                   sd_configs, stream-aggregation, FAQ,
#                                                   Troubleshooting, *_flags.md, changelog/),
#                                                   guides/, anomaly-detection/, ...
#                                                                               -> OUT/victoriametrics
#
# Fetching works as in set16-corpus.sh (debian-lib.sh's fetch_packages,
# module_dir, copy, gunzip_all); the zip is checked against the checksum
# database by go mod download. Versions are exact.
set -euo pipefail
# shellcheck source=debian-lib.sh
. "$(dirname "$0")/debian-lib.sh" # for corpus_out, gomod_start, folder, copy, gunzip_all and fetch_packages

corpus_out "$0" "$@"
gomod_start
chmod 755 "$tmp" # apt-get download runs as _apt
chown _apt "$tmp" 2>/dev/null || true
declare -A want_version=([python-pandas-doc]=1.5.3+dfsg-2)

fetch_packages "$tmp" python-pandas-doc
src="$tmp/x-python-pandas-doc/usr/share/doc/python-pandas-doc/html/_sources"
copy "$src" "$out/pandas" \( -name '*.rst.txt' -o -name '*.rst.txt.gz' \) -not -path './reference/api/*'
gunzip_all "$out/pandas"
find "$out/pandas" -type f -name '*.rst.txt' -print0 | while IFS= read -r -d '' f; do
	mv "$f" "${f%.txt}"
done
chmod -R u+w "$out/pandas"

folder victoriametrics github.com/VictoriaMetrics/VictoriaMetrics@v1.151.0 docs -name '*.md'

for p in pandas victoriametrics; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
