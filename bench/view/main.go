// Command view-bench measures whether read_relevant's answer is in what
// Claude Code, Codex and OpenCode show the model (issue 26): the JSON of
// structuredContent when a result has one, else its text contents
// (mcpview.ClientView). questions.json holds questions over the shared
// corpus, each with a text of the document that answers it, written before
// any run; a question counts as answered when that text is in the view.
//
//	go -C bench run ./view [-corpus /work/shared/corpus] [-questions view/questions.json] [-maxtokens 0] [-v] [-work DIR]
//
// It makes each corpus folder a dir source of a temporary project (as
// bench/relevance does), indexes it, asks read_relevant once per question
// through an in-memory MCP session, and prints how many answers hold their
// text in the client's view and in the text contents, and the view's size
// in o200k tokens (the largest must stay under 10,000).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/bench/internal/benchmcp"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/mcpserver"
	"github.com/ctx-dev/ctx/mcpserver/mcpview"
	"github.com/ctx-dev/ctx/project"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tiktoken-go/tokenizer"
)

type question struct {
	Q      string `json:"q"`
	Answer string `json:"answer"` // a text of the document that answers it
	Doc    string `json:"doc"`    // package/path of that document
}

func main() {
	corpus := flag.String("corpus", "/work/shared/corpus", "folder with one sub-folder per package")
	file := flag.String("questions", "view/questions.json", "the questions, with their answers' texts")
	maxTokens := flag.Int("maxtokens", 0, "read_relevant's maxTokens (0: its default)")
	verbose := flag.Bool("v", false, "print every question's result")
	work := flag.String("work", "", "keep the project in `DIR` (runs after the first reuse its index)")
	flag.Parse()
	var qs []question
	b, err := os.ReadFile(*file)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(b, &qs); err != nil {
		log.Fatalf("%s: %v", *file, err)
	}
	tmp := *work
	if tmp == "" {
		if tmp, err = os.MkdirTemp("", "ctx-view-"); err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(tmp)
	}
	pkgs, err := benchmcp.CorpusProject(tmp, *corpus)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if _, err := indexer.Sync(ctx, filepath.Join(tmp, project.DirName), pkgs, indexer.Options{}); err != nil {
		log.Fatal(err)
	}
	srv, err := mcpserver.New(mcpserver.Options{ProjectDir: tmp, Log: io.Discard})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	cs, closeSession, err := benchmcp.InMemory(ctx, srv, "view-bench")
	if err != nil {
		log.Fatal(err)
	}
	defer closeSession()
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		log.Fatal(err)
	}
	inView, inText, biggest := 0, 0, 0
	for i, q := range qs {
		args := map[string]any{"query": q.Q}
		if *maxTokens > 0 {
			args["maxTokens"] = *maxTokens
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_relevant", Arguments: args})
		if err != nil {
			log.Fatalf("%q: %v", q.Q, err)
		}
		view := mcpview.ClientView(res)
		var texts []string
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				texts = append(texts, t.Text)
			}
		}
		n, _ := codec.Count(view)
		biggest = max(biggest, n)
		v, t := strings.Contains(view, q.Answer), strings.Contains(strings.Join(texts, "\n"), q.Answer)
		if v {
			inView++
		}
		if t {
			inText++
		}
		if *verbose || !v {
			fmt.Printf("%2d. in view %-5v in text %-5v %5d tokens  %s  (%s)\n", i+1, v, t, n, q.Q, q.Doc)
		}
	}
	fmt.Printf("read_relevant, %d questions: answer in the client's view (Claude Code) %d/%d, in the text contents %d/%d; largest view %d o200k tokens\n",
		len(qs), inView, len(qs), inText, len(qs), biggest)
}
