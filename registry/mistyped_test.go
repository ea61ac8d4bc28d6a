package registry

import (
	"errors"
	"strings"
	"testing"
)

// (review17e) A context whose "url" has the wrong type gets, besides
// "contexts[0].url: expected a string", a rule's word that is not true:
// "contexts[0].repo: is required: name the source with "repo" … or "url""
// (the file names a url). jsonfile.Decode drops the rules' word on the
// mistyped field only, not a rule on another field that reads it
// (required_without). On a33472e only the type error was said.
func TestMistypedURLNoRepoRequired(t *testing.T) {
	t.Parallel()
	_, err := Parse("r.json", []byte(`{"name":"m","description":"d","contexts":[{"name":"a","description":"d","url":5}]}`))
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a ParseError", err)
	}
	var got []string
	for _, e := range pe.Errors {
		got = append(got, e.Field+": "+e.Msg)
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "contexts[0].url: expected a string") {
		t.Errorf("problems %q, want only the url's type error", got)
	}
}

// (review17e) "imports": 5 is a type error, not also "no contexts and no
// imports".
func TestMistypedImportsOnlyTypeError(t *testing.T) {
	t.Parallel()
	_, err := Parse("r.json", []byte(`{"name":"m","description":"d","imports":5}`))
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a ParseError", err)
	}
	if len(pe.Errors) != 1 || pe.Errors[0].Field != "imports" || !strings.HasPrefix(pe.Errors[0].Msg, "expected") {
		t.Errorf("problems %+v, want only the imports' type error", pe.Errors)
	}
}
