# Attack: memory steps x config. Every step naming a configPath kept a copy of the file's object as read (kpt's
# fallback when an earlier step removed it), one per step, beside the copy each step is handed: 200 steps naming
# one 1 MB ConfigMap (a 10 KB Kptfile) took 625 MB.
# Defence: one copy per object, shared by the steps that name it (src/pipeline/executor.c read_package). Each
# step's own working copy remains (steps x config, older than this); the run is under an address-space limit that the
# per-step copies overran (plain build only: ASan reserves terabytes of shadow).

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
  ulimit -v 450000
  CASE_ENV="ARGOCD_APP_NAME=attack ARGOCD_APP_SOURCE_PATH=app" check config-path-copies-shared 0 '^    a: b$' plain
)
