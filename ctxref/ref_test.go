package ctxref

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in      string
		want    Ref
		wantErr string
	}{
		{"@ctx/api/errors.md", Ref{FormAt, "api", "errors.md"}, ""},
		{"@ctx/api/guide/errors.md#retries", Ref{FormAt, "api", "guide/errors.md"}, ""},
		{"@ctx/api/a%20b.md", Ref{FormAt, "api", "a%20b.md"}, ""}, // the @ form is not decoded
		{"ctx://packages/api/guide/errors.md", Ref{FormURI, "api", "guide/errors.md"}, ""},
		{"ctx://packages/api/a%20b.md?x=1#h", Ref{FormURI, "api", "a b.md"}, ""},
		{"ctx://packages/api/%2e%2e/x.md", Ref{FormURI, "api", "../x.md"}, ""}, // decoded; CheckServedPath refuses it later
		{"@ctx/api", Ref{}, "names no document"},
		{"@ctx/api/", Ref{}, "names no document"},
		{"@ctx//x.md", Ref{}, "names no package"},
		{"ctx://packages/api/%zz", Ref{}, "bad path"},
		{"api/errors.md", Ref{}, "not a reference"},
		{"", Ref{}, "not a reference"},
	} {
		got, err := Parse(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse(%q) = %+v, %v; want error %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestString(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"@ctx/api/errors.md", "ctx://packages/api/a%20b/c.md"} {
		r, err := Parse(s)
		if err != nil || r.String() != s {
			t.Errorf("Parse(%q).String() = %q, %v", s, r.String(), err)
		}
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		line string
		want []string // Text@Col
	}{
		{"See @ctx/api/errors.md.", []string{"@ctx/api/errors.md@5"}},
		{"[errors](ctx://packages/api/guide/errors.md#retries), and `@ctx/web/a.md`",
			[]string{"ctx://packages/api/guide/errors.md#retries@10", "@ctx/web/a.md@60"}},
		{"**@ctx/api/x.md** (@ctx/b/y.md)", []string{"@ctx/api/x.md@3", "@ctx/b/y.md@20"}},
		{"mail bob@ctx/api/x.md or xctx://packages/a/b.md", nil},
		{"@ctx/api and @ctx/ nothing", nil},
		{"@ctx/bad name/x.md", nil},
		{"@ctx/@ctx/a/b.md", []string{"@ctx/a/b.md@6"}},
		{"<@ctx/a/b.md>|@ctx/c/d.md", []string{"@ctx/a/b.md@2", "@ctx/c/d.md@15"}},
	} {
		var got []string
		for _, m := range Find(tt.line) {
			got = append(got, m.Text+"@"+strconv.Itoa(m.Col))
			if !strings.HasPrefix(tt.line[m.Col-1:], m.Text) {
				t.Errorf("Find(%q): %q is not at column %d", tt.line, m.Text, m.Col)
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Find(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

// FuzzFind: every match is where it says, parses to what it holds, has a
// name of alias characters and a non-empty path, and re-finding its own
// text finds exactly it.
func FuzzFind(f *testing.F) {
	for _, s := range []string{"See @ctx/api/errors.md.", "[x](ctx://packages/a/b%20c.md#h)", "a@ctx/x/y", "@ctx/@ctx/a/b", "ctx://packages/%/x", "\x00@ctx/a/\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		for _, m := range Find(line) {
			if m.Col < 1 || !strings.HasPrefix(line[m.Col-1:], m.Text) {
				t.Fatalf("Find(%q): %q not at column %d", line, m.Text, m.Col)
			}
			r, err := Parse(m.Text)
			if err != nil || r != m.Ref {
				t.Fatalf("Find(%q): %q parses to %+v, %v; match holds %+v", line, m.Text, r, err, m.Ref)
			}
			if m.Name == "" || m.Path == "" {
				t.Fatalf("Find(%q): empty name or path in %+v", line, m)
			}
			again := Find(m.Text)
			if len(again) != 1 || again[0].Ref != m.Ref {
				t.Fatalf("Find(%q) = %+v, want just %+v", m.Text, again, m.Ref)
			}
		}
	})
}

// FuzzParse: a reference that parses prints (String) to one that parses
// back to it.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"@ctx/api/errors.md", "ctx://packages/a%2Fb/c%20d.md?q#f", "@ctx//", "ctx://packages/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		if err != nil {
			return
		}
		if r.Name == "" || r.Path == "" {
			t.Fatalf("Parse(%q) = %+v: empty name or path", s, r)
		}
		if r.Form == FormAt && (strings.Contains(r.Name, "/") || strings.ContainsAny(r.Path, "#")) {
			t.Fatalf("Parse(%q) = %+v", s, r)
		}
		if r.Form == FormURI {
			back, err := Parse(r.String())
			if err != nil || back != r {
				t.Fatalf("Parse(%q) = %+v; its String %q parses to %+v, %v", s, r, r.String(), back, err)
			}
		}
	})
}

// An offered context that cannot be read is Missing, with why (audit17
// finding 16), not Installable.
func TestClassifyUnreadableOffered(t *testing.T) {
	t.Parallel()
	refs := []Found{{Match: Match{Ref: Ref{Name: "gone", Path: "x.md"}}}, {Match: Match{Ref: Ref{Name: "ok", Path: "y.md"}}}}
	pk := Packages{Offered: map[string]string{"gone": "gone", "ok": "ok"}, Unreadable: map[string]string{"gone": "repository not found"}}
	res := Classify(refs, pk)
	if res[0].Class != Missing || !strings.Contains(res[0].Reason, "repository not found") || res[1].Class != Installable {
		t.Errorf("got %+v", res)
	}
}
