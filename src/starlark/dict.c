/* Dicts and sets: entries in insertion order (what iteration and repr show), found through an open-addressing index
 * over their hashes. Hashes are keyed per process (value.c), so no script can pick keys that all land in one probe
 * chain. Deleted entries leave a hole that the next growth compacts. */
#include "starlark/internal.h"

sl_val mk_dict(sl_vm *vm, int type)
{
    sl_dict_o *d = vm_alloc(vm, sizeof *d);
    d->h.type = (uint8_t)type;
    return (sl_val)d;
}

static void reindex(sl_vm *vm, sl_dict_o *d, uint32_t cap);

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
    uint32_t h = vm_hash(vm, k);
    if (!d->len)
        return NULL;
    if (!d->idx) { /* small: a scan */
        for (size_t i = 0; i < d->n; i++)
            if (d->e[i].k && d->e[i].hash == h && vm_equal(vm, d->e[i].k, k))
                return &d->e[i];
        return NULL;
    }
    uint32_t m = d->idxcap - 1, p = h & m;
    for (;;) {
        int32_t i = d->idx[p];
        if (i == -1)
            return NULL;
        sl_entry *e = &d->e[i];
        if (e->k && e->hash == h && vm_equal(vm, e->k, k))
            return e;
        p = (p + 1) & m;
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
        uint32_t m = d->idxcap - 1, p = h & m;
        while (d->idx[p] >= 0)
            p = (p + 1) & m;
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
