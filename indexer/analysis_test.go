package indexer

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// analyse returns the terms analyzer name makes of text, each as
// term@position.
func analyse(t *testing.T, name, text string) []string {
	t.Helper()
	a := newMapping().AnalyzerNamed(name)
	if a == nil {
		t.Fatalf("no analyzer %q", name)
	}
	var out []string
	for _, tok := range a.Analyze([]byte(text)) {
		out = append(out, string(tok.Term)+"@"+strconv.Itoa(tok.Position))
	}
	return out
}

// TestVersionTokens pins what the analyzers make of version numbers and
// identifiers: a version of two or three parts is also its number without
// a "v" and its major.minor, at the same position; the rest is the word
// segmenter's.
func TestVersionTokens(t *testing.T) {
	t.Parallel()
	tests := []struct{ text, want string }{
		{"1.16", "1.16@1"},
		{"1.16.0", "1.16.0@1 1.16@1"},
		{"v1.16.0", "v1.16.0@1 1.16.0@1 1.16@1"},
		{"V1.16", "v1.16@1 1.16@1"},
		{"v1.41", "v1.41@1 1.41@1"},
		{"1.16.x", "1.16@1 x@2"},
		{">= 1.2", "1.2@1"},
		{"v1.16.0-rc1", "v1.16.0@1 1.16.0@1 1.16@1 rc1@2"},
		{"Consul 1.16.0 notes", "consul@1 1.16.0@2 1.16@2 note@3"},
		// Not versions: one part, four parts (an IP address), letters.
		{"v2", "v2@1"},
		{"10.0.0.1", "10.0.0.1@1"},
		{"go1.21", "go1.21@1"},
		{"1.", "1@1"},
		// Identifiers are the segmenter's words (compoundParts adds the
		// parts of dotted and underscored ones to a chunk and a query).
		{"net.ipv4.ip_forward", "net.ipv4@1 ip_forward@2"},
		{"spec.template.metadata", "spec.template.metadata@1"},
		{"--vfs-cache-mode", "vf@1 cach@2 mode@3"},
		{"CONSUL_HTTP_ADDR", "consul_http_addr@1"},
		{"fooBar foo::bar", "foobar@1 foo@2 bar@3"},
	}
	for _, tt := range tests {
		for _, name := range []string{textAnalyzer, keyTextAnalyzer} {
			if got := strings.Join(analyse(t, name, tt.text), " "); got != tt.want {
				t.Errorf("%s(%q) = %s, want %s", name, tt.text, got, tt.want)
			}
		}
	}
	// The key analyzer drops stop words, the text analyzer keeps them.
	if got := strings.Join(analyse(t, keyTextAnalyzer, "the 1.16.0 of it"), " "); got != "1.16.0@2 1.16@2" {
		t.Errorf("keyTextAnalyzer: %s", got)
	}
	if got := strings.Join(analyse(t, textAnalyzer, "the 1.16.0"), " "); got != "the@1 1.16.0@2 1.16@2" {
		t.Errorf("textAnalyzer: %s", got)
	}
}

// TestVersionWordNotCompound: a version number is not split into parts
// (compoundParts), a dotted name is.
func TestVersionWordNotCompound(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"v1.16.0":             "",
		"1.16.x":              "",
		"V2.3":                "",
		"1.2.3":               "",
		"tar.gz":              "tar gz",
		"net.ipv4.ip_forward": "net ipv4 ip forward",
		"go1.21":              "go1 21",
		"x86_64":              "x86 64",
	} {
		if got := compoundParts(text, 100); got != want {
			t.Errorf("compoundParts(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestVersionSearch: a question about "1.16" finds the page about
// "1.16.0", with the score BM25F gives one term by hand; a phrase and a
// snippet see the number's forms too.
func TestVersionSearch(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "d", map[string]string{
		"a.md": "# Notes\n\nConsul 1.16.0 adds groups.\n",
		"b.md": "# Notes\n\nConsul 1.15.0 adds peers.\n",
	})
	ctx := context.Background()
	if _, err := Sync(ctx, dir, []Package{{Alias: "d"}}, Options{}); err != nil {
		t.Fatal(err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	paths := func(q string) []Hit {
		t.Helper()
		hits, err := r.Search(ctx, Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	hits := paths("1.16")
	if len(hits) != 1 || hits[0].Path != "a.md" {
		t.Fatalf("1.16: hits %+v, want a.md alone", hits)
	}
	// N = 2, "1.16" in a.md only: idf ln 2. a.md's text is "notes consul
	// 1.16.0 1.16 adds groups" (6 tokens), its heading "notes" (1): body
	// 5 tokens, the term once. The average body length is counted by
	// fieldLength (5 words a chunk, the version once) minus the heading:
	// 4. Normalisation 1 - 0.75 + 0.75·5/4 = 1.1875; k1 1.3.
	tf := 1 / 1.1875
	want := math.Log(2) * tf / (1.3 + tf)
	if math.Abs(hits[0].Score-want) > 1e-6 {
		t.Errorf("1.16: score %.9f, want %.9f", hits[0].Score, want)
	}
	if !strings.Contains(hits[0].Snippet, "**1.16.0**") {
		t.Errorf("1.16: snippet %q does not mark 1.16.0", hits[0].Snippet)
	}
	for _, q := range []string{"v1.16", "v1.16.0", `"consul 1.16"`, `"consul 1.16.0 adds"`} {
		if hits := paths(q); len(hits) != 1 || hits[0].Path != "a.md" {
			t.Errorf("%s: hits %+v, want a.md alone", q, hits)
		}
	}
	// The other page's number is another number.
	if hits := paths("1.15.0"); len(hits) != 1 || hits[0].Path != "b.md" {
		t.Errorf("1.15.0: hits %+v, want b.md alone", hits)
	}
	if hits := paths("1.1"); len(hits) != 0 {
		t.Errorf("1.1: hits %+v, want none", hits)
	}
	// The kind prior: a version number in the query asks for release notes.
	if !queryAsksForKinds(strings.Fields("what's new in Consul 1.16")) || !queryAsksForKinds([]string{"v1.41"}) {
		t.Error("a version number does not ask for release notes")
	}
}
