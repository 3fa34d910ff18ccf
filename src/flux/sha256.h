/* SHA-256 (FIPS 180-4), for what Flux hashes: helm-controller's shortened release names (the first 12 hex digits
 * of the name's digest) and the digest of a chart archive stamped on its objects. */
#ifndef CMP_FLUX_SHA256_H
#define CMP_FLUX_SHA256_H
#include <stddef.h>
#include <stdint.h>

typedef struct sha256_ctx {
    uint32_t h[8];
    uint64_t len; /* bytes hashed so far */
    unsigned char block[64];
    size_t used; /* bytes waiting in block */
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t n);
/* The digest as 64 lower-case hex digits and a NUL. */
void sha256_hex(sha256_ctx *c, char out[65]);
#endif
