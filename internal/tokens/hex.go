package tokens

// A commit's short form (`1c46185`) is in INDEX.md's header of every git
// package and in its "Recently changed" part, so an update brings new
// pieces of hex letters ("c", "dafe", "`ab", " fe") that no earlier render
// counted: without these counts the codec was loaded for nearly half of
// the one-file updates of bench/churn. hexCounts holds the o200k count of
// every run of two to five letters a-f, alone or after a space or a
// backquote (what o200kNext cuts in a short hash: digits are pieces of
// their own), generated from the codec and checked against it by
// TestHexCounts (go test -run TestHexCounts -args -update rewrites it).
// Runs of five came in upd22: a new short hash holds one about once in 40
// updates (`7cbcaf5`), and loading the codec for it cost ~16 ms of CPU.
// Longer runs (about 1 in 200) still load it.

// hexPrefixes are the characters that may open a run's piece.
const hexPrefixes = "\x00 `" // \x00: none

// hexIndex is piece's index in hexCounts, or -1 when it is not such a run.
func hexIndex(piece string) int {
	p := 0
	if len(piece) > 0 && (piece[0] == ' ' || piece[0] == '`') {
		if piece[0] == ' ' {
			p = 1
		} else {
			p = 2
		}
		piece = piece[1:]
	}
	if len(piece) < 2 || len(piece) > 5 {
		return -1
	}
	v := 0
	for i := 0; i < len(piece); i++ {
		c := piece[i]
		if c < 'a' || c > 'f' {
			return -1
		}
		v = v*6 + int(c-'a')
	}
	return p*hexPerPrefix + hexOffset[len(piece)] + v
}

// hexOffset is where the runs of each length start; hexPerPrefix the
// runs of one prefix (6² + 6³ + 6⁴ + 6⁵).
var hexOffset = [6]int{2: 0, 3: 36, 4: 36 + 216, 5: 36 + 216 + 1296}

const hexPerPrefix = 36 + 216 + 1296 + 7776
