#!/usr/bin/env bash
# set17-corpus.sh OUT: build the corpus of queries-set17.json (the
# seventeenth relevance set) from two Go module zips: an AsciiDoc site
# (Antora modules, includes of partials, one release-notes page per
# release) and an mkdocs-material site (admonitions, tabs, snippets, one
# reference page per CLI command and per supported OS or language, next to
# long guides).
#
#   github.com/cerbos/cerbos      v0.57.0  docs/modules/*/{pages,partials} (.adoc) -> OUT/cerbos
#   github.com/aquasecurity/trivy v0.74.0  docs/ (.md) + CHANGELOG.md             -> OUT/trivy
#
# Fetching works as in set10-corpus.sh (debian-lib.sh's corpus_out,
# gomod_start, module_dir, copy): `go mod download` into a temporary module
# cache, checked against the checksum database. Versions are exact. cerbos
# v0.57.0's go.mod asks for a newer Go than the machine's; module_dir still
# unpacks its zip (only its files are read).
set -euo pipefail
# shellcheck source=debian-lib.sh
. "$(dirname "$0")/debian-lib.sh" # for corpus_out, gomod_start, module_dir, folder, project and copy

corpus_out "$0" "$@"
gomod_start

# cerbos: the Antora site's modules: ROOT (install, tutorial), policies (one
# page per policy kind, conditions, variables, schemas, outputs, ...),
# configuration (one page per configuration section), deployment, api,
# cli (cerbos and cerbosctl), recipes, glossary, and releases (one page per
# release since v0.1.0); partials are the snippets pages include.
folder cerbos github.com/cerbos/cerbos@v0.57.0 docs/modules -name '*.adoc'

# trivy: the mkdocs-material site (getting started, guide: targets,
# scanners, coverage (one page per OS, language and IaC kind),
# configuration, references (one page per CLI command), advanced,
# supply chain; tutorials; ecosystem; community) and the root CHANGELOG.md.
project trivy github.com/aquasecurity/trivy@v0.74.0 docs -name '*.md'

for p in cerbos trivy; do
	printf '%s\t%s files\t%s\n' "$p" "$(find "$out/$p" -type f | wc -l)" "$(du -sh "$out/$p" | cut -f1)" >&2
done
