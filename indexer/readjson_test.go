package indexer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestReadJSONAsEncodingJSON: the index's own files, decoded by readJSON
// through jsonfile.Unmarshal (start22), give what encoding/json gives, and
// a broken one the same message as before: encoding/json's, with the file
// and what to do.
func TestReadJSONAsEncodingJSON(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, data string
		v          func() any
	}{
		{"meta.json", `{"schema":29,"generation":4,"bleve":"bleve-1","builtAt":"2026-11-28T15:39:47.64647016Z","chunks":12,"tokens":901,"headTokens":77,"dirty":true}`, func() any { return new(meta) }},
		{"catalog.json", `{"schema":29,"packages":[{"Alias":"k8s","Kind":"git","Source":"file:///tmp/r","Rev":"3088","Fetched":"0001-01-01T00:00:00Z","Dir":"/p/.context/packages/k8s","MaxFiles":0}],"bleve":"bleve-1","parts":{"k8s":{"file":"k8s.json","stamp":"x1"}}}`, func() any { return new(catalog) }},
		{"inlinks.json", `{"graph":"g1","docs":{"a":{"x.md":3,"y.md":1}},"hubs":{"a":["x.md"]}}`, func() any { return new(inLinksData) }},
		{"meta.own.json", `{"meta":{"size":163,"mtime":1795890267134029465,"ctime":1795890267138029465,"ino":11903458},"gitIndex":{"size":0,"mtime":0}}`, func() any { return new(ownRecord) }},
		{"broken.json", `{"schema":29,"bleve":`, func() any { return new(meta) }},
		{"wrongtype.json", `{"schema":"29"}`, func() any { return new(meta) }},
		{"garbage.json", "\x00\x01 not json", func() any { return new(catalog) }},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		got, want := c.v(), c.v()
		err := readJSON(p, got)
		werr := json.Unmarshal([]byte(c.data), want)
		switch {
		case werr == nil && err != nil:
			t.Errorf("%s: readJSON: %v; encoding/json decodes it", c.name, err)
		case werr != nil && err == nil:
			t.Errorf("%s: readJSON decoded what encoding/json refuses (%v)", c.name, werr)
		case werr != nil:
			if wmsg := p + ": " + werr.Error() + " (run `ctx index --rebuild` to recreate it)"; err.Error() != wmsg {
				t.Errorf("%s: error\n%s\nwant\n%s", c.name, err, wmsg)
			}
		case !reflect.DeepEqual(got, want):
			t.Errorf("%s: decoded %+v, encoding/json %+v", c.name, got, want)
		}
	}
	if err := readJSON(filepath.Join(dir, "none.json"), new(meta)); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestReadJSONAllocations: the link priors of 300 documents
// (index/inlinks.json, read by every search process) are decoded by
// segmentio's decoder through jsonfile.Unmarshal (start22): encoding/json
// made one allocation per key and value of its maps and more, about
// twice as many as now.
func TestReadJSONAllocations(t *testing.T) {
	data := inLinksData{Graph: "g", Docs: map[string]map[string]int{}, Hubs: map[string][]string{}}
	for _, a := range []string{"alpha", "beta", "gamma"} {
		data.Docs[a] = map[string]int{}
		for i := range 100 {
			data.Docs[a][fmt.Sprintf("section-%d/page-%d.md", i%7, i)] = i % 13
		}
		data.Hubs[a] = []string{"section-0/page-0.md", "section-1/page-1.md"}
	}
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), inlinksFile)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var got inLinksData
	if err := readJSON(p, &got); err != nil || !reflect.DeepEqual(got, data) {
		t.Fatalf("readJSON: %v; decoded the same: %v", err, reflect.DeepEqual(got, data))
	}
	n := testing.AllocsPerRun(10, func() {
		var v inLinksData
		_ = readJSON(p, &v)
	})
	// 678 with encoding/json, 369 now (go1.26.8).
	if n > 520 {
		t.Errorf("readJSON of inlinks.json for 300 documents: %.0f allocations, want at most 520 (369 through jsonfile.Unmarshal, 678 through encoding/json)", n)
	}
}

// TestReadJSONOddFilesAsEncodingJSON: a damaged or planted index file
// (the index can be committed, so a teammate's commit can hold one)
// decodes through readJSON as encoding/json decodes it, for every type
// readJSON reads: unknown fields, duplicate keys (in structs and maps),
// nulls, numbers out of range or not whole, invalid UTF-8 and lone
// surrogates, keys matching a field only by Unicode case folding, times
// and deep nesting on either side of jsonfile's depth limit (rv-start22).
func TestReadJSONOddFilesAsEncodingJSON(t *testing.T) {
	types := []func() any{
		func() any { return new(meta) }, func() any { return new(catalog) }, func() any { return new(inLinksData) },
		func() any { return new(ownRecord) }, func() any { return new(tokensState) },
	}
	cases := []string{
		`{"schema":29,"zzz":{"a":[1]}}`, `{"schema":1,"schema":2}`, `{"docs":{"a":{"x":1},"a":{"y":2}}}`,
		`{"docs":{"a":{"x":1}},"docs":{"b":{"y":2}}}`, `{"hubs":{"a":["x","y"]},"hubs":{"a":["z"]}}`,
		`{"parts":{"k":{"file":"a"}},"parts":{"k":{"stamp":"s"}}}`, `{"packages":[{"Alias":"a"}],"packages":[{"Kind":"b"}]}`,
		`{"meta":{"size":1},"meta":{"mtime":2}}`, `{"counts":{"a":1},"counts":{"b":2}}`,
		`{"docs":null}`, `{"docs":{"a":null}}`, `{"builtAt":null}`, `{"schema":null}`, `{"packages":[null]}`,
		// Not here: {"hubs":{"a":null}}, an empty slice where encoding/json
		// leaves nil (segmentio); inLinksLocked only ranges over it.
		`{"parts":{"k":null}}`, `{"meta":null}`, `null`, `{"docs":{"a":{"x":null}}}`,
		`{"schema":1e2}`, `{"schema":1.0}`, `{"schema":-0}`, `{"schema":9223372036854775808}`,
		`{"generation":-9223372036854775809}`, `{"meta":{"ino":-1}}`, `{"meta":{"ino":18446744073709551616}}`,
		`{"docs":{"a":{"x":1.5}}}`, `{"docs":{"a":{"x":1e400}}}`, `{"schema":"29"}`, `{"dirty":"true"}`, `{"docs":[]}`, `[]`,
		"{\"docs\":{\"\xff\":{\"\xfe\":1}}}", "{\"bleve\":\"\xff\"}", "{\"graph\":\"a\xc0\xafb\"}",
		`{"docs":{"\ud800":{"\udc00x":1}}}`, `{"bleve":"\ud83d\ude00\ud83d"}`, `{"bleve":"a\u0000b"}`,
		`{"SCHEMA":29}`, "{\"\u017fchema\":29}", "{\"packages\":[{\"\u212aind\":\"k\",\"alias\":\"a\"}]}",
		`{"builtAt":"2026-11-28T15:39:47+25:00"}`, `{"builtAt":"bad"}`, `{"builtAt":5}`, `{"Files":{"a":[]}}`, `{"keepRaw":true}`,
		`{"schema":29}` + "\x00", `{"schema":29} {}`,
		`{"docs":` + strings.Repeat(`{"a":`, 63) + `1` + strings.Repeat(`}`, 63) + `}`,
		`{"zzz":` + strings.Repeat(`[`, 64) + strings.Repeat(`]`, 64) + `}`,
		`{"zzz":` + strings.Repeat(`[`, 10001) + strings.Repeat(`]`, 10001) + `}`,
	}
	p := filepath.Join(t.TempDir(), "f.json")
	for _, c := range cases {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, mk := range types {
			got, want := mk(), mk()
			err := readJSON(p, got)
			werr := json.Unmarshal([]byte(c), want)
			switch {
			case (err == nil) != (werr == nil):
				t.Errorf("%T %.80q: readJSON: %v; encoding/json: %v", got, c, err, werr)
			case werr != nil:
				if wmsg := p + ": " + werr.Error() + " (run `ctx index --rebuild` to recreate it)"; err.Error() != wmsg {
					t.Errorf("%T %.80q: error\n%s\nwant\n%s", got, c, err, wmsg)
				}
			case !reflect.DeepEqual(got, want):
				t.Errorf("%T %.80q: decoded %+v, encoding/json %+v", got, c, got, want)
			}
		}
	}
}
