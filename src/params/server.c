/* The HTTP side of serve-params, on libmicrohttpd: one thread per connection (a slow client holds its own thread
 * and its connection slot, never another request's), a connection limit, the body capped, and the work done under
 * one lock with the time budget (params/internal.h). libmicrohttpd's own timeout is an idle one, which a client
 * sending a byte now and then never meets; so a reaper thread also closes a connection whose request line, headers
 * and body have not all arrived within CMP_PARAMS_IDLE_TIMEOUT seconds (of its opening, or of its last answer on a
 * kept-alive connection). SIGTERM and SIGINT stop the listening and drain what is in flight. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "params/internal.h"
#include "params/json.h"
#include "params/mhd.h"
#include "util/diag.h"

#define EXECUTE_PATH "/api/v1/getparams.execute"

/* One connection, for the reaper: when what it waits for began, and whether its request is being worked on. */
typedef struct conn {
    int fd;
    long long since_ns;
    bool working, cut;
    struct conn *prev, *next;
} conn;

typedef struct server {
    const params_opts *o;
    params_allow allow;
    char *expected; /* "Bearer <token>" */
    size_t expected_len;
    char *execute_path;
    pthread_mutex_t work;  /* the generator's one lock */
    pthread_mutex_t state; /* in_flight, draining, logging */
    pthread_cond_t idle;
    int in_flight;
    long long work_since_ns; /* when the request now holding the work lock took it; 0: none (under state) */
    bool draining, stopping;
    conn *conns; /* under state */
    pthread_t reaper;
    long long http_log_ns;     /* when libmicrohttpd's last line was written (under state) */
    unsigned long http_held;   /* its lines held back since (under state) */
} server;

/* One request: arrival, the body read so far. */
typedef struct request_state {
    long long arrival_ns;
    char *body;
    size_t len, cap;
    bool too_large, counted;
} request_state;

/* A log line on stderr: bytes that could act on a terminal written as \xNN (a name comes from the request). */
static void say(server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(server *s, const char *fmt, ...)
{
    char raw[1024], line[4200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    size_t n = (size_t)snprintf(line, sizeof line, "cmp-generate: serve-params: ");
    for (const unsigned char *p = (const unsigned char *)raw; *p && n + 6 < sizeof line; p++)
        n += *p < 0x20 || *p >= 0x7f ? (size_t)snprintf(line + n, 5, "\\x%02x", *p) : (line[n] = (char)*p, 1);
    line[n++] = '\n';
    line[n] = 0;
    pthread_mutex_lock(&s->state);
    s->o->log(line);
    pthread_mutex_unlock(&s->state);
}

/* libmicrohttpd's lines, at most one a second with the count of those held back: it writes one per connection
 * refused at the limit, before any authentication, so anyone who can connect could otherwise fill the log. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    server *s = cls;
    char text[512];
    vsnprintf(text, sizeof text, fmt, ap);
    text[strcspn(text, "\n")] = 0;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    long long now = (long long)t.tv_sec * 1000000000 + t.tv_nsec;
    pthread_mutex_lock(&s->state);
    bool hold = s->http_log_ns && now - s->http_log_ns < 1000000000;
    unsigned long held = s->http_held;
    if (hold) {
        s->http_held++;
    } else {
        s->http_log_ns = now;
        s->http_held = 0;
    }
    pthread_mutex_unlock(&s->state);
    if (hold)
        return;
    if (held)
        say(s, "http: %s (and %lu more lines from the HTTP server held back since the last one written)", text, held);
    else
        say(s, "http: %s", text);
}

static enum MHD_Result respond(struct MHD_Connection *c, unsigned status, char *body, size_t len, bool close)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "application/json");
    if (status == 405)
        MHD_add_response_header(r, "Allow", "POST");
    if (close)
        MHD_add_response_header(r, "Connection", "close");
    enum MHD_Result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

/* {"message": text}: the controller shows `message` in the ApplicationSet's condition. */
static enum MHD_Result respond_message(struct MHD_Connection *c, unsigned status, const char *text, bool close)
{
    char *o = NULL;
    size_t n = 0, cap = 0;
    json_put_raw(&o, &n, &cap, SIZE_MAX, "{\"message\":", 11);
    json_put_string(&o, &n, &cap, SIZE_MAX, text);
    json_put_raw(&o, &n, &cap, SIZE_MAX, "}\n", 2);
    return respond(c, status, o, n, close);
}

/* Constant time in the header's content: every byte of the expected value is compared, whatever matched before. */
static bool authorized(const server *s, const char *header)
{
    size_t hn = header ? strlen(header) : 0;
    unsigned char diff = hn != s->expected_len;
    for (size_t i = 0; i < s->expected_len; i++)
        diff |= (unsigned char)((i < hn ? (unsigned char)header[i] : 0) ^ (unsigned char)s->expected[i]);
    return header && !diff;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    server *s = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        conn *k = calloc(1, sizeof *k);
        if (!k)
            abort();
        k->fd = info ? info->connect_fd : -1;
        k->since_ns = params_now_ns();
        pthread_mutex_lock(&s->state);
        k->next = s->conns;
        if (s->conns)
            s->conns->prev = k;
        s->conns = k;
        pthread_mutex_unlock(&s->state);
        *socket_context = k;
        return;
    }
    conn *k = *socket_context;
    if (!k)
        return;
    /* removed before libmicrohttpd closes the socket: the reaper never touches a number the kernel gave again */
    pthread_mutex_lock(&s->state);
    if (k->prev)
        k->prev->next = k->next;
    else
        s->conns = k->next;
    if (k->next)
        k->next->prev = k->prev;
    pthread_mutex_unlock(&s->state);
    free(k);
    *socket_context = NULL;
}

static conn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

static void conn_mark(server *s, struct MHD_Connection *c, bool working)
{
    conn *k = conn_of(c);
    if (!k)
        return;
    pthread_mutex_lock(&s->state);
    k->working = working;
    k->since_ns = params_now_ns();
    pthread_mutex_unlock(&s->state);
}

/* Every quarter second: a connection still waiting for all of its request past the timeout is shut down, which
 * its thread sees as the peer's end. */
static void *reaper(void *arg)
{
    server *s = arg;
    long long limit = (long long)s->o->s.idle_timeout_s * 1000000000LL;
    for (;;) {
        struct timespec q = {0, 250000000L};
        nanosleep(&q, NULL);
        pthread_mutex_lock(&s->state);
        if (s->stopping) {
            pthread_mutex_unlock(&s->state);
            return NULL;
        }
        long long now = params_now_ns();
        for (conn *k = s->conns; k; k = k->next)
            if (!k->working && !k->cut && k->fd >= 0 && now - k->since_ns > limit) {
                shutdown(k->fd, SHUT_RDWR);
                k->cut = true;
            }
        pthread_mutex_unlock(&s->state);
    }
}

static void request_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    server *s = cls;
    request_state *rs = *con_cls;
    if (!rs)
        return;
    conn_mark(s, c, false); /* a kept-alive connection: the next request has the same time to arrive */
    if (rs->counted) {
        pthread_mutex_lock(&s->state);
        if (--s->in_flight == 0)
            pthread_cond_broadcast(&s->idle);
        pthread_mutex_unlock(&s->state);
    }
    free(rs->body);
    free(rs);
    *con_cls = NULL;
}

static long long ms_since(long long ns)
{
    return (params_now_ns() - ns) / 1000000;
}

static enum MHD_Result execute(server *s, struct MHD_Connection *c, request_state *rs)
{
    const params_opts *o = s->o;
    params_request r;
    char err[600];
    if (params_request_parse(rs->body ? rs->body : "", rs->len, &r, err, sizeof err) < 0) {
        say(s, "400 %s (%lld ms)", err, ms_since(rs->arrival_ns));
        return respond_message(c, 400, err, false);
    }
    const char *who = r.appset_name ? r.appset_name : "(no applicationSetName)";
    if (!params_allowed(&s->allow, r.repo_url)) {
        say(s, "403 %s: repoURL not allowed (%lld ms)", who, ms_since(rs->arrival_ns));
        enum MHD_Result rc = respond_message(c, 403, "input.parameters.repoURL is not a repository this server may read "
                                                     "(CMP_PARAMS_ALLOWED_REPOS)", false);
        params_request_free(&r);
        return rc;
    }
    long long deadline_ns = rs->arrival_ns + (long long)o->s.timeout_s * 1000000000LL;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until); /* pthread_mutex_timedlock counts on the real-time clock */
    long long left = deadline_ns - params_now_ns();
    if (left < 0)
        left = 0;
    until.tv_sec += left / 1000000000LL;
    until.tv_nsec += left % 1000000000LL;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    if (pthread_mutex_timedlock(&s->work, &until) != 0) {
        say(s, "503 %s: waited the whole time budget for the work lock (%lld ms)", who, ms_since(rs->arrival_ns));
        params_request_free(&r);
        return respond_message(c, 503, "the time budget (CMP_PARAMS_TIMEOUT) ran out while other requests were served; "
                                       "the controller retries", false);
    }
    char *body;
    size_t len;
    int packages;
    pthread_mutex_lock(&s->state);
    s->work_since_ns = params_now_ns();
    pthread_mutex_unlock(&s->state);
    int status = params_generate(o, &r, rs->arrival_ns, deadline_ns / 1000000, &body, &len, &packages);
    pthread_mutex_lock(&s->state);
    s->work_since_ns = 0;
    pthread_mutex_unlock(&s->state);
    pthread_mutex_unlock(&s->work);
    if (status == 200 && params_now_ns() > deadline_ns) { /* late is as good as lost: the client gave up */
        free(body);
        status = 503;
        body = strdup("the answer took longer than the time budget (CMP_PARAMS_TIMEOUT)");
        if (!body)
            abort();
        len = strlen(body);
    }
    enum MHD_Result rc;
    if (status == 200) {
        say(s, "200 %s: %d packages (%lld ms)", who, packages, ms_since(rs->arrival_ns));
        rc = respond(c, 200, body, len, false);
    } else {
        say(s, "%d %s: %s (%lld ms)", status, who, body, ms_since(rs->arrival_ns));
        rc = respond_message(c, (unsigned)status, body, false);
        free(body);
    }
    params_request_free(&r);
    return rc;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
    (void)version;
    server *s = cls;
    request_state *rs = *con_cls;
    if (!rs) { /* the headers: route, authorize, size, before any body is read */
        rs = calloc(1, sizeof *rs);
        if (!rs)
            return MHD_NO;
        rs->arrival_ns = params_now_ns();
        *con_cls = rs;
        pthread_mutex_lock(&s->state);
        bool draining = s->draining;
        if (!draining) {
            s->in_flight++;
            rs->counted = true;
        }
        pthread_mutex_unlock(&s->state);
        if (!strcmp(url, "/healthz")) {
            if (strcmp(method, "GET") && strcmp(method, "HEAD"))
                return respond_message(c, 405, "use GET", false);
            /* libgit2 (1.5) has no network timeout: a remote that accepts and then says nothing holds the work
             * lock for good, and every request then ends in a 503. Past twice the budget, the probe says so and
             * the kubelet restarts the server. */
            pthread_mutex_lock(&s->state);
            long long held = s->work_since_ns ? params_now_ns() - s->work_since_ns : 0;
            pthread_mutex_unlock(&s->state);
            if (held > 2LL * s->o->s.timeout_s * 1000000000LL) {
                say(s, "healthz: one request has held the work for %lld s (a remote that does not answer)",
                    held / 1000000000LL);
                return respond_message(c, 503, "stuck: one request has held the work past twice the time budget", true);
            }
            return draining ? respond_message(c, 503, "draining", true) : respond_message(c, 200, "ok", false);
        }
        if (strcmp(url, s->execute_path))
            return respond_message(c, 404, "not found: the plugin generator's path is <baseUrl>" EXECUTE_PATH, false);
        if (strcmp(method, "POST"))
            return respond_message(c, 405, "method not allowed: use POST", false);
        if (draining)
            return respond_message(c, 503, "shutting down; the controller retries", true);
        const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
        if (!authorized(s, auth)) {
            /* never the token itself; a token starting with '$' is the controller's unresolved Secret reference */
            bool dollar = auth && !strncmp(auth, "Bearer $", 8);
            say(s, "403 %s", !auth ? "no Authorization header"
                             : dollar ? "the bearer token starts with '$': the controller sends its ConfigMap's "
                                        "token reference as is when the Secret has no such key (check the Secret's key)"
                                      : "wrong bearer token");
            return respond_message(c, 403, "unauthorized", true);
        }
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        if (cl && strtoull(cl, NULL, 10) > PARAMS_MAX_BODY) {
            say(s, "413 Content-Length %s", cl);
            return respond_message(c, 413, "the body is larger than 1 MiB", true);
        }
        return MHD_YES;
    }
    if (*upload_size) { /* the body, piece by piece */
        if (!rs->too_large && rs->len + *upload_size > PARAMS_MAX_BODY) {
            rs->too_large = true;
            free(rs->body);
            rs->body = NULL;
            rs->len = rs->cap = 0;
        }
        if (!rs->too_large)
            json_put_raw(&rs->body, &rs->len, &rs->cap, PARAMS_MAX_BODY, upload_data, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    if (rs->too_large) {
        say(s, "413 a body of more than 1 MiB");
        return respond_message(c, 413, "the body is larger than 1 MiB", true);
    }
    conn_mark(s, c, true); /* the whole request is here: from now on the time budget rules */
    return execute(s, c, rs);
}

/* "HOST:PORT" or "[V6]:PORT", numeric. */
static int listen_address(const char *text, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof *ss);
    const char *colon = strrchr(text, ':');
    if (!colon || !colon[1])
        return fail(NULL, 0, "--listen %s: want HOST:PORT", text);
    char *end;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (*end || !port || port > 65535)
        return fail(NULL, 0, "--listen %s: the port must be 1 to 65535", text);
    char host[64];
    size_t hn = (size_t)(colon - text);
    if (hn >= sizeof host)
        return fail(NULL, 0, "--listen %s: the host is too long", text);
    memcpy(host, text, hn);
    host[hn] = 0;
    if (hn > 1 && host[0] == '[' && host[hn - 1] == ']') {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
        host[hn - 1] = 0;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons((uint16_t)port);
        if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
            return fail(NULL, 0, "--listen %s: not an IPv6 address", text);
        return 0;
    }
    struct sockaddr_in *a = (struct sockaddr_in *)ss;
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
        return fail(NULL, 0, "--listen %s: not an IPv4 address (or [IPv6])", text);
    return 0;
}

/* The token file, read once: trimmed of white space as the controller trims its copy. */
static int read_token(server *s, const char *file)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail(file, 0, "CMP_PARAMS_TOKEN_FILE: %s", strerror(errno));
    char text[4097];
    ssize_t n = read(fd, text, sizeof text);
    close(fd);
    if (n < 0)
        return fail(file, 0, "CMP_PARAMS_TOKEN_FILE: %s", strerror(errno));
    if (n == (ssize_t)sizeof text)
        return fail(file, 0, "CMP_PARAMS_TOKEN_FILE: a token of more than 4096 bytes");
    if (memchr(text, 0, (size_t)n))
        return fail(file, 0, "CMP_PARAMS_TOKEN_FILE: the token holds a NUL byte");
    text[n] = 0;
    char *t = text;
    while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r')
        t++;
    size_t len = strlen(t);
    while (len && (t[len - 1] == ' ' || t[len - 1] == '\t' || t[len - 1] == '\n' || t[len - 1] == '\r'))
        t[--len] = 0;
    if (!len)
        return fail(file, 0, "CMP_PARAMS_TOKEN_FILE: the token is empty");
    s->expected_len = len + 7;
    s->expected = malloc(s->expected_len + 1);
    if (!s->expected)
        abort();
    memcpy(s->expected, "Bearer ", 7);
    memcpy(s->expected + 7, t, len + 1);
    return 0;
}

int params_serve(const params_opts *o)
{
    static server s; /* the daemon's threads see it until the end */
    memset(&s, 0, sizeof s);
    s.o = o;
    pthread_mutex_init(&s.work, NULL);
    pthread_mutex_init(&s.state, NULL);
    pthread_cond_init(&s.idle, NULL);
    struct sockaddr_storage addr;
    if (read_token(&s, o->s.token_file) < 0 || params_allow_parse(o->s.allowed_repos, &s.allow) < 0 ||
        listen_address(o->listen, &addr) < 0 || params_mhd_open() < 0 || gitsrc_keep_loaded() < 0)
        return -1;
    size_t bl = strlen(o->base_path);
    while (bl && o->base_path[bl - 1] == '/')
        bl--;
    s.execute_path = malloc(bl + sizeof EXECUTE_PATH + 1);
    if (!s.execute_path)
        abort();
    snprintf(s.execute_path, bl + sizeof EXECUTE_PATH + 1, "%s%.*s%s", bl && o->base_path[0] != '/' ? "/" : "",
             (int)bl, o->base_path, EXECUTE_PATH);

    /* the signals are taken by this thread alone (sigwait), so every thread the daemon starts blocks them */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC |
                     MHD_USE_ERROR_LOG | (addr.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, 0, NULL, NULL, handle, &s, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, &s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)o->s.max_connections, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)o->s.idle_timeout_s,
        MHD_OPTION_NOTIFY_COMPLETED, request_done, &s, MHD_OPTION_NOTIFY_CONNECTION, on_connection, &s,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, 128u, MHD_OPTION_END);
    if (!d)
        return fail(NULL, 0, "serve-params: cannot listen on %s (in use, or not an address of this machine)", o->listen);
    if (pthread_create(&s.reaper, NULL, reaper, &s) != 0) {
        MHD_stop_daemon(d);
        return fail(NULL, 0, "serve-params: cannot start a thread");
    }
    say(&s, "listening on %s, path %s; %u connections, %u s budget, %u s idle timeout", o->listen, s.execute_path,
        o->s.max_connections, o->s.timeout_s, o->s.idle_timeout_s);

    int sig = 0;
    while (sigwait(&stop, &sig) != 0)
        ;
    /* drain: no new connection; a request on a kept-alive one gets a 503; the ones in flight finish */
    pthread_mutex_lock(&s.state);
    s.draining = true;
    pthread_mutex_unlock(&s.state);
    int lfd = MHD_quiesce_daemon(d);
    if (lfd >= 0)
        close(lfd);
    say(&s, "%s: draining %d requests in flight", sig == SIGTERM ? "SIGTERM" : "SIGINT", s.in_flight);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)o->s.timeout_s + 5;
    pthread_mutex_lock(&s.state);
    while (s.in_flight > 0)
        if (pthread_cond_timedwait(&s.idle, &s.state, &until) == ETIMEDOUT)
            break;
    int left = s.in_flight;
    pthread_mutex_unlock(&s.state);
    if (left) {
        /* a request stuck in a fetch: stopping the daemon would wait for its thread, for good */
        say(&s, "stopped with %d requests still in flight past the drain time", left);
        return 0;
    }
    MHD_stop_daemon(d);
    pthread_mutex_lock(&s.state);
    s.stopping = true;
    pthread_mutex_unlock(&s.state);
    pthread_join(s.reaper, NULL);
    say(&s, "stopped");
    params_allow_free(&s.allow);
    free(s.expected);
    free(s.execute_path);
    return 0;
}
