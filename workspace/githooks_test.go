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
	user := "#!/bin/bash\nset -e\necho mine\nexit 0\n"
	got, action, err := addHookBlock("h", []byte(user), block)
	if err != nil || action != "added to" || string(got) != "#!/bin/bash\n"+block+"set -e\necho mine\nexit 0\n" {
		t.Fatalf("%s %v:\n%s", action, err, got)
	}
	if !strings.Contains(block, "ctx -C 'sub/proj' hook post-merge \"$@\" || true") {
		t.Errorf("block: %s", block)
	}
	again, action, err := addHookBlock("h", got, block)
	if err != nil || action != "current" || string(again) != string(got) {
		t.Errorf("again: %s %v", action, err)
	}
	moved, action, err := addHookBlock("h", got, hookBlock("post-merge", ""))
	if err != nil || action != "updated" || strings.Count(string(moved), hookBegin) != 1 || !strings.HasSuffix(string(moved), "set -e\necho mine\nexit 0\n") {
		t.Errorf("update: %s %v:\n%s", action, err, moved)
	}
	for _, bad := range []string{
		"#!/bin/sh\n" + hookBegin + "\nctx\n",
		"#!/bin/sh\n" + hookEnd + "\n",
		"#!/bin/sh\n" + block + block,
		"#!/usr/bin/env python3\nprint(1)\n",
	} {
		if _, _, err := addHookBlock("h", []byte(bad), block); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
	if got, _, err := addHookBlock("h", []byte("echo no shebang\n"), block); err != nil || !strings.HasPrefix(string(got), hookBegin) {
		t.Errorf("no shebang: %v\n%s", err, got)
	}
}
