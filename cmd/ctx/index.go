package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this stub with the real command.
func newIndexCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "index",
		Short: "Rebuild INDEX.md and the search index",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("index: not implemented yet")
		},
	}
}
