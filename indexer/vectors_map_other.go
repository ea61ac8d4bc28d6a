//go:build !unix

package indexer

import "os"

// mapFile reads the file at p whole (a file mapped on Windows cannot be
// replaced by rename, which is how vectors.bin is written).
func mapFile(p string) ([]byte, func(), error) {
	data, err := os.ReadFile(p)
	return data, func() {}, err
}
