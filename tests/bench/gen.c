/* gen: write a synthetic kpt package for the cmp-generate benchmark.
 *
 *   gen N DIR [--kustomize] [--fn-configs FCDIR] [--steps K] [--depends-on]
 *
 * Without --kustomize, DIR gets Kptfile, replacements.yaml and resources.yaml (N objects in one
 * multi-document file). With --kustomize, DIR gets the same resources.yaml plus a kustomization.yaml
 * that asks kustomize for the same transformations. With --fn-configs FCDIR, FCDIR gets one
 * functionConfig file per pipeline step (what kpt would put in the ResourceList's functionConfig)
 * plus FCDIR/steps, one "NAME FILE" line per step, for the exec-chain measurement. --steps K keeps the first K
 * steps of the pipeline (default all 6; 4 is set-labels, set-annotations, set-namespace, set-image) in the Kptfile
 * and the functionConfigs; the kustomization always does all six.
 *
 * Objects come in groups of three, in this order: ConfigMap app-G-config, Deployment app-G (reads
 * two keys of that ConfigMap through configMapKeyRef), Service app-G (selects the Deployment's
 * pods). Object k belongs to group k/3, so there are exactly N objects. All variation is derived
 * from the group number: the output depends only on N.
 *
 * --depends-on adds kpt's config.kubernetes.io/depends-on in chains (the ordering benchmark): each Deployment on its
 * ConfigMap, each Service on its Deployment, and each ConfigMap on the Service of the group before it, ten groups
 * to a chain: 30 layers, every reference in namespace bench (the pipeline's set-namespace).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

/* One pipeline step: the catalog image, then either configMap pairs or a configPath. */
struct step {
    const char *name;
    const char *tag;
    const char *kv[8]; /* key, value, key, value, ..., NULL */
    const char *config_path;
};

static const struct step steps[] = {
    {"set-labels", "v0.2.0", {"env", "bench", "team", "core", NULL}, NULL},
    {"set-annotations", "v0.1.4", {"owner", "platform", NULL}, NULL},
    {"set-namespace", "v0.4.1", {"namespace", "bench", NULL}, NULL},
    {"set-image", "v0.1.1", {"name", "nginx", "newName", "registry.local/nginx", "newTag", "1.27", NULL}, NULL},
    {"apply-replacements", "v0.1.1", {NULL}, "replacements.yaml"},
    {"search-replace", "v0.2.0", {"by-path", "spec.replicas", "put-value", "2", NULL}, NULL},
};
#define NSTEPS (sizeof steps / sizeof steps[0])
static size_t nsteps = NSTEPS; /* --steps */
static bool depends_on;       /* --depends-on */

/* "  annotations:\n    config.kubernetes.io/depends-on: REF\n" under metadata, when --depends-on: the object
 * app-G<suffix> of kind group/Kind */
static void write_depends_on(FILE *f, const char *group, const char *kind, unsigned long g, const char *suffix)
{
    if (depends_on)
        fprintf(f, "  annotations:\n    config.kubernetes.io/depends-on: %s/namespaces/bench/%s/app-%05lu%s\n", group,
                kind, g, suffix);
}

static const char *const tiers[] = {"frontend", "backend", "worker"};
static const char *const levels[] = {"info", "debug", "warn", "error"};

static void die(const char *what, const char *path)
{
    fprintf(stderr, "gen: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static void ensure_dir(const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        die("mkdir", dir);
}

static FILE *open_out(const char *dir, const char *name)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        die("open", name);
    }
    FILE *f = fopen(path, "w");
    if (!f)
        die("open", path);
    setvbuf(f, NULL, _IOFBF, 1 << 16);
    return f;
}

static void close_out(FILE *f, const char *name)
{
    if (ferror(f) || fclose(f) != 0)
        die("write", name);
}

static void write_configmap(FILE *f, unsigned long g)
{
    fprintf(f,
            "apiVersion: v1\n"
            "kind: ConfigMap\n"
            "metadata:\n"
            "  name: app-%05lu-config\n"
            "  labels:\n"
            "    app: app-%05lu\n",
            g, g);
    if (g % 10)
        write_depends_on(f, "", "Service", g - 1, "");
    fprintf(f,
            "data:\n"
            "  greeting: hello from app-%05lu\n"
            "  LOG_LEVEL: %s\n"
            "  max-connections: \"%lu\"\n",
            g, levels[g % 4], 64UL << (g % 4));
    if (g % 2 == 0)
        fprintf(f,
                "  app.properties: |\n"
                "    server.port=8080\n"
                "    cache.size=%lu\n"
                "    feature.flags=alpha,beta\n",
                1000 + g % 97);
}

static void write_deployment(FILE *f, unsigned long g)
{
    const char *tier = tiers[g % 3];
    fprintf(f,
            "apiVersion: apps/v1\n"
            "kind: Deployment\n"
            "metadata:\n"
            "  name: app-%05lu\n"
            "  labels:\n"
            "    app: app-%05lu\n"
            "    tier: %s\n",
            g, g, tier);
    write_depends_on(f, "", "ConfigMap", g, "-config");
    fprintf(f,
            "spec:\n"
            "  replicas: %lu\n"
            "  selector:\n"
            "    matchLabels:\n"
            "      app: app-%05lu\n"
            "  template:\n"
            "    metadata:\n"
            "      labels:\n"
            "        app: app-%05lu\n"
            "        tier: %s\n"
            "    spec:\n"
            "      containers:\n"
            "      - name: web\n"
            "        image: nginx:1.25\n"
            "        ports:\n"
            "        - name: http\n"
            "          containerPort: 8080\n"
            "        env:\n"
            "        - name: GREETING\n"
            "          valueFrom:\n"
            "            configMapKeyRef:\n"
            "              name: app-%05lu-config\n"
            "              key: greeting\n"
            "        - name: LOG_LEVEL\n"
            "          valueFrom:\n"
            "            configMapKeyRef:\n"
            "              name: app-%05lu-config\n"
            "              key: LOG_LEVEL\n"
            "        - name: POD_NAME\n"
            "          valueFrom:\n"
            "            fieldRef:\n"
            "              fieldPath: metadata.name\n"
            "        resources:\n"
            "          requests:\n"
            "            cpu: %lum\n"
            "            memory: %luMi\n"
            "          limits:\n"
            "            memory: %luMi\n"
            "        readinessProbe:\n"
            "          httpGet:\n"
            "            path: /healthz\n"
            "            port: http\n"
            "          periodSeconds: 10\n",
            1 + g % 3, g, g, tier, g, g, 50 + 50 * (g % 4), 64UL << (g % 3),
            128UL << (g % 3));
    if (g % 2 == 1)
        fprintf(f,
                "      - name: log-shipper\n"
                "        image: busybox:1.36\n"
                "        command: [\"sh\", \"-c\", \"tail -F /var/log/app/access.log\"]\n"
                "        volumeMounts:\n"
                "        - name: logs\n"
                "          mountPath: /var/log/app\n"
                "      volumes:\n"
                "      - name: logs\n"
                "        emptyDir: {}\n");
}

static void write_service(FILE *f, unsigned long g)
{
    fprintf(f,
            "apiVersion: v1\n"
            "kind: Service\n"
            "metadata:\n"
            "  name: app-%05lu\n"
            "  labels:\n"
            "    app: app-%05lu\n",
            g, g);
    write_depends_on(f, "apps", "Deployment", g, "");
    fprintf(f,
            "spec:\n"
            "  type: ClusterIP\n"
            "  selector:\n"
            "    app: app-%05lu\n"
            "  ports:\n"
            "  - name: http\n"
            "    port: 80\n"
            "    targetPort: http\n"
            "    protocol: TCP\n",
            g);
}

static void write_resources(const char *dir, unsigned long n)
{
    FILE *f = open_out(dir, "resources.yaml");
    for (unsigned long k = 0; k < n; k++) {
        if (k)
            fputs("---\n", f);
        switch (k % 3) {
        case 0: write_configmap(f, k / 3); break;
        case 1: write_deployment(f, k / 3); break;
        default: write_service(f, k / 3); break;
        }
    }
    close_out(f, "resources.yaml");
}

/* The replacement, shared by the kpt ApplyReplacements object and the kustomization. */
static void write_replacement_list(FILE *f)
{
    fputs("- source:\n"
          "    kind: ConfigMap\n"
          "    name: app-00000-config\n"
          "    fieldPath: data.greeting\n"
          "  targets:\n"
          "  - select:\n"
          "      kind: Deployment\n"
          "      name: app-00000\n"
          "    fieldPaths:\n"
          "    - metadata.annotations.greeting\n"
          "    options:\n"
          "      create: true\n",
          f);
}

static void write_apply_replacements(FILE *f)
{
    fputs("apiVersion: fn.kpt.dev/v1alpha1\n"
          "kind: ApplyReplacements\n"
          "metadata:\n"
          "  name: bench-replacements\n"
          "  annotations:\n"
          "    config.kubernetes.io/local-config: \"true\"\n"
          "replacements:\n",
          f);
    write_replacement_list(f);
}

static void write_kptfile(const char *dir, unsigned long n)
{
    FILE *f = open_out(dir, "Kptfile");
    fprintf(f,
            "apiVersion: kpt.dev/v1\n"
            "kind: Kptfile\n"
            "metadata:\n"
            "  name: bench\n"
            "  annotations:\n"
            "    config.kubernetes.io/local-config: \"true\"\n"
            "info:\n"
            "  description: synthetic benchmark package with %lu objects (tests/bench/gen)\n"
            "pipeline:\n"
            "  mutators:\n",
            n);
    bool replacements = false;
    for (size_t i = 0; i < nsteps; i++) {
        fprintf(f, "  - image: gcr.io/kpt-fn/%s:%s\n", steps[i].name, steps[i].tag);
        if (steps[i].config_path) {
            fprintf(f, "    configPath: %s\n", steps[i].config_path);
            replacements = true;
            continue;
        }
        fputs("    configMap:\n", f);
        for (const char *const *kv = steps[i].kv; *kv; kv += 2)
            fprintf(f, "      %s: \"%s\"\n", kv[0], kv[1]);
    }
    close_out(f, "Kptfile");
    if (!replacements)
        return;
    f = open_out(dir, "replacements.yaml");
    write_apply_replacements(f);
    close_out(f, "replacements.yaml");
}

static void write_kustomization(const char *dir)
{
    FILE *f = open_out(dir, "kustomization.yaml");
    fputs("apiVersion: kustomize.config.k8s.io/v1beta1\n"
          "kind: Kustomization\n"
          "resources:\n"
          "- resources.yaml\n"
          "namespace: bench\n"
          "labels:\n"
          "- pairs:\n"
          "    env: bench\n"
          "    team: core\n"
          "  includeSelectors: true\n"
          "commonAnnotations:\n"
          "  owner: platform\n"
          "images:\n"
          "- name: nginx\n"
          "  newName: registry.local/nginx\n"
          "  newTag: \"1.27\"\n"
          "replacements:\n",
          f);
    write_replacement_list(f);
    /* search-replace by-path spec.replicas put-value 2, for the objects that have replicas. */
    fputs("patches:\n"
          "- target:\n"
          "    kind: Deployment\n"
          "  patch: |-\n"
          "    - op: replace\n"
          "      path: /spec/replicas\n"
          "      value: 2\n",
          f);
    close_out(f, "kustomization.yaml");
}

/* What kpt hands each step as functionConfig: the synthesized ConfigMap, or the configPath object. */
static void write_fn_configs(const char *fcdir)
{
    ensure_dir(fcdir);
    FILE *list = open_out(fcdir, "steps");
    for (size_t i = 0; i < nsteps; i++) {
        char name[128];
        snprintf(name, sizeof name, "%02zu-%s.yaml", i + 1, steps[i].name);
        FILE *f = open_out(fcdir, name);
        if (steps[i].config_path) {
            write_apply_replacements(f);
        } else {
            fputs("apiVersion: v1\n"
                  "kind: ConfigMap\n"
                  "metadata:\n"
                  "  name: function-input\n"
                  "data:\n",
                  f);
            for (const char *const *kv = steps[i].kv; *kv; kv += 2)
                fprintf(f, "  %s: \"%s\"\n", kv[0], kv[1]);
        }
        close_out(f, name);
        fprintf(list, "%s %s\n", steps[i].name, name);
    }
    close_out(list, "steps");
}

static void usage(void)
{
    fputs("usage: gen N DIR [--kustomize] [--fn-configs FCDIR] [--steps K] [--depends-on]\n", stderr);
    exit(2);
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *fcdir = NULL, *nstr = NULL;
    int kustomize = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--kustomize") == 0)
            kustomize = 1;
        else if (strcmp(argv[i], "--depends-on") == 0)
            depends_on = true;
        else if (strcmp(argv[i], "--fn-configs") == 0 && i + 1 < argc)
            fcdir = argv[++i];
        else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
            char *e;
            unsigned long k = strtoul(argv[++i], &e, 10);
            if (*e || k < 1 || k > NSTEPS) {
                fprintf(stderr, "gen: --steps wants 1 to %zu\n", (size_t)NSTEPS);
                return 2;
            }
            nsteps = k;
        }
        else if (argv[i][0] == '-')
            usage();
        else if (!nstr)
            nstr = argv[i];
        else if (!dir)
            dir = argv[i];
        else
            usage();
    }
    if (!nstr || !dir)
        usage();
    char *end;
    errno = 0;
    unsigned long n = strtoul(nstr, &end, 10);
    if (errno || *end || n == 0 || nstr[0] == '-') {
        fprintf(stderr, "gen: N must be a positive integer, got '%s'\n", nstr);
        return 2;
    }

    ensure_dir(dir);
    write_resources(dir, n);
    if (kustomize)
        write_kustomization(dir);
    else
        write_kptfile(dir, n);
    if (fcdir)
        write_fn_configs(fcdir);
    return 0;
}
