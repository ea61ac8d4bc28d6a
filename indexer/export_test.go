package indexer

// ChunkLines exposes parseMarkdown's chunks to tests in package
// indexer_test: each chunk's heading trail, first and last line (1-based)
// and text, and the document's line count.
func ChunkLines(content []byte) (chunks []struct {
	Trail      []string
	Start, End int
	Text       string
}, lines int) {
	p := parseMarkdown("f.md", content, nil)
	for _, c := range p.Chunks {
		chunks = append(chunks, struct {
			Trail      []string
			Start, End int
			Text       string
		}{c.Trail, c.Start, c.End, c.Text})
	}
	return chunks, p.Lines
}
