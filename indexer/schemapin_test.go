package indexer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

// schemaPin is the schema version and the fingerprint of what the markdown
// reader makes of schemaPinDocs (outline and chunks) at that version.
// schemaVersion's rule (store.go): a change of the parsing or chunking
// rules bumps it, so that Sync rebuilds an index whose chunks were cut by
// the old rules (rv-polish23: polish23 changed list-item fences' chunks and
// left the version at 30, so an index built before kept the old chunks
// until each file changed). When this test fails: if the fingerprint
// changed, bump schemaVersion and note why in store.go; then set both
// here.
var schemaPin = struct {
	version     int
	fingerprint string
}{32, "16c620bb3a796f40"}

// schemaPinDocs are small documents whose outline and chunks the parsing
// rules decide: fences (top level and in list items), setext and ATX
// headings, comments, long sections split at blank lines outside code.
var schemaPinDocs = map[string]string{
	"fences.md": "# T\n\n1.  Install:\n\n    ```sh\n# a shell comment, not a heading\n    make\n    ```\n\n## Next\n\n" +
		"- a\n- ```go\n  x\n\n  ```\n\nSetext\n------\n\n<!--\n# hidden\n-->\n\n```\n## in code\n```\n",
	"long.md": "# Setup\n\n" + strings.Repeat("Prose about the setup that goes on for a while, line after line.\n\n", 5) +
		"1.  Install:\n\n    ```sh\n" + strings.Repeat("    make all install clean test\n\n", 115) + "    ```\n\nDone.\n",
	"subheads.md": "## Rules\n\n" + strings.Repeat("rules line 10 of a paragraph long enough to count for something here.\n\n", 31) +
		"#### Alerting rules\n\n" + strings.Repeat("alerting line 10 of a paragraph long enough to count for something here.\n\n", 30),
}

func schemaFingerprint() string {
	h := sha256.New()
	for _, name := range []string{"fences.md", "long.md", "subheads.md"} {
		d := markdown.ParseFile(name, []byte(schemaPinDocs[name]))
		fmt.Fprintf(h, "%s\n", name)
		for _, o := range d.Outline() {
			fmt.Fprintf(h, "h %d %d %q\n", o.Level, o.Line, o.Text)
		}
		for _, c := range d.Chunks() {
			fmt.Fprintf(h, "c %d %d-%d %q\n", c.Heading, c.StartLine, c.EndLine, c.Trail)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// TestSchemaPinsParsing: the parsing rules' fingerprint changes only with
// schemaVersion.
func TestSchemaPinsParsing(t *testing.T) {
	t.Parallel()
	got := schemaFingerprint()
	if schemaVersion != schemaPin.version || got != schemaPin.fingerprint {
		t.Errorf("schema %d, parsing fingerprint %s; pinned: schema %d, fingerprint %s.\n"+
			"A change of the parsing or chunking rules bumps schemaVersion (store.go) so that Sync rebuilds old indexes; then pin both here.",
			schemaVersion, got, schemaPin.version, schemaPin.fingerprint)
	}
}
