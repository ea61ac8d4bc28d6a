package embed

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

// red21 finding: an answer within MaxAnswer that holds one vector of
// millions of numbers is decoded whole before its length is checked:
// every number became a json.RawMessage (a 24-byte header and its own
// allocation), so a 16 MiB answer cost hundreds of MB. The bound on
// dimensions must hold while decoding: the bytes allocated stay within a
// small multiple of the answer.
func TestHugeVectorBoundedMemory(t *testing.T) {
	var body bytes.Buffer
	body.WriteString(`{"data":[{"index":0,"embedding":[0`)
	body.WriteString(strings.Repeat(",0", 8<<20)) // 8M numbers, 16 MiB
	body.WriteString(`]}]}`)
	answer := body.Bytes()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	defer srv.Close()
	c, err := New(Config{URL: srv.URL + "/v1", Model: "m"}, Options{Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = c.Embed(context.Background(), []string{"x"}, nil)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "numbers (1 to") {
		t.Fatalf("err = %v, want the vector's size refused", err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	if limit := uint64(4 * len(answer)); alloc > limit {
		t.Errorf("a %d-byte answer allocated %d MB (want at most %d MB)", len(answer), alloc>>20, limit>>20)
	}
}

// red21 finding (the same, in width): an answer of millions of empty
// entries ({},{},…) for a batch of one text was decoded whole before
// their count was checked.
func TestManyEntriesBoundedMemory(t *testing.T) {
	var body bytes.Buffer
	body.WriteString(`{"data":[{}`)
	body.WriteString(strings.Repeat(",{}", 4<<20)) // 4M entries, 12 MiB
	body.WriteString(`]}`)
	answer := body.Bytes()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	defer srv.Close()
	c, err := New(Config{URL: srv.URL + "/v1", Model: "m"}, Options{Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = c.Embed(context.Background(), []string{"x"}, nil)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "for 1 texts") {
		t.Fatalf("err = %v, want the entries' count refused", err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	if limit := uint64(4 * len(answer)); alloc > limit {
		t.Errorf("a %d-byte answer allocated %d MB (want at most %d MB)", len(answer), alloc>>20, limit>>20)
	}
}
