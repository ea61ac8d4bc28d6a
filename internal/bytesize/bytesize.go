// Package bytesize reads and writes sizes in bytes as people write them
// ("2GB", "500 MB", "1.5GiB", "1,048,576") and as ctx shows them ("83 MB").
//
// It replaces go-humanize, which ctx imported for these two functions
// alone and whose package initialisation (a regexp compiled and big.Int
// tables built, about 130 allocations) every ctx process paid at start-up,
// whatever the command (issue 31). Parse and Format give what
// humanize.ParseBytes and humanize.Bytes gave for every input
// (TestParseAsHumanize, TestFormatAsHumanize, FuzzParseAsHumanize), except
// that a digit outside ASCII is not a digit here (humanize counted such a
// rune as one byte and cut the text in the middle of it).
package bytesize

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// units are the size names Parse accepts, lower case: SI powers of 1000
// and IEC powers of 1024, with or without their "b", and none (bytes).
var units = map[string]uint64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "ki": 1 << 10, "kib": 1 << 10,
	"m": 1e6, "mb": 1e6, "mi": 1 << 20, "mib": 1 << 20,
	"g": 1e9, "gb": 1e9, "gi": 1 << 30, "gib": 1 << 30,
	"t": 1e12, "tb": 1e12, "ti": 1 << 40, "tib": 1 << 40,
	"p": 1e15, "pb": 1e15, "pi": 1 << 50, "pib": 1 << 50,
	"e": 1e18, "eb": 1e18, "ei": 1 << 60, "eib": 1 << 60,
}

// Parse reads a size: a number (digits, with '.' and ',' allowed; the
// commas are dropped) followed by an optional unit from units, in any case,
// with spaces allowed around it. A whole number is exact up to 2^64-1; a
// fraction is computed in float64.
func Parse(s string) (uint64, error) {
	n := 0
	for n < len(s) && (s[n] >= '0' && s[n] <= '9' || s[n] == '.' || s[n] == ',') {
		n++
	}
	num := strings.ReplaceAll(s[:n], ",", "")
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, err
	}
	name := strings.ToLower(strings.TrimSpace(s[n:]))
	m, ok := units[name]
	if !ok {
		return 0, fmt.Errorf("unhandled size name: %v", name)
	}
	if !strings.Contains(num, ".") {
		if v, err := strconv.ParseUint(num, 10, 64); err == nil {
			if hi, lo := bits.Mul64(v, m); hi == 0 {
				return lo, nil
			}
			return 0, errTooLarge(s)
		}
	}
	f *= float64(m)
	if f >= math.MaxUint64 {
		return 0, errTooLarge(s)
	}
	return uint64(f), nil
}

func errTooLarge(s string) error { return errors.New("too large: " + s) }

// Format writes s in SI units with two significant digits at least:
// "9 B", "10 B", "1.0 kB", "83 MB", "1.2 GB".
func Format(s uint64) string {
	if s < 10 {
		return fmt.Sprintf("%d B", s)
	}
	sizes := [...]string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}
	e := math.Floor(math.Log(float64(s)) / math.Log(1000))
	val := float64(s) / math.Pow(1000, e)
	// The decimals by the unrounded value's integer digits, then one
	// rounding; a carry into a new digit (9.96 → 10) drops a decimal.
	intDigits := countDigits(int64(val))
	digits := max(2-intDigits, 0)
	rounding := math.Pow10(digits)
	val = math.Floor(val*rounding+0.5) / rounding
	if d := countDigits(int64(val)); d > intDigits {
		digits = max(digits-(d-intDigits), 0)
	}
	return strconv.FormatFloat(val, 'f', digits, 64) + " " + sizes[int(e)]
}

func countDigits(n int64) int {
	d := 0
	for n != 0 {
		n /= 10
		d++
	}
	return d
}
