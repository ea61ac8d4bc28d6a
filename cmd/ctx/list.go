package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this stub with the real command.
func newListCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List installed context packages",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("list: not implemented yet")
		},
	}
}
