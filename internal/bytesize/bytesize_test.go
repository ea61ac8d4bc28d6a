package bytesize

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dustin/go-humanize"
)

// The sizes people write, the odd ones and the wrong ones: Parse must
// answer as humanize.ParseBytes did (the value, and whether it failed).
var parseCases = []string{
	"", "0", "1", "10", "1048576", "1,048,576", "2GB", "2gb", "2 GB", "2 gB ", "500MB", "500 mb",
	"1.5GiB", "1.5 gib", "1.5G", "1.5Gi", "3k", "3K", "3KB", "3kB", "3KiB", "3ki", "7b", "7 B",
	"1TB", "1TiB", "1PB", "1PiB", "1EB", "1EiB", "15EiB", "16EiB", "18EB", "19EB", "99999999999EB",
	"18446744073709551615", "18446744073709551616", "18446744073709551615b", "1.8446744073709551615e19",
	"0.5", ".5", "5.", "1.2.3", "1,,2", ",", ".", "-5MB", "+5MB", "lots", "5 lots", "MB", " 5MB",
	"5MBs", "5 M B", "1e3", "1e3MB", "0x10", "5\tMB", "5\nMB", "NaN", "Inf", "1.0000000000000002",
	"0.1KB", "0.001KB", "123.456MiB", "9007199254740993", "9007199254740993.0",
}

func TestParseAsHumanize(t *testing.T) {
	for _, s := range parseCases {
		checkParse(t, s)
	}
}

func checkParse(t *testing.T, s string) {
	t.Helper()
	got, err := Parse(s)
	want, werr := humanize.ParseBytes(s)
	if (err != nil) != (werr != nil) || got != want {
		t.Errorf("Parse(%q) = %d, %v; humanize.ParseBytes: %d, %v", s, got, err, want, werr)
	}
}

// FuzzParseAsHumanize: any text of ASCII (humanize mis-cut non-ASCII
// digits; see the package comment) parses as humanize parsed it.
func FuzzParseAsHumanize(f *testing.F) {
	for _, s := range parseCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range s {
			if r >= utf8.RuneSelf {
				return
			}
		}
		checkParse(t, s)
	})
}

func TestFormatAsHumanize(t *testing.T) {
	var sizes []uint64
	for _, base := range []uint64{0, 1, 9, 10, 99, 100, 999, 1000, 1023, 1024, 9949, 9950, 9951, 9999, 99949, 99950, 999499, 999500, 999999} {
		for _, m := range []uint64{1, 1e3, 1e6, 1e9, 1e12, 1e15} {
			if base <= math.MaxUint64/m {
				sizes = append(sizes, base*m, base*m+1, base*m+m/2)
			}
		}
	}
	sizes = append(sizes, 82854982, 1<<20, 1<<30, 1<<40, math.MaxInt64, math.MaxUint64, math.MaxUint64-1)
	for s := uint64(0); s < 200_000; s += 7 {
		sizes = append(sizes, s)
	}
	for _, s := range sizes {
		if got, want := Format(s), humanize.Bytes(s); got != want {
			t.Errorf("Format(%d) = %q; humanize.Bytes: %q", s, got, want)
		}
	}
	if got := Format(82854982); got != "83 MB" || !strings.HasSuffix(Format(5), " B") {
		t.Errorf("Format(82854982) = %q; want 83 MB", got)
	}
}
