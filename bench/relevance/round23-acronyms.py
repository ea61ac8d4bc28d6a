# round 23 (branch rank23a), scratch: bench/relevance/README.md, "Joined words".
# For the readable sets: acronym definitions in each corpus ("Long Form (LF)",
# "LF (long form)"), and queries where one side is in the query and a wanted
# page holds only the other.
import json, re, os, sys, collections
sets = {
 'the58': ('/work/shared/corpus', 'queries.json'),
 'heldout': ('/work/shared/corpus', 'queries-heldout.json'),
 'debian': ('/work/corpus-debian', 'queries-debian.json'),
 'debian2': ('/work/corpus-debian2', 'queries-debian2.json'),
 'gomod': ('/work/corpus-gomod', 'queries-gomod.json'),
 'set8': ('/work/corpus-set8', 'queries-set8.json'),
 'set10': ('/work/corpus-set10', 'queries-set10.json'),
}
R = '/work/wt-rank23a/bench/relevance/'
W = r"[A-Za-z][A-Za-z0-9]*"
def_long_acr = re.compile(r"((?:" + W + r"[- ]){1,5}" + W + r")\s*\(\s*([A-Z][A-Za-z0-9]{1,7}s?)\s*\)")
def_acr_long = re.compile(r"\b([A-Z][A-Z0-9]{1,7}s?)\s*\(\s*((?:" + W + r"[- ]){1,5}" + W + r")\s*\)")
def initials(words):
    return ''.join(w[0] for w in words).lower()
def match(long, acr):
    # the acronym's letters are the initials of the last k words of long
    a = acr.lower().rstrip('s') if acr.endswith('s') and not acr.isupper() else acr.lower()
    ws = re.split(r"[- ]", long)
    for k in range(2, len(ws)+1):
        tail = ws[-k:]
        if initials(tail) == a:
            return ' '.join(tail).lower()
        # allow skipping 'of', 'and', 'the', 'for'
        t2 = [w for w in tail if w.lower() not in ('of','and','the','for','to','a','an','in','on')]
        if len(t2) >= 2 and initials(t2) == a and tail[0].lower() not in ('of','and','the','for'):
            return ' '.join(tail).lower()
    return None
for s, (corpus, qf) in sets.items():
    pairs = {}
    texts = {}
    for root, _, files in os.walk(corpus):
        for f in files:
            p = os.path.join(root, f)
            rel = os.path.relpath(p, corpus)
            try:
                t = open(p, errors='ignore').read()
            except Exception:
                continue
            texts[rel] = t
            for m in def_long_acr.finditer(t):
                l = match(m.group(1), m.group(2))
                if l: pairs.setdefault(m.group(2).lower(), collections.Counter())[l] += 1
            for m in def_acr_long.finditer(t):
                l = match(m.group(2), m.group(1))
                if l: pairs.setdefault(m.group(1).lower(), collections.Counter())[l] += 1
    qs = json.load(open(R + qf))
    hits = 0
    for q in qs:
        ql = q['q'].lower()
        for acr, longs in pairs.items():
            long = longs.most_common(1)[0][0]
            has_acr = re.search(r"\b" + re.escape(acr) + r"\b", ql) is not None
            has_long = long in ql
            if has_acr == has_long:
                continue
            for w in q['want']:
                t = texts.get(w, '').lower()
                pa = re.search(r"\b" + re.escape(acr) + r"\b", t) is not None
                pl = long in t
                if has_acr and not pa and pl or has_long and not pl and pa:
                    hits += 1
                    print(s, '|', q['q'], '|', acr, '=', long, '| wanted', w, 'acr' if pa else 'long')
    print(f'{s}: {len(pairs)} acronyms defined in the corpus; {len(qs)} queries', file=sys.stderr)
