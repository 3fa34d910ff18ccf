/* cli-utils' Graph.Sort, as kpt live apply orders a package: take every vertex with no remaining dependency as one
 * set, remove it, repeat. Each vertex lands in the round that equals the longest dependency path below it, so the
 * rounds are computed here in one Kahn pass over the dependents (O(n + m)) instead of round by round (which is
 * O(n * layers) over an edge list). */
#include "order/order.h"

#include <string.h>

#include "util/arena.h"

int order_layers(size_t n, size_t m, const uint32_t *from, const uint32_t *to, const uint8_t *zero_weight,
                 uint32_t *layer, uint32_t **cycle, size_t *cycle_len)
{
    *cycle = NULL;
    *cycle_len = 0;
    /* dependents of each node, as CSR: start[v]..start[v+1] in dependents[] */
    size_t *start = xcalloc(n + 1, sizeof *start);
    uint32_t *dependents = xmalloc((m ? m : 1) * sizeof *dependents);
    uint32_t *pending = xcalloc(n ? n : 1, sizeof *pending); /* dependencies not yet placed */
    uint32_t *queue = xmalloc((n ? n : 1) * sizeof *queue);
    for (size_t i = 0; i < m; i++) {
        start[to[i] + 1]++;
        pending[from[i]]++;
    }
    for (size_t v = 0; v < n; v++)
        start[v + 1] += start[v];
    size_t *fill = xmalloc((n ? n : 1) * sizeof *fill);
    memcpy(fill, start, n * sizeof *fill);
    for (size_t i = 0; i < m; i++)
        dependents[fill[to[i]]++] = from[i];
    xfree(fill);
    size_t head = 0, tail = 0;
    for (size_t v = 0; v < n; v++) {
        layer[v] = 0;
        if (!pending[v])
            queue[tail++] = (uint32_t)v;
    }
    while (head < tail) {
        uint32_t d = queue[head++];
        for (size_t k = start[d]; k < start[d + 1]; k++) {
            uint32_t x = dependents[k];
            uint32_t l = layer[d] + (zero_weight && zero_weight[x] ? 0 : 1);
            if (l > layer[x])
                layer[x] = l;
            if (--pending[x] == 0)
                queue[tail++] = x;
        }
    }
    int rc = 0;
    if (tail < n) {
        /* Every node left has a dependency left: walking from one along such dependencies must come back to a node
         * already on the walk, and the walk from there is a cycle. */
        uint32_t *from_of = xmalloc(n * sizeof *from_of); /* one remaining dependency per remaining node */
        for (size_t v = 0; v < n; v++)
            from_of[v] = UINT32_MAX;
        for (size_t i = 0; i < m; i++)
            if (pending[from[i]] && pending[to[i]] && from_of[from[i]] == UINT32_MAX)
                from_of[from[i]] = to[i];
        uint32_t *seen = xcalloc(n, sizeof *seen); /* position on the walk + 1 */
        uint32_t v = 0;
        while (!pending[v])
            v++;
        uint32_t *walk = queue; /* placed nodes are no longer needed */
        size_t len = 0;
        while (!seen[v]) {
            seen[v] = (uint32_t)len + 1;
            walk[len++] = v;
            v = from_of[v];
        }
        size_t first = seen[v] - 1;
        *cycle_len = len - first;
        *cycle = xmalloc(*cycle_len * sizeof **cycle);
        memcpy(*cycle, walk + first, *cycle_len * sizeof **cycle);
        xfree(seen);
        xfree(from_of);
        rc = -1;
    }
    xfree(start);
    xfree(dependents);
    xfree(pending);
    xfree(queue);
    return rc;
}
