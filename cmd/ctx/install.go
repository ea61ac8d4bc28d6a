package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this stub with the real command.
func newInstallCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "install",
		Short: "Install exactly what the lockfile names",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("install: not implemented yet")
		},
	}
}
