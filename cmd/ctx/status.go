package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this stub with the real command.
func newStatusCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show packages with local edits",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("status: not implemented yet")
		},
	}
}
