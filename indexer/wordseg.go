package indexer

import (
	"unicode/utf8"

	"github.com/blevesearch/segment"
)

// The words of a text, as bleve's unicode tokenizer cuts them.
//
// The tokenizer is blevesearch/segment's Unicode word segmentation
// (UAX #29, Unicode 8.0), a Ragel state machine over UTF-8: every byte goes
// through its tables, and it was the largest single part of a full build
// that is not zap's (9% of the CPU, 13% with the preemption samples that
// land beside it). The corpora ctx indexes are mostly ASCII, and on ASCII
// the rules are few: a word is a run of letters, digits and '_', where a
// ':', '.' or '\'' between two letters and a ',', ';', '.' or '\'' between
// two digits belong to it; every other byte is a segment of its own that is
// no word. A word with no letter and a digit is a number, any other a
// letter word (the scanner's longest match, the numeric rule first). And
// a line feed ends whatever segment comes before it and begins none
// (UAX #29 WB3a and WB3b; no rule of the machine reads past one), so each
// line can be cut alone. segmentWords cuts the lines that are all ASCII by
// these rules, and hands a line with any other byte, or a text that is not
// valid UTF-8, to the library: the same words of the same types in the same
// order (TestSegmentWordsEqualsLibrary on the corpora, FuzzSegmentWords).
// Why by hand rather than another library: the tokens must be bleve's to
// the byte (the index and the queries are analysed by it), and no other
// segmenter is that one.

// Classes of ASCII bytes in the word rules.
const (
	wsOther  = iota // a segment of its own, no word
	wsLetter        // ALetter
	wsDigit         // Numeric
	wsUnder         // ExtendNumLet: '_'
	wsMidLet        // MidLetter: ':'
	wsMidNum        // MidNum: ',' ';'
	wsMid           // MidNumLet and Single_Quote: '.' '\''
	wsHigh          // not ASCII
)

var wsClass = func() (c [256]uint8) {
	for b := 0x80; b < 0x100; b++ {
		c[b] = wsHigh
	}
	for b := 'a'; b <= 'z'; b++ {
		c[b], c[b-'a'+'A'] = wsLetter, wsLetter
	}
	for b := '0'; b <= '9'; b++ {
		c[b] = wsDigit
	}
	c['_'] = wsUnder
	c[':'] = wsMidLet
	c[','], c[';'] = wsMidNum, wsMidNum
	c['.'], c['\''] = wsMid, wsMid
	return c
}()

// segmentWords appends to vals and types the words of data, each a
// subslice of data, and their types (segment.Letter, segment.Number, or for
// a line the library cut, any type but segment.None): the words and types
// segment.SegmentWordsDirect gives, without its other segments.
func segmentWords(data []byte, vals [][]byte, types []int) ([][]byte, []int) {
	if !utf8.Valid(data) {
		return libraryWords(data, vals, types)
	}
	line := 0         // where the line in hand begins
	kept := len(vals) // the words before it
	for i := 0; i < len(data); {
		c := wsClass[data[i]]
		switch c {
		case wsLetter, wsDigit, wsUnder:
		case wsHigh:
			// Not ASCII: the library cuts the whole line.
			end := len(data)
			for j := i + 1; j < len(data); j++ {
				if data[j] == '\n' {
					end = j + 1
					break
				}
			}
			vals, types = libraryWords(data[line:end], vals[:kept], types[:kept])
			i, line, kept = end, end, len(vals)
			continue
		default:
			i++
			if data[i-1] == '\n' {
				line, kept = i, len(vals)
			}
			continue
		}
		start, letter, prev := i, c == wsLetter, c
	word:
		for i++; i < len(data); {
			c := wsClass[data[i]]
			switch c {
			case wsLetter:
				letter, prev = true, c
				i++
			case wsDigit, wsUnder:
				prev = c
				i++
			case wsMidLet, wsMidNum, wsMid:
				// Between two letters or two digits only.
				if i+1 == len(data) || wsClass[data[i+1]] != prev ||
					!(prev == wsLetter && c != wsMidNum || prev == wsDigit && c != wsMidLet) {
					break word
				}
				i += 2
			default:
				break word
			}
		}
		t := segment.Letter
		if !letter {
			// At least one digit: a word of '_' alone is a letter word.
			t = segment.Number
			if onlyUnder(data[start:i]) {
				t = segment.Letter
			}
		}
		vals, types = append(vals, data[start:i]), append(types, t)
	}
	return vals, types
}

func onlyUnder(w []byte) bool {
	for _, b := range w {
		if b != '_' {
			return false
		}
	}
	return true
}

// libraryWords appends the words segment.SegmentWordsDirect finds in data.
func libraryWords(data []byte, vals [][]byte, types []int) ([][]byte, []int) {
	n := len(vals)
	vals, types, _, _ = segment.SegmentWordsDirect(data, vals, types)
	w := n
	for i := n; i < len(vals); i++ {
		if types[i] != segment.None {
			vals[w], types[w] = vals[i], types[i]
			w++
		}
	}
	clear(vals[w:])
	return vals[:w], types[:w]
}
