package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/benchmcp"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/bench/internal/loadavg"
)

// loadToken is the bearer token of the server under load (CTX_MCP_TOKEN).
const loadToken = "bench-load-token-0123456789"

// loadResult is what one side of the load test measured.
type loadResult struct {
	lat     []time.Duration
	errs    int64
	rssPeak int64 // bytes: the largest sample (of the sum, for many processes)
	rssEnd  int64
	cpu     time.Duration // the server's user+sys CPU time during the loop (summed)
}

// runLoad measures `ctx mcp --http` with n concurrent sessions, each
// searching in a loop for d, then (with stdio) n stdio `ctx mcp` processes
// doing the same, and prints a markdown table.
func runLoad(bin, proj string, n int, d, think time.Duration, lockstep, stdio bool) error {
	pauses := fmt.Sprintf("%s between searches", think)
	if think > 0 && !lockstep {
		pauses = fmt.Sprintf("a random %s to %s between searches (mean %s) and a random start within the first %s", think/2, think*3/2, think, think)
	}
	fmt.Printf("\nload: %d concurrent clients, each searching in a loop for %s, %s\n\n", n, d, pauses)
	h, err := loadHTTP(bin, proj, n, d, think, lockstep)
	if err != nil {
		return err
	}
	type side struct {
		name string
		r    loadResult
	}
	sides := []side{{fmt.Sprintf("one `ctx mcp --http`, %d sessions", n), h}}
	if stdio {
		s, err := loadStdio(bin, proj, n, d, think, lockstep)
		if err != nil {
			return err
		}
		sides = append(sides, side{fmt.Sprintf("%d stdio `ctx mcp` processes (RSS summed)", n), s})
	}
	fmt.Println("| transport | searches | errors | p50 | p95 | max | server RSS (peak / end) | server CPU per search |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, r := range sides {
		ds := r.r.lat
		slices.Sort(ds)
		if len(ds) == 0 {
			ds = []time.Duration{0}
		}
		q := func(p float64) time.Duration { return ds[min(len(ds)-1, int(p*float64(len(ds))))] }
		ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
		perSearch := time.Duration(0)
		if len(r.r.lat) > 0 {
			perSearch = r.r.cpu / time.Duration(len(r.r.lat))
		}
		fmt.Printf("| %s | %d | %d | %s | %s | %s | %.0f MB / %.0f MB | %.2f ms |\n", r.name, len(r.r.lat), r.r.errs,
			ms(q(0.5)), ms(q(0.95)), ms(ds[len(ds)-1]), float64(r.r.rssPeak)/1e6, float64(r.r.rssEnd)/1e6, float64(perSearch.Microseconds())/1000)
	}
	fmt.Printf("\nload after: %s\n", loadavg.String())
	return nil
}

// loadHTTP starts one `ctx mcp --http :0` and n session-based SDK clients.
func loadHTTP(bin, proj string, n int, d, think time.Duration, lockstep bool) (loadResult, error) {
	cmd := exec.Command(bin, "-C", proj, "mcp", "--http", ":0", "--max-sessions", strconv.Itoa(n+1))
	cmd.Env = append(cmd.Environ(), "CTX_MCP_TOKEN="+loadToken)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		return loadResult{}, err
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`http://\S+/mcp`)
		for sc.Scan() {
			if m := re.FindString(sc.Text()); m != "" {
				select {
				case urlc <- m:
				default:
				}
			} else {
				fmt.Fprintln(os.Stderr, "server:", sc.Text())
			}
		}
	}()
	var url string
	select {
	case url = <-urlc:
	case <-time.After(time.Minute):
		return loadResult{}, fmt.Errorf("ctx mcp --http printed no URL within a minute")
	}
	hc := &http.Client{Transport: bearerRT{http.DefaultTransport}}
	ctx := context.Background()
	var sessions []*mcp.ClientSession
	for range n {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			return loadResult{}, fmt.Errorf("connect: %w", err)
		}
		defer cs.Close()
		sessions = append(sessions, cs)
	}
	search := func(i, k int) error {
		res, err := sessions[i].CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": benchmcp.Queries[(i+k)%len(benchmcp.Queries)]}})
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("isError")
		}
		return nil
	}
	// One search each first: the index is opened before the clock starts.
	for i := range n {
		if err := search(i, 0); err != nil {
			return loadResult{}, fmt.Errorf("first search: %w", err)
		}
	}
	cpu0 := procCPU(cmd.Process.Pid)
	r := loop(n, d, think, lockstep, search, func() int64 { return rss(cmd.Process.Pid) })
	r.cpu = procCPU(cmd.Process.Pid) - cpu0
	return r, nil
}

type bearerRT struct{ next http.RoundTripper }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+loadToken)
	return b.next.RoundTrip(r)
}

// loadStdio starts n `ctx mcp` processes over stdio.
func loadStdio(bin, proj string, n int, d, think time.Duration, lockstep bool) (loadResult, error) {
	type proc struct {
		cmd *exec.Cmd
		in  io.WriteCloser
		out *bufio.Reader
	}
	var procs []*proc
	defer func() {
		for _, p := range procs {
			p.in.Close()
			p.cmd.Wait()
		}
	}()
	for range n {
		cmd := exec.Command(bin, "mcp", "-C", proj)
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			return loadResult{}, err
		}
		p := &proc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
		procs = append(procs, p)
		if _, err := io.WriteString(in, benchmcp.InitRequest+benchmcp.Initialized); err != nil {
			return loadResult{}, err
		}
		if _, err := p.out.ReadBytes('\n'); err != nil {
			return loadResult{}, err
		}
	}
	search := func(i, k int) error {
		p := procs[i]
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": k + 2, "method": "tools/call",
			"params": map[string]any{"name": "search", "arguments": map[string]any{"query": benchmcp.Queries[(i+k)%len(benchmcp.Queries)]}}})
		if _, err := p.in.Write(append(req, '\n')); err != nil {
			return err
		}
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			return err
		}
		if !strings.Contains(string(line), `"hits"`) || strings.Contains(string(line), `"isError":true`) {
			return fmt.Errorf("bad answer %.200s", line)
		}
		return nil
	}
	for i := range n {
		if err := search(i, 0); err != nil {
			return loadResult{}, fmt.Errorf("first search: %w", err)
		}
	}
	cpu := func() time.Duration {
		var sum time.Duration
		for _, p := range procs {
			sum += procCPU(p.cmd.Process.Pid)
		}
		return sum
	}
	cpu0 := cpu()
	r := loop(n, d, think, lockstep, search, func() int64 {
		var sum int64
		for _, p := range procs {
			sum += rss(p.cmd.Process.Pid)
		}
		return sum
	})
	r.cpu = cpu() - cpu0
	return r, nil
}

// loop runs search(i, k) for k = 1, 2, … on n workers for d, each pausing
// after a search (an agent reads the answer), sampling mem every 200 ms.
// The pause is think, the same for every worker, when lockstep; else each
// worker starts at a random moment within the first think and pauses a
// random time between think/2 and 3·think/2 (the same mean): agents do not
// call in step, and workers that all pause exactly think stay in step,
// so their calls arrive in bursts of n.
func loop(n int, d, think time.Duration, lockstep bool, search func(i, k int) error, mem func() int64) loadResult {
	var mu sync.Mutex
	var r loadResult
	var errs atomic.Int64
	end := time.Now().Add(d)
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if m := mem(); m > r.rssPeak {
					r.rssPeak = m
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			pause := func() time.Duration {
				if lockstep || think <= 0 {
					return think
				}
				return think/2 + time.Duration(rng.Int64N(int64(think)))
			}
			if !lockstep && think > 0 {
				time.Sleep(time.Duration(rng.Int64N(int64(think))))
			}
			var lat []time.Duration
			for k := 1; time.Now().Before(end); k++ {
				start := time.Now()
				if err := search(i, k); err != nil {
					if errs.Add(1) <= 5 {
						fmt.Fprintf(os.Stderr, "client %d: %v\n", i, err)
					}
					continue
				}
				lat = append(lat, time.Since(start))
				time.Sleep(pause())
			}
			mu.Lock()
			r.lat = append(r.lat, lat...)
			mu.Unlock()
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	r.errs = errs.Load()
	r.rssEnd = mem()
	if r.rssEnd > r.rssPeak {
		r.rssPeak = r.rssEnd
	}
	return r
}

// procCPU is a process's user+sys CPU time so far (Linux, /proc/PID/stat
// in clock ticks of 10 ms), 0 if unknown.
func procCPU(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces: count from its ")".
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, _ := strconv.ParseInt(f[12], 10, 64) // field 15
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// rss is a process's resident set size in bytes (Linux), 0 if unknown.
func rss(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}
