import subprocess,time,os,statistics,resource
W=os.environ.get('UPD20_WORK','/tmp/upd20/w'); CTX=os.environ.get('CTX','/tmp/ctx-after'); HERE=os.path.dirname(os.path.abspath(__file__)); env=dict(os.environ,CTX_CACHE=W+'/cache')
res={'ctx update':[], 'git fetch':[], 'git reset':[], 'ctx version':[]}
cpu={k:[] for k in res}
def run(k,args,cwd=None):
    r0=resource.getrusage(resource.RUSAGE_CHILDREN); t=time.perf_counter()
    subprocess.run(args,cwd=cwd,env=env,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL,check=True)
    res[k].append((time.perf_counter()-t)*1000); r1=resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu[k].append((r1.ru_utime-r0.ru_utime+r1.ru_stime-r0.ru_stime)*1000)
for r in range(100,130):
    subprocess.run([os.path.join(HERE,'change.sh'),str(r)],check=True)
    run('ctx version',[CTX,'version'])
    if r%2:
        run('ctx update',[CTX,'-C',W+'/proj','update'])
        run('git fetch',['git','fetch','-q','--depth','1','origin','main'],W+'/native'); run('git reset',['git','reset','-q','--hard','FETCH_HEAD'],W+'/native')
    else:
        run('git fetch',['git','fetch','-q','--depth','1','origin','main'],W+'/native'); run('git reset',['git','reset','-q','--hard','FETCH_HEAD'],W+'/native')
        run('ctx update',[CTX,'-C',W+'/proj','update'])
for k in res: print(f"{k:12s} wall p50 {statistics.median(res[k]):6.1f} ms  CPU p50 {statistics.median(cpu[k]):6.1f} ms")
print(os.getloadavg())
