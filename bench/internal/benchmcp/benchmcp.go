// Package benchmcp holds what the benchmarks share to talk to ctx's MCP
// server: the queries they search for, a session with an in-process server,
// and a timed loop of searches against the real binary over stdio.
package benchmcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/mcpserver"
	"github.com/ctx-dev/ctx/project"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Queries are looked up in turn: words a reader of the shared corpus
// (rust-book, k8s-keps, tldr-common) would use.
var Queries = []string{
	"borrow checker lifetimes", "pod scheduling", "tar extract archive", "ownership move semantics",
	"graduation criteria beta", "git rebase interactive", "trait objects dynamic dispatch", "kubelet eviction",
	"docker run port", "error handling Result", "feature gate", "find files by name", "closures capture",
	"api server admission webhook", "ssh key", "smart pointers Box", "sidecar containers", "curl post json",
	"cargo workspace", "storage volume snapshot", "grep recursive", "pattern matching enums", "node lease heartbeat",
	"compress gzip", "unsafe raw pointers",
}

// InitRequest is an initialize request, one JSON-RPC line.
const InitRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}` + "\n"

// Initialized is the notification that ends the handshake, one line.
const Initialized = `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}` + "\n"

// InMemory connects a client named name to srv over in-memory transports.
// close ends the session (the caller closes srv).
func InMemory(ctx context.Context, srv *mcpserver.Server, name string) (cs *mcp.ClientSession, close func(), err error) {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		return nil, nil, err
	}
	cs, err = mcp.NewClient(&mcp.Implementation{Name: name, Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		return nil, nil, err
	}
	return cs, func() { cs.Close(); ss.Wait() }, nil
}

// StdioSearches starts `ctx mcp -C dir` (bin, the real binary) on stdio and
// times n search calls of Queries in turn, calling before(i) (when not nil)
// before call i. An answer that is an error or has no hits fails the run.
func StdioSearches(bin, dir string, n int, before func(i int)) ([]time.Duration, error) {
	cmd := exec.Command(bin, "mcp", "-C", dir)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { in.Close(); cmd.Wait() }()
	r := bufio.NewReaderSize(out, 1<<20)
	if _, err := io.WriteString(in, InitRequest+Initialized); err != nil {
		return nil, err
	}
	if _, err := r.ReadBytes('\n'); err != nil {
		return nil, err
	}
	var ds []time.Duration
	for i := range n {
		if before != nil {
			before(i)
		}
		q := Queries[i%len(Queries)]
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i + 2, "method": "tools/call",
			"params": map[string]any{"name": "search", "arguments": map[string]any{"query": q}}})
		start := time.Now()
		if _, err := in.Write(append(req, '\n')); err != nil {
			return nil, err
		}
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		ds = append(ds, time.Since(start))
		var resp struct {
			Result struct {
				IsError           bool `json:"isError"`
				StructuredContent struct {
					Hits []json.RawMessage `json:"hits"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &resp); err != nil || resp.Result.IsError || len(resp.Result.StructuredContent.Hits) == 0 {
			return nil, fmt.Errorf("search %q: bad answer %.300s", q, line)
		}
	}
	return ds, nil
}

// CorpusProject makes proj a project whose packages are the folders of
// corpus, as dir sources (indexed and served in place, as the MCP server
// serves them), and returns what the index holds (project.Installed).
func CorpusProject(proj, corpus string) ([]indexer.Package, error) {
	ents, err := os.ReadDir(corpus)
	if err != nil {
		return nil, err
	}
	m := project.Manifest{Packages: []project.PackageSpec{}}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		abs, err := filepath.Abs(filepath.Join(corpus, e.Name()))
		if err != nil {
			return nil, err
		}
		// Outside the project: the user's own sources
		// (.context/context.local.json), as `ctx add` records them.
		m.Packages = append(m.Packages, project.PackageSpec{Alias: e.Name(), Kind: project.KindDir, Source: abs, Local: true})
	}
	p, err := project.At(proj)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(p.Dir(), 0o755); err != nil {
		return nil, err
	}
	b, err := project.MarshalManifest(&m)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(p.Path(project.ManifestName), b, 0o644); err != nil {
		return nil, err
	}
	if b, err = project.MarshalLocal(&m); err != nil {
		return nil, err
	}
	if err := os.WriteFile(p.Path(project.LocalName), b, 0o644); err != nil {
		return nil, err
	}
	read, err := p.ReadManifest()
	if err != nil {
		return nil, err
	}
	return p.Installed(read, &lockfile.Lock{}), nil
}

// LongQueries are n queries of words words each: runs of the words of
// Queries, one after the other from a different start each (so they mix
// topics, as a long question often names several things). bench/scale
// and bench/latcheck time the same ones.
func LongQueries(words, n int) []string {
	var all []string
	for _, q := range Queries {
		all = append(all, strings.Fields(q)...)
	}
	qs := make([]string, n)
	for i := range qs {
		w := make([]string, words)
		for j := range w {
			w[j] = all[(i*5+j)%len(all)]
		}
		qs[i] = strings.Join(w, " ")
	}
	return qs
}
