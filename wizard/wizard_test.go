package wizard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/registry"
	"github.com/ctx-dev/ctx/webfetch"
	"github.com/ctx-dev/ctx/workspace"
)

// fakePrompter answers from a script and records what it was shown.
type fakePrompter struct {
	pick      func(choices []Choice, pre []int) ([]int, error)
	confirm   error // returned by Confirm when not nil
	answer    bool
	shown     []Choice
	pre       []int
	questions []string
	defaults  []bool // each question's default answer
	spinners  []string
	stops     []string // each spinner's final line, "ok: " or "not ok: " first
}

func (f *fakePrompter) MultiSelect(msg string, choices []Choice, pre []int) ([]int, error) {
	f.shown, f.pre = choices, pre
	return f.pick(choices, pre)
}

func (f *fakePrompter) Confirm(msg string, def bool) (bool, error) {
	f.questions = append(f.questions, msg)
	f.defaults = append(f.defaults, def)
	if f.confirm != nil {
		return false, f.confirm
	}
	return f.answer, nil
}

func (f *fakePrompter) Spinner(msg string) func(bool, string) {
	f.spinners = append(f.spinners, msg)
	return func(ok bool, final string) {
		mark := "not ok: "
		if ok {
			mark = "ok: "
		}
		f.stops = append(f.stops, mark+final)
	}
}

// fakeWorkspace records every change.
type fakeWorkspace struct {
	man      project.Manifest
	calls    []string
	added    []project.PackageSpec
	removed  []string
	registry string
	private  map[string]bool // PrivateNotAllowed's answer
	// interruptAfter > 0: Add installs that many specs, then stops as
	// Ctrl-C does (the rest failed with context.Canceled, the error too).
	interruptAfter int
	// interruptRemove: Remove removes, then stops as Ctrl-C after the
	// commit does (workspace.execute: the report and context.Canceled).
	interruptRemove bool
	stale           bool // IndexStale's answer
}

func (w *fakeWorkspace) Manifest() project.Manifest { return w.man }
func (w *fakeWorkspace) SetRegistry(url string) error {
	w.calls = append(w.calls, "SetRegistry")
	w.registry = url
	return nil
}
func (w *fakeWorkspace) Add(ctx context.Context, specs []project.PackageSpec, o workspace.AddOptions) (*workspace.Report, error) {
	w.calls = append(w.calls, "Add")
	w.added = append(w.added, specs...)
	rep := &workspace.Report{}
	for i, s := range specs {
		if w.interruptAfter > 0 && i >= w.interruptAfter {
			rep.Packages = append(rep.Packages, workspace.PackageResult{Alias: s.Alias, Action: workspace.Failed, Err: context.Canceled})
			continue
		}
		rep.Packages = append(rep.Packages, workspace.PackageResult{Alias: s.Alias, Action: workspace.Installed, NewCommit: strings.Repeat("c", 40)})
	}
	if w.interruptAfter > 0 && len(specs) > w.interruptAfter {
		return rep, context.Canceled
	}
	return rep, nil
}
func (w *fakeWorkspace) Remove(ctx context.Context, aliases []string, o workspace.RemoveOptions) (*workspace.Report, error) {
	w.calls = append(w.calls, "Remove")
	w.removed = append(w.removed, aliases...)
	rep := &workspace.Report{}
	for _, a := range aliases {
		rep.Packages = append(rep.Packages, workspace.PackageResult{Alias: a, Action: workspace.Removed})
	}
	if w.interruptRemove {
		return rep, context.Canceled
	}
	return rep, nil
}
func (w *fakeWorkspace) PrivateNotAllowed(ctx context.Context, aliases []string) []string {
	var out []string
	for _, a := range aliases {
		if w.private[a] {
			out = append(out, a)
		}
	}
	return out
}
func (w *fakeWorkspace) IndexStale() bool {
	w.calls = append(w.calls, "IndexStale")
	return w.stale
}
func (w *fakeWorkspace) Reindex(ctx context.Context, o indexer.Options) (*indexer.SyncReport, error) {
	w.calls = append(w.calls, "Reindex")
	return &indexer.SyncReport{Added: 3, Chunks: 9}, nil
}

// fakeAccess denies the repositories in deny.
type fakeAccess struct {
	mu      sync.Mutex
	deny    map[string]bool
	checked []string
}

func (a *fakeAccess) CheckAccess(ctx context.Context, url string) error {
	a.mu.Lock()
	a.checked = append(a.checked, url)
	a.mu.Unlock()
	if a.deny[url] {
		return &gitengine.Error{Kind: gitengine.KindAuthRequired, URL: url, Op: "list refs"}
	}
	return nil
}

func testRegistry() *registry.Result {
	mk := func(name, repo, path string, tags ...string) registry.Entry {
		return registry.Entry{Context: registry.Context{Name: name, Description: "about " + name, Repo: repo, Path: path, Tags: tags}}
	}
	return &registry.Result{Name: "hub", Contexts: []registry.Entry{
		mk("Platform Guide", "https://git.example/platform.git", "docs", "backend"),
		mk("api", "https://git.example/api.git", "", "backend", "http"),
		mk("secret", "https://git.example/secret.git", "", "security"),
	}}
}

func installedAPI() project.Manifest {
	return project.Manifest{Registry: "old", Packages: []project.PackageSpec{
		{Alias: "api", Source: "https://git.example/api", Path: "."}, // same package, spelled differently
		{Alias: "manual", Source: "https://elsewhere/x.git"},
	}}
}

func TestInteractivePreselectsInstalledAndAdds(t *testing.T) {
	t.Parallel()
	ws := &fakeWorkspace{man: installedAPI()}
	acc := &fakeAccess{}
	p := &fakePrompter{answer: true, pick: func(c []Choice, pre []int) ([]int, error) { return []int{0, 1}, nil }}
	var out bytes.Buffer
	sum, err := Run(context.Background(), ws, acc, Options{Registry: testRegistry(), RegistryLocation: "new", Prompter: p, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.pre, []int{1}) {
		t.Errorf("pre-selected %v, want [1] (api is installed)", p.pre)
	}
	if !p.shown[1].Installed || p.shown[0].Installed {
		t.Errorf("installed flags wrong: %+v", p.shown)
	}
	if len(acc.checked) != 2 {
		t.Errorf("checked %v: want the two repositories not installed", acc.checked)
	}
	want := []project.PackageSpec{{Alias: "platform-guide", Source: "https://git.example/platform.git", Path: "docs"}}
	if !reflect.DeepEqual(ws.added, want) {
		t.Errorf("added %+v, want %+v", ws.added, want)
	}
	if ws.removed != nil {
		t.Errorf("removed %v", ws.removed)
	}
	if ws.registry != "new" {
		t.Errorf("registry not saved: %q", ws.registry)
	}
	if len(p.questions) != 1 || p.questions[0] != "Install platform-guide?" {
		t.Errorf("questions %q", p.questions)
	}
	if partial(sum) || sum.AddReport == nil {
		t.Errorf("partial: %+v", sum)
	}
	if ps := sum.AddReport.Packages; len(ps) != 1 || ps[0].Alias != "platform-guide" || ps[0].Action != workspace.Installed || !strings.HasPrefix(ps[0].NewCommit, "cccccccccccc") {
		t.Errorf("added %+v", ps)
	}
	if ix := sum.Index; ix == nil || ix.Added+ix.Updated+ix.Unchanged != 3 {
		t.Errorf("index %+v", ix)
	}
}

func TestInteractiveDeselectRemoves(t *testing.T) {
	t.Parallel()
	ws := &fakeWorkspace{man: installedAPI()}
	p := &fakePrompter{answer: true, pick: func(c []Choice, pre []int) ([]int, error) { return nil, nil }}
	if _, err := Run(context.Background(), ws, &fakeAccess{}, Options{Registry: testRegistry(), Prompter: p}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ws.removed, []string{"api"}) || ws.added != nil {
		t.Errorf("removed %v added %v: want only api removed (manual is not from the registry)", ws.removed, ws.added)
	}
	if p.questions[0] != "Remove api?" {
		t.Errorf("question %q", p.questions[0])
	}
}

func TestInteractiveInaccessibleNotSelectable(t *testing.T) {
	t.Parallel()
	ws := &fakeWorkspace{man: installedAPI()}
	acc := &fakeAccess{deny: map[string]bool{"https://git.example/secret.git": true}}
	p := &fakePrompter{answer: true, pick: func(c []Choice, pre []int) ([]int, error) { return []int{0, 1}, nil }}
	var log bytes.Buffer
	sum, err := Run(context.Background(), ws, acc, Options{Registry: testRegistry(), Prompter: p, Select: []string{"secret"}, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if p.shown[2].Disabled != "authentication required" {
		t.Errorf("secret shown as %+v", p.shown[2])
	}
	for _, i := range p.pre {
		if i == 2 {
			t.Error("inaccessible context pre-selected although --select named it")
		}
	}
	if !partial(sum) || len(sum.Unavailable) != 1 || sum.Unavailable[0].Name != "secret" {
		t.Errorf("partial=%v unavailable %+v", partial(sum), sum.Unavailable)
	}
	// A prompter that lets a disabled choice through is caught.
	p2 := &fakePrompter{answer: true, pick: func(c []Choice, pre []int) ([]int, error) { return []int{2}, nil }}
	ws2 := &fakeWorkspace{man: installedAPI()}
	if _, err := Run(context.Background(), ws2, acc, Options{Registry: testRegistry(), Prompter: p2}); err == nil || len(ws2.calls) != 0 {
		t.Errorf("disabled choice accepted: err=%v calls=%v", err, ws2.calls)
	}
}

func TestCancelChangesNothing(t *testing.T) {
	t.Parallel()
	for name, p := range map[string]*fakePrompter{
		"at the list":         {pick: func(c []Choice, pre []int) ([]int, error) { return nil, ErrInterrupted }},
		"at the confirmation": {pick: func(c []Choice, pre []int) ([]int, error) { return []int{0}, nil }, confirm: ErrInterrupted},
	} {
		t.Run(name, func(t *testing.T) {
			ws := &fakeWorkspace{man: installedAPI()}
			_, err := Run(context.Background(), ws, &fakeAccess{}, Options{Registry: testRegistry(), RegistryLocation: "new", Prompter: p})
			if !errors.Is(err, ErrInterrupted) {
				t.Fatalf("err = %v, want ErrInterrupted", err)
			}
			if len(ws.calls) != 0 {
				t.Errorf("workspace changed: %v", ws.calls)
			}
		})
	}
	// Declining is not an error, and changes nothing either.
	ws := &fakeWorkspace{man: installedAPI()}
	p := &fakePrompter{answer: false, pick: func(c []Choice, pre []int) ([]int, error) { return []int{0}, nil }}
	sum, err := Run(context.Background(), ws, &fakeAccess{}, Options{Registry: testRegistry(), RegistryLocation: "new", Prompter: p})
	if err != nil || !sum.Declined || len(ws.calls) != 0 {
		t.Errorf("decline: err=%v sum=%+v calls=%v", err, sum, ws.calls)
	}
}

func TestNonInteractive(t *testing.T) {
	t.Parallel()
	t.Run("no selection flags", func(t *testing.T) {
		_, err := Run(context.Background(), &fakeWorkspace{}, &fakeAccess{}, Options{Registry: testRegistry()})
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--select NAME,..., --tags TAG,... or --all") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("unknown name", func(t *testing.T) {
		_, err := Run(context.Background(), &fakeWorkspace{}, &fakeAccess{}, Options{Registry: testRegistry(), Select: []string{"api,nope", "zip"}})
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), `no context named "nope", "zip"`) || !strings.Contains(err.Error(), "valid names: Platform Guide, api, secret") {
			t.Fatalf("err = %v", err)
		}
	})
	// cli20: a typo of a name or a tag is answered as an unknown alias
	// is (internal/suggest), not only with the whole list.
	t.Run("typo of a name or tag", func(t *testing.T) {
		_, err := Run(context.Background(), &fakeWorkspace{}, &fakeAccess{}, Options{Registry: testRegistry(), Select: []string{"secrte"}})
		if err == nil || !strings.Contains(err.Error(), `no context named "secrte" (did you mean secret?) in the registry`) {
			t.Fatalf("err = %v", err)
		}
		_, err = Run(context.Background(), &fakeWorkspace{}, &fakeAccess{}, Options{Registry: testRegistry(), Tags: []string{"backnd"}})
		if err == nil || !strings.Contains(err.Error(), `no context is tagged "backnd" (did you mean backend?);`) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("unknown tag", func(t *testing.T) {
		_, err := Run(context.Background(), &fakeWorkspace{}, &fakeAccess{}, Options{Registry: testRegistry(), Tags: []string{"frontend"}})
		if err == nil || !strings.Contains(err.Error(), "tags in the registry: backend, http, security") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("tags select and only add", func(t *testing.T) {
		ws := &fakeWorkspace{man: installedAPI()}
		acc := &fakeAccess{}
		sum, err := Run(context.Background(), ws, acc, Options{Registry: testRegistry(), Tags: []string{"backend"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(ws.added) != 1 || ws.added[0].Alias != "platform-guide" || ws.removed != nil || partial(sum) {
			t.Errorf("added %+v removed %v", ws.added, ws.removed)
		}
		if !reflect.DeepEqual(acc.checked, []string{"https://git.example/platform.git"}) {
			t.Errorf("checked %v: only the ones to install", acc.checked)
		}
	})
	t.Run("all with an inaccessible repo is partial", func(t *testing.T) {
		ws := &fakeWorkspace{}
		acc := &fakeAccess{deny: map[string]bool{"https://git.example/secret.git": true}}
		var out, log bytes.Buffer
		sum, err := Run(context.Background(), ws, acc, Options{Registry: testRegistry(), All: true, Out: &out, Log: &log})
		if err != nil {
			t.Fatal(err)
		}
		if len(ws.added) != 2 || !partial(sum) {
			t.Errorf("added %+v partial %v", ws.added, partial(sum))
		}
		if u := sum.Unavailable; len(u) != 1 || u[0].Name != "secret" || u[0].Repo != "https://git.example/secret.git" || u[0].Reason != "authentication required" {
			t.Errorf("unavailable %+v", u)
		}
	})
	t.Run("alias collision", func(t *testing.T) {
		ws := &fakeWorkspace{man: project.Manifest{Packages: []project.PackageSpec{{Alias: "api", Source: "https://other/api.git"}}}}
		if _, err := Run(context.Background(), ws, &fakeAccess{}, Options{Registry: testRegistry(), Select: []string{"api"}}); err != nil {
			t.Fatal(err)
		}
		if len(ws.added) != 1 || ws.added[0].Alias != "api-2" {
			t.Errorf("added %+v", ws.added)
		}
	})
}

// TestHostileRegistryTextIsEscaped: what setup shows of a registry (names,
// descriptions, tags in the prompt; names in usage errors; access reasons)
// never carries a raw control or bidi character.
func TestHostileRegistryTextIsEscaped(t *testing.T) {
	t.Parallel()
	reg := &registry.Result{Name: "hub", Contexts: []registry.Entry{
		{Context: registry.Context{Name: "ev\x1b[2Jil", Description: "red \x1b[31m\a\u202e", Repo: "https://git.example/e\x1b.git", Tags: []string{"t\x9bx"}}},
		{Context: registry.Context{Name: "ok", Description: "fine", Repo: "https://git.example/ok.git"}},
	}}
	unsafe := func(s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool {
			return r < 0x20 && r != '\n' || r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e
		})
	}
	p := &fakePrompter{answer: true, pick: func(c []Choice, pre []int) ([]int, error) { return []int{1}, nil }}
	acc := &fakeAccess{deny: map[string]bool{"https://git.example/e\x1b.git": true}}
	var out, log bytes.Buffer
	if _, err := Run(context.Background(), &fakeWorkspace{}, acc, Options{Registry: reg, Prompter: p, Out: &out, Log: &log}); err != nil {
		t.Fatal(err)
	}
	c := p.shown[0]
	if want := `ev\x1b[2Jil`; c.Name != want {
		t.Errorf("choice name %q, want %q", c.Name, want)
	}
	if want := `red \x1b[31m\a\u202e`; c.Description != want {
		t.Errorf("choice description %q, want %q", c.Description, want)
	}
	if unsafe(strings.Join(c.Tags, ",")) || unsafe(c.Disabled) || c.Disabled == "" {
		t.Errorf("choice tags %q, disabled %q", c.Tags, c.Disabled)
	}
	for _, o := range []Options{
		{Registry: reg, Out: &out, Log: &log},
		{Registry: reg, Select: []string{"no\x1bpe"}, Out: &out, Log: &log},
		{Registry: reg, Tags: []string{"no\u202etag"}, Out: &out, Log: &log},
	} {
		_, err := Run(context.Background(), &fakeWorkspace{}, &fakeAccess{}, o)
		if err == nil || unsafe(err.Error()) {
			t.Errorf("usage error %q: want the names escaped", err)
		}
	}
	if unsafe(out.String()) || unsafe(log.String()) {
		t.Errorf("output %q, log %q", out.String(), log.String())
	}
}

// partial reports whether something the user asked for was not done: a
// context that could not be read, or a package an add or remove did not do.
func partial(s *Summary) bool {
	if len(s.Unavailable) > 0 {
		return true
	}
	return (s.AddReport != nil && s.AddReport.Partial()) || (s.RemoveReport != nil && s.RemoveReport.Partial())
}

// One access check answers for every spelling of a repository over one
// transport, and only for that transport.
func TestAccessKey(t *testing.T) {
	same := [][2]string{
		{"https://github.com/o/r", "https://GitHub.com/o/r.git/"},
		{"git@github.com:o/r.git", "ssh://git@github.com/o/r"},
		{"./hub", "hub/"},
	}
	for _, p := range same {
		if accessKey(p[0]) != accessKey(p[1]) {
			t.Errorf("%q and %q are checked apart: %q, %q", p[0], p[1], accessKey(p[0]), accessKey(p[1]))
		}
	}
	apart := [][2]string{
		{"https://github.com/o/r", "git@github.com:o/r"},
		{"https://github.com/o/r", "http://github.com/o/r"},
		{"https://github.com/o/r", "https://github.com/o/r2"},
	}
	for _, p := range apart {
		if accessKey(p[0]) == accessKey(p[1]) {
			t.Errorf("%q and %q share one check: %q", p[0], p[1], accessKey(p[0]))
		}
	}
}

// TestNothingToChangeNamesPrivate (fixN18): a setup that changes nothing,
// with a registry the user named, says which packages the manifest
// already names are on the private network and not allowed, and the
// install to run; not for the manifest's own registry, nor when none is.
func TestNothingToChangeNamesPrivate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name         string
		private      map[string]bool
		fromManifest bool
		want         string
	}{
		{"private", map[string]bool{"api": true, "manual": true}, false, "the manifest already names api, on your private network and not allowed here (setup allows only what it adds): if you trust it, run `ctx install --allow-outside api`\n"},
		{"public", nil, false, ""},
		{"manifest's registry", map[string]bool{"api": true}, true, ""},
	} {
		ws := &fakeWorkspace{man: installedAPI(), private: c.private}
		var out, log bytes.Buffer
		_, err := Run(context.Background(), ws, &fakeAccess{}, Options{Registry: testRegistry(), RegistryLocation: "old", FromManifest: c.fromManifest, Select: []string{"api"}, Out: &out, Log: &log})
		if err != nil {
			t.Fatal(err)
		}
		if out.String() != "Nothing to change.\n" {
			t.Errorf("%s: out %q, want Nothing to change.", c.name, out.String())
		}
		got, _ := strings.CutPrefix(log.String(), "note: ")
		if got != c.want {
			t.Errorf("%s: log %q, want %q", c.name, log.String(), c.want)
		}
	}
}

// TestRemovalDefaultsToNo: a confirmation that removes packages defaults
// to no (← in the list unchecks every installed context: Enter, Enter
// removed them all); one that only installs keeps yes.
func TestRemovalDefaultsToNo(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		pick []int
		q    string
		def  bool
	}{
		{"remove", nil, "Remove api?", false},
		{"install and remove", []int{0}, "Install platform-guide and remove api?", false},
		{"install", []int{0, 1}, "Install platform-guide?", true},
	} {
		ws := &fakeWorkspace{man: installedAPI()}
		p := &fakePrompter{answer: true, pick: func([]Choice, []int) ([]int, error) { return c.pick, nil }}
		if _, err := Run(context.Background(), ws, &fakeAccess{}, Options{Registry: testRegistry(), Prompter: p}); err != nil {
			t.Fatal(err)
		}
		if len(p.questions) != 1 || p.questions[0] != c.q || p.defaults[0] != c.def {
			t.Errorf("%s: asked %q default %v, want %q default %v", c.name, p.questions, p.defaults, c.q, c.def)
		}
	}
}

// TestYesStillAsksBeforeRemoving: --yes at a terminal skips the question
// of a change that only installs, not of one that removes: ← in the list
// unchecks every installed context, and Enter then removed them all with
// no question (wiz20). As apt's -y, which still stops before removing an
// essential package; a removal is never chosen by flags (without a
// terminal setup only adds), so the user is there to answer.
func TestYesStillAsksBeforeRemoving(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		pick []int
		q    []string
	}{
		{"remove", nil, []string{"Remove api?"}},
		{"install and remove", []int{0}, []string{"Install platform-guide and remove api?"}},
		{"install", []int{0, 1}, nil},
	} {
		ws := &fakeWorkspace{man: installedAPI()}
		p := &fakePrompter{answer: false, pick: func([]Choice, []int) ([]int, error) { return c.pick, nil }}
		if _, err := Run(context.Background(), ws, &fakeAccess{}, Options{Registry: testRegistry(), Prompter: p, Yes: true}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p.questions, c.q) {
			t.Errorf("%s with --yes: asked %q, want %q", c.name, p.questions, c.q)
		}
		if c.q != nil && (ws.removed != nil || ws.added != nil) {
			t.Errorf("%s with --yes, answered no: removed %v, added %v", c.name, ws.removed, ws.added)
		}
		if c.q == nil && len(ws.added) != 1 {
			t.Errorf("%s with --yes: added %v, want platform-guide without a question", c.name, ws.added)
		}
	}
}

// TestAccessCheckMark: the access check's last line is marked as what
// went well only when every repository is reachable; "3 of 4 cannot be
// read" had a check mark (wiz20).
func TestAccessCheckMark(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		deny map[string]bool
		want string
	}{
		{nil, "ok: All repositories are reachable"},
		{map[string]bool{"https://git.example/secret.git": true}, "not ok: 1 of 2 contexts cannot be read (why is shown beside each)"},
	} {
		p := &fakePrompter{answer: false, pick: func([]Choice, []int) ([]int, error) { return nil, ErrInterrupted }}
		Run(context.Background(), &fakeWorkspace{man: installedAPI()}, &fakeAccess{deny: c.deny}, Options{Registry: testRegistry(), Prompter: p})
		if !reflect.DeepEqual(p.stops, []string{c.want}) {
			t.Errorf("spinner ended %q, want %q", p.stops, c.want)
		}
	}
}

// TestInterruptedInstallKeepsWhatLanded: Ctrl-C while setup installs
// leaves the packages already installed (the workspace's report says
// which); setup reports them, and saves the registry, so that `ctx setup`
// goes on from there.
func TestInterruptedInstallKeepsWhatLanded(t *testing.T) {
	t.Parallel()
	ws := &fakeWorkspace{interruptAfter: 1}
	sum, err := Run(context.Background(), ws, &fakeAccess{}, Options{Registry: testRegistry(), RegistryLocation: "hub.json", All: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if sum == nil || sum.AddReport == nil || len(sum.AddReport.Packages) != 3 || sum.AddReport.Packages[0].Action != workspace.Installed {
		t.Fatalf("summary %+v: want the partial report of the install", sum)
	}
	if ws.registry != "hub.json" {
		t.Errorf("registry %q not saved although a package was installed", ws.registry)
	}
}

// TestNothingChosenInAFreshFolder: at a terminal where there is no
// project, choosing nothing creates nothing (no registry saved, which
// would create .context/).
func TestNothingChosenInAFreshFolder(t *testing.T) {
	t.Parallel()
	ws := &fakeWorkspace{}
	p := &fakePrompter{answer: true, pick: func([]Choice, []int) ([]int, error) { return nil, nil }}
	var out bytes.Buffer
	if _, err := Run(context.Background(), ws, &fakeAccess{}, Options{Registry: testRegistry(), RegistryLocation: "hub.json", Prompter: p, Out: &out}); err != nil {
		t.Fatal(err)
	}
	if len(ws.calls) != 0 {
		t.Errorf("workspace changed: %v", ws.calls)
	}
	if out.String() != "Nothing chosen: nothing changed.\n" {
		t.Errorf("out %q", out.String())
	}
}

// netDown fails every check as an unreachable host does.
type netDown struct{}

func (netDown) CheckAccess(ctx context.Context, url string) error {
	return &gitengine.Error{Kind: gitengine.KindNetwork, URL: url, Op: "list refs"}
}

// TestNoneReachableSaysWhy: when no context can be offered, the error
// says why: credentials when the servers refused, the network when they
// could not be asked (it blamed credentials when offline).
func TestNoneReachableSaysWhy(t *testing.T) {
	t.Parallel()
	deny := &fakeAccess{deny: map[string]bool{"https://git.example/platform.git": true, "https://git.example/api.git": true, "https://git.example/secret.git": true}}
	for _, c := range []struct {
		name   string
		access AccessChecker
		want   string
	}{
		{"offline", netDown{}, "could not be checked"},
		{"refused", deny, "credentials"},
	} {
		p := &fakePrompter{answer: true, pick: func([]Choice, []int) ([]int, error) { return nil, errors.New("prompter reached") }}
		_, err := Run(context.Background(), &fakeWorkspace{}, c.access, Options{Registry: testRegistry(), Prompter: p})
		if err == nil || !strings.Contains(err.Error(), c.want) || p.shown != nil {
			t.Errorf("%s: err %v (list shown: %v), want one naming %q", c.name, err, p.shown != nil, c.want)
		}
	}
}

// TestLongChangeQuestion: the confirmation names at most a few packages.
func TestLongChangeQuestion(t *testing.T) {
	t.Parallel()
	var names []string
	for i := range 500 {
		names = append(names, fmt.Sprintf("ctx%03d", i))
	}
	got := changeQuestion(&Summary{Added: names, Removed: []string{"old"}})
	want := "Install 500 packages (ctx000, ctx001, ctx002, ctx003, ctx004 and 495 more) and remove old?"
	if got != want {
		t.Errorf("question %q, want %q", got, want)
	}
}

// TestHTTPAuthReasonNamesAdd: an https context that wants credentials
// says what works from setup (add it yourself with a token variable), not
// to set the source's "tokenEnv", which a registry may not give.
func TestHTTPAuthReasonNamesAdd(t *testing.T) {
	t.Parallel()
	err := &webfetch.Error{Kind: webfetch.KindAuth, URL: "https://wiki.example/doc.md", Msg: "HTTP 401 Unauthorized",
		Hint: `the server wants credentials: set the source's "tokenEnv" to the name of an environment variable holding a token`}
	got := accessReason(err)
	if !strings.Contains(got, "ctx add https://wiki.example/doc.md --token-env VAR") || strings.Contains(got, `"tokenEnv"`) {
		t.Errorf("reason %q", got)
	}
}

// TestInterruptedRemovalKeepsWhatLanded: Ctrl-C once the removal is
// committed (workspace.execute returns its report with the error) is
// reported, and the registry saved, as an interrupted install is; the
// report was dropped and the registry not saved (review19d).
func TestInterruptedRemovalKeepsWhatLanded(t *testing.T) {
	t.Parallel()
	ws := &fakeWorkspace{man: installedAPI(), interruptRemove: true}
	p := &fakePrompter{answer: true, pick: func([]Choice, []int) ([]int, error) { return []int{0}, nil }}
	sum, err := Run(context.Background(), ws, &fakeAccess{}, Options{Registry: testRegistry(), RegistryLocation: "hub.json", Prompter: p})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if sum == nil || sum.RemoveReport == nil || len(sum.RemoveReport.Packages) != 1 || sum.RemoveReport.Packages[0].Action != workspace.Removed {
		t.Fatalf("summary %+v: want the report of the removal", sum)
	}
	if ws.registry != "hub.json" {
		t.Errorf("registry %q not saved although a package was removed", ws.registry)
	}
	if slices.Contains(ws.calls, "Add") {
		t.Errorf("installed after the interrupt: %v", ws.calls)
	}
}

// TestNothingToChangeFinishesTheIndex (review19d): a setup re-run after an
// interrupt left the packages in place but the index missing or behind
// has nothing to change, and builds the index; with a fresh index it
// does not re-index.
func TestNothingToChangeFinishesTheIndex(t *testing.T) {
	t.Parallel()
	for _, stale := range []bool{true, false} {
		ws := &fakeWorkspace{man: installedAPI(), stale: stale}
		var out, log bytes.Buffer
		sum, err := Run(context.Background(), ws, &fakeAccess{}, Options{Registry: testRegistry(), RegistryLocation: "old", Select: []string{"api"}, Out: &out, Log: &log})
		if err != nil {
			t.Fatal(err)
		}
		if out.String() != "Nothing to change.\n" {
			t.Errorf("stale=%v: out %q", stale, out.String())
		}
		if got := slices.Contains(ws.calls, "Reindex"); got != stale || (sum.Index != nil) != stale {
			t.Errorf("stale=%v: calls %v, index %+v", stale, ws.calls, sum.Index)
		}
	}
}
