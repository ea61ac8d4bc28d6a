package mcpserver

import (
	"testing"

	"github.com/ctx-dev/ctx/internal/testtmp"
)

// TestMain runs the tests with their temporary files on tmpfs when the
// machine has one (internal/testtmp): fsyncs cost nothing there.
func TestMain(m *testing.M) { testtmp.Main(m) }
