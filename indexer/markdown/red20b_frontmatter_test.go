package markdown

import (
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// red20b finding 1: TOML front matter of a million nested arrays (a 1 MB
// document, under the indexer's 2 MB bound) overflowed the goroutine stack
// in BurntSushi/toml v0.3.1's recursive parser: "fatal error: stack
// overflow", which no recover catches, so `ctx index`, an install's index
// step and a running `ctx mcp` died on one hostile document. The decode
// runs in a child process (the crash would end this test binary) with a
// 128 MB stack bound (the real one is 1 GB; the child stays small).
func TestRed20bTOMLFrontMatterNesting(t *testing.T) {
	deep := strings.Repeat("[", 1<<20)
	for _, tc := range []struct{ name, raw string }{
		{"arrays", "a = " + deep},
		// At the real 1 GB stack a 2 MB file of these does not reach the
		// bound; under the child's 128 MB one it does: the depth must be
		// bounded, not the stack trusted.
		{"inline tables", "a = " + strings.Repeat("{b = ", 1<<18)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if os.Getenv("CTX_RED20B_TOML_CHILD") == tc.name {
				debug.SetMaxStack(128 << 20)
				_, err := FrontMatter{Format: "toml", Raw: tc.raw, First: 1, End: 3}.Decode()
				if err == nil {
					t.Fatal("a front matter nested a million deep decoded without an error")
				}
				if !strings.HasPrefix(err.Error(), "line ") || !strings.Contains(err.Error(), "TOML front matter") {
					t.Fatalf("error does not say where and what: %v", err)
				}
				return
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestRed20bTOMLFrontMatterNesting$/^"+strings.ReplaceAll(tc.name, " ", "_")+"$", "-test.v")
			cmd.Env = append(os.Environ(), "CTX_RED20B_TOML_CHILD="+tc.name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				s := string(out)
				if len(s) > 1500 {
					s = s[:1500] + "…"
				}
				t.Fatalf("decoding the front matter ended the process (%v):\n%s", err, s)
			}
			if !strings.Contains(string(out), "--- PASS") {
				t.Fatalf("the child ran no test:\n%s", out)
			}
		})
	}
}
