/* A tiny HTTP/1.0 file server for the security cases: listens on 127.0.0.1 (a free port, written to PORT_FILE),
 * serves files under ROOT, and appends every request line to LOG_FILE, so a case can tell whether anything was
 * fetched. One request at a time; exits by itself after 300 s in case nobody stops it. With AUTH (the value an
 * "Authorization:" header must have, "Basic <base64 of user:password>"), a request without it is answered 401 and
 * logged with " 401" after its path.
 * usage: httpd ROOT PORT_FILE LOG_FILE [AUTH] */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5)
        return 2;
    const char *auth = argc == 5 ? argv[4] : NULL;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 16) != 0 ||
        getsockname(s, (struct sockaddr *)&a, &al) != 0)
        return 1;
    FILE *pf = fopen(argv[2], "w");
    if (!pf)
        return 1;
    fprintf(pf, "%d\n", ntohs(a.sin_port));
    fclose(pf);
    alarm(300);
    for (;;) {
        int c = accept(s, NULL, NULL);
        if (c < 0)
            continue;
        char req[8192];
        size_t n = 0;
        ssize_t r;
        while (n < sizeof req - 1 && (r = read(c, req + n, sizeof req - 1 - n)) > 0) {
            n += (size_t)r;
            req[n] = 0;
            if (strstr(req, "\r\n\r\n"))
                break;
        }
        req[n] = 0;
        char method[16] = "", path[4096] = "";
        sscanf(req, "%15s %4095s", method, path);
        bool denied = false;
        if (auth) {
            char want[600];
            snprintf(want, sizeof want, "\r\nAuthorization: %s\r\n", auth);
            denied = !strstr(req, want);
        }
        FILE *log = fopen(argv[3], "a");
        if (log) {
            fprintf(log, "%s %s%s\n", method, path, denied ? " 401" : "");
            fclose(log);
        }
        if (denied) {
            const char *no = "HTTP/1.0 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"charts\"\r\n"
                             "Content-Length: 0\r\nConnection: close\r\n\r\n";
            (void)!write(c, no, strlen(no));
            close(c);
            continue;
        }
        char *q = strchr(path, '?');
        if (q)
            *q = 0;
        char file[8192];
        snprintf(file, sizeof file, "%s%s", argv[1], path);
        FILE *f = strstr(path, "..") ? NULL : fopen(file, "rb");
        char body[1 << 16];
        size_t len = f ? fread(body, 1, sizeof body, f) : 0;
        if (f)
            fclose(f);
        char head[256];
        int hl = f ? snprintf(head, sizeof head, "HTTP/1.0 200 OK\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n", len)
                   : snprintf(head, sizeof head, "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        if (write(c, head, (size_t)hl) == hl && len)
            (void)!write(c, body, len);
        close(c);
    }
}
