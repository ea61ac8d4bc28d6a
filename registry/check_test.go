package registry

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeRegs(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Check reports, each at its file:line:col, what Load only warns of: a
// name used by two contexts across imports, a cycle of imports, an import
// that cannot be read, an invalid import and its own problems.
func TestCheck(t *testing.T) {
	t.Parallel()
	dir := writeRegs(t, map[string]string{
		"hub.json": `{
  "name": "hub",
  "contexts": [
    {"name": "api", "description": "API", "repo": "https://git.example/api.git"}
  ],
  "imports": ["team.json", "gone.json", "bad.json"]
}
`,
		"team.json": `{
  "name": "team",
  "contexts": [
    {"name": "API", "description": "another", "repo": "https://git.example/other.git"}
  ],
  "imports": ["hub.json"]
}
`,
		"bad.json": `{
  "name": "bad",
  "contexts": [
    {"name": "x", "repo": "https://git.example/x.git"}
  ]
}
`,
		"good.json": `{"name": "good", "contexts": [{"name": "a", "description": "A", "repo": "https://git.example/a.git"}], "imports": ["more.json"]}`,
		"more.json": `{"name": "more", "contexts": [{"name": "b", "description": "B", "repo": "https://git.example/b.git"}]}`,
	})
	l := &Loader{}
	rep, err := l.Check(context.Background(), filepath.Join(dir, "hub.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range rep.Problems {
		got = append(got, strings.TrimPrefix(p.Error(), dir+string(filepath.Separator)))
	}
	text := strings.Join(got, "\n")
	for _, want := range []string{
		`team.json:4:6: contexts[0].name: "API" is also the name of a different context`,
		`team.json:6:15: imports[0]: a cycle of imports: `,
		`hub.json:6:28: imports[1]: import "gone.json": registry ` + filepath.Join(dir, "gone.json") + `: no such file or folder`,
		`hub.json:6:41: imports[2]: import ` + filepath.Join(dir, "bad.json") + ` is not a valid registry`,
		`bad.json:4:5: contexts[0]`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("problems lack %q:\n%s", want, text)
		}
	}
	if len(rep.Problems) != 5 {
		t.Errorf("%d problems, want 5:\n%s", len(rep.Problems), text)
	}

	rep, err = l.Check(context.Background(), filepath.Join(dir, "good.json"))
	if err != nil || len(rep.Problems) != 0 || rep.Contexts != 2 || len(rep.Loaded) != 2 {
		t.Fatalf("a good registry: %+v %v", rep, err)
	}
	if _, err = l.Check(context.Background(), filepath.Join(dir, "nope.json")); err == nil || !strings.Contains(err.Error(), "nope.json") {
		t.Fatalf("a root that cannot be found: %v", err)
	}
}
