#include "settings/app_meta.h"

#include <stdbool.h>
#include <string.h>

#include "settings/value_rules.h"
#include "util/diag.h"
#include "util/fsutil.h"

int meta_value_check(const char *file, const char *what, const char *value)
{
    if (!value)
        return 0;
    size_t n = strlen(value), bad = printable_check(value, n);
    if (bad == n)
        return 0;
    /* the value itself is not shown: a repository URL or a revision may carry a secret */
    bool utf8 = utf8_check((const unsigned char *)value, n) == n;
    return fail(file, 0, "%s %s at byte %zu; Argo CD metadata is stamped on every object and must be printable "
                "text on one line (the value is not shown)",
                what, utf8 ? "holds a control character or a line break" : "is not valid UTF-8", bad);
}

int check_annotation_domain(const char *d)
{
    const char *why = dns_subdomain_rule(d);
    if (!why)
        return 0;
    char cut[SHOWN_MAX * 6 + 4];
    return fail(NULL, 0, "parameter \"annotation-domain\": \"%s\" is not a DNS subdomain, which the keys <domain>/app, "
                         "... need: %s",
                shown_in(cut, sizeof cut, d, SHOWN_MAX), why);
}
