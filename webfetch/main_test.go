package webfetch

import (
	"testing"

	"github.com/ctx-dev/ctx/internal/testtmp"
)

// TestMain runs the tests with their temporary files on tmpfs when the
// machine has one, and the test binary's collector at testtmp.GCPercent
// (internal/testtmp).
func TestMain(m *testing.M) { testtmp.Main(m) }
