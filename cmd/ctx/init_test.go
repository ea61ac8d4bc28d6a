package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestInitOffersProjectDocs runs ctx init's terminal path with a scripted
// prompter: the project docs found are offered, all pre-checked, and only
// the ones left checked are added as dir sources; a cancel adds none.
//
// Not parallel: the command it runs in-process reads HOME and CTX_CACHE
// from the environment (engineenv.go), which t.Setenv changes process-wide.
func TestInitOffersProjectDocs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("HOME", filepath.Join(tmp, "home"))
	t.Setenv("CTX_CACHE", filepath.Join(tmp, "cache"))
	run := func(name string, p *scriptedPrompter) (*project.Manifest, string) {
		t.Helper()
		proj := filepath.Join(tmp, name)
		for _, f := range []string{"docs/guide.md", "AGENTS.md", "CLAUDE.md"} {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(proj, f)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(proj, f), []byte("# "+f+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var out, errOut bytes.Buffer
		g := &globalOptions{IO: &IOStreams{In: bytes.NewReader(nil), Out: &out, ErrOut: &errOut}, Dir: proj}
		if err := runInit(context.Background(), &initOptions{globalOptions: g, prompter: p}); err != nil {
			t.Fatalf("init: %v\n%s", err, errOut.String())
		}
		pr, _ := project.At(proj)
		m, err := pr.ReadManifest()
		if err != nil {
			t.Fatal(err)
		}
		return m, out.String() + errOut.String()
	}

	p := &scriptedPrompter{pick: []string{"docs", "claude"}}
	m, log := run("pick", p)
	if got := strings.Join(p.checked, ","); got != "docs,agents,claude" {
		t.Errorf("pre-checked %s, want docs,agents,claude", got)
	}
	var got []string
	for _, s := range m.Packages {
		if s.Kind != project.KindDir {
			t.Errorf("%s has kind %q", s.Alias, s.Kind)
		}
		got = append(got, s.Alias+"="+s.Source)
	}
	if strings.Join(got, " ") != "claude=CLAUDE.md docs=docs" {
		t.Errorf("manifest packages %v, want claude and docs\n%s", got, log)
	}

	m, log = run("cancel", &scriptedPrompter{cancel: true})
	if len(m.Packages) != 0 || !strings.Contains(log, "no project docs added") {
		t.Errorf("cancel: packages %+v\n%s", m.Packages, log)
	}
}
