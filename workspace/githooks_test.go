package workspace

import (
	"strings"
	"testing"
)

// TestAddHookBlock: the block goes right after a hook's shebang (before an
// exit of the user's), replaces itself in place, is current the second
// time, and unpaired markers or another language are refused.
func TestAddHookBlock(t *testing.T) {
	block := hookBlock("post-merge", "sub/proj")
	live := func(string) bool { return true }
	add := func(cur []byte, rel string) ([]byte, string, error) {
		return addHookBlock("h", cur, "post-merge", rel, live)
	}
	user := "#!/bin/bash\nset -e\necho mine\nexit 0\n"
	got, action, err := add([]byte(user), "sub/proj")
	if err != nil || action != "added to" || string(got) != "#!/bin/bash\n"+block+"set -e\necho mine\nexit 0\n" {
		t.Fatalf("%s %v:\n%s", action, err, got)
	}
	if !strings.Contains(block, "ctx -C 'sub/proj' hook post-merge \"$@\" || true") {
		t.Errorf("block: %s", block)
	}
	again, action, err := add(got, "sub/proj")
	if err != nil || action != "current" || string(again) != string(got) {
		t.Errorf("again: %s %v", action, err)
	}
	// A second project (a monorepo's top, round 19): its line is added,
	// sub/proj's is kept, in one block.
	both, action, err := add(got, "")
	if err != nil || action != "updated" || string(both) != "#!/bin/bash\n"+hookBlock("post-merge", "sub/proj", "")+"set -e\necho mine\nexit 0\n" {
		t.Errorf("second project: %s %v:\n%s", action, err, both)
	}
	if again, action, err := add(both, "sub/proj"); err != nil || action != "current" || string(again) != string(both) {
		t.Errorf("second project, again: %s %v:\n%s", action, err, again)
	}
	// A project that moved from sub/proj to the top: sub/proj holds no
	// manifest any more (live says no), so its line is dropped.
	gone := func(rel string) bool { return rel != "sub/proj" }
	moved, action, err := addHookBlock("h", got, "post-merge", "", gone)
	if err != nil || action != "updated" || string(moved) != "#!/bin/bash\n"+hookBlock("post-merge", "")+"set -e\necho mine\nexit 0\n" {
		t.Errorf("moved: %s %v:\n%s", action, err, moved)
	}
	// A block of an earlier round (one line, no manifest check) is
	// read by its -C folder and rewritten; a line that is not ctx's stays.
	old := "#!/bin/sh\n" + hookBegin + "\nif command -v ctx >/dev/null 2>&1; then ctx -C 'a' hook post-merge \"$@\" || true; else printf x >&2; fi\necho user\n" + hookEnd + "\n"
	if up, action, err := add([]byte(old), ""); err != nil || action != "updated" || string(up) != "#!/bin/sh\n"+hookBegin+"\n"+hookLine("post-merge", "a")+"echo user\n"+hookLine("post-merge", "")+hookEnd+"\n" {
		t.Errorf("earlier block: %s %v:\n%s", action, err, up)
	}
	for _, bad := range []string{
		"#!/bin/sh\n" + hookBegin + "\nctx\n",
		"#!/bin/sh\n" + hookEnd + "\n",
		"#!/bin/sh\n" + block + block,
		"#!/usr/bin/env python3\nprint(1)\n",
	} {
		if _, _, err := add([]byte(bad), "sub/proj"); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
	if got, _, err := add([]byte("echo no shebang\n"), "sub/proj"); err != nil || !strings.HasPrefix(string(got), hookBegin) {
		t.Errorf("no shebang: %v\n%s", err, got)
	}
}
