package jsonfile

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

type fastInner struct {
	A     string   `json:"a"`
	Files []string `json:"files"`
	N     int64    `json:"n"`
	U     uint32   `json:"u"`
}

// fastOuter has the shapes of the state and the catalogue's parts: an
// embedded struct whose field an outer one shadows, base64 bytes, maps.
type fastOuter struct {
	fastInner
	Files []struct {
		P string `json:"p"`
		B []byte `json:"b"`
	} `json:"files"`
	F float64        `json:"f"`
	M map[string]int `json:"m"`
	T bool           `json:"t,omitempty"`
}

// Unmarshal decodes every input as encoding/json does: the same value
// when it succeeds, the same error (encoding/json's text) when it fails,
// and a value decoded into a non-zero one the same way.
func TestUnmarshalAsEncodingJSON(t *testing.T) {
	cases := []string{
		`{"a":"x","files":[{"p":"q","b":"aGk="}],"n":5,"u":7,"f":1.5,"m":{"k":1},"t":true}`,
		"{\"a\":\"\xff\xfe ok\"}", "{\"a\":\"tab\there\"}", "{\"a\":\"nl\nhere\"}",
		`{"a":"x","a":"y"}`, `{"A":"case"}`, `{"a":"x"} trailing`, `{"a":"x",}`, `{"a":"x"`,
		`{"n":1e3}`, `{"n":99999999999999999999}`, `{"u":-1}`, `{"u":4294967296}`, `{"n":"5"}`, `{"n":1.5}`,
		`{"n":01}`, `{"n":+1}`, `{"f":NaN}`, `{"n":-}`, `{"n":1.}`, `{"f":.5}`, `{"n":0x10}`, `{"f":1e400}`, `{"n":-0}`,
		`{"files":null}`, `null`, `[1]`, `{"files":[{"p":"q","b":"!!"}]}`, `{"files":[{"b":"aGk"}]}`,
		`{"a":"\ud800"}`, `{"a":"\u0000"}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":'x'}`, `{a:"x"}`, `{"a":"x"}}`,
		`{"m":{"k":1,"k":2}}`, `{"m":{"k":"v"}}`, `{"t":"yes"}`, `{"unknown":{"deep":[1,2,{"x":null}]},"a":"z"}`,
		` {"a" : "sp" } `, "", "   ", "\ufeff{}", `{"n":1}` + "\x00", `{"files":[{"p":"q"},]}`,
		`{"files":[` + strings.Repeat(`{"p":"x","b":"aGk="},`, 300) + `{"p":"end"}]}`,
		// Deeper than encoding/json's limit (10,000): segmentio decodes it,
		// slowly (its time grows with the square of the depth), and at
		// millions overflows the stack.
		`{"unknown":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
		`{"unknown":` + strings.Repeat(`{"k":`, 10001) + "1" + strings.Repeat("}", 10001) + `}`,
		`{"a":"` + strings.Repeat("[", 100) + `"}`, // brackets in a string are not depth
	}
	for _, c := range cases {
		for _, start := range []string{"zero", "filled"} {
			var want, got fastOuter
			if start == "filled" {
				want = fastOuter{fastInner: fastInner{A: "old", N: 9}, M: map[string]int{"old": 1}}
				got = fastOuter{fastInner: fastInner{A: "old", N: 9}, M: map[string]int{"old": 1}}
			}
			werr := json.Unmarshal([]byte(c), &want)
			gerr := Unmarshal([]byte(c), &got)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) {
				t.Errorf("%.200q from %s: error %.200v; encoding/json: %.200v", c, start, gerr, werr)
			}
			if werr == nil && !reflect.DeepEqual(got, want) {
				t.Errorf("%.200q from %s: %+v; encoding/json: %+v", c, start, got, want)
			}
		}
	}
}

// Not a pointer, or a nil one: encoding/json's error.
func TestUnmarshalNotAPointer(t *testing.T) {
	var v fastOuter
	var nilp *fastOuter
	for _, target := range []any{v, nilp, nil} {
		werr := json.Unmarshal([]byte(`{}`), target)
		gerr := Unmarshal([]byte(`{}`), target)
		if werr == nil || fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Errorf("%T: error %v; encoding/json: %v", target, gerr, werr)
		}
	}
}
