package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/ctx-dev/ctx/bench/internal/stat"
)

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// report is scale.md: the machine, a row per scale, the package manager's
// numbers, and the goals at 10×.
func report(started, ended string, budget, nq int, rows []scaleRow, many *manyResult, inst *installResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Scale (`go -C bench run ./scale`)\n\nMachine at the start: %s.\nAt the end: %s.\n\n", started, ended)
	if len(rows) > 0 {
		b.WriteString("| scale | project | chunks | full build | peak RSS | incremental (1 file) | search p50 / p95 in-process | search p50 / p95 over MCP | INDEX.md render / no-change Sync | INDEX.md tokens (budget) |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
		for _, r := range rows {
			cell := func(part, s string) string {
				if !r.measured[part] {
					return "—"
				}
				return s
			}
			over := ""
			if r.md.over > 0 {
				over = fmt.Sprintf(", **over budget in %d runs**", r.md.over)
			}

			fmt.Fprintf(&b, "| %d× | %s | %d (%d documents) | %s | %s | %s | %s | %s | %s | %s |\n",
				r.scale, r.desc, r.build.Chunks, r.build.Docs,
				cell("build", fmt.Sprintf("%.1f s", float64(r.build.Ms)/1000)),
				cell("build", fmt.Sprintf("%d MB", r.build.RSSMB)),
				cell("incr", ms(r.incr)),
				cell("search", ms(stat.Quantile(r.search, 0.5))+" / "+ms(stat.Quantile(r.search, 0.95))),
				cell("mcp", ms(stat.Quantile(r.mcp, 0.5))+" / "+ms(stat.Quantile(r.mcp, 0.95))),
				cell("indexmd", ms(r.md.render)+" / "+ms(r.md.noop)),
				cell("indexmd", fmt.Sprintf("%d (%d)%s", r.md.tokens, budget, over)))
		}
		for _, r := range rows {
			if r.md.degraded != "" {
				fmt.Fprintf(&b, "\nINDEX.md at %d×, shortened to fit: %s\n", r.scale, r.md.degraded)
			}
		}
		fmt.Fprintf(&b, "\nSearches: %d queries of one to four words, limit 10 (in-process: half best-per-document).\n\n", nq)
	}
	if many != nil {
		fmt.Fprintf(&b, "With %d packages installed (3 documents each), the ctx binary, median of 3: `ctx list` %s, `ctx status` %s, `ctx verify` %s.\n\n",
			many.packages, ms(many.list), ms(many.status), ms(many.verify))
	}
	if inst != nil {
		var cs, ns, ccpu, ncpu []string
		for i := range inst.ctx {
			cs = append(cs, ms(inst.ctx[i]))
			ns = append(ns, ms(inst.native[i]))
			ccpu = append(ccpu, ms(inst.ctxCPU[i]))
			ncpu = append(ncpu, ms(inst.nativeCPU[i]))
		}
		fmt.Fprintf(&b, "`ctx install --frozen` of %d packages from a lock (fresh clone, cold cache, the ctx binary) vs native git one after another, alternating: ctx %s, native %s: **%.2f×** (medians). HTTP requests per install: ctx %d, native %d. CPU time of the install with the server's for it (user + system): ctx %s, native %s. No-op `ctx update` of the %d: %s (median of 5).\n\n",
			inst.packages, strings.Join(cs, " / "), strings.Join(ns, " / "), float64(stat.Quantile(inst.native, 0.5))/float64(stat.Quantile(inst.ctx, 0.5)), inst.ctxRequests, inst.nativeRequests,
			strings.Join(ccpu, " / "), strings.Join(ncpu, " / "), inst.packages, ms(inst.noop))
	}
	b.WriteString(goals(rows, many, inst))
	return b.String()
}

// goals says of each goal at 10× whether it is met.
func goals(rows []scaleRow, many *manyResult, inst *installResult) string {
	var b strings.Builder
	b.WriteString("| goal | target | measured | |\n|---|---|---|---|\n")
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**not met**"
	}
	var top *scaleRow
	for i := range rows {
		top = &rows[i]
	}
	if top != nil {
		at := ""
		if top.scale != 10 {
			at = fmt.Sprintf(" (at %d×; the goal is at 10×)", top.scale)
		}
		line := func(part, goal, target string, got string, ok bool) {
			if top.measured[part] {
				fmt.Fprintf(&b, "| %s | %s | %s%s | %s |\n", goal, target, got, at, verdict(ok))
			}
		}
		line("build", "full build", "≤ 40 s", fmt.Sprintf("%.1f s", float64(top.build.Ms)/1000), top.build.Ms <= 40000)
		line("build", "peak RSS of the build", "≤ 600 MB", fmt.Sprintf("%d MB", top.build.RSSMB), top.build.RSSMB <= 600)
		line("search", "search p95, in-process", "≤ 15 ms", ms(stat.Quantile(top.search, 0.95)), stat.Quantile(top.search, 0.95) <= 15*time.Millisecond)
		line("mcp", "search p95, over MCP", "≤ 20 ms", ms(stat.Quantile(top.mcp, 0.95)), stat.Quantile(top.mcp, 0.95) <= 20*time.Millisecond)
		line("incr", "incremental update, one file", "≤ 200 ms", ms(top.incr), top.incr <= 200*time.Millisecond)
		line("indexmd", "INDEX.md within its budget", "every run", fmt.Sprintf("%d over", top.md.over), top.md.over == 0)
	}
	if many != nil {
		for _, c := range []struct {
			name string
			d    time.Duration
		}{{"list", many.list}, {"status", many.status}, {"verify", many.verify}} {
			fmt.Fprintf(&b, "| `ctx %s`, %d packages | ≤ 1 s | %s | %s |\n", c.name, many.packages, ms(c.d), verdict(c.d <= time.Second))
		}
	}
	if inst != nil {
		x := float64(stat.Quantile(inst.native, 0.5)) / float64(stat.Quantile(inst.ctx, 0.5))
		fmt.Fprintf(&b, "| install of %d packages vs native git | ≥ 3× faster | %.2f× | %s |\n", inst.packages, x, verdict(x >= 3))
		fmt.Fprintf(&b, "| no-op update of %d packages | ≤ 500 ms | %s | %s |\n", inst.packages, ms(inst.noop), verdict(inst.noop <= 500*time.Millisecond))
	}
	return b.String()
}

// plotRows draws build time, peak RSS and search p95 against chunks, side
// by side, into a PNG at path.
func plotRows(path string, rows []scaleRow) error {
	var build, rss, search, mcp plotter.XYs
	for _, r := range rows {
		x := float64(r.build.Chunks) / 1000
		if r.measured["build"] {
			build = append(build, plotter.XY{X: x, Y: float64(r.build.Ms) / 1000})
			rss = append(rss, plotter.XY{X: x, Y: float64(r.build.RSSMB)})
		}
		if r.measured["search"] {
			search = append(search, plotter.XY{X: x, Y: float64(stat.Quantile(r.search, 0.95).Microseconds()) / 1000})
		}
		if r.measured["mcp"] {
			mcp = append(mcp, plotter.XY{X: x, Y: float64(stat.Quantile(r.mcp, 0.95).Microseconds()) / 1000})
		}
	}
	mk := func(title, y string, lines ...any) (*plot.Plot, error) {
		p := plot.New()
		p.Title.Text = title
		p.X.Label.Text = "chunks (thousands)"
		p.Y.Label.Text = y
		p.Y.Min = 0
		var vs []any
		for i := 0; i < len(lines); i += 2 {
			if len(lines[i+1].(plotter.XYs)) > 0 {
				vs = append(vs, lines[i], lines[i+1])
			}
		}
		if len(vs) > 0 {
			if err := plotutil.AddLinePoints(p, vs...); err != nil {
				return nil, err
			}
		}
		return p, nil
	}
	p1, err := mk("Full index build", "seconds", "build", build)
	if err != nil {
		return err
	}
	p2, err := mk("Peak RSS of the build", "MB", "peak RSS", rss)
	if err != nil {
		return err
	}
	p3, err := mk("Search p95", "ms", "in-process", search, "over MCP", mcp)
	if err != nil {
		return err
	}
	plots := [][]*plot.Plot{{p1, p2, p3}}
	img := vgimg.New(vg.Points(1050), vg.Points(330))
	dc := draw.New(img)
	t := draw.Tiles{Rows: 1, Cols: 3, PadX: vg.Millimeter * 6, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	canvases := plot.Align(plots, t, dc)
	for j, p := range plots[0] {
		p.Draw(canvases[0][j])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
