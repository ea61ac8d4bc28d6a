#!/usr/bin/env python3
# round21-analyze.py GRIDFILE [BASE]: for each setting of GRIDFILE (one
# "LABEL KNOB=V ..." a line, as knobs-round21.patch reads them from RK_GRID),
# each set's better/worse queries against BASE's ranks (main, `m21`), the
# sign test, pooled counts; then leave-one-set-out per knob (LOSO_ALL=1:
# the whole file as one knob; OBJ=mrr: choose by summed MRR gain, else by
# pooled better-worse). Ranks are read from D (round 21: /work/relm21,
# gridranks/LABEL-SET.json and TAG-SET.json). Prints no query text.
import json, sys, os, math, collections
D='/work/relm21'
SETS=['the58','heldout','debian','debian2','gomod','set6','set7','set8','set9','set10','set11','set11named','set12','set13','set14']
grid=[l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith('#')]
base=sys.argv[2] if len(sys.argv)>2 else 'm21'
def load(tag,s):
    for p in (f'{D}/gridranks/{tag}-{s}.json', f'{D}/{tag}-{s}.json'):
        if os.path.exists(p): return json.load(open(p))
    return None
def mrr(r): return sum(1/v for v in r.values() if v>0)/len(r)
def sign(b,w):
    n=b+w
    if n==0: return 1.0
    k=min(b,w)
    p=sum(math.comb(n,i) for i in range(k+1))/2**n*2
    return min(1.0,p)
sets=[s for s in SETS if load(base,s) is not None]
res={}
for g in grid:
    lab=g[0]; row={}
    for s in sets:
        a=load(base,s); r=load(lab,s)
        if r is None: continue
        b=sum(1 for q in a if (r[q] and (a[q]==0 or r[q]<a[q])))
        w=sum(1 for q in a if (a[q] and (r[q]==0 or r[q]>a[q])))
        row[s]=(mrr(r)-mrr(a),b,w,mrr(r))
    res[lab]=row
short={'the58':'58','heldout':'60','debian':'deb','debian2':'deb2','gomod':'mdx','set11named':'11n'}
print('%-12s'%'setting'+''.join('%9s'%short.get(s,s.replace('set','s')) for s in sets)+'   pooled b/w  p   for/against sigAgainst')
for lab,row in res.items():
    line='%-12s'%lab
    B=W=0; f=a=sig=0
    for s in sets:
        if s not in row: line+='%9s'%'-'; continue
        d,b,w,m=row[s]; B+=b; W+=w
        f+= b>w; a+= w>b; sig+= (w>b and sign(b,w)<0.05)
        line+='%9s'%(f'{b}/{w}' if b or w else '.')
    line+='   %3d/%-3d %.3g  %d/%d %d'%(B,W,sign(B,W),f,a,sig)
    print(line)
print()
print('MRR delta x1000 per set')
for lab,row in res.items():
    print('%-12s'%lab+''.join('%9s'%(('%+.0f'%(row[s][0]*1000)) if s in row else '-') for s in sets))

# LOSO per knob family: choose value (default included) by pooled better-worse (ties: MRR sum, then default) on the other sets; score on the left-out set.
import re
fam=collections.defaultdict(list)
for lab in res:
    if lab=='g0': continue
    fam['all' if os.environ.get('LOSO_ALL') else lab.rstrip('0123456789.').rstrip('_')].append(lab)
print('\nLOSO (value chosen without the set -> that set b/w): folds better / equal / worse')
for f,labs in fam.items():
    out=[]; fb=fe=fw=0
    for s in sets:
        def score(lab):
            B=W=0; M=0
            for t in sets:
                if t==s or t not in res[lab]: continue
                d,b,w,m=res[lab][t]; B+=b; W+=w; M+=d
            return (M, B-W) if os.environ.get('OBJ')=='mrr' else (B-W, M)
        best=max([('g0',(0,0))]+[(l,score(l)) for l in labs], key=lambda x:x[1])
        l=best[0]
        if l=='g0' or s not in res[l]: fe+=1; out.append(f'{short.get(s,s)}:main'); continue
        d,b,w,m=res[l][s]
        if b>w: fb+=1
        elif w>b: fw+=1
        else: fe+=1
        out.append(f'{short.get(s,s)}:{l} {b}/{w}')
    print(f'{f:8s} {fb}/{fe}/{fw}  '+'; '.join(out))
