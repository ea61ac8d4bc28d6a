//go:build !unix

package gitengine

import "errors"

func mkfifo(string) error { return errors.New("no fifos here") }
