# Sourced by the .ci scripts that drive ctx with clients from npm; the
# script defines say().
#
# npm_install_or_skip DIR PKG...: installs PKG... into DIR. When npm fails
# (no network), the script exits 0 with a SKIP line, or 1 when
# CTX_INSPECTOR_REQUIRED=1.
npm_install_or_skip() {
  local dir="$1"
  shift
  say "installing $* into $dir"
  mkdir -p "$dir"
  if ! npm install --silent --no-audit --no-fund --prefix "$dir" "$@" >&2; then
    if [ "${CTX_INSPECTOR_REQUIRED:-0}" = 1 ]; then
      say "FAIL: could not install $* from npm"
      exit 1
    fi
    say "SKIP: could not install $* from npm (offline?); set CTX_INSPECTOR_REQUIRED=1 to fail instead"
    exit 0
  fi
}
