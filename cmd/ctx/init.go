package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this stub with the real command.
func newInitCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create .context/ in this project",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("init: not implemented yet")
		},
	}
}
