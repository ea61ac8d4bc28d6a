package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/ctx-dev/ctx/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

type mcpOptions struct {
	*globalOptions
}

func newMCPCmd(g *globalOptions, runF func(context.Context, *mcpOptions) error) *cobra.Command {
	opts := &mcpOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the context read-only to agents over MCP (stdio)",
		Long: `Serve the project's installed context packages read-only over the Model
Context Protocol on stdin/stdout. Point your agent at it with
'ctx mcp config --client claude|cursor|codex|vscode'.

Only the protocol is written to stdout; logs go to stderr.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMCP(cmd.Context(), opts)
		},
	}
	cmd.AddCommand(newMCPConfigCmd(g, nil))
	return cmd
}

func runMCP(ctx context.Context, opts *mcpOptions) error {
	g := opts.globalOptions
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
	}
	if f, ok := g.IO.In.(*os.File); ok {
		in = f
	}
	if g.IO.InTTY {
		fmt.Fprintln(g.IO.ErrOut, "ctx mcp: serving MCP on stdin/stdout for an agent; to connect one, see 'ctx mcp config --client claude|cursor|codex|vscode'. Ctrl-C to stop.")
	}
	dir, err := g.ProjectDir()
	if err != nil {
		return err
	}
	srv, err := mcpserver.New(mcpserver.Options{ProjectDir: dir, Version: buildVersion(), Log: g.IO.ErrOut})
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

// buildVersion is the module version ctx was built as, or "dev".
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

type mcpConfigOptions struct {
	*globalOptions
	client string
}

func newMCPConfigCmd(g *globalOptions, runF func(context.Context, *mcpConfigOptions) error) *cobra.Command {
	opts := &mcpConfigOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "config --client claude|cursor|codex|vscode",
		Short: "Print the configuration that makes an MCP client start ctx mcp for this project",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMCPConfig(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.client, "client", "", "the MCP client: "+strings.Join(mcpserver.Clients, ", "))
	return cmd
}

func runMCPConfig(_ context.Context, o *mcpConfigOptions) error {
	if o.client == "" {
		return usageErrorf("mcp config: --client is required (one of %s)", strings.Join(mcpserver.Clients, ", "))
	}
	dir, err := o.ProjectDir()
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
	return nil
}
