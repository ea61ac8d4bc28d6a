//go:build !linux

package gittest

// stateWatches, without inotify: every request walks the repository.
var stateWatches watchSet

type watchSet struct{}

func (watchSet) digest(dir string) ([32]byte, bool) {
	return walkState(dir, nil)
}
