// Package jsonfiletest holds the test check shared by the packages whose
// files go through internal/jsonfile (lock, manifest, registry).
package jsonfiletest

import (
	"strings"
	"testing"
)

// WantInOrder fails t unless err is non-nil and its message contains each
// of want, in that order (an ErrorList lists its problems in file order).
func WantInOrder(t testing.TB, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	msg, last := err.Error(), -1
	for _, w := range want {
		i := strings.Index(msg, w)
		if i <= last {
			t.Fatalf("error lacks %q (or out of order):\n%s", w, msg)
		}
		last = i
	}
}
