package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this stub with the real command.
func newMCPCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the context read-only to agents over MCP (stdio)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("mcp: not implemented yet")
		},
	}
}
