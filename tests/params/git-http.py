#!/usr/bin/env python3
"""A git smart-HTTP server for the tests: Debian's `git http-backend` run as a CGI program per request, behind
Python's threading HTTP server, on 127.0.0.1 only.  git-http.py ROOT PORT PIDFILE
Repositories are the bare ones under ROOT (http://127.0.0.1:PORT/<name>.git). A repository named broken.git
answers 500 to every request (a fetch that fails); one whose name starts with slow waits SLOW seconds (default 3)
before each answer (a fetch that outlasts a budget, a request in flight at SIGTERM); one whose name starts with
stuck waits 12 s; /redirect/<name>.git/... answers 301 to http://localhost:PORT/<name>.git/... (another host)."""
import http.server, os, subprocess, sys, time

root, port, pidfile = sys.argv[1], int(sys.argv[2]), sys.argv[3]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def run(self):
        path, _, query = self.path.partition("?")
        if path.startswith("/broken.git"):
            self.send_error(500, "broken on purpose")
            return
        if path.startswith("/redirect/"):  # a moved repository: 301 to another host name (libgit2 refuses only those)
            self.send_response(301)
            self.send_header("Location", "http://localhost:%d%s%s" % (port, path[len("/redirect"):], "?" + query if query else ""))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path.startswith("/stuck"):
            time.sleep(12)  # a remote that accepts and says nothing for long (libgit2 has no timeout)
        if path.startswith("/slow"):
            print("slow " + path, file=sys.stderr, flush=True)
            time.sleep(float(os.environ.get("SLOW", "3")))
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": root,
            "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": self.command,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_ADDR": "127.0.0.1",
            "GIT_CONFIG_NOSYSTEM": "1",
            "HOME": root,
        }
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        p = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True)
        head, _, out = p.stdout.partition(b"\r\n\r\n")
        if not _:
            head, _, out = p.stdout.partition(b"\n\n")
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            k, _, v = line.partition(":")
            if k.lower() == "status":
                status = int(v.strip().split()[0])
            elif k:
                headers.append((k, v.strip()))
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    do_GET = do_POST = run


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


srv = Server(("127.0.0.1", port), Handler)
with open(pidfile + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename(pidfile + ".tmp", pidfile)
srv.serve_forever()
