package webfetch

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"sync"

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
	for i, l := range links {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			it, _, err := f.get(ctx, l.String(), byURL[l.String()], f.lim.MaxBytes, fieldMaxBytes, "page")
			results[i] = result{it, err}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil { // the caller gave up: not the pages' fault
		return nil, fmt.Errorf("fetch %s: %w", shownURL(f.r.URL), context.Cause(ctx))
	}
	// One bad page never sinks an index: whatever made a page fail, it is
	// left out with a warning naming it; only an index whose every page
	// failed fails.
	items := []Item{top}
	var first error
	for _, res := range results {
		if res.err != nil {
			if first == nil {
				first = res.err
			}
			f.c.warn("%s: left out: %v", shownURL(f.r.URL), scrub(res.err, f.r.Token))
			continue
		}
		items = append(items, res.it)
	}
	if len(links) > 0 && len(items) == 1 {
		return nil, &Error{Kind: KindOf(first), URL: shownURL(f.r.URL),
			Msg: fmt.Sprintf("every page of the index failed (%d), the first", len(links)), Err: first}
	}
	return items, nil
}

// pageWorkers is how many pages of an llms.txt index are fetched at once.
const pageWorkers = 4
