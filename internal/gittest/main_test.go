package gittest

import (
	"testing"

	"github.com/ctx-dev/ctx/internal/testtmp"
)

// TestMain runs the tests with their temporary files on tmpfs when the
// machine has one, and glibc's heap trim off for the git they start
// (internal/testtmp).
func TestMain(m *testing.M) { testtmp.Main(m) }
