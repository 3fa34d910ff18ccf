# Attack: burn the render's CPU budget with kpt.dev/bfs-rendering. Breadth-first rendering hands each package its
# descendants' objects and gives each object back to its package; both looked a package up by scanning the whole
# list of packages, once per child and once per object, and cleared a mark per package for every package. On a
# deep chain over many leaves that is (depth x leaves) x packages: 1,000 nested packages over 8,000 leaves (1.5 MB
# of files) took 54 s of CPU where the depth-first render of the same tree takes 3.4 s; the tree here, 100 over
# 20,000, took 30 s (2 s with the fix, most of a loaded machine's 5 s being the file system's).
# Defence: a package's index comes from a sorted table (src/pipeline/executor.c hydrate_bfs), and each package's
# pass touches its own subtree only. The render must finish well inside a budget the scans overran several times
# over (plain build: the budget is wall time, and ASan's is no measure of the algorithm).

newpkg
printf '  annotations:\n    kpt.dev/bfs-rendering: "true"\n' >>"$pkg/Kptfile"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: root\n' >"$pkg/cm.yaml"
chain=$(printf 'a/%.0s' $(seq 1 100))
mkdir -p "$pkg/$chain"
d=$pkg
for i in $(seq 1 100); do
  d=$d/a
  printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: d%s\n' "$i" >"$d/Kptfile"
done
(cd "$d" && mkdir $(seq -f 'w%.0f' 1 20000))
for i in $(seq 1 20000); do
  printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: w%s\n' "$i" >"$d/w$i/Kptfile"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: w%s\n' "$i" >"$d/w$i/cm.yaml"
done
CASE_ENV="ARGOCD_APP_NAME=attack ARGOCD_APP_SOURCE_PATH=app TIMEOUT=20" check bfs-rendering-deep-tree 0 '^  name: w20000$' plain
if [ "$(grep -c '^kind: ConfigMap$' "$out")" != 20001 ]; then echo "FAIL bfs-rendering-deep-tree-every-object: $(grep -c '^kind: ConfigMap$' "$out") of 20001"
else echo "PASS bfs-rendering-deep-tree-every-object"; fi
