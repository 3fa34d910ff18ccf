/* The Go types helm reads its chart files into (pkg/chart: Metadata, Maintainer, Dependency, Lock), as
 * encoding/json sees them through sigs.k8s.io/yaml.Unmarshal: folded keys fill fields, unknown names are ignored.
 * Chart.yaml and requirements.yaml are both decoded into chart.Metadata (helm v3 reads a requirements.yaml's
 * dependencies, or any other Metadata field it holds, over Chart.yaml's); Chart.lock and requirements.lock into
 * chart.Lock.
 *
 * They follow helm v3.17.3 (`helm version`), and were checked against it: tests/security/cases/
 * decode-differential.sh gives each field a value of the wrong type and watches the real helm fail to load the file
 * (a name it does not know is ignored). Dependency.export-values is newer than v3.17 and not here.
 *
 * After decoding, helm's Metadata.Validate runs sanitizeString over a dependency's name, version, repository,
 * condition and tags (GO_SANITIZED): Unicode spaces become ' ' and non-printable runes are dropped, so a
 * "file://.<U+200B>./" repository is checked as a directory named ".<U+200B>." and used as "..". Of these files our
 * checks read only the dependencies; every other field is GO_UNREAD. */
#include <string.h>

#include "decode/decode.h"

#define END {NULL, NULL, 0}

static const go_field maintainer_fields[] = {{"name", NULL, GO_UNREAD}, {"email", NULL, GO_UNREAD},
                                             {"url", NULL, GO_UNREAD}, END};
static const go_struct maintainer = {"chart.Maintainer", maintainer_fields};

static const go_field dependency_fields[] = {
    {"name", NULL, GO_SANITIZED},
    {"version", NULL, GO_SANITIZED},
    {"repository", NULL, GO_SANITIZED},
    {"condition", NULL, GO_SANITIZED},
    {"tags", NULL, GO_LIST | GO_SANITIZED},
    {"enabled", NULL, GO_UNREAD},
    {"import-values", NULL, GO_LIST | GO_DATA | GO_UNREAD},
    {"alias", NULL, GO_UNREAD},
    END,
};
static const go_struct dependency = {"chart.Dependency", dependency_fields};

static const go_field metadata_fields[] = {
    {"name", NULL, GO_UNREAD},
    {"home", NULL, GO_UNREAD},
    {"sources", NULL, GO_LIST | GO_UNREAD},
    {"version", NULL, GO_UNREAD},
    {"description", NULL, GO_UNREAD},
    {"keywords", NULL, GO_LIST | GO_UNREAD},
    {"maintainers", &maintainer, GO_LIST | GO_UNREAD},
    {"icon", NULL, GO_UNREAD},
    {"apiVersion", NULL, GO_UNREAD},
    {"condition", NULL, GO_UNREAD},
    {"tags", NULL, GO_UNREAD},
    {"appVersion", NULL, GO_UNREAD},
    {"deprecated", NULL, GO_UNREAD},
    {"annotations", NULL, GO_DATA | GO_UNREAD},
    {"kubeVersion", NULL, GO_UNREAD},
    {"dependencies", &dependency, GO_LIST},
    {"type", NULL, GO_UNREAD},
    END,
};
const go_struct go_helm_metadata = {"chart.Metadata", metadata_fields};

static const go_field lock_fields[] = {
    {"generated", NULL, GO_UNREAD}, {"digest", NULL, GO_UNREAD}, {"dependencies", &dependency, GO_LIST}, END,
};
const go_struct go_helm_lock = {"chart.Lock", lock_fields};

const go_struct *go_helm_chart_file(const char *base_name)
{
    if (!strcmp(base_name, "Chart.yaml") || !strcmp(base_name, "requirements.yaml"))
        return &go_helm_metadata;
    if (!strcmp(base_name, "Chart.lock") || !strcmp(base_name, "requirements.lock"))
        return &go_helm_lock;
    return NULL;
}
