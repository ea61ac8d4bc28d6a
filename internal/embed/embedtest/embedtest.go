// Package embedtest is a deterministic OpenAI-compatible embeddings
// server for tests, on 127.0.0.1: a text's vector counts the words of
// each concept of a small table (Concepts), so texts that share no word
// but a concept are near, and the test knows why.
package embedtest

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"unicode"
)

// Concepts maps a word to its concept: one dimension each, in order.
var Concepts = map[string]int{
	// 0: repeating on a schedule
	"recurring": 0, "crontab": 0, "cron": 0, "periodic": 0, "periodically": 0, "schedule": 0, "scheduled": 0, "every": 0,
	// 1: text patterns
	"regex": 1, "regular": 1, "expression": 1, "expressions": 1, "pattern": 1, "patterns": 1,
	// 2: pictures made smaller
	"shrink": 2, "photo": 2, "photos": 2, "resize": 2, "image": 2, "images": 2, "thumbnail": 2, "picture": 2,
	// 3: fruit
	"apple": 3, "banana": 3, "fruit": 3, "orchard": 3,
}

// Dims is the vectors' dimension: one per concept and one for the rest.
const Dims = 5

// Vector is the stub's vector of text, normalised.
func Vector(text string) []float64 {
	v := make([]float64, Dims)
	v[Dims-1] = 0.05 // every text a little alike, never a zero vector
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if c, ok := Concepts[w]; ok {
			v[c]++
		}
	}
	var n float64
	for _, x := range v {
		n += x * x
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] /= n
	}
	return v
}

// Server is a running stub. Its fields may be changed between requests
// under Lock.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	requests int
	texts    int
	seen     []string
	// Status, when not 0 or 200, is the answer to every request.
	Status int
	// Dims, when not 0, makes every vector this long (padded with zeros).
	Dims int
}

// Start starts a stub on 127.0.0.1; the test's Cleanup stops it.
func Start(t interface{ Cleanup(func()) }) *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// URL is the base URL to configure (…/v1).
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Counts returns the requests and the texts embedded so far.
func (s *Server) Counts() (requests, texts int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.texts
}

// Texts returns every text embedded so far, in order of arrival.
func (s *Server) Texts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// Set changes the answers: status (0 = answer normally) and dims (0 = Dims).
func (s *Server) Set(status, dims int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Status, s.Dims = status, dims
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests++
	s.texts += len(req.Input)
	s.seen = append(s.seen, req.Input...)
	status, dims := s.Status, s.Dims
	s.mu.Unlock()
	if status != 0 && status != http.StatusOK {
		http.Error(w, "stub failure", status)
		return
	}
	type item struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	}
	out := struct {
		Data  []item `json:"data"`
		Model string `json:"model"`
	}{Model: req.Model}
	for i, t := range req.Input {
		v := Vector(t)
		if dims > 0 {
			v = append(v, make([]float64, max(0, dims-len(v)))...)[:dims]
		}
		out.Data = append(out.Data, item{Index: i, Embedding: v})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}
