package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this stub with the real command.
func newSearchCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "search",
		Short: "Search the installed documentation",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("search: not implemented yet")
		},
	}
}
