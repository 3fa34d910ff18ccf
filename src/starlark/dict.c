/* Dicts and sets: entries in insertion order (what iteration and repr show), found through an open-addressing index
 * over their hashes. Deleted entries leave a hole that the next growth compacts.
 *
 * Hashes are keyed (value.c, SipHash). The VM starts from the seed sl_new was given, fixed, so that a script's work
 * is the same on every run (make bench compares instruction counts); a script that knows that seed could pick keys
 * that all land in one probe chain and make every operation walk it. The first probe past DICT_PROBE_LIMIT slots
 * (never by chance: the index is at most half full) draws a secret seed, once per VM: the dict at hand is rehashed
 * at once, every other one when it is next used (its epoch is older than the VM's), strings' cached hashes when next
 * asked for. Nothing a script sees depends on the hashes (iteration is in insertion order). */
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "starlark/internal.h"

enum { DICT_PROBE_LIMIT = 48 };

sl_val mk_dict(sl_vm *vm, int type)
{
    sl_dict_o *d = vm_alloc(vm, sizeof *d);
    d->h.type = (uint8_t)type;
    d->epoch = vm->epoch;
    return (sl_val)d;
}

static void reindex(sl_vm *vm, sl_dict_o *d, uint32_t cap);

/* The secret seed: the same for every VM of the process, so that a string hashed by one is right for another. */
static uint64_t secret_seed(void)
{
    static uint64_t seed;
    static bool drawn;
    if (!drawn) {
        if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed) {
            struct timespec ts; /* no entropy yet (early boot): ASLR and the clock are still unknown to a script */
            clock_gettime(CLOCK_MONOTONIC, &ts);
            seed = (uint64_t)(uintptr_t)&seed ^ (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
        }
        drawn = true;
    }
    return seed;
}

bool sl_reseeded(const sl_vm *vm)
{
    return vm->epoch != 0;
}

/* d's hashes and index under the VM's seed now */
static void rehash(sl_vm *vm, sl_dict_o *d)
{
    d->epoch = vm->epoch;
    for (size_t i = 0; i < d->n; i++)
        if (d->e[i].k)
            d->e[i].hash = vm_hash(vm, d->e[i].k);
    if (d->idx)
        reindex(vm, d, d->idxcap);
}

static inline void current(sl_vm *vm, sl_dict_o *d)
{
    if (d->epoch != vm->epoch)
        rehash(vm, d);
}

/* A probe ran past DICT_PROBE_LIMIT: the keys were chosen against the fixed seed. The secret one from now on; once
 * only (a second long run is chance, and a new seed stops nothing then). */
static bool reseed(sl_vm *vm, sl_dict_o *d)
{
    if (vm->epoch)
        return false;
    vm->seed = secret_seed();
    vm->epoch = 1;
    rehash(vm, d);
    return true;
}

/* a dict with room for n entries: a host converting a map of n keys (most of a resource's maps have one to three)
 * spares the 8 entries a dict otherwise starts with, and the copies of its growth; as after growth, more than 8
 * entries come with their index */
sl_val sl_dict_sized(sl_vm *vm, size_t n)
{
    sl_val dv = mk_dict(vm, SL_DICT);
    if (!n)
        return dv;
    vm_check_len(vm, n, "a dict");
    sl_dict_o *d = AS(sl_dict_o, dv);
    d->e = vm_alloc_raw(vm, n * sizeof *d->e);
    d->cap = n;
    if (n > 8) {
        uint32_t ic = 16;
        while (ic < n * 2)
            ic *= 2;
        reindex(vm, d, ic);
    }
    return dv;
}

static void reindex(sl_vm *vm, sl_dict_o *d, uint32_t cap)
{
    if (!d->idx || d->idxcap != cap) /* a rehash keeps the index it has */
        d->idx = vm_alloc_raw(vm, (size_t)cap * sizeof(int32_t));
    memset(d->idx, 0xff, (size_t)cap * sizeof(int32_t));
    d->idxcap = cap;
    for (size_t i = 0; i < d->n; i++) {
        if (!d->e[i].k)
            continue;
        uint32_t m = cap - 1, p = d->e[i].hash & m;
        while (d->idx[p] >= 0)
            p = (p + 1) & m;
        d->idx[p] = (int32_t)i;
    }
}

sl_entry *dict_find(sl_vm *vm, sl_val dv, sl_val k)
{
    sl_dict_o *d = AS(sl_dict_o, dv);
    current(vm, d);
    uint32_t h = vm_hash(vm, k);
    if (!d->len)
        return NULL;
    if (!d->idx) { /* small: a scan */
        for (size_t i = 0; i < d->n; i++)
            if (d->e[i].k && d->e[i].hash == h && vm_equal(vm, d->e[i].k, k))
                return &d->e[i];
        return NULL;
    }
    uint32_t m = d->idxcap - 1, p = h & m, probes = 0;
    for (;;) {
        int32_t i = d->idx[p];
        if (i == -1)
            return NULL;
        sl_entry *e = &d->e[i];
        if (e->k && e->hash == h && vm_equal(vm, e->k, k))
            return e;
        p = (p + 1) & m;
        if (++probes == DICT_PROBE_LIMIT && reseed(vm, d))
            return dict_find(vm, dv, k);
    }
}

void dict_put(sl_vm *vm, sl_val dv, sl_val k, sl_val v)
{
    sl_dict_o *d = AS(sl_dict_o, dv);
    sl_entry *e = dict_find(vm, dv, k);
    if (e) {
        e->v = v;
        return;
    }
    vm_check_len(vm, d->len + 1, TYPE(dv) == SL_SET ? "a set" : "a dict");
    uint32_t h = vm_hash(vm, k);
    if (d->n == d->cap) {
        size_t cap = d->len * 2 < 8 ? 8 : d->len * 2;
        sl_entry *ne = vm_alloc_raw(vm, cap * sizeof *ne);
        size_t j = 0;
        for (size_t i = 0; i < d->n; i++)
            if (d->e[i].k)
                ne[j++] = d->e[i];
        d->e = ne;
        d->n = j;
        d->cap = cap;
        if (cap > 8) {
            uint32_t ic = 16;
            while (ic < cap * 2)
                ic *= 2;
            reindex(vm, d, ic);
        } else
            d->idx = NULL;
    }
    size_t i = d->n++;
    d->e[i].k = k;
    d->e[i].v = v;
    d->e[i].hash = h;
    d->len++;
    if (d->idx) {
        uint32_t m = d->idxcap - 1, p = h & m, probes = 0;
        while (d->idx[p] >= 0) {
            p = (p + 1) & m;
            if (++probes == DICT_PROBE_LIMIT && reseed(vm, d))
                return; /* the new entry is in: the rehash indexed it */
        }
        d->idx[p] = (int32_t)i;
    }
}

bool dict_del(sl_vm *vm, sl_val dv, sl_val k, sl_val *old)
{
    sl_dict_o *d = AS(sl_dict_o, dv);
    sl_entry *e = dict_find(vm, dv, k);
    if (!e)
        return false;
    if (old)
        *old = e->v;
    e->k = NULL; /* the index slot stays, pointing at a hole: probes go past it */
    e->v = NULL;
    d->len--;
    /* trailing holes can go at once, so a dict used as a stack does not grow */
    while (d->n && !d->e[d->n - 1].k && !d->idx)
        d->n--;
    if (d->len == 0) {
        d->n = 0;
        if (d->idx)
            memset(d->idx, 0xff, (size_t)d->idxcap * sizeof(int32_t));
    }
    return true;
}

void dict_clear(sl_vm *vm, sl_val dv)
{
    (void)vm;
    sl_dict_o *d = AS(sl_dict_o, dv);
    d->n = d->len = 0;
    if (d->idx)
        memset(d->idx, 0xff, (size_t)d->idxcap * sizeof(int32_t));
}
