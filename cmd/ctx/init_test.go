package main

import (
	"bytes"
	"context"
	"errors"
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
// The command runs in an environment of its own (HOME and CTX_CACHE in
// the test's folder), so the test runs in parallel.
func TestInitOffersProjectDocs(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	env := environment{"HOME=" + filepath.Join(tmp, "home"), "CTX_CACHE=" + filepath.Join(tmp, "cache")}
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
		g := &globalOptions{IO: &IOStreams{In: bytes.NewReader(nil), Out: &out, ErrOut: &errOut}, Env: env, Wd: tmp, Dir: proj}
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

// TestInitOffersAgentsMD: at a terminal (a scripted prompter), init asks
// before adding its block to the agent file; yes adds it, no leaves the
// file as it was; --agents-md does not ask.
//
// In parallel: see TestInitOffersProjectDocs.
func TestInitOffersAgentsMD(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	env := environment{"HOME=" + filepath.Join(tmp, "home"), "CTX_CACHE=" + filepath.Join(tmp, "cache")}
	const user = "# Rules\n\nBe brief.\n"
	run := func(name string, p *scriptedPrompter) (string, string) {
		t.Helper()
		proj := filepath.Join(tmp, name)
		if err := os.MkdirAll(proj, 0o755); err != nil {
			t.Fatal(err)
		}
		agents := filepath.Join(proj, "AGENTS.md")
		if _, err := os.Stat(agents); err != nil {
			if err := os.WriteFile(agents, []byte(user), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var out, errOut bytes.Buffer
		g := &globalOptions{IO: &IOStreams{In: bytes.NewReader(nil), Out: &out, ErrOut: &errOut}, Env: env, Wd: tmp, Dir: proj}
		if err := runInit(context.Background(), &initOptions{globalOptions: g, prompter: p, agentsMD: name == "again"}); err != nil {
			t.Fatalf("init: %v\n%s", err, errOut.String())
		}
		got, err := os.ReadFile(agents)
		if err != nil {
			t.Fatal(err)
		}
		return string(got), errOut.String()
	}

	no := &scriptedPrompter{deny: true}
	got, log := run("no", no)
	if got != user || len(no.confirms) != 1 || !strings.Contains(no.confirms[0], "Add a pointer to .context/INDEX.md and `ctx mcp` in AGENTS.md") || !strings.Contains(log, "no agent file changed") {
		t.Errorf("no: AGENTS.md %q, asked %q\n%s", got, no.confirms, log)
	}

	// Ctrl-C (or Ctrl-D) at the question is an interrupt, as the README's
	// exit codes say (review19d): 130, the file as it was, the project kept.
	{
		proj := filepath.Join(tmp, "stop")
		if err := os.MkdirAll(proj, 0o755); err != nil {
			t.Fatal(err)
		}
		agents := filepath.Join(proj, "AGENTS.md")
		if err := os.WriteFile(agents, []byte(user), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		g := &globalOptions{IO: &IOStreams{In: bytes.NewReader(nil), Out: &out, ErrOut: &errOut}, Env: env, Wd: tmp, Dir: proj}
		err := runInit(context.Background(), &initOptions{globalOptions: g, prompter: &scriptedPrompter{stop: true}})
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != ExitInterrupted || !strings.Contains(err.Error(), "no agent file changed; the project stays") {
			t.Errorf("stop: %v\n%s", err, errOut.String())
		}
		if got, _ := os.ReadFile(agents); string(got) != user {
			t.Errorf("stop: AGENTS.md %q", got)
		}
		if _, err := os.Stat(filepath.Join(proj, ".context", "context.config.json")); err != nil {
			t.Errorf("stop: the project is gone: %v", err)
		}
	}

	yes := &scriptedPrompter{}
	got, log = run("yes", yes)
	if !strings.HasPrefix(got, user+"\n<!-- ctx:begin -->\n") || !strings.HasSuffix(got, "<!-- ctx:end -->\n") || len(yes.confirms) != 1 {
		t.Errorf("yes: AGENTS.md %q, asked %q\n%s", got, yes.confirms, log)
	}

	// --agents-md asks nothing, at a terminal too: the block is added, and
	// on the existing project it is up to date.
	first := &scriptedPrompter{}
	if got, log = run("again", first); !strings.Contains(got, "<!-- ctx:begin -->") || len(first.confirms) != 0 {
		t.Fatalf("--agents-md: AGENTS.md %q, asked %q\n%s", got, first.confirms, log)
	}
	again := &scriptedPrompter{}
	if _, log = run("again", again); len(again.confirms) != 0 || !strings.Contains(log, "ctx's block is up to date") {
		t.Errorf("again: asked %q\n%s", again.confirms, log)
	}
}
