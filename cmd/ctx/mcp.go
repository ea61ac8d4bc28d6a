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

func newMCPCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the context read-only to agents over MCP (stdio)",
		Long: `Serve the project's installed context packages read-only over the Model
Context Protocol on stdin/stdout. Point your agent at it with
'ctx mcp config --client claude|cursor|codex|vscode'.

Only the protocol is written to stdout; logs go to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCP(cmd.Context(), g)
		},
	}
	cmd.AddCommand(newMCPConfigCmd(g))
	return cmd
}

func runMCP(ctx context.Context, g *globalOptions) error {
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
	g      *globalOptions
	client string
}

func newMCPConfigCmd(g *globalOptions) *cobra.Command {
	o := &mcpConfigOptions{g: g}
	cmd := &cobra.Command{
		Use:   "config --client claude|cursor|codex|vscode",
		Short: "Print the configuration that makes an MCP client start ctx mcp for this project",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCPConfig(o)
		},
	}
	cmd.Flags().StringVar(&o.client, "client", "", "the MCP client: "+strings.Join(mcpserver.Clients, ", "))
	return cmd
}

func runMCPConfig(o *mcpConfigOptions) error {
	if o.client == "" {
		return usageErrorf("mcp config: --client is required (one of %s)", strings.Join(mcpserver.Clients, ", "))
	}
	dir, err := o.g.ProjectDir()
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
	fmt.Fprint(o.g.IO.Out, cfg.Text)
	fmt.Fprintln(o.g.IO.ErrOut, cfg.Where)
	return nil
}
