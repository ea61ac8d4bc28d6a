package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner): replace this stub with the real command.
func newVerifyCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Check installed files against the lockfile's hashes",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("verify: not implemented yet")
		},
	}
}
