//go:build !unix

package lockwait

// noFollow: no such open flag here; File's callers look first (linked).
const noFollow = 0
