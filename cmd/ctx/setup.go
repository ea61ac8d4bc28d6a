package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this stub with the real command.
func newSetupCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "setup",
		Short: "Pick context packages from a registry",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("setup: not implemented yet")
		},
	}
}
