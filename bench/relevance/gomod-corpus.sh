#!/usr/bin/env bash
# gomod-corpus.sh OUT: build the corpus of queries-gomod.json from Go module
# zips. One sub-folder per project under OUT, holding only the documentation
# sources, each file keeping its real extension (.mdx stays .mdx).
#
# A Go module zip from the module proxy carries the repository's whole tree
# at that tag (except sub-folders that are modules of their own), so the
# documentation site's sources come with it. Modules (exact versions, as the
# query set was written on them, 2026-11-26):
#   github.com/hashicorp/terraform   v1.5.7    website/docs            -> OUT/terraform  (.mdx)
#   github.com/hashicorp/consul      v1.16.0   website/content         -> OUT/consul     (.mdx; not partials/)
#   github.com/traefik/traefik/v3    v3.7.13   docs/content            -> OUT/traefik    (.md, mkdocs)
#   github.com/prometheus/prometheus v0.316.0  docs                    -> OUT/prometheus (.md)
# and each project's CHANGELOG.md from the module's root, as OUT/NAME/CHANGELOG.md.
#
# The modules are fetched with `go mod download` into a temporary module
# cache (GOMODCACHE), so nothing is added to the user's cache; the go
# command checks each zip against the checksum database as it always does.
# It needs the go command and the module proxy (GOPROXY; the default one
# works). Versions are exact, so the corpus is the same on every run.
set -euo pipefail
# shellcheck source=debian-lib.sh
. "$(dirname "$0")/debian-lib.sh" # for corpus_out and copy

corpus_out "$0" "$@"
if ! command -v go >/dev/null; then
	echo "gomod-corpus.sh: the go command is not on PATH; install Go (https://go.dev/dl/)" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# module_dir MODULE@VERSION: download the module into the temporary cache
# and print the folder it was unpacked into. A module whose go.mod asks for
# a newer Go than the one here is still downloaded and unpacked (go mod
# download reports it as an error but writes the zip): the script only reads
# its files, it does not build it.
module_dir() {
	local mv=$1 json dir zip
	json=$(cd "$tmp" && GOMODCACHE="$tmp/modcache" GOFLAGS=-modcacherw GOTOOLCHAIN=local \
		go mod download -json "$mv" 2>&1) || true
	dir=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
	if [ -n "$dir" ] && [ -d "$dir" ]; then
		printf '%s\n' "$dir"
		return
	fi
	zip=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Zip": "\(.*\)",\{0,1\}$/\1/p')
	if [ -z "$zip" ] || [ ! -f "$zip" ]; then
		echo "gomod-corpus.sh: could not download $mv from the module proxy (GOPROXY=$(go env GOPROXY)):" >&2
		printf '%s\n' "$json" >&2
		exit 1
	fi
	mkdir -p "$tmp/unzip"
	(cd "$tmp/unzip" && unzip -q -o "$zip")
	# the zip holds one top folder, MODULE@VERSION
	printf '%s\n' "$tmp/unzip/$mv"
}

# project NAME MODULE@VERSION DOCS_DIR FIND_ARGS...: copy the files of
# DOCS_DIR (inside the module) matching FIND_ARGS to OUT/NAME, and the
# module's CHANGELOG.md to OUT/NAME/CHANGELOG.md.
project() {
	local name=$1 mv=$2 docs=$3 dir
	shift 3
	dir=$(module_dir "$mv")
	if [ ! -d "$dir/$docs" ]; then
		echo "gomod-corpus.sh: $mv has no folder $docs" >&2
		exit 1
	fi
	copy "$dir/$docs" "$out/$name" "$@"
	if [ -f "$dir/CHANGELOG.md" ]; then
		cp "$dir/CHANGELOG.md" "$out/$name/CHANGELOG.md"
	fi
	chmod -R u+w "$out/$name"
}

# terraform: the language, CLI, internals and intro pages (MDX with
# <CodeBlockConfig>, <Note>, <Tabs>, ...). Terraform moved its docs out of
# the repository after 1.5; 1.5.7 is the last 1.5 release.
project terraform github.com/hashicorp/terraform@v1.5.7 website/docs -name '*.mdx'

# consul: the site's docs/, commands/ and api-docs/ (MDX, full of JSX:
# <Tabs>/<Tab>, <CodeTabs>, <CodeBlockConfig>, <Note>, <EnterpriseAlert>);
# not partials/ (snippets other pages @include).
project consul github.com/hashicorp/consul@v1.16.0 website/content -name '*.mdx' -not -path './partials/*'

# traefik: the mkdocs sources (markdown, with admonitions and tabbed
# configuration examples); not the snippet files, images, css and js.
project traefik github.com/traefik/traefik/v3@v3.7.13 docs/content -name '*.md'

# prometheus: the docs folder (querying, configuration, storage, agent,
# command line, migration).
project prometheus github.com/prometheus/prometheus@v0.316.0 docs -name '*.md'

for p in terraform consul traefik prometheus; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
