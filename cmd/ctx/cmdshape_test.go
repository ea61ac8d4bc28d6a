package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// parseOnly runs cmd with args, its run function replaced by runF: flags
// and arguments are parsed into the options, and nothing else happens.
func parseOnly(t *testing.T, cmd *cobra.Command, args []string) error {
	t.Helper()
	cmd.SetArgs(argsOrNone(args))
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	return cmd.Execute()
}

// TestNoArgumentsIsNotTheProcesssArguments: a command given no arguments
// in process parses none, whatever the test binary itself was given
// (cobra falls back to os.Args on nil).
func TestNoArgumentsIsNotTheProcesssArguments(t *testing.T) {
	saved := os.Args
	t.Cleanup(func() { os.Args = saved })
	os.Args = []string{saved[0], "--no-such-flag-of-ctx"}
	var got *indexOptions
	if err := parseOnly(t, newIndexCmd(&globalOptions{}, func(_ context.Context, o *indexOptions) error { got = o; return nil }), nil); err != nil || got == nil {
		t.Fatalf("index with no arguments: err %v, run called: %v", err, got != nil)
	}
	var out, errOut bytes.Buffer
	streams := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	g := &globalOptions{IO: streams}
	if code := execute(context.Background(), newRootCmd(g), nil, g); code != ExitOK {
		t.Fatalf("ctx with no arguments in process: exit %d, stderr %q", code, errOut.String())
	}
}

// The flag → options tables below check that each command's RunE only
// fills its options: the run function (runF) sees exactly the flags and
// arguments given, and runs nothing.

func TestAddOptions(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want addOptions
	}{
		{[]string{"../repo"}, addOptions{source: "../repo"}},
		{[]string{"https://h/r.git", "--path", "docs/api", "--alias", "api", "--ref", "v1", "--force"},
			addOptions{source: "https://h/r.git", path: "docs/api", alias: "api", ref: "v1", force: true}},
		{[]string{"https://h/llms.txt", "--allow-private-network", "--ttl", "12h", "--token-env", "WIKI_TOKEN"},
			addOptions{source: "https://h/llms.txt", allowPrivate: true, ttl: "12h", tokenEnv: "WIKI_TOKEN"}},
	} {
		g := &globalOptions{IO: &IOStreams{}}
		var got *addOptions
		err := parseOnly(t, newAddCmd(g, func(_ context.Context, o *addOptions) error { got = o; return nil }), tt.args)
		if err != nil || got == nil {
			t.Fatalf("add %q: err %v, run called: %v", tt.args, err, got != nil)
		}
		if got.globalOptions != g {
			t.Errorf("add %q: the global options were not passed on", tt.args)
		}
		got.globalOptions = nil
		if *got != tt.want {
			t.Errorf("add %q: options %+v, want %+v", tt.args, *got, tt.want)
		}
	}
}

func TestUpdateOptions(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want updateOptions
	}{
		{nil, updateOptions{}},
		{[]string{"api", "web", "--dry-run"}, updateOptions{aliases: []string{"api", "web"}, dryRun: true}},
		{[]string{"--force", "api"}, updateOptions{aliases: []string{"api"}, force: true}},
	} {
		var got *updateOptions
		err := parseOnly(t, newUpdateCmd(&globalOptions{}, func(_ context.Context, o *updateOptions) error { got = o; return nil }), tt.args)
		if err != nil || got == nil {
			t.Fatalf("update %q: err %v, run called: %v", tt.args, err, got != nil)
		}
		got.globalOptions = nil
		if len(got.aliases) == 0 {
			got.aliases = nil
		}
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("update %q: options %+v, want %+v", tt.args, *got, tt.want)
		}
	}
}

func TestSearchOptions(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want searchOptions
	}{
		{[]string{"error", "handling"}, searchOptions{query: "error handling", limit: 10}},
		{[]string{"-p", "a,b", "--tag", "x", "-n", "3", "--json", "--all-passages", "q"},
			searchOptions{query: "q", packages: []string{"a", "b"}, tags: []string{"x"}, limit: 3, json: true, allChunks: true}},
		// --best-per-doc, the default now, is still taken.
		{[]string{"--best-per-doc", "q"}, searchOptions{query: "q", limit: 10}},
		// After the first query word, -word is query syntax, not a flag;
		// long flags search knows are still flags; after -- nothing is.
		{[]string{"rolling", "-windows"}, searchOptions{query: "rolling -windows", limit: 10}},
		{[]string{"tool", "kind:dir", "--json"}, searchOptions{query: "tool kind:dir", limit: 10, json: true}},
		{[]string{"a", "--limit", "3", "-n", "b", "--tag=x"}, searchOptions{query: "a -n b", limit: 3, tags: []string{"x"}}},
		{[]string{"a", "--", "--json", "-p"}, searchOptions{query: "a --json -p", limit: 10}},
		{[]string{"-n", "2", "a", "--nope"}, searchOptions{query: "a --nope", limit: 2}},
	} {
		var got *searchOptions
		err := parseOnly(t, newSearchCmd(&globalOptions{}, func(_ context.Context, o *searchOptions) error { got = o; return nil }), tt.args)
		if err != nil || got == nil {
			t.Fatalf("search %q: err %v, run called: %v", tt.args, err, got != nil)
		}
		got.globalOptions, got.words = nil, nil
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("search %q: options %+v, want %+v", tt.args, *got, tt.want)
		}
	}
}

func TestIndexOptions(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want indexOptions
	}{
		{nil, indexOptions{}},
		{[]string{"--rebuild", "--budget", "0"}, indexOptions{rebuild: true, budgetSet: true}},
		{[]string{"--budget", "1200"}, indexOptions{budget: 1200, budgetSet: true}},
	} {
		var got *indexOptions
		err := parseOnly(t, newIndexCmd(&globalOptions{}, func(_ context.Context, o *indexOptions) error { got = o; return nil }), tt.args)
		if err != nil || got == nil {
			t.Fatalf("index %q: err %v, run called: %v", tt.args, err, got != nil)
		}
		got.globalOptions = nil
		if *got != tt.want {
			t.Errorf("index %q: options %+v, want %+v", tt.args, *got, tt.want)
		}
	}
}

func TestSetupOptions(t *testing.T) {
	var got *setupOptions
	args := []string{"--registry", "./hub", "--select", "a,b", "--select", "c", "--tags", "go", "--all", "--yes", "--list"}
	err := parseOnly(t, newSetupCmd(&globalOptions{}, func(_ context.Context, o *setupOptions) error { got = o; return nil }), args)
	if err != nil || got == nil {
		t.Fatalf("setup %q: err %v, run called: %v", args, err, got != nil)
	}
	got.globalOptions = nil
	want := setupOptions{registry: "./hub", selects: []string{"a", "b", "c"}, tags: []string{"go"}, all: true, yes: true, list: true}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("setup %q: options %+v, want %+v", args, *got, want)
	}
}

// TestGlobalOptionsReachRun: -C, parsed by the root command, is seen by the
// run function of a sub-command through its options.
func TestGlobalOptionsReachRun(t *testing.T) {
	g := &globalOptions{IO: &IOStreams{}}
	root := &cobra.Command{Use: "ctx"}
	root.PersistentFlags().StringVarP(&g.Dir, "chdir", "C", "", "")
	var got *mcpConfigOptions
	root.AddCommand(newMCPConfigCmd(g, func(_ context.Context, o *mcpConfigOptions) error { got = o; return nil }))
	if err := parseOnly(t, root, []string{"-C", "proj", "config", "--client", "cursor"}); err != nil || got == nil {
		t.Fatalf("err %v, run called: %v", err, got != nil)
	}
	if got.Dir != "proj" || got.client != "cursor" {
		t.Errorf("options: -C %q, --client %q; want proj, cursor", got.Dir, got.client)
	}
}

func TestConfigOptions(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want configOptions
	}{
		{[]string{"get", "registry"}, configOptions{op: "get", key: "registry"}},
		{[]string{"set", "registry", "./hub"}, configOptions{op: "set", key: "registry", value: "./hub"}},
		{[]string{"unset", "registry"}, configOptions{op: "unset", key: "registry"}},
	} {
		g := &globalOptions{IO: &IOStreams{}}
		var got *configOptions
		err := parseOnly(t, newConfigCmd(g, func(_ context.Context, o *configOptions) error { got = o; return nil }), tt.args)
		if err != nil || got == nil {
			t.Fatalf("config %q: err %v, run called: %v", tt.args, err, got != nil)
		}
		if got.globalOptions != g {
			t.Errorf("config %q: the global options were not passed on", tt.args)
		}
		got.globalOptions = nil
		if *got != tt.want {
			t.Errorf("config %q: options %+v, want %+v", tt.args, *got, tt.want)
		}
	}
}

func TestRefsOptions(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want refsOptions
	}{
		{nil, refsOptions{}},
		{[]string{"docs", "AGENTS.md", "--check", "--json"}, refsOptions{paths: []string{"docs", "AGENTS.md"}, check: true, json: true}},
		{[]string{"--fetch", "--dry-run", "--yes", "--registry", "./hub"}, refsOptions{fetch: true, dryRun: true, yes: true, registry: "./hub"}},
	} {
		var got *refsOptions
		err := parseOnly(t, newRefsCmd(&globalOptions{}, func(_ context.Context, o *refsOptions) error { got = o; return nil }), tt.args)
		if err != nil || got == nil {
			t.Fatalf("refs %q: err %v, run called: %v", tt.args, err, got != nil)
		}
		got.globalOptions = nil
		if len(got.paths) == 0 {
			got.paths = nil
		}
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("refs %q: options %+v, want %+v", tt.args, *got, tt.want)
		}
	}
}

// TestNoStateBetweenCommands: two in-process commands in a row, the second
// with other flags (or none), see only their own flags: a boolean, a
// string slice (pflag appends to a slice it has set once, so a tree reset
// by Set(DefValue) would keep the first run's values) and the persistent
// --chdir; and a command run twice sees its own run's context (cobra gives
// a sub-command its parent's context only while it has none, so a shared
// tree hands the second run the first's, cancelled). run builds a new
// command tree each time; this test fails on a tree shared between runs
// unless every flag and every command's context is reset (fields set from
// positional arguments, such as links' path, it does not check).
func TestNoStateBetweenCommands(t *testing.T) {
	dirA, dirB, dirC := t.TempDir(), t.TempDir(), t.TempDir()
	runIn := func(wd string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), args, &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, testEnv, wd)
		return code, out.String(), errOut.String()
	}
	if code, _, errOut := runIn(dirC, "init"); code != ExitOK {
		t.Fatalf("init: exit %d, stderr %q", code, errOut)
	}
	for round := range 2 { // twice: the first pair may build what the second reuses
		if code, out, errOut := runIn(dirB, "version", "--json"); code != ExitOK || !strings.HasPrefix(out, "{") {
			t.Fatalf("round %d: version --json: exit %d, stdout %q, stderr %q", round, code, out, errOut)
		}
		if code, out, errOut := runIn(dirB, "version"); code != ExitOK || !strings.HasPrefix(out, "ctx ") {
			t.Fatalf("round %d: version after version --json: exit %d, stdout %q (want the plain line), stderr %q", round, code, out, errOut)
		}
		if code, _, errOut := runIn(dirB, "search", "--kind", "bogus", "q"); code != ExitUsage || !strings.Contains(errOut, `"bogus"`) {
			t.Fatalf("round %d: search --kind bogus: exit %d, stderr %q", round, code, errOut)
		}
		if code, _, errOut := runIn(dirB, "search", "--kind", "nope", "q"); code != ExitUsage || !strings.Contains(errOut, `"nope"`) || strings.Contains(errOut, "bogus") {
			t.Fatalf("round %d: search --kind nope after --kind bogus: exit %d, stderr %q (want only nope)", round, code, errOut)
		}
		if code, _, errOut := runIn(dirB, "-C", dirA, "search", "q"); code != ExitError || !strings.Contains(errOut, dirA) {
			t.Fatalf("round %d: -C A search: exit %d, stderr %q (want %s named)", round, code, errOut, dirA)
		}
		if code, _, errOut := runIn(dirB, "search", "q"); code != ExitError || !strings.Contains(errOut, dirB) || strings.Contains(errOut, dirA) || strings.Contains(errOut, "kind") {
			t.Fatalf("round %d: search with no flags after -C A and --kind: exit %d, stderr %q (want %s, no --kind)", round, code, errOut, dirB)
		}
		if code, _, errOut := runIn(dirB, "-C", dirC, "index"); code != ExitOK {
			t.Fatalf("round %d: index: exit %d, stderr %q", round, code, errOut)
		}
	}
}

// BenchmarkNewRootCmd: the command tree run builds for every command (in
// process, the scripts' every `ctx` line).
func BenchmarkNewRootCmd(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		newRootCmd(&globalOptions{IO: &IOStreams{}})
	}
}
