#!/usr/bin/env python3
"""wordnet-perproject.py QUERIES RANKS [AGAINST]: per-project MRR (and
better/worse against AGAINST) of a -save file; prints aggregates only,
never a query (for the blind sets). A query's project is the first path
part of its first wanted document; rank 0 (not in the top 10) counts 0."""
import json, sys
from collections import defaultdict
qs = json.load(open(sys.argv[1]))
ranks = json.load(open(sys.argv[2]))
base = json.load(open(sys.argv[3])) if len(sys.argv) > 3 else None
rr = lambda r: 1.0 / r if r else 0.0
agg = defaultdict(lambda: [0, 0.0, 0, 0])
for q in qs:
    p = q["want"][0].split("/")[0]
    a = agg[p]
    r = ranks[q["q"]]
    a[0] += 1
    a[1] += rr(r)
    if base is not None:
        b = rr(base[q["q"]])
        a[2] += rr(r) > b
        a[3] += rr(r) < b
print("  ".join(f"{p} {a[1]/a[0]:.3f}" + (f" ({a[2]}/{a[3]})" if base else "") for p, a in sorted(agg.items())))
