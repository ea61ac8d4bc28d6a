package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// The version line and JSON come from the build info: the module version
// (a tag when installed with go install …@v1.2.3), the VCS revision, its
// time and the modified flag of a build from a checkout.
func TestVersionFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Path: "github.com/ctx-dev/ctx", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}}
	v := versionOf(bi)
	if v.Version != "v1.2.3" || v.Commit != "0123456789abcdef0123456789abcdef01234567" || !v.Modified || v.Go != "go1.99.1" {
		t.Fatalf("versionOf = %+v", v)
	}
	if s := v.String(); !strings.HasPrefix(s, "ctx v1.2.3 (commit 0123456789ab, 2026-01-02T03:04:05Z, modified) go1.99.1 ") {
		t.Errorf("line = %q", s)
	}
	if s := versionOf(nil).String(); !strings.HasPrefix(s, "ctx (devel) go") {
		t.Errorf("no build info: %q", s)
	}
}
