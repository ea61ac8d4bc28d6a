package naming

import (
	"path/filepath"
	"strings"
)

// Within reports whether the OS path p is root or inside it (RelIn).
func Within(root, p string) bool {
	_, ok := RelIn(root, p)
	return ok
}

// RelIn is the OS path p from root ("." for root itself), and whether p is
// root or inside it: the one test of "is this path inside that folder". It goes by the names alone (both
// absolute, or both relative to the same folder; filepath.Rel cleans
// them): no link is resolved, so a caller that must see where links lead
// resolves both first (filepath.EvalSymlinks). A sibling that shares a
// prefix (/a/bc for /a/b) is not inside, and neither is a path on another
// volume.
func RelIn(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}
