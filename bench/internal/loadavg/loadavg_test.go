package loadavg

import (
	"runtime"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		if String() != "unknown" || Minute() != 0 {
			t.Fatalf("without /proc/loadavg: %q, %v; want unknown, 0", String(), Minute())
		}
		return
	}
	if s := String(); len(strings.Fields(s)) != 3 {
		t.Fatalf("String() = %q, want three averages", s)
	}
	if m := Minute(); m < 0 {
		t.Fatalf("Minute() = %v", m)
	}
}
