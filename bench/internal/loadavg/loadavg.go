// Package loadavg reads the machine's load average (Linux's
// /proc/loadavg), which every benchmark prints beside its figures: the
// machine these run on is often shared.
package loadavg

import (
	"os"
	"strconv"
	"strings"
)

// fields is the 1-, 5- and 15-minute averages as the kernel writes them.
func fields() ([]string, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil, false
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return nil, false
	}
	return f[:3], true
}

// String is the three averages ("1.20 1.10 0.90"), or "unknown".
func String() string {
	f, ok := fields()
	if !ok {
		return "unknown"
	}
	return strings.Join(f, " ")
}

// Minute is the 1-minute average; 0 when it cannot be read.
func Minute() float64 {
	f, ok := fields()
	if !ok {
		return 0
	}
	l, _ := strconv.ParseFloat(f[0], 64)
	return l
}
