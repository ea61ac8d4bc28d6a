//go:build !unix

package boundedfile

import "os"

// NonBlock (see open_unix.go): a system without Unix fifos in its file system has no such
// flag; an open does not wait.
const NonBlock = 0

// noFollowOpen: no O_NOFOLLOW; Read looks at the path first.
const noFollowOpen = false

func openFlags(path string, _ bool) (*os.File, error) { return os.Open(path) }

func isLoop(error) bool { return false }
