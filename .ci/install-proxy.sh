#!/usr/bin/env bash
# Proves `go install github.com/ctx-dev/ctx/cmd/ctx@VERSION` works from a
# clean module cache and that the binary reports VERSION: the checkout's
# HEAD is packed as the module zip of VERSION into a GOPROXY=file:// folder
# (the layout `go mod download` reads: list, .info, .mod, .zip), the
# dependencies come from this machine's module cache as a second file://
# proxy, and nothing is fetched from the network.
#
#   .ci/install-proxy.sh [VERSION]      (default v0.99.0)
set -euo pipefail
version=${1:-v0.99.0}
mod=github.com/ctx-dev/ctx
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

deps=$(go env GOMODCACHE)/cache/download
# The dependencies must be in this machine's cache (go mod download).
(cd "$root" && go mod download)

proxy=$work/proxy/$mod/@v
mkdir -p "$proxy"
echo "$version" > "$proxy/list"
printf '{"Version":"%s","Time":"%s"}\n' "$version" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$proxy/$version.info"
(cd "$root" && git show HEAD:go.mod) > "$proxy/$version.mod"
# The module zip: every file of HEAD under module@version/, as the go
# command lays it out (git archive keeps HEAD's committed files only).
# A folder with its own go.mod is another module and is left out.
nested=$(cd "$root" && git ls-files '*/go.mod' | xargs -r -n1 dirname)
exclude=()
for d in $nested; do exclude+=(":(exclude)$d"); done
(cd "$root" && git archive --format=zip --prefix="$mod@$version/" -o "$proxy/$version.zip" HEAD -- . "${exclude[@]}")

export GOMODCACHE=$work/modcache GOPATH=$work/gopath GOBIN=$work/bin
export GOPROXY="file://$work/proxy,file://$deps" GOSUMDB=off GOFLAGS=-modcacherw
export GONOSUMCHECK=1 GOTOOLCHAIN=local
go install "$mod/cmd/ctx@$version"
got=$("$work/bin/ctx" --version)
echo "$got"
case "$got" in
"ctx $version "*) echo "ok: go install $mod/cmd/ctx@$version reports $version" ;;
*) echo "FAIL: the installed ctx reports \"$got\", want version $version" >&2; exit 1 ;;
esac
