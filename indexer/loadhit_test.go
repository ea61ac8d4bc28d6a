package indexer

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestLoadHitAt: reading a chunk's stored fields at its internal number
// gives what the look-up by id gives, for every chunk of an index of
// several segments with deleted chunks in the first (the internal
// numbers span them); an id that is not the chunk's at that number is
// looked up by id.
func TestLoadHitAt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := setupCorpus(t)
	docs := map[string]string{}
	for i := range 12 {
		docs[fmt.Sprintf("extra/page%02d.md", i)] = fmt.Sprintf("# Page %d\n\n%s\n\n## More\n\nSecond section %d.\n", i, strings.Repeat("Some documentation text. ", 20), i)
	}
	writeFiles(t, dir, "ops", docs)
	if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	for i, page := range []string{"extra/page03.md", "extra/page05.md"} {
		writeFiles(t, dir, "ops", map[string]string{page: fmt.Sprintf("# Page\n\nThe wombat procedure %d drains the queue.\n", i)})
		if _, err := Sync(ctx, dir, testPackages(), Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := liveSegments(t, dir); n < 3 {
		t.Fatalf("%d segments; want 3", n)
	}
	_, open := heldSnapshot(t, dir)
	rdr := indexReader(t, open.idx)
	defer rdr.Close()
	all, err := rdr.DocIDReaderAll()
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	n, last := 0, uint64(0)
	for {
		id, err := all.Next()
		if err != nil {
			t.Fatal(err)
		}
		if id == nil {
			break
		}
		ext, err := rdr.ExternalID(id)
		if err != nil {
			t.Fatal(err)
		}
		want, wantBody, err := loadHit(rdr, ext)
		if err != nil {
			t.Fatal(err)
		}
		got, body, err := loadHitAt(rdr, id, ext)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || !bytes.Equal(body, wantBody) || want.Path == "" || len(body) == 0 {
			t.Fatalf("chunk %d (%q): %+v %q; want %+v %q", id.Value(), ext, got, body, want, wantBody)
		}
		if got, body, err := loadHitAt(rdr, id, ext+"x"); err != nil || got.Path != "" || body != nil {
			t.Errorf("chunk %d under another id: %+v %q %v; want nothing (no such chunk)", id.Value(), got, body, err)
		}
		n, last = n+1, id.Value()
	}
	if uint64(n) > last {
		t.Fatalf("%d chunks numbered up to %d: no deleted chunk before the last segment", n, last)
	}
}
