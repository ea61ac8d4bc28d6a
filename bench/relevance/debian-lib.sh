# debian-lib.sh: what the corpus scripts share, sourced by them: checking
# the OUT argument (all of them), downloading and unpacking pinned Debian
# packages, copying their documentation sources, decompressing them
# (debian-corpus.sh, debian-corpus2.sh), and fetching Go module zips and
# copying their docs folders (gomod-corpus.sh, set6-corpus.sh). Not run on
# its own.

# fetch_packages TMP PKG...: apt-get download each PKG into TMP and unpack it
# into TMP/x-PKG, warning when the archive's version is not the one in the
# caller's want_version (an associative array); the caller's name ($0) is in
# every message.
fetch_packages() {
	local tmp=$1 me pkg have deb
	me=$(basename "$0")
	shift
	for pkg in "$@"; do
		have=$(apt-cache policy "$pkg" | awk '/Candidate:/ {print $2}')
		if [ -z "$have" ] || [ "$have" = "(none)" ]; then
			echo "$me: apt knows no package $pkg; run 'apt-get update' first (Debian 12 sources)" >&2
			exit 1
		fi
		if [ "$have" != "${want_version[$pkg]}" ]; then
			echo "$me: warning: $pkg is $have here, the query set was written on ${want_version[$pkg]}" >&2
		fi
		(cd "$tmp" && apt-get download -q "$pkg" >/dev/null)
		deb=$(ls "$tmp"/"$pkg"_*.deb)
		dpkg -x "$deb" "$tmp/x-$pkg"
	done
}

# copy SRC_DIR DEST_DIR FIND_ARGS...: copy the files under SRC_DIR that match
# FIND_ARGS to DEST_DIR, keeping their relative paths.
copy() {
	local src=$1 dest=$2
	shift 2
	mkdir -p "$dest"
	(cd "$src" && find . -type f "$@" -print0) | while IFS= read -r -d '' f; do
		mkdir -p "$dest/$(dirname "$f")"
		cp "$src/$f" "$dest/$f"
	done
}

# gunzip_all DIR: decompress every .gz below DIR in place.
gunzip_all() {
	find "$1" -type f -name '*.gz' -exec gunzip -f {} +
}

# corpus_out SCRIPT ARGS...: checks a corpus script's arguments (one, OUT:
# a folder that does not exist or is empty) and sets out to it; on a wrong
# call, says why on stderr and exits 2.
corpus_out() {
	local script=$1
	shift
	if [ $# -ne 1 ] || [ -z "$1" ]; then
		echo "usage: $script OUT   (OUT: folder to write the corpus into; it must not exist or be empty)" >&2
		exit 2
	fi
	if [ -e "$1" ] && [ -n "$(ls -A "$1" 2>/dev/null)" ]; then
		echo "$(basename "$script"): $1 exists and is not empty; give a new or empty folder" >&2
		exit 2
	fi
	out=$1
}

# gomod_start: for the scripts that read Go module zips (gomod-corpus.sh,
# set6-corpus.sh): checks that the go command is there and makes the
# temporary folder ($tmp, removed on exit) that module_dir's module cache
# lives in, so nothing is added to the user's cache.
gomod_start() {
	if ! command -v go >/dev/null; then
		echo "$(basename "$0"): the go command is not on PATH; install Go (https://go.dev/dl/)" >&2
		exit 1
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
}

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
		echo "$(basename "$0"): could not download $mv from the module proxy (GOPROXY=$(go env GOPROXY)):" >&2
		printf '%s\n' "$json" >&2
		exit 1
	fi
	mkdir -p "$tmp/unzip"
	(cd "$tmp/unzip" && unzip -q -o "$zip")
	# the zip holds one top folder, MODULE@VERSION
	printf '%s\n' "$tmp/unzip/$mv"
}

# folder NAME MODULE@VERSION DOCS_DIR FIND_ARGS...: copy the files of
# DOCS_DIR (inside the module) matching FIND_ARGS to OUT/NAME.
folder() {
	local name=$1 mv=$2 docs=$3 dir
	shift 3
	dir=$(module_dir "$mv")
	module_copy "$dir" "$name" "$mv" "$docs" "$@"
	chmod -R u+w "$out/$name"
}

# project NAME MODULE@VERSION DOCS_DIR FIND_ARGS...: folder's copy, and the
# module's CHANGELOG.md to OUT/NAME/CHANGELOG.md.
project() {
	local name=$1 mv=$2 docs=$3 dir
	shift 3
	dir=$(module_dir "$mv")
	module_copy "$dir" "$name" "$mv" "$docs" "$@"
	if [ -f "$dir/CHANGELOG.md" ]; then
		cp "$dir/CHANGELOG.md" "$out/$name/CHANGELOG.md"
	fi
	chmod -R u+w "$out/$name"
}

# module_copy DIR NAME MODULE@VERSION DOCS_DIR FIND_ARGS...: the copy that
# folder and project share (DIR is the unpacked module).
module_copy() {
	local dir=$1 name=$2 mv=$3 docs=$4
	shift 4
	if [ ! -d "$dir/$docs" ]; then
		echo "$(basename "$0"): $mv has no folder $docs" >&2
		exit 1
	fi
	copy "$dir/$docs" "$out/$name" "$@"
}
