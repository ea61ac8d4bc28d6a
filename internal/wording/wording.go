// Package wording owns the small rules of ctx's English output: a count
// with its noun, and a noun's form for a count. No I/O, no ctx imports.
package wording

import "strconv"

// Plural returns one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count returns n and the noun's form for it: "1 file", "3 files".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Plural(n, one, many)
}
