package gittest

import (
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"time"
)

// Daemon is `git daemon` serving the repositories under a root over git://
// on 127.0.0.1. Unlike smart HTTP, its upload-pack is stateful: it refuses
// wants that are not advertised tips unless the repository allows them
// (uploadpack.allowReachableSHA1InWant).
type Daemon struct {
	URL string // git://127.0.0.1:PORT; a repository ROOT/NAME is at URL+"/"+NAME
	cmd *exec.Cmd
}

// StartDaemon starts git daemon for root. Repository settings (such as
// uploadpack.allowFilter) come from each repository's own config. The
// daemon's stderr goes to stderr, or nowhere when it is nil.
func StartDaemon(root string, stderr io.Writer) (*Daemon, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	// git-daemon itself, not `git daemon`: the git wrapper runs it as a
	// child, and killing the wrapper left the daemon listening.
	daemon, err := gitProgram("git-daemon")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(daemon, "--reuseaddr", "--export-all", "--base-path="+root,
		"--listen=127.0.0.1", "--port="+strconv.Itoa(port), root)
	cmd.Env = Env(noHome())
	// A nil stderr is /dev/null itself, not a pipe: Close then has nothing
	// to wait for (with io.Discard, a pipe, it waited out WaitDelay on every
	// Close for the connection handlers still holding it).
	if stderr != nil {
		cmd.Stderr = stderr
		// Connection handlers the daemon forked may hold stderr open a
		// little after it exits; do not wait on them forever.
		cmd.WaitDelay = 2 * time.Second
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start git daemon: %w", err)
	}
	d := &Daemon{URL: fmt.Sprintf("git://127.0.0.1:%d", port), cmd: cmd}
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			return d, nil
		}
		if i == 200 {
			d.Close()
			return nil, fmt.Errorf("git daemon did not start listening on port %d", port)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Close stops the daemon.
func (d *Daemon) Close() error {
	_ = d.cmd.Process.Kill()
	_ = d.cmd.Wait()
	return nil
}
