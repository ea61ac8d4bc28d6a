# ab.py: ctx update after one upstream change (change.sh), two or more
# ctx binaries alternated in one run (the order rotates each round), on
# the project setup.sh made (UPD20_WORK). Mode "cpu" (default): user+sys
# of each update, p50 and mean; mode "strace": syscall counts per update
# (strace -f -c), p50, and the CPU under strace.
# Usage: BINS=name=path,name=path UPD20_WORK=dir ROUND0=N python3 ab.py [cpu|strace] [ROUNDS]
# (ROUND0: the first change.sh number; each run needs numbers not used
# before on that work folder, or change.sh has nothing to commit.)
import subprocess,os,sys,statistics,resource,tempfile,collections
W=os.environ.get('UPD20_WORK','/tmp/upd20/w'); HERE=os.path.dirname(os.path.abspath(__file__))
env=dict(os.environ,CTX_CACHE=W+'/cache')
bins=dict(b.split('=',1) for b in os.environ['BINS'].split(','))
names=list(bins)
mode=sys.argv[1] if len(sys.argv)>1 else 'cpu'; rounds=int(sys.argv[2]) if len(sys.argv)>2 else 20
cpu={k:[] for k in bins}; calls={k:collections.defaultdict(list) for k in bins}
SYS=['fsync','fdatasync','openat','newfstatat','renameat','unlinkat','getdents64','read','write']
n=[int(os.environ.get('ROUND0','200'))]
def update(k):
    n[0]+=1; subprocess.run([os.path.join(HERE,'change.sh'),str(n[0])],check=True)
    args=[bins[k],'-C',W+'/proj','update']
    if mode=='strace':
        fd,out=tempfile.mkstemp(); os.close(fd); args=['strace','-f','-c','-o',out]+args
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
l0=os.getloadavg()
for r in range(rounds):
    for i in range(len(names)): update(names[(r+i)%len(names)])
print(f"load before {l0[0]:.1f}, after {os.getloadavg()[0]:.1f}; {rounds} updates each")
for k in bins:
    line=f"{k:8s} CPU p50 {statistics.median(cpu[k]):6.1f} ms  mean {statistics.mean(cpu[k]):6.1f} ms"
    if mode=='strace':
        line+='  '+'  '.join(f"{s} {statistics.median(calls[k][s]):g}" for s in SYS)
    print(line)
