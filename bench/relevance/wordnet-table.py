#!/usr/bin/env python3
"""wordnet-table.py DEB OUT: the thesaurus table of round 10 (branch rankw).

Reads WordNet 3.0 from Debian's wordnet-base .deb (`apt-get download
wordnet-base`; unpacked with `dpkg -x` into a temp folder, nothing
installed) and writes OUT (gzip): one line per single-word lemma,
    lemma TAB sense|sense|...
its senses over all parts of speech, most frequent first (cntlist.rev's
tag counts; ties by part of speech noun, verb, adj, adv, then WordNet's own
sense order), each sense the other single-word lemmas of its synset,
space-separated (empty when it has none). Multi-word lemmas (with "_")
are left out, as keys and as synonyms. Stemming is not done here: the
scratch code analyses each word with the index's own analyzer when it
loads the table (indexer/wnscratch.go in round10-wordnet.patch).

WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
(License: /usr/share/doc/wordnet-base/copyright in the .deb, BSD-style.)
"""
import gzip, os, subprocess, sys, tempfile

deb, out = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp(prefix="rankw-wn-")
subprocess.run(["dpkg", "-x", deb, tmp], check=True)
wn = os.path.join(tmp, "usr/share/wordnet")

POS = [("noun", "n", 1), ("verb", "v", 2), ("adj", "a", 3), ("adv", "r", 4)]

# cntlist.rev: sense_key sense_number tag_cnt; sense_key lemma%ss_type:...
counts = {}
with open(os.path.join(wn, "cntlist.rev")) as f:
    for line in f:
        key, num, cnt = line.split()
        lemma, rest = key.split("%", 1)
        ss = int(rest.split(":", 1)[0])
        if ss == 5:
            ss = 3  # adjective satellite: an adjective
        k = (lemma.lower(), ss, int(num))
        counts[k] = counts.get(k, 0) + int(cnt)

# data.POS: synset offset -> its lemmas
synsets = {}
for name, p, ss in POS:
    with open(os.path.join(wn, "data." + name), encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            parts = line.split()
            off, wcnt = parts[0], int(parts[3], 16)
            words = []
            for i in range(wcnt):
                w = parts[4 + 2 * i].lower()
                if w.endswith(")") and "(" in w:  # adjective marker, e.g. (p)
                    w = w[: w.index("(")]
                words.append(w)
            synsets[(ss, off)] = words

# index.POS: lemma -> synset offsets in sense order
senses = {}
for name, p, ss in POS:
    with open(os.path.join(wn, "index." + name), encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            parts = line.split()
            lemma = parts[0].lower()
            scnt, pcnt = int(parts[2]), int(parts[3])
            offs = parts[6 + pcnt:]
            assert len(offs) == scnt, line
            for n, off in enumerate(offs, 1):
                senses.setdefault(lemma, []).append((-counts.get((lemma, ss, n), 0), ss, n, off))

lines = []
for lemma in sorted(senses):
    if "_" in lemma:
        continue
    ss_list = sorted(senses[lemma])
    out_senses = []
    for _, ss, n, off in ss_list:
        syns = [w for w in synsets[(ss, off)] if "_" not in w and w != lemma]
        seen = []
        for w in syns:
            if w not in seen:
                seen.append(w)
        out_senses.append(" ".join(seen))
    if any(out_senses):
        lines.append(lemma + "\t" + "|".join(out_senses))
with gzip.open(out, "wt", compresslevel=9) as f:
    f.write("\n".join(lines) + "\n")
print(f"{len(lines)} lemmas, {sum(len(l) for l in lines)} bytes raw -> {out} {os.path.getsize(out)} bytes gzipped", file=sys.stderr)
subprocess.run(["rm", "-rf", tmp], check=True)
