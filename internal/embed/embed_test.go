package embed

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/embed/embedtest"
)

func TestCheckURL(t *testing.T) {
	ok := []string{"https://api.openai.com/v1", "http://localhost:11434/v1", "http://127.0.0.1:8080", "http://[::1]:1234/v1", "https://10.0.0.5/v1"}
	for _, u := range ok {
		if err := CheckURL(u); err != nil {
			t.Errorf("CheckURL(%q) = %v, want ok", u, err)
		}
	}
	bad := map[string]string{
		"http://example.com/v1":       "only to this machine",
		"http://10.0.0.5:11434/v1":    "only to this machine",
		"ftp://localhost/v1":          "not an http(s) URL",
		"localhost:11434":             "not an http(s) URL",
		"https://u:secret@host/v1":    "credentials in the URL",
		"https://host/v1?key=1":       "no query",
		"http://localhost.evil.com/v": "only to this machine",
	}
	for u, want := range bad {
		err := CheckURL(u)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckURL(%q) = %v, want %q", u, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("CheckURL(%q) shows the password: %v", u, err)
		}
	}
}

func TestEmbedBatches(t *testing.T) {
	s := embedtest.Start(t)
	c, err := New(Config{URL: s.BaseURL(), Model: "stub"}, Options{Batch: 2, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	texts := []string{"crontab", "regex", "resize image", "apple", "nothing"}
	var done atomic.Int64
	vecs, err := c.Embed(context.Background(), texts, func(n int) { done.Add(int64(n)) })
	if err != nil {
		t.Fatal(err)
	}
	if req, n := s.Counts(); req != 3 || n != 5 {
		t.Errorf("requests, texts = %d, %d; want 3, 5", req, n)
	}
	if done.Load() != 5 || len(vecs) != 5 || c.Dims() != embedtest.Dims {
		t.Fatalf("done %d, %d vectors, dims %d", done.Load(), len(vecs), c.Dims())
	}
	for i, text := range texts {
		want := embedtest.Vector(text)
		for j := range want {
			if float32(want[j]) != vecs[i][j] {
				t.Fatalf("vector of %q = %v, want %v (out of order?)", text, vecs[i], want)
			}
		}
	}
}

// serve answers each request with the next of answers (status, Retry-After, body).
type reply struct {
	status int
	after  string
	body   string
}

func stub(t *testing.T, replies ...reply) (*httptest.Server, *atomic.Int64, *atomic.Value) {
	var n atomic.Int64
	var auth atomic.Value
	auth.Store("")
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		i := int(n.Add(1)) - 1
		rp := replies[min(i, len(replies)-1)]
		if rp.after != "" {
			w.Header().Set("Retry-After", rp.after)
		}
		w.WriteHeader(rp.status)
		fmt.Fprint(w, rp.body)
	}))
	t.Cleanup(s.Close)
	return s, &n, &auth
}

const one = `{"data":[{"index":0,"embedding":[0.5,-0.25,1]}]}`

func TestEmbedRetries(t *testing.T) {
	s, n, _ := stub(t, reply{429, "0", "slow down"}, reply{503, "", ""}, reply{200, "", one})
	c, _ := New(Config{URL: s.URL, Model: "m"}, Options{Backoff: time.Millisecond})
	vecs, err := c.Embed(context.Background(), []string{"a"}, nil)
	if err != nil || len(vecs) != 1 || vecs[0][1] != -0.25 {
		t.Fatalf("Embed = %v, %v", vecs, err)
	}
	if n.Load() != 3 {
		t.Errorf("%d requests, want 3", n.Load())
	}
	// Attempts bound the retries.
	s2, n2, _ := stub(t, reply{500, "", ""})
	c2, _ := New(Config{URL: s2.URL, Model: "m"}, Options{Backoff: time.Millisecond, Attempts: 2})
	if _, err := c2.Embed(context.Background(), []string{"a"}, nil); err == nil || !strings.Contains(err.Error(), "HTTP 500") {
		t.Fatalf("err = %v, want HTTP 500", err)
	}
	if n2.Load() != 2 {
		t.Errorf("%d requests, want 2", n2.Load())
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for h, want := range map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		"junk":                          0,
		"Thu, 01 Jan 2026 00:00:07 GMT": 7 * time.Second,
	} {
		if got := retryAfter(h, now); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestEmbedValidates(t *testing.T) {
	cases := map[string]string{
		`{"data":[]}`:                                "0 vectors for 1 texts",
		`{"data":[{"index":3,"embedding":[1]}]}`:     "out of range",
		`{"data":[{"index":0,"embedding":[]}]}`:      "has 0 numbers",
		`{"data":[{"index":0,"embedding":[1e999]}]}`: "not a finite number",
		`{"data":[{"index":0,"embedding":["x"]}]}`:   "not a finite number",
		`<html>`: "not an embeddings answer",
	}
	for body, want := range cases {
		s, _, _ := stub(t, reply{200, "", body})
		c, _ := New(Config{URL: s.URL, Model: "m"}, Options{})
		_, err := c.Embed(context.Background(), []string{"a"}, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("answer %s: err = %v, want %q", body, err, want)
		}
	}
	// A dimension that changes mid-way is refused.
	s, _, _ := stub(t, reply{200, "", one}, reply{200, "", `{"data":[{"index":0,"embedding":[1,2]}]}`})
	c, _ := New(Config{URL: s.URL, Model: "m"}, Options{})
	if _, err := c.Embed(context.Background(), []string{"a"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Embed(context.Background(), []string{"a"}, nil); err == nil || !strings.Contains(err.Error(), "did the model change") {
		t.Fatalf("err = %v", err)
	}
}

func TestEmbedKeyNeverShown(t *testing.T) {
	s, _, auth := stub(t, reply{401, "", "bad key sk-secret"})
	c, _ := New(Config{URL: s.URL, Model: "m", Key: "sk-secret"}, Options{})
	_, err := c.Embed(context.Background(), []string{"a"}, nil)
	if err == nil || !strings.Contains(err.Error(), "CTX_EMBEDDINGS_KEY") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("the error shows the key: %v", err)
	}
	if auth.Load() != "Bearer sk-secret" {
		t.Errorf("Authorization = %q", auth.Load())
	}
}

func TestEmbedStoppedAndStalled(t *testing.T) {
	s := embedtest.Start(t)
	url := s.BaseURL()
	s.Close()
	c, _ := New(Config{URL: url, Model: "m"}, Options{Attempts: 1})
	if _, err := c.Embed(context.Background(), []string{"a"}, nil); err == nil || !strings.Contains(err.Error(), "cannot reach it") {
		t.Fatalf("err = %v", err)
	}
	// A server that never answers is given up after Idle.
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer hang.Close()
	defer close(release)
	c2, _ := New(Config{URL: hang.URL, Model: "m"}, Options{Attempts: 1, Idle: 50 * time.Millisecond})
	if _, err := c2.Embed(context.Background(), []string{"a"}, nil); err == nil || !strings.Contains(err.Error(), "no answer within") {
		t.Fatalf("err = %v", err)
	}
}

func TestCut(t *testing.T) {
	if got := cut("héllo", 2); got != "h" {
		t.Errorf("cut = %q", got)
	}
	if got := cut("abc", 5); got != "abc" {
		t.Errorf("cut = %q", got)
	}
}
