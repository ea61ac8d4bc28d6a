package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this stub with the real command.
func newOutdatedCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "outdated",
		Short: "Show what update would change",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("outdated: not implemented yet")
		},
	}
}
