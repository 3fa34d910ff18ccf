/* A map with several duplicated keys names the first repeat in document order, at its line (the key's second
 * occurrence), in small maps (compared pairwise) and large ones (sorted) alike: the message does not depend on
 * where the key texts happen to sit in memory. */
#include "check.h"
#include "util/buf.h"
#include "util/diag.h"
#include "yaml/load.h"

/* The loader's message for text, read with a fresh string table (so that which key text was interned first is
 * up to this text alone). */
static const char *message(const char *text)
{
    arena *a = arena_new();
    strtab *st = strtab_new(a);
    node *n = NULL;
    diag_reset();
    int rc = yaml_load_one(a, st, NULL, "dup.yaml", text, strlen(text), &n);
    static char msg[512];
    snprintf(msg, sizeof msg, "%s", rc < 0 ? diag_message() : "(loaded)");
    strtab_release(st);
    arena_free(a);
    diag_reset();
    return msg;
}

/* first: the key interned first (line 1) and repeated last; second: interned on line 2, repeated first */
static const char *large(const char *first, const char *second, int fillers, bool second_repeats_first)
{
    static buf b;
    b.len = 0;
    buf_printf(&b, "%s: 1\n%s: 1\n", first, second);
    for (int i = 0; i < fillers; i++)
        buf_printf(&b, "filler%d: x\n", i);
    if (second_repeats_first)
        buf_printf(&b, "%s: 2\n%s: 2\n", second, first);
    else
        buf_printf(&b, "%s: 2\n%s: 2\n", first, second);
    return buf_cstr(&b);
}

TEST(duplicate_keys_large_map_names_the_first_repeat)
{
    /* 20 keys: "beta" repeats on line 21, before "alpha" does on line 22 */
    CHECK_STR(message(large("alpha", "beta", 18, true)), "dup.yaml:21: duplicate key \"beta\"");
    CHECK_STR(message(large("alpha", "beta", 18, false)), "dup.yaml:21: duplicate key \"alpha\"");
    CHECK_STR(message(large("beta", "alpha", 18, true)), "dup.yaml:21: duplicate key \"alpha\"");
    CHECK_STR(message(large("beta", "alpha", 18, false)), "dup.yaml:21: duplicate key \"beta\"");
    /* many keys, the same */
    CHECK_STR(message(large("alpha", "beta", 500, true)), "dup.yaml:503: duplicate key \"beta\"");
}

TEST(duplicate_keys_small_map_names_the_first_repeat)
{
    CHECK_STR(message(large("alpha", "beta", 4, true)), "dup.yaml:7: duplicate key \"beta\"");
    CHECK_STR(message(large("alpha", "beta", 4, false)), "dup.yaml:7: duplicate key \"alpha\"");
}

TEST(duplicate_key_three_times_names_the_second)
{
    CHECK_STR(message("a: 1\nb: 1\na: 2\na: 3\n"), "dup.yaml:3: duplicate key \"a\"");
    buf b = {0};
    for (int i = 0; i < 30; i++)
        buf_printf(&b, "k%d: v\n", i);
    buf_puts(&b, "k7: again\nk3: again\nk7: thrice\n");
    CHECK_STR(message(buf_cstr(&b)), "dup.yaml:31: duplicate key \"k7\"");
    buf_free(&b);
}
