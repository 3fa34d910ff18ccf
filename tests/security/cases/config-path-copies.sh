# Attack: memory steps x config. Every step naming a configPath kept a copy of the file's object as read (kpt's
# fallback when an earlier step removed it), one per step, beside the copy each step is handed: 200 steps naming
# one 1 MB ConfigMap (a 10 KB Kptfile) took 625 MB; with one as-read copy per object, the per-step working copies
# still took 319 MB, and 166 MB for 100 of them when a step before each one edits the object.
# Defence: one as-read copy per object, shared by the steps that name it, and one working copy, brought up to date
# in place for each step that names the object (src/pipeline/executor.c run_step, node_refresh_copy): memory grows
# with the object's edits, not with the steps. Each run needs about 19 MB of address space (18 MB with a single
# step); they run under 32 MB, which a copy per step overran by five to ten times (plain build only: ASan reserves
# terabytes of shadow).

newpkg
{
  printf 'pipeline:\n  mutators:\n'
  for i in $(seq 1 200); do printf '    - image: set-annotations:v0.1.4\n      configPath: conf.yaml\n'; done
} >>"$pkg/Kptfile"
{
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\n  annotations:\n'
  printf '    config.kubernetes.io/local-config: "true"\ndata:\n  a: b\nspec:\n  x:\n'
  seq -f '  - k%011.0f' 1 65536
} >"$pkg/conf.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n' >"$pkg/cm.yaml"
(
  ulimit -v 32000
  CASE_ENV="ARGOCD_APP_NAME=attack ARGOCD_APP_SOURCE_PATH=app" check config-path-copies-shared 0 '^    a: b$' plain
)

# The same object edited before each step that names it (an annotation on every object, the config's included):
# the copy is brought up to date, not made again.
newpkg
{
  printf 'pipeline:\n  mutators:\n'
  for i in $(seq 1 100); do
    printf '    - image: set-annotations:v0.1.4\n      configMap:\n        k%d: v\n' "$i"
    printf '    - image: set-annotations:v0.1.4\n      configPath: conf.yaml\n'
  done
} >>"$pkg/Kptfile"
{
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\n  annotations:\n'
  printf '    config.kubernetes.io/local-config: "true"\ndata:\n  a: b\nspec:\n  x:\n'
  seq -f '  - k%011.0f' 1 65536
} >"$pkg/conf.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n' >"$pkg/cm.yaml"
(
  ulimit -v 32000
  CASE_ENV="ARGOCD_APP_NAME=attack ARGOCD_APP_SOURCE_PATH=app" check config-path-copies-edited 0 '^    k100: v$' plain
)
