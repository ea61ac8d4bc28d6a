package webfetch

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"sync"

	"github.com/ctx-dev/ctx/internal/webdoc"
)

// llms fetches an llms.txt index and the pages it links (see webdoc.LLMSLinks),
// each within the document limits; with prev, each request is
// conditional on the item prev holds for that URL. A page that answers
// 404 is left out with a warning; any other failure fails the fetch.
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
	items := []Item{top}
	for _, res := range results {
		if KindOf(res.err) == KindNotFound {
			f.c.warn("%s: left out: %v", shownURL(f.r.URL), scrub(res.err, f.r.Token))
			continue
		}
		if res.err != nil {
			return nil, res.err
		}
		items = append(items, res.it)
	}
	return items, nil
}

// pageWorkers is how many pages of an llms.txt index are fetched at once.
const pageWorkers = 4
