package main

import (
	"os"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
)

// engineOptions reads the git settings ctx takes from the environment:
//
//	CTX_NET_TIMEOUT   how long a fetch waits for the next byte from a server
//	                  before that package fails (a Go duration: 30s, 2m; 0 = no limit;
//	                  default 30s)
func engineOptions() (gitengine.Options, error) {
	var o gitengine.Options
	if v := os.Getenv("CTX_NET_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return o, usageErrorf("CTX_NET_TIMEOUT=%q: not a duration (use, say, 30s or 2m; 0 for no limit)", v)
		}
		o.IdleTimeout = d
		if d == 0 {
			o.IdleTimeout = -1
		}
	}
	return o, nil
}
