package indexer

import "strings"

// detach gives r its own copies of the strings it took from a file's
// content (title, summary, type, tags, links, labels, front matter): a
// substring keeps the whole content alive, and a build keeps every record
// until it publishes the catalogue, so without this it held every file it
// had read (17 MB of the shared corpus' 104 MB peak live heap).
func (r *fileRecord) detach() {
	r.Title = strings.Clone(r.Title)
	r.Summary = strings.Clone(r.Summary)
	r.Type = strings.Clone(r.Type)
	r.Tags = cloneStrings(r.Tags)
	r.Labels = cloneStrings(r.Labels)
	if r.Links != nil {
		links := make([]rawLink, len(r.Links))
		for i, l := range r.Links {
			l.Type, l.Target, l.Label = strings.Clone(l.Type), strings.Clone(l.Target), strings.Clone(l.Label)
			links[i] = l
		}
		r.Links = links
	}
	if r.Meta != nil {
		r.Meta = cloneMeta(r.Meta).(map[string]any)
	}
}

// cloneStrings is a copy of ss whose strings are copies too.
func cloneStrings(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.Clone(s)
	}
	return out
}

// cloneMeta is a copy of v, front matter as encodeMeta leaves it, whose
// strings (keys too) are copies.
func cloneMeta(v any) any {
	switch v := v.(type) {
	case string:
		return strings.Clone(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneMeta(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[strings.Clone(k)] = cloneMeta(e)
		}
		return out
	}
	return v
}
