package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// Exit codes. They are part of ctx's interface: scripts and CI read them.
const (
	ExitOK          = 0   // everything asked for was done
	ExitError       = 1   // the command failed
	ExitUsage       = 2   // bad flags or arguments
	ExitPartial     = 3   // some packages were skipped (no access, or dirty and not --force)
	ExitInterrupted = 130 // the user cancelled (Ctrl-C)
)

// exitError carries an exit code through cobra's error return.
type exitError struct {
	code int
	err  error // may be nil: the command already printed what went wrong
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// usageErrorf reports bad flags or arguments (exit code 2).
func usageErrorf(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// partial reports that the command did what it could but skipped something it
// has already described on stderr (exit code 3).
func partial() error { return &exitError{code: ExitPartial} }

// IOStreams are the command's streams, injected so tests can capture them.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer // results only
	ErrOut io.Writer // errors, warnings, progress
	// InTTY and ErrTTY report whether stdin / stderr are terminals: the wizard
	// prompts only when stdin is one, progress bars draw only when stderr is.
	InTTY, ErrTTY bool
}

// globalOptions are the flags every command accepts.
type globalOptions struct {
	IO  *IOStreams
	Dir string // -C: run as if started in this directory
}

// ProjectDir is the absolute project directory (-C, else the working dir).
func (g *globalOptions) ProjectDir() (string, error) {
	dir := g.Dir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("-C %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("-C %s: not a directory", dir)
	}
	return abs, nil
}

func systemIO() *IOStreams {
	return &IOStreams{
		In:     os.Stdin,
		Out:    os.Stdout,
		ErrOut: os.Stderr,
		InTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}

// Main runs ctx with os.Args and returns the process exit code.
func Main() int {
	return run(context.Background(), os.Args[1:], systemIO())
}

func run(ctx context.Context, args []string, io *IOStreams) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	g := &globalOptions{IO: io}
	root := newRootCmd(g)
	root.SetArgs(args)
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(io.ErrOut, "ctx: %s\n", safetext.Text(ee.err.Error()))
		}
		return ee.code
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		fmt.Fprintln(io.ErrOut, "ctx: interrupted")
		return ExitInterrupted
	}
	fmt.Fprintf(io.ErrOut, "ctx: %s\n", safetext.Text(err.Error()))
	return ExitError
}

func newRootCmd(g *globalOptions) *cobra.Command {
	root := &cobra.Command{
		Use:   "ctx",
		Short: "A git-native package manager for your team's documentation",
		Long: `ctx installs documentation from git repositories into .context/ as
context packages, pins them in a lockfile your team commits, indexes them,
and serves them read-only to AI agents over MCP.

Try it with no network and no setup:  ctx demo`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVarP(&g.Dir, "chdir", "C", "", "run as if ctx was started in `DIR`")
	// Flag errors are usage errors (exit 2), and say where to look.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErrorf("%v (see 'ctx %s --help')", err, c.Name())
	})
	root.AddCommand(
		newInitCmd(g),
		newAddCmd(g),
		newInstallCmd(g),
		newUpdateCmd(g),
		newOutdatedCmd(g),
		newRemoveCmd(g),
		newListCmd(g),
		newStatusCmd(g),
		newVerifyCmd(g),
		newSetupCmd(g),
		newDemoCmd(g),
		newIndexCmd(g),
		newSearchCmd(g),
		newMCPCmd(g),
	)
	return root
}
