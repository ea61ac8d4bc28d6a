# ab.py: ctx update after one upstream change, two binaries alternated in
# one run (BEFORE and AFTER env vars), on the project setup.sh made
# (UPD20_WORK). Mode "cpu" (default): user+sys of each update, p50 and
# mean; mode "strace": syscall counts per update (strace -f -c), p50.
# Usage: BEFORE=bin AFTER=bin UPD20_WORK=dir python3 ab.py [cpu|strace] [ROUNDS]
import subprocess,os,sys,statistics,resource,tempfile,collections
W=os.environ.get('UPD20_WORK','/tmp/upd20/w'); HERE=os.path.dirname(os.path.abspath(__file__))
env=dict(os.environ,CTX_CACHE=W+'/cache')
bins={'before':os.environ['BEFORE'],'after':os.environ['AFTER']}
mode=sys.argv[1] if len(sys.argv)>1 else 'cpu'; rounds=int(sys.argv[2]) if len(sys.argv)>2 else 20
cpu={k:[] for k in bins}; calls={k:collections.defaultdict(list) for k in bins}
SYS=['fsync','fdatasync','openat','newfstatat','statx','renameat','renameat2','unlinkat','mkdirat','read','write','getdents64','close']
n=[int(os.environ.get('ROUND0','200'))]
def update(k):
    n[0]+=1; subprocess.run([os.path.join(HERE,'change.sh'),str(n[0])],check=True)
    args=[bins[k],'-C',W+'/proj','update']
    if mode=='strace':
        out=tempfile.mktemp(); args=['strace','-f','-c','-o',out]+args
    r0=resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args,env=env,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL,check=True)
    r1=resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu[k].append((r1.ru_utime-r0.ru_utime+r1.ru_stime-r0.ru_stime)*1000)
    if mode=='strace':
        seen={}
        for line in open(out):
            f=line.split()
            if len(f)>=5 and f[-1] in SYS and f[0][0].isdigit():
                seen[f[-1]]=int(f[3])
        os.remove(out)
        for s in SYS: calls[k][s].append(seen.get(s,0))
for r in range(rounds):
    order=['before','after'] if r%2==0 else ['after','before']
    for k in order: update(k)
print(f"load {os.getloadavg()}")
for k in bins:
    print(f"{k:7s} CPU p50 {statistics.median(cpu[k]):6.1f} ms  mean {statistics.mean(cpu[k]):6.1f} ms  (n={len(cpu[k])})")
    if mode=='strace':
        print('        '+'  '.join(f"{s} {statistics.median(calls[k][s]):g}" for s in SYS))
