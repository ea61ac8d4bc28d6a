package mcpserver

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Paging (issue 14). A listing of the server's (list_contexts, list_tags,
// get_outline, ctx://manifest, resources/list) is sorted by a key that is
// unique per item, and a page ends where the answer's token budget or its
// limit does. Its nextCursor is opaque to the client: the base64url JSON of
// the key of the page's last item and a hash of the listing's arguments.
// The next page is the items after that key (keyset paging): an item added
// or removed meanwhile (the index is live) never makes a page repeat or
// skip another item, and every item present from the first page to the
// last is listed exactly once.

// cursor is what a nextCursor holds.
type cursor struct {
	Listing string `json:"l"` // listingKey of the arguments it continues
	After   string `json:"a"` // the key of the last item given
}

// listingKey identifies a listing by its name and the arguments that choose
// its items (not those that size its pages: limit, maxTokens), so that a
// cursor is not used for another listing.
func listingKey(name string, args ...string) string {
	h := sha256.New()
	h.Write([]byte(name))
	for _, a := range args {
		h.Write([]byte{0})
		h.Write([]byte(a))
	}
	return hex.EncodeToString(h.Sum(nil)[:6])
}

// encodeCursor is the nextCursor that continues listing after key.
func encodeCursor(listing, after string) string {
	b, _ := json.Marshal(cursor{Listing: listing, After: after})
	return base64.RawURLEncoding.EncodeToString(b)
}

// maxCursorBytes bounds a cursor a client sends (a key is a path at most).
const maxCursorBytes = 16 << 10

// decodeCursor returns the key a page starts after and true, or "" and
// false for no cursor (the first page). A cursor that is malformed, or
// that another listing (other arguments) gave, is an error that says to
// start again. It does not quote the cursor back: the client sent it, and a
// cursor is up to maxCursorBytes of base64 (agent21's leftover).
func decodeCursor(c, listing string) (string, bool, error) {
	if c == "" {
		return "", false, nil
	}
	bad := func(why string) error {
		return fmt.Errorf("the cursor %s: pass the nextCursor of the previous page with the same arguments, or call again without cursor to start over", why)
	}
	if len(c) > maxCursorBytes {
		return "", false, bad("is too long")
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", false, bad("is not one this server gave")
	}
	var cur cursor
	if err := json.Unmarshal(b, &cur); err != nil || cur.Listing == "" {
		return "", false, bad("is not one this server gave")
	}
	if cur.Listing != listing {
		return "", false, bad("belongs to another listing (other arguments)")
	}
	return cur.After, true, nil
}

// after returns the items of sorted (by key, in order cmp) whose key comes
// after the cursor's: all of them on the first page.
func after[T any](sorted []T, key func(T) string, cmp func(a, b string) int, from string, started bool) []T {
	if !started {
		return sorted
	}
	for i, x := range sorted {
		if cmp(key(x), from) > 0 {
			return sorted[i:]
		}
	}
	return nil
}

// pathOrder orders slash paths folder by folder ("a/b" before "a-b",
// since "a" < "a-b"), so that a folder's documents and sub-folders follow
// it together. Served paths hold no NUL, so comparing with "/" as NUL is
// comparing their elements in turn.
func pathOrder(a, b string) int {
	return strings.Compare(strings.ReplaceAll(a, "/", "\x00"), strings.ReplaceAll(b, "/", "\x00"))
}

// errTooSmall is the error for a budget that holds no item at all: need is
// the o200k tokens of the smallest answer that holds one, which may use
// headroomPercent of maxTokens (tokenBudget), so the maxTokens it names is
// enough for that answer. It is given a token more than need: an answer
// whose note names its budget (search's) may take one for the digits of a
// larger maxTokens (o200k makes a token of up to 3 digits).
func errTooSmall(maxTokens, need int) error {
	if maxTokens == 0 {
		maxTokens = DefaultMaxTokens
	}
	return fmt.Errorf("maxTokens %d is too small for one item of this listing: an answer with one is about %d tokens, and an answer may use %d%% of maxTokens: give maxTokens %d or more (at most %d)",
		maxTokens, need, headroomPercent, min((need+1)*100/headroomPercent+1, MaxMaxTokens), MaxMaxTokens)
}

// fitPage returns how many of n items (at most limit) the page can hold
// within budget o200k tokens: build(k) is the answer holding the first k
// (the result and its structured value, as answerTokens counts them), and
// cost(i) the tokens item i adds to it, about (its JSON and its text line).
// The estimate is checked on the built answer, and the page shrunk until
// it fits. A page that cannot hold one item, while there are some, is an
// error that names the maxTokens needed (errTooSmall).
func (s *Server) fitPage(budget, maxTokens, n, limit int, cost func(i int) int, build func(k int) (*mcp.CallToolResult, any)) (int, error) {
	res, out := build(0)
	used := s.answerTokens(res, out)
	// tooSmall names the answer with one item, counted whole (with none
	// when there is none to give): what the advised maxTokens must hold.
	tooSmall := func() error {
		if n == 0 || limit <= 0 {
			return errTooSmall(maxTokens, used)
		}
		return errTooSmall(maxTokens, s.answerTokens(build(1)))
	}
	if used > budget {
		return 0, tooSmall()
	}
	k := 0
	for k < n && k < limit {
		c := cost(k)
		if used+c > budget {
			break
		}
		used += c
		k++
	}
	if k == 0 && n > 0 && limit > 0 {
		k = 1 // the estimate is over the whole by a token or so: count one whole
	}
	for k > 0 {
		res, out = build(k)
		got := s.answerTokens(res, out)
		if got <= budget {
			break
		}
		// The estimate was short (tokens merge differently in the whole):
		// take off about the excess, at least one item.
		k = min(k-1, k*budget/got)
	}
	if k == 0 && n > 0 && limit > 0 {
		return 0, tooSmall()
	}
	return k, nil
}

// rowTokens is the tokens one listed item adds to an answer: its JSON in
// the structured value (and a comma).
func (s *Server) rowTokens(item any) int {
	b, err := marshalJSON(item)
	if err != nil {
		return 0
	}
	return s.countTokens(string(b)) + 1
}

// errLimit refuses a negative limit.
var errLimit = errors.New("limit must be 0 (as many as fit maxTokens) or more")

// pageCounts are a listing page's listed and remaining counts: k items of
// the n left from its start, of total in all. A page that holds them all
// says neither (the audit of round 21: "total":4,"listed":4,"remaining":0
// on every small answer was three fields of noise); total says how many.
func pageCounts(k, n, total int) (listed, remaining int) {
	if k == total && n == total {
		return 0, 0
	}
	return k, n - k
}
