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
. "$(dirname "$0")/debian-lib.sh" # for corpus_out, gomod_start and project

corpus_out "$0" "$@"
gomod_start

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
