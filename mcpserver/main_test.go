package mcpserver

import (
	"fmt"
	"os"
	"testing"

	"github.com/ctx-dev/ctx/internal/testtmp"
)

// TestMain runs the tests with their temporary files on tmpfs when the
// machine has one (internal/testtmp): fsyncs cost nothing there. After
// them it checks that the shared fixture project is as it was built
// (sharedProject) and removes it.
func TestMain(m *testing.M) { testtmp.Main(testsRun{m}) }

type testsRun struct{ m *testing.M }

func (r testsRun) Run() int {
	code := r.m.Run()
	if err := checkShared(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}
