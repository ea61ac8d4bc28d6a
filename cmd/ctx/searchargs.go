package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// queryArgs splits search's arguments, which cobra leaves unparsed from
// the first query word on (SetInterspersed(false)): a long flag search
// knows (--json, --limit 5, --limit=5) is still a flag, and everything
// else is query: -word is query syntax (NOT word), so after the first
// query word a single dash never starts a flag, and after "--" nothing
// does.
func queryArgs(cmd *cobra.Command, args []string) ([]string, error) {
	var query []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(query, args[i+1:]...), nil
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		f := cmd.Flags().Lookup(name)
		if !strings.HasPrefix(a, "--") || f == nil {
			query = append(query, a)
			continue
		}
		if !hasValue {
			if f.NoOptDefVal != "" {
				value = f.NoOptDefVal // a switch: --json
			} else if i+1 < len(args) {
				i++
				value = args[i]
			} else {
				return nil, fmt.Errorf("flag needs an argument: --%s", name)
			}
		}
		if err := cmd.Flags().Set(name, value); err != nil {
			return nil, flagValueError(err) // the message of a flag before the query
		}
	}
	return query, nil
}
