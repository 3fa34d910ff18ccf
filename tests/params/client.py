#!/usr/bin/env python3
"""What the ApplicationSet controller does with a plugin's answer (argo-cd applicationset/generators/plugin.go and
services/plugin, research section 1), for the params suite:
  client.py check ANSWER-FILE STATUS       exit 0 when the answer holds to the contract, printing one line per
                                            element: its flattened keys (goTemplate: false) as k=v, sorted
The checks: a 2xx is a JSON object with output.parameters, a list of objects; every leaf a string; no key with '.';
no empty map or list; no top-level `generator` or `values`; elements sorted by path.path. A non-2xx has a JSON body
with a non-empty `message` (what the controller shows).
  client.py flat ANSWER-FILE               the flattened elements only (jeremywohl/flatten DotStyle, then Go %v)
  client.py slow HOST PORT N SECONDS OUT MODE   N connections that send a request line and part of a header, then
                                            (MODE stall) nothing more, or (MODE trickle) one byte a second; writes
                                            to OUT how many the server closed within SECONDS"""
import json, socket, sys, threading, time


def knock(host, port):
    """One connection the server may refuse: open it, wait up to 5 s for a byte or the close, close it."""
    try:
        s = socket.create_connection((host, port))
        s.settimeout(5)
        try:
            s.recv(1)
        except OSError:
            pass
        s.close()
    except OSError:
        pass


def go_v(v):
    # Go's fmt %v of what encoding/json decoded: strings as they are, float64 in shortest 'g' (1e+06), <nil>
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        f = float(v)
        if f == int(f) and abs(f) < 1e21:
            s = "%d" % int(f) if abs(f) < 1e6 else None
            if s is not None:
                return s
        r = repr(f)
        return r  # good enough for the cases here: any number is already a failure of the every-leaf-a-string rule
    return v


def flatten(obj, prefix=""):
    out = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.update(flatten(v, prefix + "." + k if prefix else k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out.update(flatten(v, prefix + "." + str(i) if prefix else str(i)))
    else:
        out[prefix] = go_v(obj)
    return out


def problems(obj, where):
    if isinstance(obj, dict):
        if not obj:
            yield where + ": an empty map (flattening drops it)"
        for k, v in obj.items():
            if "." in k:
                yield where + ": key " + k + " has a dot"
            yield from problems(v, where + "." + k)
    elif isinstance(obj, list):
        if not obj:
            yield where + ": an empty list (flattening drops it)"
        for i, v in enumerate(obj):
            yield from problems(v, where + "[%d]" % i)
    elif not isinstance(obj, str):
        yield where + ": a " + type(obj).__name__ + ", not a string"


def check(path, status):
    body = open(path, "rb").read()
    try:
        doc = json.loads(body)
    except ValueError as e:
        return "not JSON: %s: %r" % (e, body[:200])
    if not 200 <= status < 300:
        if not isinstance(doc, dict) or not isinstance(doc.get("message"), str) or not doc["message"]:
            return "a %d without a message: %r" % (status, body[:200])
        return None
    out = doc.get("output") if isinstance(doc, dict) else None
    params = out.get("parameters") if isinstance(out, dict) else None
    if not isinstance(params, list):
        return "a 2xx without output.parameters (the controller would read no Applications): %r" % body[:200]
    paths = []
    for i, e in enumerate(params):
        if not isinstance(e, dict):
            return "element %d is not an object" % i
        for k in ("generator", "values"):
            if k in e:
                return "element %d has the reserved key %s" % (i, k)
        for p in problems(e, "element %d" % i):
            return p
        paths.append(e.get("path", {}).get("path"))
    if paths != sorted(paths, key=lambda p: p.encode()):
        return "elements not sorted by path.path: %r" % paths[:10]
    return None


def flat_lines(path):
    doc = json.loads(open(path, "rb").read())
    for e in doc["output"]["parameters"]:
        f = flatten(e)
        print(" ".join("%s=%s" % (k, f[k]) for k in sorted(f)))


def slow(host, port, n, seconds, out, mode):
    closed = [0]
    lock = threading.Lock()

    def one():
        s = socket.create_connection((host, port))
        s.settimeout(1)
        s.sendall(b"POST /api/v1/getparams.execute HTTP/1.1\r\nHost: x\r\n")
        end = time.time() + seconds
        while time.time() < end:
            try:
                if s.recv(4096) == b"":
                    with lock:
                        closed[0] += 1
                    return
            except socket.timeout:
                pass
            except OSError:
                with lock:
                    closed[0] += 1
                return
            if mode == "trickle":
                try:
                    s.sendall(b"X")  # one byte of a header that never ends
                except OSError:
                    with lock:
                        closed[0] += 1
                    return
    ts = [threading.Thread(target=one) for _ in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    open(out, "w").write("%d\n" % closed[0])


def flood(host, port, hold, n):
    """hold connections open (a request that never ends) until the server is at its limit, then open n more, each
    refused; prints the whole seconds this took, rounded up (the log may hold one line a second of it)"""
    start = time.time()
    held = []
    for _ in range(hold):
        s = socket.create_connection((host, port))
        s.sendall(b"POST /api/v1/getparams.execute HTTP/1.1\r\nHost: x\r\n")
        held.append(s)
    time.sleep(0.5)  # the server has taken them all (not a verdict: fewer only means fewer refusals)
    for _ in range(n):
        knock(host, port)
    time.sleep(1.1)  # then one more, past the second: its line carries the count of those held back
    knock(host, port)
    for s in held:
        s.close()
    print(int(time.time() - start) + 1)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "check":
        why = check(sys.argv[2], int(sys.argv[3]))
        if why:
            print(why)
            sys.exit(1)
    elif cmd == "flat":
        flat_lines(sys.argv[2])
    elif cmd == "slow":
        slow(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), sys.argv[6], sys.argv[7])
    elif cmd == "flood":
        flood(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
