package markdown

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Lines splits a document into its lines, without line ends, after
// normalising it: a leading UTF-8 byte-order mark is dropped, invalid UTF-8
// becomes U+FFFD, and CRLF, lone CR and LF each end a line. A final line end
// does not start another line: "" has no lines, "\n" one empty line, "a\nb"
// and "a\nb\n" two.
//
// Every line number ctx shows (search hits, outlines, get_document windows)
// counts these lines.
func Lines(content []byte) []string {
	content = bytes.TrimPrefix(content, []byte("\xef\xbb\xbf"))
	s := string(content)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
