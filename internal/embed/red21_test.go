package embed

import (
	"bytes"
	"context"
	"fmt"
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
	if err == nil || !strings.Contains(err.Error(), "more than 1 vector of 1 to 16384 numbers") {
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
	if err == nil || !strings.Contains(err.Error(), "more than 1 vector of 1 to 16384 numbers") {
		t.Fatalf("err = %v, want the entries' count refused", err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	if limit := uint64(4 * len(answer)); alloc > limit {
		t.Errorf("a %d-byte answer allocated %d MB (want at most %d MB)", len(answer), alloc>>20, limit>>20)
	}
}

// The bound before decoding refuses no real answer: n vectors of
// MaxDims numbers each, with the members OpenAI's answer has.
func TestDecodeAtTheBound(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"object":"list","data":[`)
	for i := range 2 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"object":"embedding","index":%d,"embedding":[0.5%s]}`, i, strings.Repeat(",-0.25", MaxDims-1))
	}
	b.WriteString(`],"model":"text-embedding-3-large","usage":{"prompt_tokens":8,"total_tokens":8}}`)
	c := &Client{}
	got, err := c.decode([]byte(b.String()), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[1]) != MaxDims || got[1][1] != -0.25 {
		t.Fatalf("decoded %d vectors", len(got))
	}
}
