// Command ctx is a git-native package manager for a team's documentation:
// it installs context packages from git into .context/, pins them in a
// lockfile, indexes them, and serves them read-only to AI agents over MCP.
package main

import "os"

func main() {
	deferFirstGC()
	os.Exit(Main())
}
