#!/usr/bin/env python3
"""params-load.py PORT TOKEN BODY-FILE REQUESTS CONCURRENCY: that many POSTs of the body to serve-params, CONCURRENCY
at a time (one keep-alive connection per worker, as Go's client keeps them), and one line:
  <requests/s> <p50 ms> <p90 ms> <p99 ms> <max ms> <non-200 count>"""
import http.client, sys, threading, time

port, token, body_file, total, conc = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
body = open(body_file, "rb").read()
lat, bad, lock, left = [], [0], threading.Lock(), [total]


def worker():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    while True:
        with lock:
            if left[0] == 0:
                return
            left[0] -= 1
        t = time.perf_counter()
        try:
            c.request("POST", "/api/v1/getparams.execute", body, {"Authorization": "Bearer " + token,
                      "Content-Type": "application/json", "User-Agent": "argocd-applicationset"})
            r = c.getresponse()
            r.read()
            ok = r.status == 200
        except Exception:
            ok = False
            c.close()
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        d = (time.perf_counter() - t) * 1000
        with lock:
            lat.append(d)
            bad[0] += not ok


start = time.perf_counter()
ts = [threading.Thread(target=worker) for _ in range(conc)]
for t in ts:
    t.start()
for t in ts:
    t.join()
wall = time.perf_counter() - start
lat.sort()
q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
print("%.0f %.1f %.1f %.1f %.1f %d" % (len(lat) / wall, q(0.5), q(0.9), q(0.99), lat[-1], bad[0]))
