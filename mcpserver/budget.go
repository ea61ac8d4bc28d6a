package mcpserver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/suggest"
	"github.com/ctx-dev/ctx/internal/tokens"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Answer budgets (issue 14). An answer's size is what a client shows the
// model, counted once (issue 26): a tool with structured output sends its
// JSON as structuredContent and as its only text (Claude Code, Codex and
// OpenCode show the structuredContent JSON and drop the text; other
// clients show the text), so that JSON is what is counted; a tool without
// one sends text contents, resource links and numbers in _meta, and the
// texts and links are counted. _meta is not (round 21): no client shows it
// to the model, and counting it left that much less room for the
// documents. Claude Code warns past 10,000 tokens and fails past
// 25,000. Sizes are counted with o200k, leaving 20% headroom for other
// tokenizers: an answer asked to stay within N tokens uses at most N*4/5
// o200k tokens.
const (
	// DefaultMaxTokens is an answer's budget when a call names none.
	DefaultMaxTokens = 10_000
	// MaxMaxTokens is the largest maxTokens a call may ask for.
	MaxMaxTokens = 20_000
	// headroomPercent of a budget is what o200k counting may use.
	headroomPercent = 80
)

// tokenBudget is the number of o200k tokens an answer may use when the
// call asked for maxTokens (0: DefaultMaxTokens). A negative maxTokens or
// one over MaxMaxTokens is an error that says the range.
func tokenBudget(maxTokens int) (int, error) {
	switch {
	case maxTokens == 0:
		maxTokens = DefaultMaxTokens
	case maxTokens < 0 || maxTokens > MaxMaxTokens:
		return 0, fmt.Errorf("maxTokens %d is out of range: give 1 to %d (default %d)", maxTokens, MaxMaxTokens, DefaultMaxTokens)
	}
	return maxTokens * headroomPercent / 100, nil
}

// marshalJSON is encoding/json without HTML escaping: text keeps <, > and &
// as they are (json.Marshal writes \u003c, which a client shows as is when
// the JSON is text content).
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// answerTokens counts, in o200k tokens, what a client shows of res: the
// JSON of structured (the value the handler returns as its output, which
// addTool sends as structuredContent and as the only text; nil when the
// answer has none) once, or else res's text contents and resource links.
// Its _meta is for programs and not counted.
func (s *Server) answerTokens(res *mcp.CallToolResult, structured any) int {
	n := 0
	for _, part := range answerParts(res, structured) {
		n += s.countTokens(part)
	}
	return n
}

// answerParts are the texts answerTokens counts.
func answerParts(res *mcp.CallToolResult, structured any) []string {
	var parts []string
	if structured != nil {
		if b, err := marshalJSON(structured); err == nil {
			parts = append(parts, string(b))
		}
	}
	if res != nil {
		for _, c := range res.Content {
			switch c := c.(type) {
			case *mcp.TextContent:
				if structured == nil {
					parts = append(parts, c.Text)
				} // else it is the structured JSON, counted above
			case *mcp.ResourceLink:
				if b, err := marshalJSON(c); err == nil {
					parts = append(parts, string(b))
				}
			}
		}
	}
	return parts
}

// fits reports whether res with structured is within budget o200k tokens
// (answerTokens), counting only when its bytes exceed the budget: a BPE
// token is at least one byte.
func (s *Server) fits(res *mcp.CallToolResult, structured any, budget int) bool {
	return s.partsFit(answerParts(res, structured), budget)
}

// partsFit is fits of an answer's parts (answerParts).
func (s *Server) partsFit(parts []string, budget int) bool {
	if partsBytes(parts) <= budget {
		return true
	}
	n := 0
	for _, p := range parts {
		if n += s.countTokens(p); n > budget {
			return false
		}
	}
	return true
}

func partsBytes(parts []string) int {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	return n
}

// countCache remembers the token counts of the last few large texts
// counted, so that an answer a tool measured to fit is not counted again
// by addTool's check (about 1 ms for a full answer, pieceCounter).
type countCache struct {
	mu   sync.Mutex
	next int
	ents [countCacheSize]struct {
		text string
		n    int
	}
}

const (
	countCacheSize = 8
	countCacheMin  = 1 << 10 // texts shorter than this are counted again
)

func (c *countCache) get(text string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.ents {
		if len(e.text) == len(text) && e.text == text {
			return e.n, true
		}
	}
	return 0, false
}

func (c *countCache) put(text string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ents[c.next].text, c.ents[c.next].n = text, n
	c.next = (c.next + 1) % countCacheSize
}

// budgeted is a tool input with a maxTokens parameter.
type budgeted interface{ maxTokens() int }

// jsonAnswer is the answer of a tool with structured output out: out's
// JSON (marshalJSON: no \u003c for <) as structuredContent and as the only
// text content, so that every client shows the model the same thing
// (issue 26). res may carry _meta; content it has is replaced.
func jsonAnswer(res *mcp.CallToolResult, out any) (*mcp.CallToolResult, error) {
	if res == nil {
		res = &mcp.CallToolResult{}
	}
	b, err := marshalJSON(out)
	if err != nil {
		return nil, err
	}
	res.StructuredContent = json.RawMessage(b)
	res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
	return res, nil
}

// bound is the range of a numeric input: at least min and, when max is
// not 0, at most max.
type bound struct{ min, max int }

// addTool registers a tool of s whose handler is h, with what every ctx
// tool shares:
//
//   - its input schema is inputSchema[In](bounds) unless t sets one, and
//     an optional argument sent as null is taken as absent (dropNulls);
//   - what a client shows the model (issue 26): a tool with structured
//     output (Out is not any) sends its output's JSON as structuredContent
//     and as its only text (jsonAnswer), so that a client showing either
//     shows all of the answer; its handler sets no content of its own (a
//     handler that does is a bug, refused). A tool without (Out is any)
//     sends no structuredContent: its text contents are the answer, and
//     its numbers for programs go in _meta. Tools have no output schema
//     (it would cost every model tokens on every turn for no model's gain)
//     unless t sets one;
//   - the first call starts loading the tokenizer in the background, so
//     that it loads while that call searches or reads;
//   - the answer, as a client shows it (answerTokens), must fit the call's
//     budget (tokenBudget of its maxTokens, when In has one): every tool
//     cuts its own answer to fit, so one that does not is refused with an
//     error that says so (and logged, since that is a bug), never sent;
//   - an error, returned or built as an error result, is cut to the
//     default budget (capError), since it may quote what was asked.
func addTool[In, Out any](s *Server, t *mcp.Tool, bounds map[string]bound, h mcp.ToolHandlerFor[In, Out]) {
	if s.bounds == nil {
		s.bounds = map[string]map[string]bound{}
	}
	s.bounds[t.Name] = bounds
	if t.InputSchema == nil {
		schema, err := inputSchema[In](bounds)
		if err != nil {
			panic(fmt.Errorf("mcpserver: tool %s: %w", t.Name, err))
		}
		t.InputSchema = schema
	}
	if s.optional == nil {
		s.optional = map[string]map[string]bool{}
	}
	s.optional[t.Name] = optionalProps(t.InputSchema)
	if s.args == nil {
		s.args = map[string][]string{}
	}
	if js, ok := t.InputSchema.(*jsonschema.Schema); ok && js != nil {
		s.args[t.Name] = js.PropertyOrder
		docs := map[string]string{}
		for name, p := range js.Properties {
			docs[name] = p.Description
		}
		if s.argDocs == nil {
			s.argDocs = map[string]map[string]string{}
		}
		s.argDocs[t.Name] = docs
	}
	structuredOut := reflect.TypeFor[Out]() != reflect.TypeFor[any]()
	mcp.AddTool(s.srv, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		s.warm.Do(func() {
			s.bg.Add(1)
			go func() {
				defer s.bg.Done()
				tokens.Codec()
			}()
		})
		max := 0
		b, hasMax := any(in).(budgeted)
		if hasMax {
			max = b.maxTokens()
		}
		budget, err := tokenBudget(max)
		if err != nil {
			return nil, nil, err
		}
		ctx, cancel := context.WithTimeoutCause(ctx, s.callBound(), errCallBound)
		defer cancel()
		waited := new(atomic.Bool) // the bound ended while the call waited on the index (spentOnIndex)
		ctx = context.WithValue(ctx, indexWaitKey{}, waited)
		res, out, err := h(ctx, req, in)
		if errors.Is(context.Cause(ctx), errCallBound) && (err != nil || res != nil && res.IsError) {
			if waited.Load() {
				return nil, nil, fmt.Errorf("%s: stopped after %s, the most one call may take: the index is being brought up to date (the packages changed; it goes on in the background): call again in a moment", t.Name, s.callBound())
			}
			return nil, nil, fmt.Errorf("%s: stopped after %s, the most one call may take: narrow the query (fewer words or qualifiers; a package, path or tag filter) or ask for less (a smaller limit)", t.Name, s.callBound())
		}
		if err != nil {
			return nil, nil, capError(err)
		}
		if res != nil && res.IsError {
			capErrorResult(res)
			return res, nil, nil
		}
		var structured any
		if structuredOut {
			if res != nil && len(res.Content) > 0 {
				s.log.Error("a tool with structured output set its own content", "tool", t.Name)
				return nil, nil, fmt.Errorf("%s: internal error: the answer has content besides its structured output; this is a bug in ctx, please report it", t.Name)
			}
			structured = out
			if res, err = jsonAnswer(res, structured); err != nil {
				return nil, nil, err
			}
		} else if res == nil {
			res = &mcp.CallToolResult{Content: []mcp.Content{}}
		}
		if !s.fits(res, structured, budget) {
			n := s.answerTokens(res, structured)
			s.log.Error("answer over its budget", "tool", t.Name, "tokens", n, "budget", budget)
			msg := fmt.Sprintf("%s: the answer is %d tokens, over its budget of %d (%d%% of %d, counted with o200k): ask for less (a smaller limit, a narrower query or filter)",
				t.Name, n, budget, headroomPercent, cmp.Or(max, DefaultMaxTokens))
			if hasMax {
				msg += fmt.Sprintf(" or give a larger maxTokens (up to %d)", MaxMaxTokens)
			}
			return nil, nil, errors.New(msg)
		}
		return res, nil, nil
	})
}

// DefaultCallTimeout is the most one tool call may take (unless
// Options.CallTimeout, ctx mcp --call-timeout, says otherwise, up to
// MaxCallTimeout): every call runs under a context that ends then,
// and a call that ends on it answers a tool error saying what to narrow.
// The bounds on inputs (query words, filters, limits) keep the known
// expensive calls far below it; this one stops what they miss. The
// handlers that search or read the index stop with the context (bleve's
// SearchInContext; indexFor checks it after waiting on a re-index, which
// goes on; the graph and catalog reads after it, Find, Neighbours and
// Tags, check it as they go; list_contexts' freshness walk runs under it).
const DefaultCallTimeout = 30 * time.Second

// MaxCallTimeout is the longest call bound a user may set: clients wait
// for a tool's answer a bounded time of their own (Codex's
// tool_timeout_sec, 60 s by default), and a call that outlives its
// client's wait holds the index's readers for nothing.
const MaxCallTimeout = 10 * time.Minute

// errCallBound is the cause of a call's context at its bound.
var errCallBound = errors.New("the tool call took too long")

// callBound is s's bound of one tool call.
func (s *Server) callBound() time.Duration { return cmp.Or(s.callTimeout, DefaultCallTimeout) }

// capError keeps a tool error within the default budget: errors are short
// (a value they quote is clipped, they name at most a few suggestions), and
// one that is not is cut at that many bytes (a BPE token is at least a
// byte). The call's own maxTokens does not shrink it: an error saying that
// maxTokens is too small, and what to give, must be read whole.
func capError(err error) error {
	if msg := err.Error(); len(msg) > errorBudget {
		return errors.New(clipText(msg, errorBudget))
	}
	return err
}

// errorBudget is capError's bound, in bytes and so in tokens.
var errorBudget = DefaultMaxTokens * headroomPercent / 100

// capErrorResult does what capError does for an error result a handler
// built: its texts, together, within errorBudget bytes; nothing else of it
// is sent.
func capErrorResult(res *mcp.CallToolResult) {
	left := errorBudget
	var kept []mcp.Content
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok && left > len("…") {
			t.Text = clipText(t.Text, left)
			left -= len(t.Text)
			kept = append(kept, t)
		}
	}
	res.Content, res.Meta, res.StructuredContent = kept, nil, nil
}

// inputSchema is the JSON schema of a tool's input In, as the SDK infers
// it (jsonschema.For: properties from the json names, descriptions from
// the jsonschema tags), with two changes: a list of strings is a plain
// "array" (For makes a slice ["null", "array"], which some clients, such
// as MCP Inspector 0.15, cannot send), and the numbers named in bounds get
// their minimum and maximum. A bound naming no integer property is an
// error.
func inputSchema[In any](bounds map[string]bound) (*jsonschema.Schema, error) {
	schema, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[[]string](): {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
	}})
	if err != nil {
		return nil, err
	}
	for name, b := range bounds {
		p := schema.Properties[name]
		if p == nil || p.Type != "integer" {
			return nil, fmt.Errorf("input schema: no integer property %q to bound", name)
		}
		p.Minimum = jsonschema.Ptr(float64(b.min))
		if b.max != 0 {
			p.Maximum = jsonschema.Ptr(float64(b.max))
		}
	}
	return schema, nil
}

// rangeError matches the SDK's message for a number outside its input
// schema's minimum or maximum (jsonschema-go: "validating
// /properties/limit: maximum: 500/1 is greater than 50.000000").
var rangeError = lazyre.New(`^validating "arguments": .*validating /properties/([A-Za-z]+): (?:minimum|maximum): (-?[0-9]+)(?:/1)? is `)

// quotedName is one name of the SDK's list of unknown arguments (Go's %q
// of each).
var quotedName = lazyre.New(`"(?:[^"\\]|\\.)*"`)

// unknownArgsText is the error of a call to tool with the arguments list
// (the SDK's list of their names, each quoted) it does not take; was, the
// SDK's words, when list does not read.
func (s *Server) unknownArgsText(tool, list, was string) string {
	var names []string
	for _, q := range quotedName().FindAllString(list, -1) {
		if n, err := strconv.Unquote(q); err == nil {
			names = append(names, n)
		}
	}
	takes := s.args[tool]
	if len(names) == 0 || len(takes) == 0 {
		return was
	}
	slices.Sort(names) // the SDK lists them in map order
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = safetext.Quote(n) // a client's name: bounded
	}
	return fmt.Sprintf("%s does not take %s %s%s; it takes %s.", tool, wording.Plural(len(names), "the argument", "the arguments"),
		wording.List(quoted, "and"), suggest.Phrase(suggest.ForAll(names, takes)), strings.Join(takes, ", "))
}

// missingArgsText is the error of a call to tool without the arguments
// list (the SDK's list of their names, each quoted) it needs: each named
// with what it is (its schema's description), then what the tool takes;
// was, the SDK's words, when list does not read.
func (s *Server) missingArgsText(tool, list, was string) string {
	var quoted []string
	for _, q := range quotedName().FindAllString(list, -1) {
		n, err := strconv.Unquote(q)
		d, ok := s.argDocs[tool][n]
		if err != nil || !ok {
			return was
		}
		if d != "" {
			q += " (" + d + ")"
		}
		quoted = append(quoted, q)
	}
	if len(quoted) == 0 {
		return was
	}
	return fmt.Sprintf("%s needs %s %s; it takes %s.", tool, wording.Plural(len(quoted), "the argument", "the arguments"),
		wording.List(quoted, "and"), strings.Join(s.args[tool], ", "))
}

// wrongType matches the SDK's message for an argument of another JSON type
// than its schema's (jsonschema-go: `validating "arguments": validating
// root: validating /properties/packages: type: api has type "string", want
// "array"`), or an array's element of another type (…/items: …): the
// argument, whether it was an element, the value, its type, the type
// wanted.
var wrongType = lazyre.New(`(?s)^validating "arguments": validating root: validating /properties/([^/:]+): (validating /properties/[^/:]+/items: )?type: (.*) has type "(\w+)", want "(\w+)"\s*$`)

// jsonTypeName is a JSON schema type as a sentence names it.
func jsonTypeName(t string) string {
	switch t {
	case "null":
		return "null"
	case "array", "integer", "object":
		return "an " + t
	}
	return "a " + t
}

// wrongTypeText is the error of a call to tool whose argument arg was of
// type got where the schema wants want (in an array's element when item):
// the argument, what it is, the type it must be; a string where an array
// of strings goes gets the array to send (the audit of round 21: the SDK's
// words named a JSON path, and a null query "<invalid reflect.Value>").
func (s *Server) wrongTypeText(tool, arg string, item bool, value, got, want string) string {
	what := safetext.Quote(arg)
	if d := s.argDocs[tool][arg]; d != "" {
		what += " (" + d + ")"
	}
	if item {
		return fmt.Sprintf("%s: the argument %s must be an array of %ss, not one holding %s.", tool, what, want, jsonTypeName(got))
	}
	msg := fmt.Sprintf("%s: the argument %s must be %s, not %s", tool, what, jsonTypeName(want), jsonTypeName(got))
	if want == "array" && got == "string" {
		l, held := stringAsList(value)
		if held {
			msg += " holding one"
		}
		msg += ": send [" + safetext.QuoteList(l) + "]"
	}
	return msg + "."
}

// stringAsList is value, a string sent where a list of strings goes, as
// the list to send: a JSON list of strings sent as a string (held) taken
// out of it, words separated by commas split there, else the string alone
// (review21-agent21: `"[\"a\"]"` and "a, b" were advised back as one
// string in a list, a call that fails again).
func stringAsList(value string) (l []string, held bool) {
	if strings.HasPrefix(value, "[") && json.Unmarshal([]byte(value), &l) == nil {
		return l, true // "[]" too: send []
	}
	l = nil
	for e := range strings.SplitSeq(value, ",") {
		if e = strings.TrimSpace(e); e != "" {
			l = append(l, e)
		}
	}
	if len(l) == 0 {
		return []string{value}, false
	}
	return l, false
}

// missingArgs matches the SDK's message for arguments the input schema
// requires and the call lacks (jsonschema-go: `validating "arguments":
// validating root: required: missing properties: ["path"]`).
var missingArgs = lazyre.New(`^validating "arguments": validating root: required: missing properties: \[(.*)\]\s*$`)

// unknownArgs matches the SDK's message for arguments the input schema
// does not have (jsonschema-go: `validating "arguments": validating root:
// unexpected additional properties ["file"]`).
var unknownArgs = lazyre.New(`^validating "arguments": validating root: unexpected additional properties \[(.*)\]\s*$`)

// explainRange is a receiving middleware: a tools/call refused because a
// number is outside its range (the input schema's minimum and maximum,
// checked by the SDK before the handler) is answered as ctx words such an
// error: "limit 500 is out of range: give 1 to 50". One refused for an
// argument the tool does not take names the arguments it does, and the
// nearest to each typed (agent20: the SDK's words named neither).
func (s *Server) explainRange(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		r, ok := res.(*mcp.CallToolResult)
		if err != nil || !ok || !r.IsError || len(r.Content) != 1 {
			return res, err
		}
		tc, ok := r.Content[0].(*mcp.TextContent)
		call, _ := req.(*mcp.CallToolRequest)
		if !ok || call == nil || call.Params == nil {
			return res, err
		}
		if m := unknownArgs().FindStringSubmatch(tc.Text); m != nil {
			tc.Text = s.unknownArgsText(call.Params.Name, m[1], tc.Text)
			return res, err
		}
		if m := wrongType().FindStringSubmatch(tc.Text); m != nil && s.argDocs[call.Params.Name] != nil {
			tc.Text = s.wrongTypeText(call.Params.Name, m[1], m[2] != "", m[3], m[4], m[5])
			return res, err
		}
		if m := missingArgs().FindStringSubmatch(tc.Text); m != nil {
			tc.Text = s.missingArgsText(call.Params.Name, m[1], tc.Text)
			return res, err
		}
		m := rangeError().FindStringSubmatch(tc.Text)
		if m == nil {
			return res, err
		}
		b, ok := s.bounds[call.Params.Name][m[1]]
		if !ok {
			return res, err
		}
		if v, convErr := strconv.Atoi(m[2]); convErr == nil && m[1] == "maxTokens" {
			if _, rangeErr := tokenBudget(v); rangeErr != nil {
				tc.Text = rangeErr.Error() // the budget's own words (0 is the default)
				return res, err
			}
		}
		want := fmt.Sprintf("give %d to %d", b.min, b.max)
		if b.max == 0 {
			want = fmt.Sprintf("give %d or more", b.min)
		}
		tc.Text = fmt.Sprintf("%s %s is out of range: %s", m[1], m[2], want)
		return res, err
	}
}
