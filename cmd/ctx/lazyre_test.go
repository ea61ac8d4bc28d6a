package main

import (
	"testing"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// TestLazyRegexpsCompile compiles every package-level regexp of the
// packages ctx links (they compile on first use, not at start: a bad one
// would otherwise show only when its code runs).
func TestLazyRegexpsCompile(t *testing.T) {
	if err := lazyre.CheckAll(); err != nil {
		t.Fatal(err)
	}
}
