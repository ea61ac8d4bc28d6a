package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this stub with the real command.
func newUpdateCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "update",
		Short: "Move packages to the newest commits of their refs",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("update: not implemented yet")
		},
	}
}
