package webfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/ctx-dev/ctx/webdoc"
)

// llms fetches an llms.txt index and the pages it links (see webdoc.LLMSLinks),
// each within the document limits; with prev, each request is
// conditional on the item prev holds for that URL. A page that fails, for
// any reason (404, 5xx after its attempts, a redirect loop, over a limit,
// too slow), is left out with a warning naming it; the fetch fails when
// the index itself fails, or every page it links does.
func (f *fetch) llms(ctx context.Context, prev *Snapshot) ([]Item, error) {
	byURL := map[string]*Item{}
	var cond *Item
	if prev != nil {
		cond = &prev.Items[0]
		for i := range prev.Items[1:] {
			byURL[prev.Items[i+1].URL] = &prev.Items[i+1]
		}
	}
	top, _, err := f.get(ctx, f.r.URL, cond, f.lim.MaxBytes, fieldMaxBytes, "llms.txt index")
	if err != nil {
		return nil, err
	}
	base, err := url.Parse(top.FinalURL)
	if err != nil || top.FinalURL == "" {
		base, _ = url.Parse(f.r.URL)
	}
	index, err := f.c.Open(top.Blob)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", shownURL(f.r.URL), err)
	}
	body, err := io.ReadAll(io.LimitReader(index, f.lim.MaxBytes))
	index.Close()
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", shownURL(f.r.URL), err)
	}
	links, capped := webdoc.LLMSLinks(base, body, f.lim.MaxPages)
	if capped {
		f.c.warn("%s links more than %d pages: fetching the first %d (raise the source's %q to fetch more)", shownURL(f.r.URL), f.lim.MaxPages, f.lim.MaxPages, fieldMaxPages)
	}
	// The pages, a few at a time; items, warnings and the first error in
	// the index's order.
	type result struct {
		it  Item
		err error
	}
	results := make([]result, len(links))
	sem := make(chan struct{}, pageWorkers)
	var wg sync.WaitGroup
	// The index and its pages together stay within MaxArchiveBytes, the
	// bound of a whole download, as an archive's body does (red20b
	// finding 4: 200 pages of 10 MB were 2 GB in the shared cache). Pages
	// start in the index's order, so a page is not started only once the
	// pages before it pass the bound (not merely reach it: an empty page
	// after them is kept, review20-red20b), and which pages are kept does
	// not depend on timing (the cut below).
	var got atomic.Int64
	got.Store(top.Size)
	for i, l := range links {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if got.Load() > f.lim.MaxArchiveBytes {
				results[i] = result{err: errOverTotal}
				return
			}
			it, _, err := f.get(ctx, l.String(), byURL[l.String()], f.lim.MaxBytes, fieldMaxBytes, "page")
			got.Add(it.Size)
			results[i] = result{it, err}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil { // the caller gave up: not the pages' fault
		return nil, fmt.Errorf("fetch %s: %w", shownURL(f.r.URL), context.Cause(ctx))
	}
	// One bad page never sinks an index: whatever made a page fail, it is
	// left out with a warning naming it; only an index whose every page
	// failed fails. From the first page that would pass the total bound
	// on, the pages are left out with one warning.
	items := []Item{top}
	total := top.Size
	var first error
	for i, res := range results {
		if errors.Is(res.err, errOverTotal) || (res.err == nil && total+res.it.Size > f.lim.MaxArchiveBytes) {
			if len(items) == 1 && first == nil {
				return nil, limitError(f.r.URL, "llms.txt index with its first page", 0, false, f.lim.MaxArchiveBytes, fieldMaxArchiveBytes)
			}
			f.c.warn("%s: the index and its pages hold more than %d bytes together: the last %d of its %d pages are left out (raise the source's %q to fetch them)",
				shownURL(f.r.URL), f.lim.MaxArchiveBytes, len(results)-i, len(results), fieldMaxArchiveBytes)
			break
		}
		if res.err != nil {
			if first == nil {
				first = res.err
			}
			f.c.warn("%s: left out: %v", shownURL(f.r.URL), scrub(res.err, f.r.Token))
			continue
		}
		items = append(items, res.it)
		total += res.it.Size
	}
	if len(links) > 0 && len(items) == 1 {
		return nil, &Error{Kind: KindOf(first), URL: shownURL(f.r.URL),
			Msg: fmt.Sprintf("every page of the index failed (%d), the first", len(links)), Err: first}
	}
	return items, nil
}

// errOverTotal marks a page not fetched because the pages before it hold
// the index's total bound.
var errOverTotal = errors.New("over the total bound")

// pageWorkers is how many pages of an llms.txt index are fetched at once.
const pageWorkers = 4
