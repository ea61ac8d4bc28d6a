package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this stub with the real command.
func newDemoCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Run the whole flow on a built-in demo hub (no network)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("demo: not implemented yet")
		},
	}
}
