package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/mcpserver"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

type mcpOptions struct {
	*globalOptions
	http        string // --http: the address to listen on ("" = stdio)
	allowRemote bool
	maxSessions int
	callTimeout time.Duration // --call-timeout: the bound of one tool call
}

func newMCPCmd(g *globalOptions, runF func(context.Context, *mcpOptions) error) *cobra.Command {
	opts := &mcpOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use: "mcp [--http [ADDR]]",
		Example: `  ctx mcp                     # stdio, as an agent starts it
  ctx mcp --http              # 127.0.0.1:7420, token from ctx mcp token
  ctx mcp config --client claude`,
		Short: "Serve the context read-only to agents over MCP (stdio, or HTTP with --http)",
		Long: `Serve the project's installed context packages read-only over the Model
Context Protocol on stdin/stdout. Point your agent at it with
'ctx mcp config --client claude|cursor|codex|vscode'.

Only the protocol is written to stdout; logs go to stderr.

With --http, one server serves many agents at once over streamable HTTP at
http://ADDR/mcp (default ` + mcpserver.DefaultHTTPAddr + `; ':0' picks a free port on
127.0.0.1 and prints the URL on stderr). Session-based clients (MCP
2025-03-26 to 2025-11-25) and stateless ones (2026-07-28) are both served;
the index and the project are opened once for all of them. Every request
needs the header 'Authorization: Bearer TOKEN': 'ctx mcp token' prints the
token (made on first use in your config folder, mode 0600; CTX_MCP_TOKEN
overrides it), and 'ctx mcp config --client NAME --http' prints a client's
configuration with it. An address that is not loopback needs
--allow-remote (put a TLS-terminating proxy in front). At most
--max-sessions sessions: at the cap, a new session closes the least
recently used one idle for 30 seconds with no open stream, and only when
none is gets 503 with Retry-After; a session idle for 15 minutes is
closed. GET http://ADDR/healthz answers "ok" with no token (a container's
health check; it says nothing of the documents). SIGINT or SIGTERM stops the server: requests in flight get 5
seconds to finish, then it exits 0.

Every tool call is bounded by --call-timeout (default 30s, at most 10m): a
call that runs out answers an error saying what to narrow, or, when it was
waiting for the index to be brought up to date, to call again.

Exit status: 0 when the client closes stdin or the HTTP server is stopped;
2 for bad flags (an address that is not loopback without --allow-remote);
1 outside a project (the server does not start: run 'ctx init', or give
the client -C DIR), when the project or the index cannot be opened, or
when the address cannot be listened on.`,
		Args: httpAddrArgs(&opts.http),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.http = args[0]
			}
			if opts.http == "" && (cmd.Flags().Changed("allow-remote") || cmd.Flags().Changed("max-sessions")) {
				return usageErrorf("mcp: --allow-remote and --max-sessions need --http (see 'ctx mcp --help')")
			}
			if opts.callTimeout <= 0 || opts.callTimeout > mcpserver.MaxCallTimeout {
				return usageErrorf("mcp: --call-timeout %s: not a positive duration up to %s (use, say, 1m; the default is %s)", opts.callTimeout, mcpserver.MaxCallTimeout, mcpserver.DefaultCallTimeout)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMCP(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.http, "http", "", "serve MCP over streamable HTTP at http://`ADDR`/mcp instead of stdio (default "+mcpserver.DefaultHTTPAddr+")")
	cmd.Flags().Lookup("http").NoOptDefVal = mcpserver.DefaultHTTPAddr
	cmd.Flags().BoolVar(&opts.allowRemote, "allow-remote", false, "with --http: allow an address that is not loopback")
	cmd.Flags().IntVar(&opts.maxSessions, "max-sessions", mcpserver.DefaultMaxSessions, "with --http: the most sessions open at once (`N`)")
	cmd.Flags().DurationVar(&opts.callTimeout, "call-timeout", mcpserver.DefaultCallTimeout, "the most one tool call may take (`DURATION`, up to "+mcpserver.MaxCallTimeout.String()+")")
	cmd.AddCommand(newMCPConfigCmd(g, nil), newMCPTokenCmd(g, nil))
	return cmd
}

// afterStdoutGuard runs right after runMCP has guarded stdout, when set.
// ctx never sets it: only cmd/ctx's test binary does, started as ctx by
// TestRealBinaryOverStdio (mcp_process_test.go), to print to os.Stdout and
// to file descriptor 1 there and prove that the prints miss the protocol
// stream and land on stderr.
var afterStdoutGuard func()

func runMCP(ctx context.Context, opts *mcpOptions) error {
	if opts.http != "" {
		return runMCPHTTP(ctx, opts)
	}
	g := opts.globalOptions
	dir, err := servedProject(g)
	if err != nil {
		return err
	}
	var out io.Writer = g.IO.Out
	var in io.ReadCloser = io.NopCloser(g.IO.In)
	if f, ok := g.IO.Out.(*os.File); ok && f == os.Stdout {
		// First thing: from here on, only the protocol reaches fd 1.
		proto, err := mcpserver.GuardStdout()
		if err != nil {
			return err
		}
		defer proto.Close()
		out = proto
		g.IO.Out = g.IO.ErrOut
		if afterStdoutGuard != nil {
			afterStdoutGuard()
		}
	}
	if f, ok := g.IO.In.(*os.File); ok {
		in = f
	}
	if g.IO.InTTY {
		fmt.Fprintln(g.IO.ErrOut, "ctx mcp: serving MCP on stdin/stdout for an agent; to connect one, see 'ctx mcp config --client claude|cursor|codex|vscode'. Ctrl-C to stop.")
	}
	srv, err := mcpserver.New(serverOptions(dir, opts))
	if err != nil {
		return err
	}
	defer srv.Close()
	err = srv.Run(ctx, &mcpserver.LineTransport{In: in, Out: out})
	if err == nil || errors.Is(err, io.EOF) || (errors.Is(err, mcp.ErrConnectionClosed) && ctx.Err() == nil) {
		return nil // the client hung up
	}
	return err
}

// servedProject is the folder of the project ctx mcp serves (-C, else the
// working folder), checked before anything is served. A folder with
// neither a manifest (project.Check) nor a lock is no project, and the
// server could only answer errors there: it does not start, so a client
// shows a failed server with the reason from stderr. A lock without a
// manifest (installed packages copied without it) is served.
func servedProject(g *globalOptions) (string, error) {
	dir, err := mcpDir(g)
	if err != nil {
		return "", err
	}
	if err := servable(dir); err != nil {
		if errors.Is(err, project.ErrNoProject) {
			return "", fmt.Errorf("mcp: %w; an MCP client that starts ctx in another folder passes -C DIR, the project's folder ('ctx mcp config' prints a client's configuration)", err)
		}
		return "", err
	}
	return dir, nil
}

// mcpDir is the folder ctx mcp (and its configuration) serves: the start
// folder itself when it can be served there (a lock without a manifest is
// no marker for the walk up, which would pass it for a project above),
// else the project found from it (ProjectDir).
func mcpDir(g *globalOptions) (string, error) {
	start, err := g.StartDir()
	if err != nil {
		return "", err
	}
	if servable(start) == nil {
		g.start, g.root = start, start
		return start, nil
	}
	return g.ProjectDir()
}

// servable is why the project at dir cannot be served (project.Check's
// error), nil when it can: a lock without a manifest is served.
func servable(dir string) error {
	proj, err := project.At(dir)
	if err != nil {
		return err
	}
	err = proj.Check()
	if errors.Is(err, project.ErrNoProject) {
		if _, lerr := os.Stat(proj.Path(project.LockName)); lerr == nil {
			return nil
		}
	}
	return err
}

// runMCPHTTP serves the project over streamable HTTP until SIGINT or
// SIGTERM, then shuts down gracefully and returns nil (exit 0).
func runMCPHTTP(ctx context.Context, opts *mcpOptions) error {
	g := opts.globalOptions
	addr, err := mcpserver.CheckHTTPAddr(opts.http, opts.allowRemote)
	if err != nil {
		return usageErrorf("mcp: %w", err)
	}
	if opts.maxSessions < 1 {
		return usageErrorf("mcp: --max-sessions %d: want at least 1", opts.maxSessions)
	}
	dir, err := servedProject(g)
	if err != nil {
		return err
	}
	tok, _, _, err := opts.Env.mcpToken()
	if err != nil {
		return err
	}
	srv, err := mcpserver.New(serverOptions(dir, opts))
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcp: cannot listen on %s: %w (another ctx mcp --http running? pick another port, or :0 for a free one)", addr, err)
	}
	bound := ln.Addr().String()
	if !mcpserver.IsLoopbackAddr(bound) {
		fmt.Fprintf(g.IO.ErrOut, "ctx mcp: warning: listening on %s, reachable from other machines: the token travels in clear text over plain HTTP, so put a TLS-terminating proxy in front\n", bound)
	}
	fmt.Fprintf(g.IO.ErrOut, "ctx mcp: serving MCP at http://%s%s for %s (token: 'ctx mcp token'; client config: 'ctx mcp config --client NAME --http'); Ctrl-C to stop\n", bound, mcpserver.HTTPPath, dir)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = srv.RunHTTP(ctx, ln, mcpserver.HTTPOptions{Token: tok, MaxSessions: opts.maxSessions})
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	fmt.Fprintln(g.IO.ErrOut, "ctx mcp: stopped")
	return nil
}

type mcpTokenOptions struct {
	*globalOptions
	rotate bool
}

func newMCPTokenCmd(g *globalOptions, runF func(context.Context, *mcpTokenOptions) error) *cobra.Command {
	opts := &mcpTokenOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use: "token [--rotate]",
		Example: `  ctx mcp token
  ctx mcp token --rotate`,
		Short: "Print the bearer token of 'ctx mcp --http' (--rotate: replace it)",
		Long: `Print the bearer token that every request to 'ctx mcp --http' must carry
(Authorization: Bearer TOKEN). It is made on first use and kept in your user
config folder (ctx/mcp-token, mode 0600); CTX_MCP_TOKEN overrides it.

--rotate replaces the stored token with a new one and prints it: restart a
running 'ctx mcp --http' and update your clients' configuration.

Exit status: 0 when the token is printed; 2 for bad arguments; 1 when the
token file cannot be read or written.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMCPToken(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.rotate, "rotate", false, "replace the stored token with a new one")
	return cmd
}

func runMCPToken(_ context.Context, o *mcpTokenOptions) error {
	if !o.rotate {
		tok, _, _, err := o.Env.mcpToken()
		if err != nil {
			return err
		}
		fmt.Fprintln(o.IO.Out, tok)
		return nil
	}
	path, err := o.Env.mcpTokenPath()
	if err != nil {
		return err
	}
	tok, err := mcpserver.RotateToken(path)
	if err != nil {
		return err
	}
	fmt.Fprintln(o.IO.Out, tok)
	fmt.Fprintf(o.IO.ErrOut, "ctx mcp: new token in %s; restart a running 'ctx mcp --http' and update your clients ('ctx mcp config --client NAME --http')\n", path)
	if o.Env.Get("CTX_MCP_TOKEN") != "" {
		fmt.Fprintln(o.IO.ErrOut, "ctx mcp: warning: CTX_MCP_TOKEN is set and overrides the stored token")
	}
	return nil
}

// buildVersion is the module version ctx was built as (currentVersion),
// or "dev".
func buildVersion() string {
	if v := currentVersion().Version; v != "(devel)" {
		return v
	}
	return "dev"
}

type mcpConfigOptions struct {
	*globalOptions
	client string
	http   string // --http: the address of a running ctx mcp --http
}

// httpAddrArgs is the Args of a command with --http [ADDR] (ctx mcp, mcp
// config): ADDR may follow a bare --http after a space, as the one
// argument (RunE takes it), and the command takes no other. --http=ADDR
// has its address: an argument after it is one too many, not the address
// (rv-walk22: `--http=:9001 127.0.0.1:9000` served on 9000). A bare
// --http is told by its value, the default it takes (NoOptDefVal).
func httpAddrArgs(http *string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) == 1 && c.Flags().Changed("http") {
			if *http != mcpserver.DefaultHTTPAddr {
				return fmt.Errorf("--http has its address already (%s): %s is one argument too many", safetext.Clip(*http, 0), safetext.Quote(args[0]))
			}
			return nil
		}
		return noArgs(c, args)
	}
}

func newMCPConfigCmd(g *globalOptions, runF func(context.Context, *mcpConfigOptions) error) *cobra.Command {
	opts := &mcpConfigOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use: "config --client claude|cursor|codex|vscode [--http [ADDR]]",
		Example: `  ctx mcp config --client claude > .mcp.json
  ctx mcp config --client vscode
  ctx mcp config --client cursor --http`,
		Short: "Print the configuration that makes an MCP client start ctx mcp for this project",
		Long: `Print the configuration that makes an MCP client start 'ctx mcp' for this
project over stdio, on stdout, and where to put it on stderr. Claude Code's
(.mcp.json), Cursor's and VS Code's go in the project, to commit: they start
ctx from PATH, with no absolute path, so they work for every teammate (when
ctx is not on your PATH, it says what to do). Codex's is your own
(~/.codex/config.toml): it names this binary and this project.

With --http, print instead the configuration that connects the client to a
running 'ctx mcp --http' at http://ADDR/mcp (default ` + mcpserver.DefaultHTTPAddr + `) with
the header Authorization: Bearer TOKEN. It holds your token: keep it in your
user configuration, out of any repository.

Exit status: 0 when printed; 2 for a missing or unknown --client or bad
arguments; 1 for other errors.`,
		Args: httpAddrArgs(&opts.http),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.http = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMCPConfig(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.client, "client", "", "the MCP client `NAME`: "+strings.Join(mcpserver.Clients, ", "))
	cmd.Flags().StringVar(&opts.http, "http", "", "connect to 'ctx mcp --http' at `ADDR` (default "+mcpserver.DefaultHTTPAddr+")")
	cmd.Flags().Lookup("http").NoOptDefVal = mcpserver.DefaultHTTPAddr
	return cmd
}

func runMCPConfig(_ context.Context, o *mcpConfigOptions) error {
	if o.client == "" {
		return usageErrorf("mcp config: --client is required (one of %s)", strings.Join(mcpserver.Clients, ", "))
	}
	if o.http != "" {
		url, err := mcpserver.HTTPClientURL(o.http)
		if err != nil {
			return usageErrorf("mcp config: %w", err)
		}
		tok, _, _, err := o.Env.mcpToken()
		if err != nil {
			return err
		}
		cfg, err := mcpserver.HTTPConfigFor(o.client, url, tok)
		if err != nil {
			return usageErrorf("mcp config: %v", err)
		}
		fmt.Fprint(o.IO.Out, cfg.Text)
		fmt.Fprintln(o.IO.ErrOut, cfg.Where)
		return nil
	}
	dir, err := mcpDir(o.globalOptions)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("mcp config: cannot find the ctx binary: %w", err)
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	cfg, err := mcpserver.ConfigFor(o.client, exe, dir)
	if err != nil {
		return usageErrorf("mcp config: %v", err)
	}
	fmt.Fprint(o.IO.Out, cfg.Text)
	fmt.Fprintln(o.IO.ErrOut, cfg.Where)
	if _, err := o.Env.lookPath(mcpserver.ProjectCommand); cfg.Project && err != nil {
		fmt.Fprintln(o.IO.ErrOut, mcpserver.NotOnPath(o.client, exe, dir))
	}
	if err := servable(dir); err != nil {
		// The server this configuration starts would exit at once: say why
		// (no project yet, or one above this folder to point -C at).
		fmt.Fprintf(o.IO.ErrOut, "note: the server will not start there: %v\n", err)
	}
	return nil
}

// serverOptions are the server's options: the project, the log, and the
// user's embedding endpoint (searchSemantic) unless embeddings.hybrid is off.
func serverOptions(dir string, opts *mcpOptions) mcpserver.Options {
	g := opts.globalOptions
	sem, note, _ := searchSemantic(g.Env, false, false) // the client lives as long as the process
	return mcpserver.Options{ProjectDir: dir, Version: buildVersion(), Log: g.IO.ErrOut, Home: g.Env.userHome(), Changes: mcpChanges(g), Installed: mcpInstalled(dir), Semantic: sem, SemanticNote: note, CallTimeout: opts.callTimeout}
}

// mcpInstalled reads what ctx installed of a package of the project at dir
// (workspace.ReadInstalled): the server labels a file that differs as a
// local edit of the installed revision, not as its text (red22). When
// the lock moved and the files followed it (InstalledFiles.FollowedLock:
// a pull brought both), they are the lock's commit's text (trust23).
func mcpInstalled(dir string) mcpserver.InstalledFunc {
	return func(alias string, locked lockfile.Entry) (mcpserver.Holder, error) {
		proj, err := project.At(dir)
		if err != nil {
			return nil, err
		}
		in, err := workspace.ReadInstalled(proj, alias)
		if err != nil {
			return nil, err
		}
		if f := in.FollowedLock(locked.Rev, locked.Hash); f != nil {
			return f, nil
		}
		return in, nil
	}
}
