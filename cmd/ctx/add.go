package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this stub with the real command.
func newAddCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "add",
		Short: "Add a context package from a git repository",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("add: not implemented yet")
		},
	}
}
