package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/netrate"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/suggest"
	"github.com/ctx-dev/ctx/internal/termenv"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
	// InTTY, OutTTY and ErrTTY report whether stdin / stdout / stderr
	// are terminals: the wizard prompts only when stdin is one and it can
	// draw on stderr or stdout (terminalPrompter), progress bars draw
	// only when stderr is (globalOptions.stderrDraws).
	InTTY, OutTTY, ErrTTY bool
}

// globalOptions are the flags every command accepts, and what a command
// runs in: its streams, environment and working directory, given to run
// (cli/cli's Factory) so that nothing below reads the process's.
type globalOptions struct {
	IO  *IOStreams
	Env environment // the environment (Main: os.Environ)
	// Wd is the absolute working directory relative paths are taken from
	// (Main: os.Getwd); "" = unknown, and a relative path is an error.
	Wd  string
	Dir string // -C: run as if started in this directory
	// find are project.Find's seams (tests simulate another user's
	// files); start and root are StartDir and the project found from it,
	// once ProjectDir has found it.
	find        project.FindOptions
	start, root string
	// args is the command line as run was given it: the completion of
	// search's query words (addCompletions) reads the word before the one
	// it completes, which cobra drops when it names a flag.
	args []string
	// ctx is the running command's context (set before it runs), for
	// waits that do not take one: the project lock's (workspaceOptions).
	ctx context.Context
	// quiet (-q, quietFlag): stderr gets only warnings and errors, no
	// progress and no notes.
	quiet bool
}

// quietFlag gives c -q/--quiet (a command that prints progress or notes:
// init, add, install, update, remove, setup): stderr gets warnings and errors only, as
// cargo's and git's -q, and the notices the workspace must not keep from
// the user (workspace.Options.Notice: an allowance it records, a recovered
// change): they say what ctx now trusts, or changed unasked, not progress.
func quietFlag(c *cobra.Command, g *globalOptions) {
	c.Flags().BoolVarP(&g.quiet, "quiet", "q", false, "print only warnings, errors and notices (an allowance recorded, a recovery) on stderr: no progress, no other notes")
}

// stderrDraws reports whether stderr is a terminal that moves the cursor
// (termenv.Env.Dumb): progress bars and spinners are drawn in place;
// else a command writes plain lines.
func (g *globalOptions) stderrDraws() bool {
	return g.IO.ErrTTY && !g.terminal().Dumb()
}

// terminal is what the terminal can show, from the command's environment.
func (g *globalOptions) terminal() termenv.Env { return termenv.Of(g.Env.Get) }

// symbols are the marks ctx's lines for a person are written with
// (termenv.SymbolsFor): →, … and — in a UTF-8 locale, ->, ... and -
// else (LANG=C), on stdout as on stderr, as the wizard's. --json and
// what documents say are not changed.
func (g *globalOptions) symbols() termenv.Symbols { return termenv.SymbolsFor(g.terminal().UTF8()) }

// deepText is text built where the terminal is not known (an error, a
// registry's problem or warning, an indexer's note), made safe
// (safetext.Text) and written in symbols' marks (Symbols.Marks: its … and
// → as ... and -> under LANG=C), for a person's terminal: never for
// --json or MCP, which keep the text as built.
func (g *globalOptions) deepText(s string) string { return g.symbols().Marks(safetext.Text(s)) }

// notes is where a command writes what is neither a result nor a problem
// (an index summary, a count of withheld documents): stderr, or nowhere
// with -q.
func (g *globalOptions) notes() io.Writer {
	if g.quiet {
		return io.Discard
	}
	return g.IO.ErrOut
}

// warningsOnly passes on the notes a workspace logs that are warnings
// (each logged with one write, starting "warning:"), for -q.
type warningsOnly struct{ w io.Writer }

func (q warningsOnly) Write(b []byte) (int, error) {
	if !bytes.HasPrefix(b, []byte("warning:")) {
		return len(b), nil
	}
	return q.w.Write(b)
}

// StartDir is the absolute folder ctx starts in: -C DIR (made absolute
// against the working directory), else the working directory. `ctx init`
// makes its project there, a path the user types is relative to it
// (typedPath), and the project is found from it upward (ProjectDir).
func (g *globalOptions) StartDir() (string, error) {
	dir := g.Dir
	if dir == "" {
		dir = "."
	}
	abs, err := g.abs(dir)
	if err != nil {
		return "", err
	}
	if g.Dir != "" && !filepath.IsAbs(g.Dir) {
		abs = g.chdirPath(abs, g.Dir)
	}
	// Said as git and go say it, the folder and not the system call; an
	// error (exit 1, as go -C's), not a usage error: the flag is well
	// formed, the folder is not there (pm_usage.txtar).
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("-C %s: no such folder", safetext.Quote(dir))
	case err != nil:
		return "", fmt.Errorf("-C %s: %w", safetext.Quote(dir), pathErrText(err))
	case !fi.IsDir():
		return "", fmt.Errorf("-C %s: not a folder (-C takes the folder to run in)", safetext.Quote(dir))
	}
	return abs, nil
}

// chdirPath is the folder a relative -C DIR names, read as chdir(2)
// reads it (git -C, go -C): from the physical working folder, so that in
// a folder reached through a symbolic link `..` is the link target's
// parent, as in every path the user types (typedPath) and in the walk up
// (project.Find). lexical is DIR joined to the working folder's name
// (g.abs), kept when it leads to the same folder, so that output keeps
// the user's spelling.
func (g *globalOptions) chdirPath(lexical, dir string) string {
	wd, err := filepath.EvalSymlinks(g.Wd)
	if err != nil {
		return lexical
	}
	phys := filepath.Join(wd, dir)
	if phys == lexical {
		return lexical
	}
	if l, err := filepath.EvalSymlinks(lexical); err == nil {
		if p, err := filepath.EvalSymlinks(phys); err == nil && l == p {
			return lexical
		}
	}
	return phys
}

// ProjectDir is the absolute root of the project the command works on:
// project.Find from StartDir upward (the first folder with a manifest, not
// past a git work tree's top or a ceiling of CTX_CEILING_DIRECTORIES, one
// above the start refused when another user owns it), found once per
// command; the start folder itself when there is none, whose check then
// says "no ctx project here" (DESIGN.md, "Finding the project").
func (g *globalOptions) ProjectDir() (string, error) {
	if g.root != "" {
		return g.root, nil
	}
	start, err := g.StartDir()
	if err != nil {
		return "", err
	}
	fo := g.find
	fo.Ceilings = g.Env.ceilings()
	fo.SudoUID = g.Env.sudoUID()
	fo.Home = g.Env.userHome()
	fo.Warn = func(msg string) { fmt.Fprintf(g.IO.ErrOut, "warning: %s\n", g.deepText(msg)) }
	root, err := project.Find(start, fo)
	if err != nil {
		return "", err
	}
	g.start, g.root = start, root
	return root, nil
}

// typedPath is path, as the user typed it in a command's argument or flag,
// as ctx keeps it: a relative local path (not a URL, an scp-like address,
// ~/, or absolute: naming.IsLocalPath) is taken from the start folder,
// where the user stands, and made relative to the project root, which
// every path a project keeps is relative to (`ctx add ./docs` in proj/sub
// is "sub/docs"). It is read as the kernel reads it: from the physical
// start folder (links resolved: `..` in a linked folder is its target's
// parent), relative to the physical root. Anything else, and any path
// when the start is the root, is returned as typed. The one owner of that
// rule (DESIGN.md, "Finding the project").
func (g *globalOptions) typedPath(path string) (string, error) {
	if path == "" || !naming.IsLocalPath(path) || filepath.IsAbs(path) || path == "~" || strings.HasPrefix(path, "~/") {
		return path, nil
	}
	root, err := g.ProjectDir()
	if err != nil {
		return "", err
	}
	if g.start == root {
		return path, nil
	}
	// As the kernel reads it: from the physical start (in a folder reached
	// through a symbolic link, `..` is the link target's parent, what `ls
	// ..` lists), made relative to the physical root (macOS's /tmp is
	// /private/tmp: both sides resolved, so they compare).
	start, err := filepath.EvalSymlinks(g.start)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	rel, err := filepath.Rel(root, filepath.Join(start, path))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return filepath.ToSlash(rel), nil
}

// Project is the project ctx runs in (ProjectDir), checked to exist: an
// error wrapping project.ErrNoProject, saying what to do, when it does not
// (project.Check).
func (g *globalOptions) Project() (dir string, proj project.Project, err error) {
	if dir, err = g.ProjectDir(); err != nil {
		return "", project.Project{}, err
	}
	if proj, err = project.At(dir); err != nil {
		return "", project.Project{}, err
	}
	if err = proj.Check(); err != nil {
		return "", project.Project{}, err
	}
	return dir, proj, nil
}

// abs is path made absolute against the working directory (g.Wd), and
// cleaned.
func (g *globalOptions) abs(path string) (string, error) {
	if filepath.IsAbs(path) {
		return filepath.Clean(path), nil
	}
	if g.Wd == "" {
		return "", fmt.Errorf("%s: the working directory is unknown (was it deleted?): give an absolute path, or cd to an existing folder", path)
	}
	return filepath.Join(g.Wd, path), nil
}

func systemIO() *IOStreams {
	return &IOStreams{
		In:     os.Stdin,
		Out:    os.Stdout,
		ErrOut: os.Stderr,
		InTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		OutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}

// Main runs ctx with os.Args, the process's environment and working
// directory, and returns the process exit code. It is the one place ctx
// reads them (TestNoProcessStateInCommands).
func Main() int {
	wd, err := os.Getwd()
	if err != nil {
		wd = "" // a relative path fails, saying so (globalOptions.abs)
	}
	return run(context.Background(), os.Args[1:], systemIO(), os.Environ(), wd)
}

// run runs ctx with args in the environment env and the working directory
// wd (absolute; "" = unknown) and returns the exit code.
func run(ctx context.Context, args []string, io *IOStreams, env []string, wd string) int {
	g := &globalOptions{IO: io, Env: env, Wd: wd, args: args}
	return execute(ctx, newRootCmd(g), args, g)
}

// argsOrNone is args, never nil: cobra reads the process's own arguments
// (os.Args) when it is given nil, and a run in a test's process (the
// scripts, the flag tables) must see only the arguments it was given.
func argsOrNone(args []string) []string {
	if args == nil {
		return []string{}
	}
	return args
}

// execute runs root (made of g) with args and turns its error into an exit
// code and a line on stderr (deepText: an error built deep down, a
// registry's "… and N more problems", says … and →).
func execute(ctx context.Context, root *cobra.Command, args []string, g *globalOptions) int {
	io := g.IO
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	completing := completionRequest(args)
	if completing {
		args = helpCompletion(root, args)
	} else {
		args = helpAfterPath(root, args)
	}
	root.SetArgs(argsOrNone(args))
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	var err error
	if !completing {
		err = helpArgs(root, args)
	}
	if err == nil {
		err = root.ExecuteContext(ctx)
	}
	if err == nil {
		return ExitOK
	}
	if ctx.Err() != nil {
		// Ctrl-C: whatever the command made of its cancelled work (a
		// partial report, a wrapped "context canceled"), it was the user's.
		fmt.Fprintln(io.ErrOut, "ctx: interrupted")
		return ExitInterrupted
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(io.ErrOut, "ctx: %s\n", g.deepText(ee.err.Error()))
		}
		return ee.code
	}
	fmt.Fprintf(io.ErrOut, "ctx: %s\n", g.deepText(err.Error()))
	if errors.Is(err, workspace.ErrUnknownPackage) || errors.Is(err, workspace.ErrBadSpec) {
		return ExitUsage // a mistyped alias, or a source to add that is not there: a bad argument
	}
	return ExitError
}

func newRootCmd(g *globalOptions) *cobra.Command {
	root := &cobra.Command{
		Use:   "ctx",
		Short: "A git-native package manager for your team's documentation",
		Long: `ctx installs documentation from git repositories into .context/ as
context packages, pins them in a lockfile your team commits, indexes them,
and serves them read-only to AI agents over MCP.

Try it with no network and no setup:  ctx demo

Exit status: 0 when done; 1 when a command failed; 2 for bad flags or
arguments; 3 when a command did part of its work (some packages skipped or
failed: each command's help says when); 130 when interrupted (Ctrl-C).`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVarP(&g.Dir, "chdir", "C", "", "run as if ctx was started in `DIR`")
	root.PersistentPreRun = func(c *cobra.Command, _ []string) { g.ctx = commandContext(c, g.Env) }
	// Flag errors are usage errors (exit 2), and say where to look.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError(c, versionFlagError(c, flagValueError(err)))
	})
	root.AddCommand(
		newInitCmd(g, nil),
		newAddCmd(g, nil),
		newInstallCmd(g, nil),
		newUpdateCmd(g, nil),
		newOutdatedCmd(g, nil),
		newChangesCmd(g, nil),
		newHookCmd(g, nil),
		newRemoveCmd(g, nil),
		newPushCmd(g, nil),
		newListCmd(g, nil),
		newStatusCmd(g, nil),
		newVerifyCmd(g, nil),
		newSetupCmd(g, nil),
		newConfigCmd(g, nil),
		newDemoCmd(g, nil),
		newIndexCmd(g, nil),
		newSearchCmd(g, nil),
		newLinksCmd(g, nil),
		newFindCmd(g, nil),
		newMCPCmd(g, nil),
		newRefsCmd(g, nil),
		newCacheCmd(g, nil),
		newRegistryCmd(g, nil),
		newVersionCmd(g, nil),
	)
	// --version: the line `ctx version` prints.
	root.Version = currentVersion().String()
	root.SetVersionTemplate("{{.Version}}\n")
	// cobra's help and completion commands, added now rather than at
	// Execute, so that usageArgs covers them too.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			exitStatusBelow(c, "Exit status: 0 when printed; 2 for an unknown command or bad arguments.")
		}
		if c.Name() == "help" {
			c.Args = helpTopicArgs
		}
	}
	usageArgs(root)
	addCompletions(root, g)
	return root
}

// exitStatusBelow adds the exit-status section text to the help of c and
// of every command below it (cobra's own commands, whose help ctx does not
// write).
func exitStatusBelow(c *cobra.Command, text string) {
	if c.Long == "" {
		c.Long = c.Short
	}
	c.Long = strings.TrimRight(c.Long, "\n") + "\n\n" + text
	for _, sub := range c.Commands() {
		exitStatusBelow(sub, text)
	}
}

// flagValueError words a flag's value that did not parse as what the flag
// takes ("--limit: "abc" is not a whole number"), in place of pflag's Go
// words (strconv.ParseInt: parsing "abc": invalid syntax); a flag type of
// ctx's own keeps its message after the flag's name. Any other error is
// returned as it is.
func flagValueError(err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) {
		return err
	}
	name, value := "--"+ive.GetFlag().Name, safetext.Quote(ive.GetValue())
	typ := ive.GetFlag().Value.Type()
	if typ == "duration" { // time.ParseDuration's "time: invalid duration"
		return fmt.Errorf("%s: %s is not a duration (give, say, 30s, 2m or 1h)", name, value)
	}
	var ne *strconv.NumError
	if !errors.As(err, &ne) {
		return fmt.Errorf("%s: %w", name, errors.Unwrap(ive))
	}
	switch {
	case typ == "bool":
		return fmt.Errorf("%s: %s is not true or false (a switch: give --%s alone, or --%s=false)", name, value, ive.GetFlag().Name, ive.GetFlag().Name)
	case errors.Is(ne.Err, strconv.ErrRange) && strings.HasPrefix(ive.GetValue(), "-"):
		return fmt.Errorf("%s: %s is too small", name, value)
	case errors.Is(ne.Err, strconv.ErrRange):
		return fmt.Errorf("%s: %s is too large", name, value)
	case strings.HasPrefix(typ, "int") || strings.HasPrefix(typ, "uint"):
		return fmt.Errorf("%s: %s is not a whole number", name, value)
	default:
		return fmt.Errorf("%s: %s is not a number", name, value)
	}
}

// versionFlagError says what -v and -V are where err is pflag's unknown
// -v (a command's verbose, as cargo and go have it) or -V (cargo's
// version): ctx's -v is the version at the top, as npm's, and detail is
// --verbose (cli18 finding 17). Any other error is returned as it is.
func versionFlagError(c *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return err
	}
	short := ne.GetSpecifiedShortnames() != "" // -v, or in a group (-fv)
	switch name := ne.GetSpecifiedName(); {
	case short && name == "v" && c.HasParent():
		if c.Flags().Lookup("verbose") != nil {
			return fmt.Errorf("-v is ctx's version (ctx -v); for %s's detail give --verbose", c.Name())
		}
		return fmt.Errorf("-v is ctx's version (ctx -v); %s has no -v", c.CommandPath())
	case short && name == "V":
		return errors.New("-V: ctx's version is ctx -v or ctx --version")
	}
	return err
}

// usageError makes err, a mistake in c's flags or arguments, a usage error
// (exit 2) that points to c's help.
func usageError(c *cobra.Command, err error) error {
	return usageErrorf("%w (see '%s --help')", err, c.CommandPath())
}

// usageArgs makes the argument check of c and of every command below it
// a usage error (exit 2) that points to the command's help: one rule for
// every command, cobra's own included. A command without a check takes any
// arguments, unless it has sub-commands: then an argument is an unknown
// command. A command with sub-commands but nothing to run prints its help
// when given no argument, so that an unknown one reaches the check.
func usageArgs(c *cobra.Command) {
	check := c.Args
	if check == nil {
		check = cobra.ArbitraryArgs
		if c.HasSubCommands() {
			check = noArgs
		}
	}
	c.Args = func(cmd *cobra.Command, args []string) error {
		err := check(cmd, args)
		var ee *exitError
		if err == nil || errors.As(err, &ee) {
			return err
		}
		return usageError(cmd, err)
	}
	if !c.Runnable() && c.HasSubCommands() {
		c.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
	}
	if c.SuggestionsMinimumDistance <= 0 {
		// cobra's own default (findSuggestions'), which SuggestionsFor,
		// called by noArgs, does not apply: a typo within two letters
		// ("serach") is suggested, not only a prefix ("instal").
		c.SuggestionsMinimumDistance = suggest.Distance
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// Argument checks; usageArgs makes their errors usage errors.

// noArgs refuses arguments: an unknown command where c has sub-commands.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if c.HasAvailableSubCommands() {
		msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
		return errors.New(msg + suggest.Phrase(commandSuggestions(c, args[0])))
	}
	return fmt.Errorf("%s takes no arguments, got %q", c.CommandPath(), args[0])
}

// commandSuggestions is what c suggests for the unknown command typed: the
// command whose SuggestFor names it (the word of npm, cargo or go for
// what the command does: uninstall is remove, not the install two letters
// away), else cobra's typo suggestions.
func commandSuggestions(c *cobra.Command, typed string) []string {
	typed = strings.ToLower(typed)
	for _, sub := range c.Commands() {
		if slices.Contains(sub.SuggestFor, typed) {
			return []string{sub.Name()}
		}
	}
	// A command one level down, named or suggested for: `ctx gc` (git gc)
	// is `cache gc`, `ctx clean` (npm cache clean) too, `ctx token` is
	// `mcp token`, as gh suggests `gh pr list` for `gh list`.
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() {
			continue
		}
		for _, gs := range sub.Commands() {
			if gs.IsAvailableCommand() && (gs.Name() == typed || slices.Contains(gs.SuggestFor, typed)) {
				return []string{sub.Name() + " " + gs.Name()}
			}
		}
	}
	return c.SuggestionsFor(typed)
}

// helpTopicArgs is the argument check of cobra's help command: a topic
// that names no command is the usage error `ctx TOPIC` would be (with its
// suggestion), not the root help and exit 0, which cobra's help prints
// when the root command checks its own arguments (Find leaves that check
// to it).
func helpTopicArgs(c *cobra.Command, args []string) error {
	found, rest, err := c.Root().Find(args)
	if err != nil {
		return err
	}
	if len(rest) > 0 && found.HasAvailableSubCommands() {
		return usageError(found, noArgs(found, rest)) // pointing to found's help
	}
	return nil
}

// completionRequest reports whether args ask cobra's __complete (or
// __completeNoDesc) for the words a shell offers: its first argument that
// is no flag (-C's value aside). A help flag in them is a word typed on
// the command line being completed, not a request for help: read as one
// (helpArgs, helpAfterPath), `ctx search -h <TAB>` failed as the unknown
// command "__complete" and the shell fell back to file names (note22).
func completionRequest(args []string) bool {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-C" || a == "--chdir":
			i++ // its value
		case strings.HasPrefix(a, "-"):
		default:
			return a == cobra.ShellCompRequestCmd || a == cobra.ShellCompNoDescRequestCmd
		}
	}
	return false
}

// withoutHelpFlag is the index of args' first help flag (-h, --help)
// before any "--", and args without it; -1 and nil when there is none.
func withoutHelpFlag(args []string) (int, []string) {
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == "--help" || a == "-h" {
			return i, slices.Delete(slices.Clone(args), i, i+1)
		}
	}
	return -1, nil
}

// helpCompletion is a completion request's args with a help flag dropped
// when the command it asks about has sub-commands: `ctx -h <TAB>` and
// `ctx cache --help <TAB>` offer the commands whose help the line would
// print (helpAfterPath), as `ctx help <TAB>` does. Otherwise cobra's own
// answer stands: after a help flag, nothing to complete, and no file
// names (`ctx search -h auth` is search's help whatever the word).
func helpCompletion(root *cobra.Command, args []string) []string {
	at, without := withoutHelpFlag(args)
	if at < 0 || at == len(args)-1 {
		return args // none, or the word being completed (rv-polish23: "--help" was completed as the command before it)
	}
	var cmdArgs []string
	for i, a := range without {
		if a == cobra.ShellCompRequestCmd || a == cobra.ShellCompNoDescRequestCmd {
			cmdArgs = without[i+1:]
			break
		}
	}
	// The command named before the word being completed (the last).
	if c, _, err := root.Find(cmdArgs[:max(len(cmdArgs)-1, 0)]); err == nil && c.HasAvailableSubCommands() {
		return without
	}
	return args
}

// helpArgs checks the arguments of a command asked for its --help (-h)
// that has sub-commands: `ctx gc --help`, `ctx cache nope -h` are the
// unknown command they are without it (exit 2, with a suggestion), where
// cobra printed the parent's help and exited 0 (its help comes before the
// argument check). Any other command line is left to cobra.
//
// The command is found without the help flags: cobra's Find, before
// Execute defines --help, takes it for a flag with a value and skips the
// next word, so `ctx --help cache` and `ctx config -h set` read as the
// unknown commands "cache" and "set" (rv-cli21).
func helpArgs(root *cobra.Command, args []string) error {
	asked := false
	without := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			without = append(without, args[i:]...)
			break
		}
		if a == "--help" || a == "-h" {
			asked = true
			continue
		}
		without = append(without, a)
	}
	if !asked {
		return nil
	}
	c, rest, err := root.Find(without)
	if err != nil || !c.HasAvailableSubCommands() {
		return nil
	}
	if c.ParseFlags(rest) != nil {
		return nil
	}
	return c.ValidateArgs(c.Flags().Args())
}

// helpAfterPath moves a help flag written before the command it asks
// about to right after the command's name: `ctx --help cache gc` is `ctx
// cache gc --help`, as `git --help commit` is git commit's help. cobra
// takes `--help` there for a flag of root's with a value, so root's help
// was printed (walk22). The other arguments keep their order, so that
// `ctx search -h auth` stays search's help, and `ctx search auth -h` a
// query. Arguments that name no command, or only root, are left as they
// are (helpArgs and cobra say what is wrong with them).
func helpAfterPath(root *cobra.Command, args []string) []string {
	at, without := withoutHelpFlag(args)
	if at < 0 {
		return args
	}
	c, rest, err := root.Find(without)
	if err != nil || c == root {
		return args
	}
	if before, _, err := root.Find(args[:at]); err == nil && before == c {
		return args // the flag comes after the command's name already
	}
	var path []string
	for p := c; p != root; p = p.Parent() {
		path = append([]string{p.Name()}, path...)
	}
	return slices.Concat(path, []string{args[at]}, rest)
}

// pathErrText is err without the path an *fs.PathError repeats (the
// caller names it as typed).
func pathErrText(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// cmdName is c's path without the program's name ("config get"), as a
// usage error names the command.
func cmdName(c *cobra.Command) string {
	if !c.HasParent() {
		return c.Name()
	}
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}

// exactArgs wants n arguments, described as what: one phrase for all, or
// a name for each.
func exactArgs(n int, what ...string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < n {
			// what names each argument, or all of them in one: the
			// ones missing, not the ones given (set KEY: missing VALUE).
			missing := what
			if len(what) == n {
				missing = what[len(args):]
			}
			return fmt.Errorf("%s: missing %s (usage: %s)", cmdName(c), wording.List(missing, "and"), c.UseLine())
		}
		if len(args) > n {
			return fmt.Errorf("%s: too many arguments: %s (usage: %s)", cmdName(c), strings.Join(args[n:], " "), c.UseLine())
		}
		return nil
	}
}

// minArgs wants at least n arguments, described as what.
func minArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < n {
			return fmt.Errorf("%s: missing %s (usage: %s)", cmdName(c), what, c.UseLine())
		}
		return nil
	}
}

// commandContext is the context c runs under: its own, carrying the
// command's one bound of network time (netrate.WithBudget,
// CTX_FETCH_TIMEOUT, own20), which every fetch, probe and push of the
// command draws on, so that a command of k network operations cannot take
// k bounds. Not `ctx mcp`: a server that runs for days makes separate
// fetches (what_changed's reads of trees), each bounded on its own. An
// invalid CTX_FETCH_TIMEOUT sets no budget here: the commands that fetch
// refuse it (engineOptions, workspaceOptions), the others do not read it.
func commandContext(c *cobra.Command, env environment) context.Context {
	ctx := c.Context()
	if c.Name() == "mcp" && c.HasParent() && !c.Parent().HasParent() {
		return ctx
	}
	d, err := env.fetchTimeout()
	if err != nil {
		return ctx
	}
	ctx = netrate.WithBudget(ctx, d)
	c.SetContext(ctx)
	return ctx
}
