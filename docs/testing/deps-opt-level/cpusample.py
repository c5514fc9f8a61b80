import os, sys, time, collections, signal
tick = os.sysconf("SC_CLK_TCK")
seen = {}  # pid -> (comm, cmdhint, cpu)
stop = False
def h(*a):
    global stop; stop = True
signal.signal(signal.SIGTERM, h)
while not stop:
    for p in os.listdir("/proc"):
        if not p.isdigit(): continue
        try:
            with open(f"/proc/{p}/stat") as f: s = f.read()
            comm = s[s.index("(")+1:s.rindex(")")]
            fields = s[s.rindex(")")+2:].split()
            cpu = (int(fields[11]) + int(fields[12])) / tick  # utime+stime
            key = (p, fields[19])  # pid + starttime
            if key not in seen:
                try:
                    with open(f"/proc/{p}/cmdline","rb") as f: cl = f.read().split(b"\0")
                    hint = " ".join(x.decode(errors="replace") for x in cl[:3])[:80]
                except Exception: hint = ""
                seen[key] = [comm, hint, cpu]
            else:
                seen[key][2] = cpu
        except Exception: pass
    time.sleep(1)
agg = collections.Counter()
for comm, hint, cpu in seen.values():
    name = comm
    if comm.startswith("python"):
        name = "python:" + ("pytest" if "pytest" in hint else hint.split()[-1] if hint else "?")
    agg[name] += cpu
tot = sum(agg.values())
for n, c in agg.most_common(25):
    print(f"{c:9.1f} s {100*c/tot:5.1f}%  {n}")
print(f"{tot:9.1f} s total")
