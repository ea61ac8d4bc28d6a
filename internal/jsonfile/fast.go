package jsonfile

import (
	"encoding/json"
	"reflect"

	segjson "github.com/segmentio/encoding/json"
)

// Unmarshal is encoding/json's Unmarshal of data into v (a non-nil
// pointer), about three times faster, for the large files ctx writes for
// itself and reads on every update: a package's state
// (.context/.state/<alias>.json, 120 KB for 500 files) and the search
// catalogue's parts (280 KB). encoding/json decoded them at 6–11 ms a
// pair on the 2-core bench machine, about 5% of a one-file update's CPU
// (issue 31); and the index's small files (meta.json, catalog.json,
// inlinks.json..., indexer.readJSON), decoded once by every search
// process. It decodes with github.com/segmentio/encoding/json, a
// maintained drop-in replacement of encoding/json (already in the build:
// the MCP SDK uses it). When that fails, v is zeroed and decoded again by
// encoding/json, whose result and error are returned: a bad file gets
// encoding/json's message (segmentio's quotes the rest of the input, a
// whole file), and no input decodes otherwise than encoding/json would
// decode it when one of the two refuses it (TestUnmarshalAsEncodingJSON).
// Input nested deeper than maxFastDepth goes to encoding/json alone:
// segmentio has no depth limit (encoding/json stops at 10,000), its time
// grows with the square of the depth, and at millions it overflows the
// stack. Files a user writes go through Decode instead.
func Unmarshal(data []byte, v any) error {
	if shallow(data) {
		if err := segjson.Unmarshal(data, v); err == nil {
			return nil
		}
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv.Elem().SetZero()
	}
	return json.Unmarshal(data, v)
}

// maxFastDepth bounds the nesting that Unmarshal hands to segmentio; ctx's
// own files nest a handful of levels deep.
const maxFastDepth = 64

// shallow reports whether data's arrays and objects nest at most
// maxFastDepth deep (brackets inside strings are not counted). It does
// not validate: a broken file is the decoders' to refuse.
func shallow(data []byte) bool {
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			if depth++; depth > maxFastDepth {
				return false
			}
		case ']', '}':
			depth--
		}
	}
	return true
}
