/* A TCP relay for the helmfetch suite, standing in for an HTTP proxy: listens on 127.0.0.1 (a free port, written to
 * PORT_FILE) and forwards every connection byte for byte to 127.0.0.1:TARGET_PORT, logging each connection's first
 * line to LOG_FILE. Set as HTTP(S)_PROXY, it lets helm reach the test registry under a name that is not a loopback
 * address (helm talks plain HTTP to loopback registries by itself): a plain-HTTP request arrives as
 * "GET http://name/..." (the registry serves it), a TLS attempt as "CONNECT name:port" (the registry refuses it).
 * One process, poll(2) over all connections; exits by itself after 300 s in case nobody stops it.
 * usage: relay TARGET_PORT PORT_FILE LOG_FILE */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { MAX_PAIRS = 64 };

static int pair_fd[MAX_PAIRS][2]; /* client, server; -1 when unused */
static int logged[MAX_PAIRS];

static int connect_to(int port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0)
        return s;
    if (s >= 0)
        close(s);
    return -1;
}

static void drop(int i)
{
    close(pair_fd[i][0]);
    close(pair_fd[i][1]);
    pair_fd[i][0] = pair_fd[i][1] = -1;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    int target = atoi(argv[1]);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 16) != 0 ||
        getsockname(s, (struct sockaddr *)&a, &al) != 0)
        return 1;
    for (int i = 0; i < MAX_PAIRS; i++)
        pair_fd[i][0] = pair_fd[i][1] = -1;
    FILE *pf = fopen(argv[2], "w");
    if (!pf)
        return 1;
    fprintf(pf, "%d\n", ntohs(a.sin_port));
    fclose(pf);
    alarm(300);
    for (;;) {
        struct pollfd p[1 + 2 * MAX_PAIRS];
        int who[1 + 2 * MAX_PAIRS], n = 0;
        p[n].fd = s;
        p[n].events = POLLIN;
        who[n++] = -1;
        for (int i = 0; i < MAX_PAIRS; i++)
            for (int k = 0; k < 2 && pair_fd[i][0] >= 0; k++) {
                p[n].fd = pair_fd[i][k];
                p[n].events = POLLIN;
                who[n++] = i * 2 + k;
            }
        if (poll(p, (nfds_t)n, -1) < 0)
            continue;
        for (int j = 1; j < n; j++) {
            if (!p[j].revents)
                continue;
            int i = who[j] / 2, k = who[j] % 2;
            if (pair_fd[i][0] < 0)
                continue;
            char b[65536];
            ssize_t r = read(pair_fd[i][k], b, sizeof b);
            if (r <= 0) {
                drop(i);
                continue;
            }
            if (k == 0 && !logged[i]) {
                logged[i] = 1;
                FILE *log = fopen(argv[3], "a");
                if (log) {
                    fprintf(log, "%.*s\n", (int)strcspn(b, "\r\n") < (int)r ? (int)strcspn(b, "\r\n") : (int)r, b);
                    fclose(log);
                }
            }
            ssize_t off = 0;
            while (off < r) {
                ssize_t w = write(pair_fd[i][1 - k], b + off, (size_t)(r - off));
                if (w <= 0)
                    break;
                off += w;
            }
            if (off < r)
                drop(i);
        }
        if (p[0].revents & POLLIN) {
            int c = accept(s, NULL, NULL);
            if (c < 0)
                continue;
            int i = 0;
            while (i < MAX_PAIRS && pair_fd[i][0] >= 0)
                i++;
            int t = i < MAX_PAIRS ? connect_to(target) : -1;
            if (t < 0) {
                close(c);
                continue;
            }
            pair_fd[i][0] = c;
            pair_fd[i][1] = t;
            logged[i] = 0;
        }
    }
}
