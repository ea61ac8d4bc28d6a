// Package jsonfile decodes the JSON files ctx reads — the manifest
// (.context/context.config.json), the lock (.context/context.lock) and
// registries — strictly, and says where each problem is.
//
// [Decode] is the one way to read such a file. In order:
//
//  1. syntax: one JSON value and nothing after it, else one error at the
//     offending byte;
//  2. shape, against the Go type decoded into: duplicate keys (with the
//     position of the first), unknown fields (unless allowed), values of the
//     wrong JSON type, numbers out of range, values their type refuses (a
//     time that is not RFC 3339) — all of them at once;
//  3. rules: the struct's `validate` tags (go-playground/validator), with
//     field paths such as packages[docs].commit mapped to line:column, and
//     the caller's own checks (unique aliases, and so on).
//
// Every problem is an [Error] with file, line, column, field and message;
// a file's problems come back together, in file order, as an [*ErrorList]
// (in the style of x/mod's modfile.ErrorList). Values quoted in messages go
// through internal/safetext.
package jsonfile

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-playground/validator/v10"

	"github.com/ctx-dev/ctx/internal/safetext"
)

// Error is one problem in a JSON file.
type Error struct {
	File  string
	Line  int    // 1-based; 0 only when unknown
	Col   int    // 1-based, in bytes
	Field string // JSON path such as packages[docs].commit or contexts[2]; "" for the file as a whole
	Msg   string
}

func (e Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is every problem found in one file, in file order, with a hint
// on what to do about it.
type ErrorList struct {
	Errors []Error
	// More counts the problems found past the first [MaxErrors] (in file
	// order), which Errors leaves out.
	More int
	Hint string // may be empty
}

// MaxErrors bounds the problems an [ErrorList] from [Decode] lists: a
// file of thousands of bad entries (a hostile registry, a broken lock)
// gets the first ones and a count of the rest, not a page per entry.
const MaxErrors = 100

func (l *ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l.Errors {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(e.Error())
	}
	if l.More > 0 {
		fmt.Fprintf(&b, "\n… and %d more problems", l.More)
	}
	if l.Hint != "" {
		b.WriteString("\n(" + l.Hint + ")")
	}
	return b.String()
}

// Options says how to check one kind of file.
type Options struct {
	// Validator checks the decoded value's `validate` tags; nil skips
	// them. Build it with [NewValidator].
	Validator *validator.Validate
	// Message words a failed rule; it returns "" to use [RuleMessage].
	// nil means RuleMessage for every rule.
	Message func(validator.FieldError) string
	// Check returns further problems with the decoded value (rules that
	// span fields). Each Error's Field is mapped to its line:column when
	// Line is 0; File is filled in.
	Check func() []Error
	// AllowUnknown accepts fields that the Go type does not have (the
	// caller can list them with [UnknownFields]).
	AllowUnknown bool
	// Hint is added to the error: what to do.
	Hint string
	// ConflictHint replaces Hint when the file holds git's merge-conflict
	// markers ([ConflictMarkers]): what to do fits how the kind of file
	// is merged. "" keeps Hint.
	ConflictHint string
}

// bom is the UTF-8 byte-order mark.
const bom = "\xef\xbb\xbf"

// TrimBOM returns data without the UTF-8 byte-order mark it may start with
// (Notepad, PowerShell 5's Out-File -Encoding utf8 and VS Code's "UTF-8
// with BOM" write one): RFC 8259 lets a parser ignore it, and npm does for
// package.json (red21: every command of every teammate stopped at
// "invalid character 'ï'"). A file's readers call it before Decode, so
// that the positions they compute (Positions) are Decode's.
func TrimBOM(data []byte) []byte {
	return bytes.TrimPrefix(data, []byte(bom))
}

// ConflictMarkers reports whether data holds git's merge-conflict markers:
// a line that starts with "<<<<<<< " (git merge's, or a rebase's, left
// in a file it could not merge).
func ConflictMarkers(data []byte) bool {
	return bytes.HasPrefix(data, []byte("<<<<<<< ")) || bytes.Contains(data, []byte("\n<<<<<<< "))
}

// Decode decodes data, the contents of file, into v (a non-nil pointer) and
// checks it as Options says. It returns nil or an *ErrorList holding every
// problem found, each with a line ≥ 1 inside data. A value of the wrong JSON
// type (or a number out of range) is one problem among others: the rest is
// decoded, and rules and Check run on it, but what they say of a field
// that did not decode (or of what is inside it) is left out, since they
// see the field empty, not what the file says; so is what Check says of
// the other fields of a struct holding such a value. A value a custom decoder
// refuses stops there: rules and Check do not run.
func Decode(file string, data []byte, v any, o Options) error {
	data = TrimBOM(data)
	fail := func(errs []Error) error {
		for i := range errs {
			errs[i].File = file
		}
		sort.SliceStable(errs, func(i, j int) bool {
			if errs[i].Line != errs[j].Line {
				return errs[i].Line < errs[j].Line
			}
			return errs[i].Col < errs[j].Col
		})
		more := 0
		if len(errs) > MaxErrors {
			errs, more = errs[:MaxErrors:MaxErrors], len(errs)-MaxErrors
		}
		return &ErrorList{Errors: errs, More: more, Hint: o.Hint}
	}
	if e, ok := syntaxCheck(data); !ok {
		if ConflictMarkers(data) {
			e.Msg = "git merge conflict markers (<<<<<<<, =======, >>>>>>>): the file was left unmerged"
			if o.ConflictHint != "" {
				o.Hint = o.ConflictHint
			}
		}
		return fail([]Error{e})
	}
	w := newWalker(data)
	w.value("", reflect.TypeOf(v))
	errs := w.errs
	if !o.AllowUnknown {
		for _, u := range w.unknown {
			errs = append(errs, u.Error)
		}
	}
	if w.bad {
		return fail(errs)
	}
	root := w.lines.pos(skip(data, 0))
	if err := json.Unmarshal(data, v); err != nil && !(len(w.mistyped) > 0 && isTypeError(err)) {
		// The walk above should have found it; say it anyway.
		errs = append(errs, Error{Line: root.Line, Col: root.Col, Msg: strings.TrimPrefix(err.Error(), "json: ")})
		return fail(errs)
	}
	// The rules' and the check's problems get their places at the end,
	// all in one reading of the file (Positions).
	var placed []Error
	if o.Validator != nil {
		for _, e := range RuleErrors(o.Validator.Struct(v), o.Message) {
			if w.within(e.Field) {
				continue
			}
			e.Line = 0
			placed = append(placed, e)
		}
	}
	if o.Check != nil {
		for _, e := range o.Check() {
			// A check spans fields: one of a struct that has a value of
			// the wrong type may read that value as empty.
			if w.within(e.Field) || w.besideMistyped(e.Field) {
				continue
			}
			placed = append(placed, e)
		}
	}
	var paths [][]string
	for _, e := range placed {
		if e.Line <= 0 {
			paths = append(paths, SplitPath(e.Field))
		}
	}
	pos := Positions(data, paths)
	for _, e := range placed {
		if e.Line <= 0 {
			p := pos[0]
			pos = pos[1:]
			if !p.Valid() {
				p = root
			}
			e.Line, e.Col = p.Line, p.Col
		}
		errs = append(errs, e)
	}
	if len(errs) > 0 {
		return fail(errs)
	}
	return nil
}

// RuleErrors turns what a validator returned into Errors with field paths
// (the root struct's name dropped) and messages, but no positions: for
// values that did not come from a file. message words a failed rule, or
// returns "" (or is nil) for [RuleMessage]. A nil err gives nil.
func RuleErrors(err error, message func(validator.FieldError) string) []Error {
	if err == nil {
		return nil
	}
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) {
		return []Error{{Msg: err.Error()}}
	}
	errs := make([]Error, 0, len(ves))
	for _, fe := range ves {
		field := fe.Namespace()
		if _, rest, ok := strings.Cut(field, "."); ok {
			field = rest
		}
		msg := ""
		if message != nil {
			msg = message(fe)
		}
		if msg == "" {
			msg = RuleMessage(fe)
		}
		errs = append(errs, Error{Field: field, Msg: msg})
	}
	return errs
}

// syntaxCheck reports the first syntax error in data, or data after the
// top-level value.
func syntaxCheck(data []byte) (Error, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	err := dec.Decode(&raw)
	var se *json.SyntaxError
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		return Error{Line: 1, Col: 1, Msg: "empty file: expected a JSON object"}, false
	case errors.Is(err, io.ErrUnexpectedEOF):
		p := Offset(data, int64(len(data)))
		return Error{Line: p.Line, Col: p.Col, Msg: "invalid JSON: unexpected end of file"}, false
	case errors.As(err, &se):
		p := Offset(data, se.Offset-1) // Offset is just past the offending byte
		return Error{Line: p.Line, Col: p.Col, Msg: "invalid JSON: " + se.Error()}, false
	default:
		return Error{Line: 1, Col: 1, Msg: "invalid JSON: " + err.Error()}, false
	}
	off := dec.InputOffset()
	for off < int64(len(data)) && isSpace(data[off]) {
		off++
	}
	if off < int64(len(data)) {
		p := Offset(data, off)
		return Error{Line: p.Line, Col: p.Col, Msg: "unexpected data after the top-level object"}, false
	}
	return Error{}, true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// UnknownFields lists the members of data that v's type (a pointer to a
// struct) has no field for, by path (contexts[2].descripton), in file
// order. Field names match as encoding/json matches them: exactly, else
// ignoring case. Data that does not parse gives nil.
func UnknownFields(data []byte, v any) []string {
	if _, ok := syntaxCheck(data); !ok {
		return nil
	}
	w := newWalker(data)
	w.value("", reflect.TypeOf(v))
	var out []string
	for _, e := range w.unknown {
		out = append(out, e.memberPath)
	}
	return out
}

// walker reads a syntactically valid document token by token beside the Go
// type it decodes into.
type walker struct {
	dec     *json.Decoder
	data    []byte
	lines   *lineIndex
	errs    []Error
	unknown []unknownField
	bad     bool // a value would not decode: skip the rules
	// mistyped lists the paths of values of the wrong type: json.Unmarshal
	// skips them and decodes the rest; the rules' word on them is dropped.
	mistyped []string
	broken   bool // the token stream failed: stop
}

type unknownField struct {
	Error
	memberPath string
}

func newWalker(data []byte) *walker {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return &walker{dec: dec, data: data, lines: newLineIndex(data)}
}

func (w *walker) add(off int64, field, msg string) {
	p := w.lines.pos(off)
	w.errs = append(w.errs, Error{Line: p.Line, Col: p.Col, Field: field, Msg: msg})
}

func (w *walker) mismatch(off int64, field string, t reflect.Type, found string) {
	w.add(off, field, fmt.Sprintf("expected %s, found a JSON %s", typeName(t), found))
	w.mistyped = append(w.mistyped, field)
}

// within reports whether field is a value of the wrong type, or inside one.
func (w *walker) within(field string) bool {
	for _, p := range w.mistyped {
		if p == "" || field == p || strings.HasPrefix(field, p+".") || strings.HasPrefix(field, p+"[") {
			return true
		}
	}
	return false
}

// besideMistyped reports whether field is in a struct (or the root) one of
// whose own fields is a value of the wrong type.
func (w *walker) besideMistyped(field string) bool {
	segs := SplitPath(field)
	if len(segs) == 0 {
		return false
	}
	for _, p := range w.mistyped {
		ps := SplitPath(p)
		if len(ps) > 0 && slices.Equal(ps[:len(ps)-1], segs[:len(segs)-1]) {
			return true
		}
	}
	return false
}

// isTypeError reports whether err is only json.Unmarshal's word for a
// value of the wrong type (it decodes the rest).
func isTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// value reads one value at path; t is the Go type it decodes into (nil:
// anything goes).
func (w *walker) value(path string, t reflect.Type) {
	off := skip(w.data, w.dec.InputOffset())
	tok, err := w.dec.Token()
	if err != nil {
		w.broken = true // cannot happen: the document is valid
		return
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	custom := t != nil && reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]())
	typed := t
	if custom || (t != nil && t.Kind() == reflect.Interface) {
		typed = nil
	}
	found := ""
	switch tok := tok.(type) {
	case json.Delim:
		found = "array"
		if tok == '{' {
			found = "object"
		}
		switch {
		case typed == nil:
			// Nothing is decoded field by field here (an unknown
			// member, a value of an interface type or with its own
			// decoder): only duplicate keys are looked for.
			w.untyped(path, tok)
		case tok == '{':
			w.object(path, typed, off)
		default:
			w.array(path, typed, off)
		}
	case nil:
		return // null leaves any Go value as it is
	case string:
		found = "string"
		if typed != nil && typed.Kind() != reflect.String && !isBytes(typed) && !reflect.PointerTo(typed).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
			w.mismatch(off, path, typed, found)
		}
	case json.Number:
		found = "number"
		if typed != nil {
			w.number(off, path, typed, string(tok))
		}
	case bool:
		found = "boolean"
		if typed != nil && typed.Kind() != reflect.Bool {
			w.mismatch(off, path, typed, found)
		}
	}
	if custom {
		raw := w.data[off:w.dec.InputOffset()]
		if err := reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
			w.add(off, path, customMessage(t, found, err))
			w.bad = true
		}
	}
}

func isBytes(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8
}

func (w *walker) number(off int64, path string, t reflect.Type, s string) {
	var err error
	what := "a whole number"
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		_, err = strconv.ParseInt(s, 10, t.Bits())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		_, err = strconv.ParseUint(s, 10, t.Bits())
		what = "a whole number, 0 or more"
	case reflect.Float32, reflect.Float64:
		_, err = strconv.ParseFloat(s, t.Bits())
	default:
		w.mismatch(off, path, t, "number")
		return
	}
	if err != nil {
		msg := fmt.Sprintf("%s is not %s", safetext.Clip(s, 0), what)
		if errors.Is(err, strconv.ErrRange) {
			msg = fmt.Sprintf("%s is out of range", safetext.Clip(s, 0))
		}
		w.add(off, path, msg)
		w.mistyped = append(w.mistyped, path)
	}
}

func customMessage(t reflect.Type, found string, err error) string {
	var pe *time.ParseError
	switch {
	case errors.As(err, &pe):
		return fmt.Sprintf("%s is not a time in RFC 3339 form (2006-01-02T15:04:05Z)", safetext.Quote(pe.Value))
	case t == reflect.TypeFor[time.Time]() && found != "string":
		return fmt.Sprintf("expected %s, found a JSON %s", typeName(t), found)
	}
	return safetext.Clip(err.Error(), 0)
}

func typeName(t reflect.Type) string {
	if t == reflect.TypeFor[time.Time]() {
		return `a time (a string such as "2006-01-02T15:04:05Z")`
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a " + t.String()
}

// object reads the members of an object whose '{' was just read.
func (w *walker) object(path string, t reflect.Type, off int64) {
	var fields []field
	var elem reflect.Type
	isMap := false
	if t != nil {
		switch t.Kind() {
		case reflect.Struct:
			fields = structFields(t, nil)
		case reflect.Map:
			elem, isMap = t.Elem(), true
		default:
			w.mismatch(off, path, t, "object")
		}
	}
	typedStruct := t != nil && t.Kind() == reflect.Struct
	first := map[string]int64{} // field (or key) -> offset of its first member
	for !w.broken && w.dec.More() {
		koff := skip(w.data, w.dec.InputOffset())
		k, err := w.dec.Token()
		if err != nil {
			w.broken = true
			return
		}
		key, _ := k.(string)
		id, child := key, reflect.Type(nil)
		member := key
		if path != "" {
			member = path + "." + key
		}
		switch {
		case isMap:
			child, member = elem, path+"["+key+"]"
		case typedStruct:
			if f, ok := lookup(fields, key); ok {
				id, child = f.name, f.typ
			} else {
				p := w.lines.pos(koff)
				w.unknown = append(w.unknown, unknownField{
					Error:      Error{Line: p.Line, Col: p.Col, Field: path, Msg: "unknown field " + safetext.Quote(key)},
					memberPath: member,
				})
			}
		}
		if prev, dup := first[id]; dup {
			w.add(koff, path, fmt.Sprintf("duplicate key %s (first at %s; keep only one)", safetext.Quote(key), w.lines.pos(prev)))
		} else {
			first[id] = koff
		}
		w.value(member, child)
	}
	_, _ = w.dec.Token() // '}'
}

// untyped reads the rest of a value whose opening delimiter open was just
// read, at path, where no Go field is decoded: it only reports duplicate
// keys, as object does. It keeps one frame per level and makes a
// member's path only for a problem: building each member's path as
// object and array do cost depth² × key length (red19: 2 GB for a 450
// KB file 10,000 levels deep; over 4 GB for a 3.6 MB registry).
func (w *walker) untyped(path string, open json.Delim) {
	type frame struct {
		seg   string           // the segment of this value's path under its parent's
		obj   bool             // an object, else an array
		n     int              // the elements read (an array)
		first map[string]int64 // key → offset of its first member (an object)
	}
	stack := []frame{{obj: open == '{'}}
	pathOf := func() string { // the path of the value on top of the stack
		var b strings.Builder
		b.WriteString(path)
		for _, f := range stack[1:] {
			if b.Len() == 0 {
				b.WriteString(strings.TrimPrefix(f.seg, "."))
			} else {
				b.WriteString(f.seg)
			}
		}
		return b.String()
	}
	for len(stack) > 0 && !w.broken {
		top := &stack[len(stack)-1]
		if !w.dec.More() {
			_, _ = w.dec.Token() // the closing delimiter
			stack = stack[:len(stack)-1]
			continue
		}
		key, index := "", 0
		if top.obj {
			koff := skip(w.data, w.dec.InputOffset())
			k, err := w.dec.Token()
			if err != nil {
				w.broken = true
				return
			}
			key, _ = k.(string)
			if prev, dup := top.first[key]; dup {
				w.add(koff, pathOf(), fmt.Sprintf("duplicate key %s (first at %s; keep only one)", safetext.Quote(key), w.lines.pos(prev)))
			} else {
				if top.first == nil {
					top.first = map[string]int64{}
				}
				top.first[key] = koff
			}
		} else {
			index = top.n
			top.n++
		}
		tok, err := w.dec.Token()
		if err != nil {
			w.broken = true
			return
		}
		if d, ok := tok.(json.Delim); ok {
			seg := "." + key
			if !top.obj {
				seg = "[" + strconv.Itoa(index) + "]"
			}
			stack = append(stack, frame{seg: seg, obj: d == '{'})
		}
	}
}

// array reads the elements of an array whose '[' was just read.
func (w *walker) array(path string, t reflect.Type, off int64) {
	var elem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Slice, reflect.Array:
			elem = t.Elem()
		default:
			w.mismatch(off, path, t, "array")
		}
	}
	for i := 0; !w.broken && w.dec.More(); i++ {
		w.value(path+"["+strconv.Itoa(i)+"]", elem)
	}
	_, _ = w.dec.Token() // ']'
}

type field struct {
	name string
	typ  reflect.Type
}

// structFields lists the JSON names of t's fields as encoding/json sees
// them (embedded structs without a name are flattened).
func structFields(t reflect.Type, out []field) []field {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = structFields(ft, out)
				continue
			}
			if !f.IsExported() {
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, field{name: name, typ: f.Type})
	}
	return out
}

// lookup finds key as encoding/json does: an exact name, else one that
// differs only in case.
func lookup(fields []field, key string) (field, bool) {
	for _, f := range fields {
		if f.name == key {
			return f, true
		}
	}
	for _, f := range fields {
		if strings.EqualFold(f.name, key) {
			return f, true
		}
	}
	return field{}, false
}

// NewValidator returns a validator whose field paths use the JSON names
// (packages[docs].commit, not Packages[docs].Commit). Callers register
// their own rules on it.
func NewValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		if name == "" {
			return f.Name
		}
		return name
	})
	return v
}

// RuleMessage words a failed built-in rule (required, min, max, unique);
// other rules get a generic message naming the rule.
func RuleMessage(fe validator.FieldError) string {
	raw := fmt.Sprint(fe.Value())
	var lengths, counts bool
	switch fe.Kind() {
	case reflect.String:
		lengths = true
	case reflect.Slice, reflect.Array, reflect.Map:
		counts = true
	}
	switch tag := fe.Tag(); {
	case tag == "required":
		return "is required"
	case tag == "min" && lengths:
		return fmt.Sprintf("is shorter than %s characters", fe.Param())
	case tag == "max" && lengths:
		return fmt.Sprintf("is longer than %s characters", fe.Param())
	case tag == "min" && counts:
		return fmt.Sprintf("has fewer than %s entries", fe.Param())
	case tag == "max" && counts:
		return fmt.Sprintf("has more than %s entries", fe.Param())
	case tag == "min":
		return fmt.Sprintf("%s is less than the minimum %s", safetext.Clip(raw, 0), fe.Param())
	case tag == "max":
		return fmt.Sprintf("%s is more than the maximum %s", safetext.Clip(raw, 0), fe.Param())
	case tag == "unique":
		return fmt.Sprintf("has duplicate %s values", fe.Param())
	case tag == "oneof":
		return fmt.Sprintf("%s must be one of: %s", safetext.Quote(raw), strings.Join(strings.Fields(fe.Param()), ", "))
	}
	return fmt.Sprintf("%s fails the %q rule", safetext.Quote(raw), fe.Tag())
}
