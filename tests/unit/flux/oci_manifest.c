/* src/flux/oci_manifest.c: an OCI chart's manifest is taken only when its SHA-256 is the digest helm pulled (or the
 * lock names), its chart layer is found, and each org.opencontainers.image annotation it stamps is a JSON string of
 * printable text, at most 1024 bytes; an absent one is simply not stamped. */
#include <stdio.h>

#include "check.h"
#include "flux/internal.h"
#include "flux/sha256.h"
#include "util/arena.h"

static const char *digest_of(arena *a, const char *text)
{
    sha256_ctx c;
    char hex[65];
    sha256_init(&c);
    sha256_update(&c, text, strlen(text));
    sha256_hex(&c, hex);
    return arena_printf(a, "sha256:%s", hex);
}

#define LAYER "\"layers\":[{\"mediaType\":\"application/vnd.cncf.helm.chart.content.v1.tar+gzip\",\"digest\":\"sha256:" \
              "72e85628ae7c3178eceb728e57b0bacf3f1249405ee231ef96baf1b59535ba92\",\"size\":262}]"

/* the manifest text with its own digest: 0, or -1 with *problem */
static int parse(arena *a, strtab *st, const char *text, flux_oci_meta *m, const char **problem)
{
    *problem = flux_oci_manifest(a, st, NULL, text, strlen(text), digest_of(a, text), m);
    return *problem ? -1 : 0;
}

TEST(flux_oci_manifest_annotations)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    flux_oci_meta m;
    const char *why;
    /* helm push's manifest (helm 3.17, Chart.yaml with sources and a revision annotation) */
    const char *helm = "{\"schemaVersion\":2,\"config\":{\"mediaType\":\"application/vnd.cncf.helm.config.v1+json\","
                       "\"digest\":\"sha256:5cd6ef1cddb9930da3c1a48c69b88c41352c22101d2f26fe86ddd7d878c94e56\","
                       "\"size\":157}," LAYER ",\"annotations\":{\"org.opencontainers.image.created\":"
                       "\"2026-11-28T20:51:21Z\",\"org.opencontainers.image.revision\":\"main@sha1:abc\","
                       "\"org.opencontainers.image.source\":\"https://example.com/src\","
                       "\"org.opencontainers.image.title\":\"demo\",\"org.opencontainers.image.version\":\"1.2.0\"}}";
    CHECK(parse(a, st, helm, &m, &why) == 0);
    CHECK_STR(m.chart_layer, "sha256:72e85628ae7c3178eceb728e57b0bacf3f1249405ee231ef96baf1b59535ba92");
    CHECK_STR(m.source, "https://example.com/src");
    CHECK_STR(m.revision, "main@sha1:abc");
    CHECK_STR(m.created, "2026-11-28T20:51:21Z");
    /* absent: not stamped */
    CHECK(parse(a, st, "{\"schemaVersion\":2," LAYER "}", &m, &why) == 0);
    CHECK(!m.source && !m.revision && !m.created);
    /* the legacy layer type helm still reads */
    CHECK(parse(a, st, "{\"layers\":[{\"mediaType\":\"application/tar+gzip\",\"digest\":\"sha256:"
                   "72e85628ae7c3178eceb728e57b0bacf3f1249405ee231ef96baf1b59535ba92\"}]}",
                &m, &why) == 0);
    /* the first chart layer that has a digest: one without is passed over, a later one with a digest not taken */
    CHECK(parse(a, st, "{\"layers\":[{\"mediaType\":\"application/tar+gzip\"},{\"mediaType\":\"application/tar+gzip\","
                       "\"digest\":\"sha256:72e85628ae7c3178eceb728e57b0bacf3f1249405ee231ef96baf1b59535ba92\"},"
                       "{\"mediaType\":\"application/tar+gzip\",\"digest\":\"sha256:"
                       "1111111111111111111111111111111111111111111111111111111111111111\"}]}",
                &m, &why) == 0);
    CHECK_STR(m.chart_layer, "sha256:72e85628ae7c3178eceb728e57b0bacf3f1249405ee231ef96baf1b59535ba92");
    strtab_release(st);
    arena_free(a);
}

TEST(flux_oci_manifest_refused)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    flux_oci_meta m;
    const char *why;
    /* not the manifest the digest names */
    const char *text = "{\"schemaVersion\":2," LAYER "}";
    CHECK((why = flux_oci_manifest(a, st, NULL, text, strlen(text), digest_of(a, "{}"), &m)) != NULL);
    CHECK(strstr(why, "its SHA-256 is sha256:") && strstr(why, ", not sha256:44136fa3"));
    /* no chart layer */
    CHECK(parse(a, st, "{\"layers\":[{\"mediaType\":\"application/octet-stream\",\"digest\":\"sha256:"
                   "72e85628ae7c3178eceb728e57b0bacf3f1249405ee231ef96baf1b59535ba92\"}]}",
                &m, &why) < 0);
    CHECK_STR(why, "it has no chart layer with a sha256 digest");
    CHECK(parse(a, st, "[1]", &m, &why) < 0);
    CHECK_STR(why, "it is not a JSON object");
    /* annotations that are not text: an escaped ESC, a raw one (as helm push writes it), a number, too long */
    CHECK(parse(a, st, "{" LAYER ",\"annotations\":{\"org.opencontainers.image.source\":\"https://x\\u001b[31m\"}}", &m,
                &why) < 0);
    CHECK(strstr(why, "its annotation org.opencontainers.image.source is not printable text: https://x\\x1b[31m"));
    CHECK(parse(a, st, "{" LAYER ",\"annotations\":{\"org.opencontainers.image.source\":\"https://x\x1b[31m\"}}", &m,
                &why) < 0);
    CHECK(parse(a, st, "{" LAYER ",\"annotations\":{\"org.opencontainers.image.revision\":12}}", &m, &why) < 0);
    CHECK_STR(why, "its annotation org.opencontainers.image.revision is not a string");
    char long_text[1400];
    snprintf(long_text, sizeof long_text, "{" LAYER ",\"annotations\":{\"org.opencontainers.image.created\":\"%01025d\"}}",
             0);
    CHECK(parse(a, st, long_text, &m, &why) < 0);
    CHECK_STR(why, "its annotation org.opencontainers.image.created is longer than 1024 bytes");
    strtab_release(st);
    arena_free(a);
}
