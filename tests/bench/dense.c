/* dense: write the dense benchmark package (issue #32): many small objects, where per-object costs dominate.
 *
 *   dense DIR N              N triplets (Deployment app-I, Service app-I, ConfigMap cfg-I: 3N objects, about 680
 *                            bytes a triplet) and a Kptfile running set-labels, set-annotations, set-namespace and
 *                            set-image, as the shared dense_package.py does (the same resources, byte for byte)
 *   dense DIR N --fn NAME    the same resources and a Kptfile with the one step NAME and a config that makes it
 *                            touch every object (upsert-resource and apply-replacements get a config file): the
 *                            per-function linearity rows of make bench
 *   dense --list             the NAMEs --fn knows, one a line
 *
 * Everything is derived from I: the output depends only on N and NAME. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One step: its Kptfile lines after "- image: NAME" (indented for the mutators list), and a config file if any. */
struct fn {
    const char *name;
    const char *step;        /* NULL: no config */
    const char *config_file; /* "name\ncontent" of a file the step's configPath names, or NULL */
};

static const struct fn fns[] = {
    {"set-labels", "      configMap:\n        env: prod\n", NULL},
    {"set-annotations", "      configMap:\n        team: platform\n", NULL},
    {"set-namespace", "      configMap:\n        namespace: prod\n", NULL},
    {"set-image", "      configMap:\n        name: nginx\n        newTag: \"1.27\"\n", NULL},
    {"apply-setters", "      configMap:\n        replicas: \"3\"\n", NULL},
    {"create-setters", "      configMap:\n        image: nginx\n", NULL},
    {"list-setters", NULL, NULL},
    {"search-replace", "      configMap:\n        by-value: nginx:1.25\n        put-value: nginx:1.27\n", NULL},
    {"ensure-name-substring", "      configMap:\n        prepend: dev-\n", NULL},
    {"set-name-prefix", "      configMap:\n        prefix: bench\n        oldPrefix: app\n", NULL},
    {"delete-annotations", "      configMap:\n        annotationKeys: team\n", NULL},
    {"set-enforcement-action", "      configMap:\n        enforcementAction: dryrun\n", NULL},
    {"remove-local-config-resources", NULL, NULL},
    {"drop-comments", NULL, NULL},
    {"format", NULL, NULL},
    {"no-op", NULL, NULL},
    {"upsert-resource", "      configPath: upsert.yaml\n",
     "upsert.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg-1\n  annotations:\n"
     "    config.kubernetes.io/local-config: \"true\"\ndata:\n  KEY: upserted\n"},
    {"apply-replacements", "      configPath: replacements.yaml\n",
     "replacements.yaml\napiVersion: fn.kpt.dev/v1alpha1\nkind: ApplyReplacements\nmetadata:\n  name: r\n"
     "  annotations:\n    config.kubernetes.io/local-config: \"true\"\nreplacements:\n"
     "  - source:\n      kind: ConfigMap\n      name: cfg-0\n      fieldPath: data.KEY\n"
     "    targets:\n      - select:\n          kind: Deployment\n"
     "        fieldPaths:\n          - spec.template.metadata.labels.key\n        options:\n          create: true\n"},
    {"starlark", "      configPath: star.yaml\n",
     "star.yaml\napiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: s\n  annotations:\n"
     "    config.kubernetes.io/local-config: \"true\"\nsource: |\n  for r in ctx.resource_list[\"items\"]:\n"
     "      r[\"metadata\"].setdefault(\"annotations\", {})[\"seen\"] = \"yes\"\n"},
};
#define NFNS (sizeof fns / sizeof fns[0])

static void die(const char *what, const char *path)
{
    fprintf(stderr, "dense: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static FILE *open_in(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write", path);
    return f;
}

static void close_file(FILE *f, const char *name)
{
    if (ferror(f) || fclose(f) != 0)
        die("cannot write", name);
}

static void resources(const char *dir, long n)
{
    FILE *f = open_in(dir, "resources.yaml");
    for (long i = 0; i < n; i++)
        fprintf(f,
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-%ld\n  labels:\n    app: app-%ld\n"
                "spec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: app-%ld\n  template:\n"
                "    metadata:\n      labels:\n        app: app-%ld\n    spec:\n      containers:\n"
                "        - name: main\n          image: nginx:1.25\n          ports:\n"
                "            - containerPort: 8080\n          envFrom:\n            - configMapRef:\n"
                "                name: cfg-%ld\n---\n"
                "apiVersion: v1\nkind: Service\nmetadata:\n  name: app-%ld\nspec:\n  selector:\n    app: app-%ld\n"
                "  ports:\n    - port: 80\n      targetPort: 8080\n---\n"
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg-%ld\ndata:\n  KEY: value-%ld\n"
                "  OTHER: \"some text %ld\"\n---\n",
                i, i, i, i, i, i, i, i, i, i);
    close_file(f, "resources.yaml");
}

static void kptfile_head(FILE *f)
{
    fputs("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: bench\n  annotations:\n"
          "    config.kubernetes.io/local-config: \"true\"\npipeline:\n  mutators:\n",
          f);
}

static void step(FILE *f, const struct fn *fn)
{
    fprintf(f, "    - image: %s\n%s", fn->name, fn->step ? fn->step : "");
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (size_t i = 0; i < NFNS; i++)
            puts(fns[i].name);
        return 0;
    }
    if (argc != 3 && !(argc == 5 && !strcmp(argv[3], "--fn"))) {
        fprintf(stderr, "usage: dense DIR N [--fn NAME] | dense --list\n");
        return 2;
    }
    const char *dir = argv[1];
    char *end;
    long n = strtol(argv[2], &end, 10);
    if (*end || n < 1) {
        fprintf(stderr, "dense: N must be a positive number\n");
        return 2;
    }
    const struct fn *one = NULL;
    if (argc == 5) {
        for (size_t i = 0; i < NFNS && !one; i++)
            if (!strcmp(fns[i].name, argv[4]))
                one = &fns[i];
        if (!one) {
            fprintf(stderr, "dense: no function %s (dense --list)\n", argv[4]);
            return 2;
        }
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        die("cannot create", dir);
    resources(dir, n);
    FILE *k = open_in(dir, "Kptfile");
    kptfile_head(k);
    if (one) {
        step(k, one);
        if (one->config_file) {
            const char *nl = strchr(one->config_file, '\n');
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(nl - one->config_file), one->config_file);
            FILE *c = open_in(dir, name);
            fputs(nl + 1, c);
            close_file(c, name);
        }
    } else {
        for (size_t i = 0; i < 4; i++)
            step(k, &fns[i]);
    }
    close_file(k, "Kptfile");
    return 0;
}
