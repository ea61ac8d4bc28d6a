package embed

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/testtmp"
)

// embedAllocs serves answer to one text's request and returns the bytes
// allocated meanwhile and the error (runtime.MemStats' TotalAlloc: a
// count, so the same on a loaded machine).
func embedAllocs(t *testing.T, answer []byte) (uint64, error) {
	t.Helper()
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
	return after.TotalAlloc - before.TotalAlloc, err
}

// red21 finding 2: an answer within MaxAnswer was decoded whole before
// its lists' lengths were checked: every number became a json.RawMessage
// (a 24-byte header and its own allocation), so one vector of 8M zeros
// (16 MiB) cost 1,244 MB, and 4M empty entries for one text (12 MiB)
// 812 MB. The bytes allocated must stay within 4 times the answer (8
// under the race detector, whose runtime doubles what the decode
// allocates: 69 MB for the 16 MiB vector, flake21; the old code's 75
// times still fails).
func TestHugeAnswersBoundedMemory(t *testing.T) {
	factor := uint64(4)
	if testtmp.Race {
		factor = 8
	}
	for name, answer := range map[string]string{
		"one long vector": `{"data":[{"index":0,"embedding":[0` + strings.Repeat(",0", 8<<20) + `]}]}`,
		"many entries":    `{"data":[{}` + strings.Repeat(",{}", 4<<20) + `]}`,
	} {
		alloc, err := embedAllocs(t, []byte(answer))
		if err == nil || !strings.Contains(err.Error(), "more than 1 vector of 1 to 16384 numbers") {
			t.Errorf("%s: err = %v, want the answer refused", name, err)
		}
		t.Logf("%s: a %d-byte answer: %.1f MB allocated", name, len(answer), float64(alloc)/(1<<20))
		if limit := factor * uint64(len(answer)); alloc > limit {
			t.Errorf("%s: a %d-byte answer allocated %d MB (want at most %d MB)", name, len(answer), alloc>>20, limit>>20)
		}
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
