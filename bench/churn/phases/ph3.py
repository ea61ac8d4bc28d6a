import sys,re,statistics
names=['start + open (runtime, package init, config) to the .lock',
 'lockfile read, remote ref resolve, state read',
 'dirty guard walk (500 files against the state)',
 'index early open, catalog part, fetch start',
 'fetch: tree diff, 1 blob to the stage',
 'plan: stage + package walks, journal written',
 'materialize (1 rename) + state swap',
 '_previous-lock + context.lock',
 'index: bleve batch, recent.json, meta (to the bolt unlock)',
 'catalog part, INDEX.md tokens, INDEX.md',
 'catalog.json, meta.json, unlocks, exit']
acc=[[] for _ in names]; tot=[]
for f in sys.argv[1:]:
    ev=[]
    for l in open(f):
        m=re.match(r'\s*([\d.]+) \(.*?\): \S+ (\w+)\((.*)',l)
        if m: ev.append((float(m.group(1)),m.group(2),m.group(3)))
    fl=[e for e in ev if e[1]=='flock']; rn=[e for e in ev if e[1]=='renameat']
    t_lock=fl[0][0]
    dirs=[e for e in ev if e[1]=='openat' and 'DIRECTORY' in e[2] and e[0]>t_lock]
    t_guard=dirs[0][0]
    t_idx=fl[1][0]
    t_fetch=[e for e in ev if e[1]=='write' and 'fd: 2' in e[2]][0][0]
    unl=[e for e in fl if 'UN' in e[2]][0][0]
    pts=[0,t_lock,t_guard,t_idx,t_fetch,rn[0][0],rn[1][0],rn[5][0],rn[7][0],unl,rn[-3][0],ev[-1][0]]
    for i in range(len(names)): acc[i].append(pts[i+1]-pts[i])
    tot.append(ev[-1][0])
for i,n in enumerate(names): print(f"| {n} | {statistics.median(acc[i]):.1f} | {min(acc[i]):.1f}–{max(acc[i]):.1f} |")
print('total p50',statistics.median(tot), 'sum of p50s', sum(statistics.median(a) for a in acc))
