//go:build !unix

package indexer

import (
	"math"

	"github.com/ctx-dev/ctx/internal/boundedfile"
)

// mapFile reads the file at p whole (a file mapped on Windows cannot be
// replaced by rename, which is how vectors.bin is written).
func mapFile(p string) ([]byte, func(), error) {
	data, err := boundedfile.ReadFile(p, math.MaxInt64) // a regular file only, no wait on a fifo (red23)
	return data, func() {}, err
}
