# Attack: burn the sidecar's CPU with a small file. Keys and short values are interned in one open-addressing
# table; its hash's rounds are public and invertible, so with a fixed starting value the author can compute, offline,
# 200,000 distinct 16-character values whose slots all fall in the first 2,048 of the table. Each insert then probes
# past all the others: work quadratic in a 4 MB file (45 s of CPU, the whole render budget, where 0.6 s is normal).
# Defence: the table starts from a fixed, published seed (so that a render's work is the same on every run), and
# the first probe past PROBE_LIMIT slots draws a secret seed and rehashes (src/yaml/tree.c strtab_reseed): values
# computed against the published start collide only until then, and are as good as random ones after.
# The values are found here by brute force against the hash with that fixed start, FIXED_SEED (each takes ~250
# tries; a C helper finds all of them in a second or two). The render must finish well inside a budget
# that the unseeded table overran 2 to 3 times over: no timed benchmark, a 10x margin for a loaded machine and ASan.

cat >"$tmp/collide.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* the interning hash from its fixed start (src/yaml/tree.c hash_bytes with FIXED_SEED; 16 bytes leave no tail) */
static uint64_t unseeded(const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ 0x2545f4914f6cdd1dull ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
        s += 8;
        n -= 8;
    }
    h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull;
    h = (h ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}
int main(int argc, char **argv)
{
    long want = atol(argv[1]), got = 0;
    uint64_t x = 88172645463325252ull;
    char s[17] = {0};
    static const char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz01";
    while (got < want) {
        for (int i = 1; i < 16; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            s[i] = alnum[x & 63];
        }
        s[0] = 'k'; /* never a number, a boolean or null */
        /* the table holds 200,000 texts in 2^19 slots: the low 19 bits pick the slot; keep the first 2,048 */
        if ((unseeded(s, 16) & ((1u << 19) - 1)) < 2048)
            printf("    - %s\n", s), got++;
    }
    return 0;
}
EOF
newpkg
if ! cc -O2 -o "$tmp/collide" "$tmp/collide.c" 2>"$tmp/cc.err"; then
  echo "FAIL hash-flooding-setup: cannot build the generator: $(head -c 300 "$tmp/cc.err")"
else
  { printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flood\nspec:\n  values:\n'; "$tmp/collide" 200000; } \
    >"$pkg/flood.yaml"
  CASE_ENV="ARGOCD_APP_NAME=attack ARGOCD_APP_SOURCE_PATH=app TIMEOUT=12" check hash-flooding-interned-values 0 \
    '^    - k[a-z0-9]{15}$'
  if [ "$(grep -c '^    - k' "$out")" != 200000 ]; then echo "FAIL hash-flooding-every-value-kept: $(grep -c '^    - k' "$out") of 200000"
  else echo "PASS hash-flooding-every-value-kept"; fi
fi
