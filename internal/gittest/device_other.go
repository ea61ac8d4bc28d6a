//go:build !unix

package gittest

import "io/fs"

// device: no device numbers here, so repoState reads every file each time.
func device(fs.FileInfo) (uint64, bool) { return 0, false }
