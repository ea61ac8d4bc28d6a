// Package wording owns the small rules of ctx's English output: a count
// with its noun, a noun's form for a count, and a list in a sentence. No
// I/O, no ctx imports.
package wording

import (
	"strconv"
	"strings"
)

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

// List joins items as a sentence does, with conj before the last: "a",
// "a and b", "a, b and c".
func List(items []string, conj string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}
