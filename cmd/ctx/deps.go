package main

// Temporary: keeps the planned dependencies in go.mod while the packages that
// use them are written in parallel. Removed once every one is imported for real.
import (
	_ "github.com/AlecAivazis/survey/v2"
	_ "github.com/Netflix/go-expect"
	_ "github.com/adrg/frontmatter"
	_ "github.com/blevesearch/bleve/v2"
	_ "github.com/go-git/go-git/v5"
	_ "github.com/go-playground/validator/v10"
	_ "github.com/gofrs/flock"
	_ "github.com/hinshun/vt10x"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/tiktoken-go/tokenizer"
	_ "github.com/yuin/goldmark"
	_ "golang.org/x/mod/sumdb/dirhash"
)
