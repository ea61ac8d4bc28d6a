package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/mcpserver"
)

// own20: ctx mcp --call-timeout sets the bound of one tool call
// (mcpserver.Options.CallTimeout), validated: a positive duration up to
// mcpserver.MaxCallTimeout, else a usage error (exit 2) naming the flag;
// its help says so.
func TestMCPCallTimeoutFlag(t *testing.T) {
	t.Parallel()
	var got *mcpOptions
	run := func(args ...string) error {
		got = nil
		g := &globalOptions{IO: &IOStreams{In: strings.NewReader(""), Out: &strings.Builder{}, ErrOut: &strings.Builder{}}, Env: testEnv}
		return parseOnly(t, newMCPCmd(g, func(_ context.Context, o *mcpOptions) error { got = o; return nil }), args)
	}
	if err := run(); err != nil || got == nil || got.callTimeout != mcpserver.DefaultCallTimeout {
		t.Fatalf("ctx mcp: %v, %+v; want the default bound", err, got)
	}
	if err := run("--call-timeout", "2m"); err != nil || got == nil || got.callTimeout != 2*time.Minute {
		t.Fatalf("--call-timeout 2m: %v, %+v", err, got)
	}
	if o := serverOptions(t.TempDir(), got); o.CallTimeout != 2*time.Minute {
		t.Errorf("serverOptions.CallTimeout = %s, want 2m", o.CallTimeout)
	}
	for _, bad := range []string{"0", "-1s", "11m"} {
		err := run("--call-timeout", bad)
		var ee *exitError
		if err == nil || got != nil || !strings.Contains(err.Error(), "--call-timeout") || !strings.Contains(err.Error(), "up to 10m0s") || !errors.As(err, &ee) || ee.code != ExitUsage {
			t.Errorf("--call-timeout %s: %v; want a usage error (exit 2) naming the flag and the ceiling", bad, err)
		}
	}
	var help strings.Builder
	cmd := newMCPCmd(&globalOptions{IO: &IOStreams{In: strings.NewReader(""), Out: &help, ErrOut: &help}, Env: testEnv}, nil)
	cmd.SetOut(&help)
	cmd.SetArgs([]string{"--help"})
	if err := cmd.Execute(); err != nil || !strings.Contains(help.String(), "--call-timeout DURATION") || !strings.Contains(help.String(), "bounded by --call-timeout (default 30s, at most 10m)") {
		t.Errorf("ctx mcp --help does not document --call-timeout: %v\n%s", err, help.String())
	}
}
