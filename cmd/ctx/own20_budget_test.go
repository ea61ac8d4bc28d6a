package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/internal/netrate"
	"github.com/spf13/cobra"
)

// own20: CTX_FETCH_TIMEOUT bounds the whole command's network time (one
// budget on the command's context, commandContext): `ctx add` of a source
// whose kind is asked of a trickling server ends on the command's bound
// and says so (before: "the most one package's fetch may take").
func TestFetchTimeoutIsTheCommands(t *testing.T) {
	t.Parallel()
	srv := gittest.Trickler(t, "application/x-git-upload-pack-advertisement", "fff0")
	dir := t.TempDir()
	env := append(slices.Clone(testEnv), "CTX_FETCH_TIMEOUT=300ms", "CTX_CEILING_DIRECTORIES="+dir)
	ctxIn := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), args, &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, env, dir)
		return code, errOut.String()
	}
	if code, errOut := ctxIn("init"); code != ExitOK {
		t.Fatalf("init: %d %s", code, errOut)
	}
	code, errOut := ctxIn("add", srv.URL+"/guide")
	if code == ExitOK || !strings.Contains(errOut, "the command's fetches went on for longer than 300ms together") || !strings.Contains(errOut, "CTX_FETCH_TIMEOUT=600ms") {
		t.Errorf("add of a trickling source: exit %d, stderr %q; want the command's bound", code, errOut)
	}
}

// The budget is on every command's context but `ctx mcp`'s (a server's
// fetches are separate requests, each bounded on its own).
func TestCommandContextBudget(t *testing.T) {
	t.Parallel()
	root := &cobra.Command{Use: "ctx"}
	mcp := &cobra.Command{Use: "mcp"}
	install := &cobra.Command{Use: "install"}
	root.AddCommand(mcp, install)
	env := environment{"CTX_FETCH_TIMEOUT=2h"}
	for _, c := range []struct {
		cmd  *cobra.Command
		want time.Duration
	}{{install, 2 * time.Hour}, {mcp, time.Minute}} {
		c.cmd.SetContext(context.Background())
		ctx, cancel := netrate.WithTotal(commandContext(c.cmd, env), time.Minute)
		dl, _ := ctx.Deadline()
		cancel()
		if left := time.Until(dl); left > c.want || left < c.want-time.Minute/2 {
			t.Errorf("%s: an operation's bound is %v; want %v", c.cmd.Name(), left, c.want)
		}
		if c.cmd.Context() == nil {
			t.Errorf("%s: no context", c.cmd.Name())
		}
	}
}
