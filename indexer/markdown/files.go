package markdown

import (
	"bytes"
	"io/fs"
	"sort"
	"strings"
)

// IsDocument reports whether the slash-separated path p, relative to a
// package folder, names a document: its name has a document extension
// (FormatOf: .md, .markdown, .mdx, .txt, .rst, .adoc, .yaml, .yml, .json,
// .toml, in any case) and none of its elements is hidden (starts with
// "."), so .git, .github and .state are never documents. The indexer
// indexes exactly these files and the MCP server serves exactly these.
func IsDocument(p string) bool {
	for _, el := range strings.Split(p, "/") {
		if strings.HasPrefix(el, ".") {
			return false
		}
	}
	return FormatOf(p) != ""
}

// binaryHead is how much of a file IsBinary looks at.
const binaryHead = 8000

// IsBinary reports whether content is not text: its first 8,000 bytes hold
// a NUL byte (as git decides). Invalid UTF-8 is not binary: Lines replaces
// it.
func IsBinary(content []byte) bool {
	return bytes.IndexByte(content[:min(len(content), binaryHead)], 0) >= 0
}

// Walk returns the slash-separated paths of the documents (IsDocument) in
// the package folder fsys, sorted. Hidden files and folders are not entered;
// symbolic links are never followed and only regular files are documents.
// A folder that cannot be read (the root included) is passed to warn (when
// not nil) and skipped; a root that cannot be stat'ed is an error
// (fs.ErrNotExist when it is missing).
func Walk(fsys fs.FS, warn func(dir string, err error)) ([]string, error) {
	var out []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d == nil {
				return err // the root cannot be stat'ed
			}
			if warn != nil {
				warn(p, err)
			}
			return nil // a folder that cannot be read: skipped
		}
		if p == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && IsDocument(p) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}
