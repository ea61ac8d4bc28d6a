package lockfile

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/jsonfile/jsonfiletest"
)

const (
	c1 = "0123456789abcdef0123456789abcdef01234567"
	t1 = "89abcdef0123456789abcdef0123456789abcdef"
	h1 = "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
)

func sample() *Lock {
	return &Lock{Version: Version, Packages: map[string]Entry{
		"zeta": {Source: "https://example.com/z.git", Rev: c1, Tree: t1, Hash: h1,
			Updated: time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("x", 3600))},
		"alpha": {Source: "../docs", Path: "guides/api", Ref: "v1", Rev: c1, Tree: t1, Hash: h1},
	}}
}

func TestMarshalDeterministicAndRoundTrip(t *testing.T) {
	t.Parallel()
	a, err := sample().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		b, _ := sample().Marshal()
		if !bytes.Equal(a, b) {
			t.Fatalf("Marshal not deterministic:\n%s\n%s", a, b)
		}
	}
	if !bytes.HasSuffix(a, []byte("}\n")) || bytes.Index(a, []byte(`"alpha"`)) > bytes.Index(a, []byte(`"zeta"`)) {
		t.Fatalf("want sorted keys and a final newline:\n%s", a)
	}
	if !bytes.Contains(a, []byte(`"updated": "2026-01-02T02:04:05Z"`)) {
		t.Fatalf("updated not normalized to UTC seconds:\n%s", a)
	}
	l, err := Parse("context.lock", a, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := l.Marshal()
	if !bytes.Equal(a, b) {
		t.Fatalf("round trip changed bytes:\n%s\n%s", a, b)
	}
	empty, _ := (&Lock{}).Marshal()
	if string(empty) != "{\n  \"version\": 1,\n  \"packages\": {}\n}\n" {
		t.Fatalf("empty lock = %q", empty)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, data string
		want       []string
	}{
		{"syntax", "{\n  \"version\": 1,\n  \"packages\": {\n    \"a\": {\"source\": \"x\",,}\n  }\n}\n",
			[]string{"context.lock:4:25: invalid JSON: invalid character ','", "git checkout"}},
		{"truncated", "{\n  \"version\": 1,\n  \"packages\": {\n", []string{"context.lock:4:1: invalid JSON: unexpected end of file"}},
		{"type", "{\n  \"version\": \"one\"\n}", []string{"context.lock:2:14: version: expected a number, found a JSON string"}},
		{"unknown", "{\n  \"version\": 1,\n  \"pkgs\": {}\n}", []string{`context.lock:3:3: unknown field "pkgs"`}},
		{"time", "{\"version\": 1, \"packages\": {\"a\": {\n  \"updated\": \"yesterday\"}}}", []string{`context.lock:2:14: packages[a].updated: "yesterday" is not a time`}},
		{"duplicate", "{\n  \"version\": 1,\n  \"packages\": {\n    \"a\": {},\n    \"a\": {}\n  }\n}", []string{`context.lock:5:5: packages: duplicate key "a" (first at 4:5; keep only one)`}},
		{"conflict", "{\n<<<<<<< HEAD\n  \"version\": 1,\n=======\n>>>>>>> x\n}", []string{"context.lock:2:1: git merge conflict markers", "git checkout --theirs context.lock", "ctx install"}},
		{"trailing", "{\"version\": 1} {}", []string{"after the top-level object"}},
		// Windows' short name of .git: gitengine never wrote there, and the
		// lock no longer accepts it either (naming.CheckFilePath).
		{"git-short-name", `{"version": 1, "packages": {"a": {"source": "x", "path": "docs/GIT~1", "commit": "` + c1 + `", "tree": "` + t1 + `", "hash": "` + h1 + `"}}}`,
			[]string{`context.lock:1:50: packages[a].path: "docs/GIT~1" must be a clean relative path`}},
		{"newer", "{\n  \"version\": 3,\n  \"packages\": {}\n}", []string{"context.lock:2:3: version: format version 3 is newer than this ctx understands (2): upgrade ctx"}},
		{"fields", `{
  "version": 1,
  "packages": {
    "bad alias": {"source": "x", "commit": "` + c1 + `", "tree": "` + t1 + `", "hash": "` + h1 + `"},
    "docs": {
      "source": "",
      "path": "../up",
      "commit": "abc",
      "tree": "` + strings.ToUpper(t1) + `",
      "hash": "sha256:x"
    }
  }
}`, []string{
			`context.lock:4:5: packages[bad alias]: "bad alias" is not a valid alias`,
			"context.lock:6:7: packages[docs].source: is required",
			`context.lock:7:7: packages[docs].path: "../up" must be a clean relative path`,
			`context.lock:8:7: packages[docs].commit: "abc" must be 40 lower-case hexadecimal digits`,
			"context.lock:9:7: packages[docs].tree:",
			`context.lock:10:7: packages[docs].hash: "sha256:x" must be an h1: hash`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("context.lock", []byte(tc.data), nil)
			if err == nil {
				t.Fatal("no error")
			}
			var l *jsonfile.ErrorList
			if !errors.As(err, &l) {
				t.Fatalf("error %T is not a *jsonfile.ErrorList", err)
			}
			msg := err.Error()
			last := -1
			for _, w := range tc.want {
				i := strings.Index(msg, w)
				if i < 0 {
					t.Fatalf("error lacks %q:\n%s", w, msg)
				}
				if i < last {
					t.Fatalf("problems out of order at %q:\n%s", w, msg)
				}
				last = i
			}
			hint := "ctx install" // restore the lock, or fix it
			if tc.name == "newer" {
				hint = "upgrade ctx (go install" // nothing to fix in the file
			}
			if !strings.Contains(msg, hint) {
				t.Fatalf("no hint %q:\n%s", hint, msg)
			}
		})
	}
}

// TestParseNewerVersionAlone: a lock of a newer format is that one
// problem, with what to do, not also every field this ctx does not know
// (the entries of a newer format need not look like version 2's).
func TestParseNewerVersionAlone(t *testing.T) {
	t.Parallel()
	data := "{\n  \"version\": 9,\n  \"packages\": {\n    \"a\": {\"source\": \"x\", \"commit\": 5, \"future\": true}\n  }\n}\n"
	_, err := Parse("context.lock", []byte(data), nil)
	var l *jsonfile.ErrorList
	if !errors.As(err, &l) {
		t.Fatalf("Parse = %v, want a *jsonfile.ErrorList", err)
	}
	if len(l.Errors) != 1 {
		t.Fatalf("%d problems, want the version's alone:\n%v", len(l.Errors), err)
	}
	msg := err.Error()
	for _, w := range []string{"context.lock:2:3: version: format version 9 is newer than this ctx understands (2): upgrade ctx", "go install github.com/ctx-dev/ctx/cmd/ctx@latest"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error lacks %q:\n%s", w, msg)
		}
	}
	if strings.Contains(msg, "delete it") {
		t.Errorf("error says to delete a lock a newer ctx wrote:\n%s", msg)
	}
	// Not valid JSON: the syntax error, as for any lock.
	if _, err := Parse("context.lock", []byte(`{"version": 9,,}`), nil); err == nil || !strings.Contains(err.Error(), "invalid JSON") {
		t.Errorf("Parse of bad JSON = %v, want its syntax error", err)
	}
}

func FuzzParse(f *testing.F) {
	good, _ := sample().Marshal()
	f.Add(good)
	f.Add([]byte(`{"version":1,"packages":{}}`))
	f.Add([]byte("{\n \"version\": 1,\n \"packages\": {\"a\": {\"commit\": 3}}}"))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse("context.lock", data, nil)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "context.lock") {
				t.Fatalf("error without file name: %v", err)
			}
			return
		}
		// What parses re-marshals to bytes that parse to the same canonical bytes.
		b, err := l.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		l2, err := Parse("context.lock", b, nil)
		if err != nil {
			t.Fatalf("canonical bytes do not parse: %v\n%s", err, b)
		}
		b2, _ := l2.Marshal()
		if !bytes.Equal(b, b2) {
			t.Fatalf("not stable:\n%s\n%s", b, b2)
		}
	})
}

// TestParseErrorModel: each kind of problem in a lock, each at
// file:line:col, and all of a file's problems at once (before
// internal/jsonfile, the first decoding problem hid every other one).
func TestParseErrorModel(t *testing.T) {
	t.Parallel()
	entry := `"source": "x", "commit": "` + c1 + `", "tree": "` + t1 + `", "hash": "` + h1 + `"`
	for _, tc := range []struct {
		name, data string
		want       []string
	}{
		{"syntax", "{\n  \"version\": 1\n  \"packages\": {}\n}", []string{
			`context.lock:3:3: invalid JSON: invalid character '"' after object key:value pair`}},
		{"duplicate key", "{\n  \"version\": 1,\n  \"packages\": {\"a\": {" + entry + "}},\n  \"Version\": 1\n}", []string{
			`context.lock:4:3: duplicate key "Version" (first at 2:3; keep only one)`}},
		{"unknown field", "{\n  \"version\": 1,\n  \"packages\": {\"a\": {" + entry + ", \"sha\": \"x\"}}\n}", []string{
			`context.lock:3:` + strconv.Itoa(24+len(entry)) + `: packages[a]: unknown field "sha"`}},
		{"validation", "{\n  \"version\": 1,\n  \"packages\": {\n    \"a\": {\"source\": \"\"}\n  }\n}", []string{
			`context.lock:4:5: packages[a].commit: is required`,
			`context.lock:4:11: packages[a].source: is required`}},
		{"all at once", "{\n  \"version\": 1,\n  \"extra\": true,\n  \"packages\": {\n    \"a\": {\"source\": \"\"},\n    \"b\": {\"source\": \"x\", \"source\": \"y\"}\n  }\n}", []string{
			`context.lock:3:3: unknown field "extra"`,
			`context.lock:5:11: packages[a].source: is required`,
			`context.lock:6:26: packages[b]: duplicate key "source" (first at 6:11; keep only one)`}},
		{"types at once", "{\n  \"version\": \"1\",\n  \"packages\": {\"a\": {\"commit\": 3, \"updated\": \"yesterday\"}}\n}", []string{
			`context.lock:2:14: version: expected a number, found a JSON string`,
			`context.lock:3:32: packages[a].commit: expected a string, found a JSON number`,
			`context.lock:3:46: packages[a].updated: "yesterday" is not a time`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("context.lock", []byte(tc.data), nil)
			jsonfiletest.WantInOrder(t, err, tc.want)
		})
	}
}

// A lock of git packages stays version 1, byte for byte; an https entry
// makes it version 2, which reads back to the same Lock.
func TestVersionsRoundTrip(t *testing.T) {
	t.Parallel()
	v1 := "{\n  \"version\": 1,\n  \"packages\": {\n    \"a\": {\n      \"source\": \"https://x/a.git\",\n      \"ref\": \"main\",\n      \"commit\": \"" + c1 + "\",\n      \"tree\": \"" + t1 + "\",\n      \"hash\": \"" + h1 + "\",\n      \"updated\": \"2026-01-02T03:04:05Z\"\n    }\n  }\n}\n"
	l, err := Parse("context.lock", []byte(v1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if e := l.Packages["a"]; e.Rev != c1 || !e.IsGit() || l.Version != 1 {
		t.Fatalf("v1 entry read as %+v (version %d)", e, l.Version)
	}
	out, _ := l.Marshal()
	if string(out) != v1 {
		t.Fatalf("a git-only v1 lock changed bytes:\n%s\nwant:\n%s", out, v1)
	}
	rev := "sha256:" + strings.Repeat("0f", 32)
	l.Packages["web"] = Entry{Kind: "https", Source: "https://docs.example.com/guide.md", Rev: rev, Hash: h1,
		URL: "https://docs.example.com/v2/guide.md", ETag: `"abc"`, LastModified: "Mon, 02 Jan 2026 03:04:05 GMT",
		Fetched: time.Date(2026, 1, 2, 3, 4, 5, 9, time.UTC), Updated: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	out, err = l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"version": 2`, `"kind": "git"`, `"rev": "` + c1 + `"`, `"kind": "https"`, `"rev": "` + rev + `"`, `"etag": "\"abc\""`, `"fetched": "2026-01-02T03:04:05Z"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("v2 lock lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), `"commit"`) || strings.Count(string(out), `"tree"`) != 1 {
		t.Errorf("v2 lock has a commit field or an https tree:\n%s", out)
	}
	back, err := Parse("context.lock", out, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := back.Marshal()
	if string(again) != string(out) {
		t.Fatalf("v2 round trip changed bytes:\n%s\n%s", out, again)
	}
	delete(back.Packages, "web")
	if out, _ := back.Marshal(); string(out) != v1 {
		t.Fatalf("without its https entry the lock is not the v1 bytes again:\n%s", out)
	}
}
