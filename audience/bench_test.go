package audience

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkCheck1000 is the audience check of 1,000 documents of about
// 2 KB held in memory (a third public, two thirds with rules): reading
// each one's rules and deciding. Goal (issue 12): ≤ 50 ms. The install
// step around it (reading the files, deleting the withheld ones) is
// workspace's BenchmarkAudience1000.
func BenchmarkCheck1000(b *testing.B) {
	body := strings.Repeat("Some documentation text about the service. ", 45)
	docs := make([][]byte, 1000)
	for i := range docs {
		fm := ""
		switch i % 3 {
		case 1:
			fm = "---\ntitle: Doc\nctx_include: [\"*-service\", other]\nctx_exclude: [temp-*]\n---\n"
		case 2:
			fm = "---\ntitle: Doc\ncodex_sync_include: [\"shared/team-*\", web-app]\n---\n"
		}
		docs[i] = []byte(fm + fmt.Sprintf("# Doc %d\n\n%s\n", i, body))
	}
	b.ResetTimer()
	for range b.N {
		denied := 0
		for _, d := range docs {
			r, err := Read("doc.md", d)
			if err != nil || !r.Allows("bench-service") {
				denied++
			}
		}
		if denied != 333 {
			b.Fatalf("denied %d", denied)
		}
	}
}
