# debian-lib.sh: what the corpus scripts share, sourced by them: checking
# the OUT argument (all three), downloading and unpacking pinned Debian
# packages, copying their documentation sources, decompressing them
# (debian-corpus.sh, debian-corpus2.sh; gomod-corpus.sh uses copy). Not run
# on its own.

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
