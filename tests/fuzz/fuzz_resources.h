/* The fixed objects the function and parameter targets work on: a root package (Kptfile, Deployment, Service,
 * ConfigMap, Namespace, CRD, RoleBinding, a local-config ConfigMap, a Gatekeeper constraint) and a subpackage "sub"
 * (Kptfile, a custom resource), each object with its own file, as the package reader would set them up. */
#ifndef CMP_FUZZ_RESOURCES_H
#define CMP_FUZZ_RESOURCES_H
#include <string.h>

#include "fuzz_common.h"
#include "package/package.h"

static const char fixed_resources[] =
    "apiVersion: kpt.dev/v1\n"
    "kind: Kptfile\n"
    "metadata:\n"
    "  name: app\n"
    "  annotations:\n"
    "    config.kubernetes.io/local-config: \"true\"\n"
    "pipeline:\n"
    "  mutators:\n"
    "    - image: gcr.io/kpt-fn/apply-setters:v0.2\n"
    "      configMap:\n"
    "        image: nginx\n"
    "        tag: 1.21.0\n"
    "        replicas: \"3\"\n"
    "    - image: gcr.io/kpt-fn/set-labels:v0.1.5\n"
    "      configPath: labels.yaml\n"
    "---\n"
    "apiVersion: apps/v1\n"
    "kind: Deployment\n"
    "metadata:\n"
    "  name: web # kpt-set: ${app}-web\n"
    "  namespace: prod\n"
    "  labels:\n"
    "    app: web\n"
    "    tier: frontend\n"
    "  annotations:\n"
    "    owner: team-a\n"
    "spec:\n"
    "  replicas: 3 # kpt-set: ${replicas}\n"
    "  selector:\n"
    "    matchLabels:\n"
    "      app: web\n"
    "  template:\n"
    "    metadata:\n"
    "      labels:\n"
    "        app: web\n"
    "    spec:\n"
    "      serviceAccountName: web\n"
    "      initContainers:\n"
    "        - name: init\n"
    "          image: busybox:1.36\n"
    "      containers:\n"
    "        - name: nginx\n"
    "          image: nginx:1.21.0 # kpt-set: ${image}:${tag}\n"
    "          args: [\"--port\", \"8080\"] # kpt-set: [\"--port\", \"${port}\"]\n"
    "          env:\n"
    "            - name: MODE\n"
    "              value: \"prod\"\n"
    "            - name: CONFIG\n"
    "              valueFrom:\n"
    "                configMapKeyRef:\n"
    "                  name: web-config\n"
    "                  key: mode\n"
    "          envFrom:\n"
    "            - configMapRef:\n"
    "                name: web-config\n"
    "          ports:\n"
    "            - containerPort: 8080\n"
    "              protocol: TCP\n"
    "      volumes:\n"
    "        - name: cfg\n"
    "          configMap:\n"
    "            name: web-config\n"
    "---\n"
    "apiVersion: v1\n"
    "kind: Service\n"
    "metadata:\n"
    "  name: web\n"
    "  namespace: prod\n"
    "spec:\n"
    "  selector:\n"
    "    app: web\n"
    "  ports:\n"
    "    - port: 80\n"
    "      targetPort: 8080\n"
    "---\n"
    "apiVersion: v1\n"
    "kind: ConfigMap\n"
    "metadata:\n"
    "  name: web-config\n"
    "  namespace: prod\n"
    "data:\n"
    "  mode: prod\n"
    "  greeting: |\n"
    "    hello\n"
    "    world\n"
    "  port: \"8080\"\n"
    "---\n"
    "apiVersion: v1\n"
    "kind: Namespace\n"
    "metadata:\n"
    "  name: prod\n"
    "---\n"
    "apiVersion: apiextensions.k8s.io/v1\n"
    "kind: CustomResourceDefinition\n"
    "metadata:\n"
    "  name: widgets.example.com\n"
    "spec:\n"
    "  group: example.com\n"
    "  names:\n"
    "    kind: Widget\n"
    "    plural: widgets\n"
    "  scope: Namespaced\n"
    "  versions:\n"
    "    - name: v1\n"
    "      served: true\n"
    "      storage: true\n"
    "      schema:\n"
    "        openAPIV3Schema:\n"
    "          type: object\n"
    "---\n"
    "apiVersion: rbac.authorization.k8s.io/v1\n"
    "kind: RoleBinding\n"
    "metadata:\n"
    "  name: web-read\n"
    "  namespace: prod\n"
    "roleRef:\n"
    "  apiGroup: rbac.authorization.k8s.io\n"
    "  kind: Role\n"
    "  name: reader\n"
    "subjects:\n"
    "  - kind: ServiceAccount\n"
    "    name: web\n"
    "    namespace: prod\n"
    "  - kind: User\n"
    "    name: jane\n"
    "---\n"
    "apiVersion: v1\n"
    "kind: ConfigMap\n"
    "metadata:\n"
    "  name: setters\n"
    "  annotations:\n"
    "    config.kubernetes.io/local-config: \"true\"\n"
    "data:\n"
    "  app: shop\n"
    "  image: nginx\n"
    "  tag: 1.21.0\n"
    "  port: \"8080\"\n"
    "---\n"
    "apiVersion: constraints.gatekeeper.sh/v1beta1\n"
    "kind: K8sRequiredLabels\n"
    "metadata:\n"
    "  name: must-have-owner\n"
    "spec:\n"
    "  enforcementAction: deny\n"
    "  match:\n"
    "    kinds:\n"
    "      - apiGroups: [\"\"]\n"
    "        kinds: [\"Namespace\"]\n";

/* objects of the subpackage "sub" */
static const char sub_resources[] =
    "apiVersion: kpt.dev/v1\n"
    "kind: Kptfile\n"
    "metadata:\n"
    "  name: sub\n"
    "  annotations:\n"
    "    config.kubernetes.io/local-config: \"true\"\n"
    "---\n"
    "apiVersion: example.com/v1\n"
    "kind: Widget\n"
    "metadata:\n"
    "  name: gadget\n"
    "  namespace: prod\n"
    "spec:\n"
    "  size: 3\n"
    "  image: example.com/widget:v1 # kpt-set: ${image}:${tag}\n";

static const char *const paths[] = {"Kptfile", "deployment.yaml", "service.yaml", "configmap.yaml", "namespace.yaml",
                                    "crd.yaml", "rbac.yaml", "setters.yaml", "constraint.yaml"};

struct loading {
    arena *a;
    rlist *items;
    package *pkg;
    const char *const *paths;
    size_t npaths;
    const char *file; /* when paths runs out */
};

static int add_doc(void *ud, node *root, uint32_t index, uint32_t line, int seq_wide)
{
    struct loading *l = ud;
    const char *path = index < l->npaths ? l->paths[index] : l->file;
    resource *r = resource_new(l->a, root, l->pkg, path, l->paths && index < l->npaths ? 0 : index);
    r->line = line;
    r->seq_wide = (uint8_t)seq_wide;
    rlist_push(l->items, r);
    rlist_push(&l->pkg->own, r);
    if (!strcmp(path, "Kptfile"))
        l->pkg->kptfile = r;
    return 0;
}

/* Loads the fixed objects into items and into root's and sub's own lists (sub becomes root's subpackage). */
static void fz_load_fixed(arena *a, strtab *st, rlist *items, package *root, package *sub, package **subs)
{
    *root = (package){.abs = "/nonexistent-fuzz-pkg", .rel = ""};
    *sub = (package){.abs = "/nonexistent-fuzz-pkg/sub", .rel = "sub", .parent = root};
    subs[0] = sub;
    root->subs = subs;
    root->nsubs = 1;
    diag_reset();
    struct loading lr = {a, items, root, paths, sizeof paths / sizeof *paths, "more.yaml"};
    if (yaml_load(a, st, NULL, "fixed.yaml", fixed_resources, sizeof fixed_resources - 1, add_doc, &lr) < 0)
        fz_die("fixed resources", "they do not load: %s", diag_message());
    static const char *const sub_paths[] = {"Kptfile", "widget.yaml"};
    struct loading ls = {a, items, sub, sub_paths, 2, "more.yaml"};
    if (yaml_load(a, st, NULL, "sub/fixed.yaml", sub_resources, sizeof sub_resources - 1, add_doc, &ls) < 0)
        fz_die("fixed resources", "they do not load: %s", diag_message());
}

static void fz_free_fixed(package *root, package *sub)
{
    rlist_free(&root->own);
    rlist_free(&sub->own);
}
#endif
