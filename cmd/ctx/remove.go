package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this stub with the real command.
func newRemoveCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "remove",
		Short: "Remove a context package",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("remove: not implemented yet")
		},
	}
}
