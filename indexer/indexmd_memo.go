package indexer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"path/filepath"

	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/tokens"
)

// tokensFile, in the index directory, keeps the token counts of the INDEX.md
// sections of the last render (costMemo), so that rendering INDEX.md again
// (a title changed, a package added, another budget) counts only the
// sections whose text changed: counting every section at every level with
// o200k was most of a render (1.2 s of 1.4 s at 10×).
const tokensFile = "indexmd-tokens.json"

// costMemo maps the hash of a section's text at one detail level (its
// header and entry lines) to its cost as pkgSection.costOf computes it from
// that text alone: a count is never stale, only unused. A nil *costMemo
// remembers nothing.
type costMemo struct {
	old  map[string]int // read from tokensFile
	used map[string]int // looked up or counted by this render
	// oldPieces are the o200k pieces' counts read from tokensFile, which
	// seed the render's tokens.Counter: a changed section made of words
	// counted before is counted without loading the codec (a third of an
	// update's CPU); pieces are the counter's after the render.
	oldPieces, pieces map[string]int
}

// tokensState is tokensFile's content.
type tokensState struct {
	Schema int            `json:"schema"`
	Counts map[string]int `json:"counts"`
	Pieces map[string]int `json:"pieces,omitempty"` // tokens.Counter.Pieces
}

// readCostMemo reads tokensFile in indexDir; a missing, unreadable or
// other-schema file gives an empty memo.
func readCostMemo(indexDir string) *costMemo {
	var st tokensState
	if err := readJSON(filepath.Join(indexDir, tokensFile), &st); err != nil || st.Schema != schemaVersion {
		st.Counts, st.Pieces = nil, nil
	}
	return &costMemo{old: st.Counts, used: map[string]int{}, oldPieces: st.Pieces}
}

// write replaces tokensFile with the counts this render used, when they
// are not what was read. It is a cache: a failure to write it is not an
// error of the render (the next render counts again), and it is written
// with no fsync (readCostMemo takes a file that does not decode as none).
func (m *costMemo) write(d confine.Dir, indexDir string) {
	if !maps.Equal(m.old, m.used) || !maps.Equal(m.oldPieces, m.pieces) {
		b, err := json.Marshal(tokensState{Schema: schemaVersion, Counts: m.used, Pieces: m.pieces})
		if err == nil {
			_ = d.WriteCacheAtomic(filepath.Join(indexDir, tokensFile), append(b, '\n'), 0o644)
		}
	}
}

// seed gives tc the pieces' counts read from tokensFile.
func (m *costMemo) seed(tc *tokens.Counter) {
	if m != nil {
		tc.Seed(m.oldPieces)
	}
}

// keepPieces records tc's pieces after the render, for the next one.
func (m *costMemo) keepPieces(tc *tokens.Counter) {
	if m != nil {
		m.pieces = tc.Pieces()
	}
}

func (m *costMemo) key(header string, lines []string) string {
	if m == nil {
		return ""
	}
	h := sha256.New()
	h.Write([]byte(header))
	for _, l := range lines {
		h.Write([]byte{0})
		h.Write([]byte(l))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func (m *costMemo) get(key string) (int, bool) {
	if m == nil {
		return 0, false
	}
	n, ok := m.old[key]
	if !ok {
		n, ok = m.used[key]
	}
	if ok {
		m.used[key] = n
	}
	return n, ok
}

func (m *costMemo) put(key string, n int) {
	if m != nil {
		m.used[key] = n
	}
}
