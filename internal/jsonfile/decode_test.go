package jsonfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-playground/validator/v10"
)

type entry struct {
	Source string    `json:"source" validate:"required"`
	N      int8      `json:"n" validate:"min=0"`
	When   time.Time `json:"when"`
}

type testDoc struct {
	Name    string           `json:"name" validate:"required,max=10"`
	Count   uint             `json:"count"`
	Ratio   float32          `json:"ratio"`
	On      bool             `json:"on"`
	List    []string         `json:"list" validate:"dive,required"`
	Entries map[string]entry `json:"entries" validate:"dive,keys,max=3,endkeys"`
	Child   *entry           `json:"child"`
	Any     any              `json:"any"`
	Raw     []byte           `json:"raw"`
	Skip    string           `json:"-"`
}

func decode(data string, o Options) (*testDoc, error) {
	var d testDoc
	if o.Validator == nil {
		o.Validator = NewValidator()
	}
	err := Decode("f.json", []byte(data), &d, o)
	return &d, err
}

func TestDecode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, data string
		want       []string // in this order; nil: no error
	}{
		{"ok", `{"name": "a", "count": 3, "ratio": 0.5, "on": true, "list": ["x"], "entries": {"e": {"source": "s", "when": "2024-01-02T03:04:05Z"}}, "child": null, "any": [1, {"a": 2}], "raw": "aGk="}`, nil},
		{"fields match case as encoding/json does", `{"Name": "a"}`, nil},
		{"empty", "", []string{"f.json:1:1: empty file: expected a JSON object"}},
		{"blank", "\n\n", []string{"f.json:1:1: empty file"}},
		{"syntax", "{\n \"name\": \"a\",\n}", []string{"f.json:3:1: invalid JSON: invalid character '}' looking for beginning of object key string"}},
		{"end of input", "{\n \"name\": \"a\",\n", []string{"f.json:3:1: invalid JSON: unexpected end of file"}},
		{"trailing", "{\"name\": \"a\"}\n  x", []string{"f.json:2:3: unexpected data after the top-level object"}},
		{"not an object", "[1]", []string{"f.json:1:1: expected an object, found a JSON array"}},
		{"duplicates", "{\"name\": \"a\", \"entries\": {\"e\": {\"source\": \"s\"}, \"e\": {\"source\": \"s\"}}, \"NAME\": \"b\"}", []string{
			`f.json:1:49: entries: duplicate key "e" (first at 1:27; keep only one)`,
			`f.json:1:72: duplicate key "NAME" (first at 1:2; keep only one)`}},
		{"unknown", "{\"name\": \"a\", \"nmae\": 1, \"child\": {\"source\": \"s\", \"x\": {}}, \"Skip\": \"\"}", []string{
			`f.json:1:15: unknown field "nmae"`,
			`f.json:1:51: child: unknown field "x"`,
			`f.json:1:61: unknown field "Skip"`}},
		{"types", "{\"name\": 1, \"count\": -1, \"ratio\": 1e99, \"on\": \"yes\", \"list\": {}, \"entries\": {\"e\": {\"n\": 300, \"when\": 5}}, \"child\": 1}", []string{
			"f.json:1:10: name: expected a string, found a JSON number",
			"f.json:1:22: count: -1 is not a whole number, 0 or more",
			"f.json:1:35: ratio: 1e99 is out of range",
			"f.json:1:47: on: expected a boolean, found a JSON string",
			"f.json:1:62: list: expected an array, found a JSON object",
			"f.json:1:89: entries[e].n: 300 is out of range",
			`f.json:1:102: entries[e].when: expected a time (a string such as "2006-01-02T15:04:05Z"), found a JSON number`,
			"f.json:1:116: child: expected an object, found a JSON number"}},
		{"rules with positions", "{\n  \"name\": \"much too long\",\n  \"list\": [\"a\", \"\"],\n  \"entries\": {\"long\": {}, \"e\": {\"source\": \"s\", \"n\": -1}}\n}", []string{
			"f.json:2:3: name: is longer than 10 characters",
			"f.json:3:17: list[1]: is required",
			"f.json:4:15: entries[long]: is longer than 3 characters",
			"f.json:4:15: entries[long].source: is required",
			"f.json:4:48: entries[e].n: -1 is less than the minimum 0"}},
		{"missing field points at its object", "{\"entries\": {\"e\": {}}}", []string{
			"f.json:1:1: name: is required",
			"f.json:1:14: entries[e].source: is required"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decode(tc.data, Options{})
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var l *ErrorList
			if !errors.As(err, &l) {
				t.Fatalf("error %v (%T) is not an *ErrorList", err, err)
			}
			msg, last := err.Error(), -1
			for _, w := range tc.want {
				i := strings.Index(msg, w)
				if i <= last {
					t.Fatalf("error lacks %q (or out of order):\n%s", w, msg)
				}
				last = i
			}
			if n := strings.Count(msg, "\n") + 1; n != len(tc.want) {
				t.Fatalf("%d problems, want %d:\n%s", n, len(tc.want), msg)
			}
		})
	}
}

func TestDecodeOptions(t *testing.T) {
	t.Parallel()
	data := "{\n  \"name\": \"a\",\n  \"extra\": 1,\n  \"list\": [\"x\", \"x\"]\n}"
	_, err := decode(data, Options{
		AllowUnknown: true,
		Message: func(fe validator.FieldError) string {
			if fe.Tag() == "max" {
				return "too long"
			}
			return ""
		},
		Check: func() []Error {
			return []Error{{Field: "list[1]", Msg: "repeats list[0]"}, {Field: "nowhere", Msg: "general"}, {Line: 9, Col: 9, Field: "x", Msg: "placed"}}
		},
		Hint: "fix it",
	})
	want := "f.json:1:1: nowhere: general\nf.json:4:17: list[1]: repeats list[0]\nf.json:9:9: x: placed\n(fix it)"
	if err == nil || err.Error() != want {
		t.Fatalf("got\n%v\nwant\n%s", err, want)
	}
	if got := UnknownFields([]byte(data), &testDoc{}); len(got) != 1 || got[0] != "extra" {
		t.Fatalf("UnknownFields = %q", got)
	}
	if got := UnknownFields([]byte("{"), &testDoc{}); got != nil {
		t.Fatalf("UnknownFields of bad JSON = %q", got)
	}
	// Rules run only when every value decoded: "name is required" would be
	// wrong when the name is there but a number.
	_, err = decode(`{"name": 5}`, Options{})
	if err == nil || strings.Contains(err.Error(), "required") {
		t.Fatalf("rules ran on a value that did not decode: %v", err)
	}
}

func TestRuleErrors(t *testing.T) {
	t.Parallel()
	if RuleErrors(nil, nil) != nil {
		t.Fatal("nil error gave errors")
	}
	errs := RuleErrors(NewValidator().Struct(&entry{N: -2}), nil)
	if len(errs) != 2 || errs[0].Field != "source" || errs[0].Line != 0 || errs[1].Msg != "-2 is less than the minimum 0" {
		t.Fatalf("RuleErrors = %+v", errs)
	}
}

// FuzzDecode: Decode never panics; it fails exactly when encoding/json (with
// unknown fields disallowed) fails, or finds more (duplicates, rules); every
// error is positioned inside the input.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"name": "a", "count": 3, "ratio": 0.5, "on": true, "list": ["x"], "entries": {"e": {"source": "s", "n": 1, "when": "2024-01-02T03:04:05Z"}}, "child": {"source": "c"}, "any": [1, {"a": 2}], "raw": "aGk="}`))
	f.Add([]byte("{\n \"name\": \"a\",\n \"name\": \"b\", \"x\": 1}"))
	f.Add([]byte(`{"name": 1, "count": -1, "entries": {"e": {"when": "yesterday"}}}`))
	f.Add([]byte("{\"list\": [\"\"]}\n"))
	f.Add([]byte("[1, 2"))
	f.Add([]byte("\"\xff\""))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		var d testDoc
		err := Decode("f.json", data, &d, Options{Validator: NewValidator()})
		var std testDoc
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		stdErr := dec.Decode(&std)
		if stdErr == nil && dec.More() {
			stdErr = errors.New("trailing data")
		}
		if err == nil {
			if stdErr != nil {
				t.Fatalf("accepted what encoding/json refuses (%v): %q", stdErr, data)
			}
			return
		}
		var l *ErrorList
		if !errors.As(err, &l) || len(l.Errors) == 0 {
			t.Fatalf("error is not a non-empty *ErrorList: %v", err)
		}
		lines := bytes.Split(data, []byte("\n"))
		for _, e := range l.Errors {
			if e.File != "f.json" || e.Line < 1 || e.Line > len(lines) || e.Col < 1 || e.Col > len(lines[e.Line-1])+1 {
				t.Fatalf("bad position %d:%d (file %q) in %q: %v", e.Line, e.Col, e.File, data, e)
			}
		}
	})
}

// A check spans fields: what it says of a struct that holds a value of the
// wrong type is dropped (it may read that value as empty), what it says of
// another struct is kept (review17e).
func TestDecodeCheckBesideMistyped(t *testing.T) {
	t.Parallel()
	data := `{"name": "a", "child": {"source": "s", "n": "x"}, "entries": {"e": {"source": "t"}}}`
	_, err := decode(data, Options{Check: func() []Error {
		return []Error{{Field: "child.source", Msg: "needs n"}, {Field: "entries[e].source", Msg: "kept"}}
	}})
	if err == nil {
		t.Fatal("no error for a mistyped n")
	}
	got := err.Error()
	if !strings.Contains(got, "child.n: expected") || strings.Contains(got, "needs n") || !strings.Contains(got, "entries[e].source: kept") {
		t.Fatalf("got\n%v\nwant the type error and the other struct's problem only", got)
	}
}
