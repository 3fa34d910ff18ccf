# Attack: a values file helm reads from outside the repository, and the chart prints what it holds: a symlink in
# the package, enough "..", an absolute path, or a comma (helm's --values splits its value on commas, so
# "x,/abs/file" reads /abs/file).
# Defence: every values file resolves inside the repository (one step at a time, never looking outside), and a
# path with a comma is refused.
. "$here/helm-lib.sh"
values_chart() { mkchart "$1" "$(printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  x: {{ .Values.x | quote }}')"; }

# (a .txt name: the package reader refuses a *.yaml symlink out of the package on its own, before any step runs)
newpkg; values_chart "$pkg/charts/c"; ln -s "$tmp/secret-values.yaml" "$pkg/values.txt"; step 'name: c' 'valuesFiles: values.txt'
check helm-values-symlink 1 'Kptfile:[0-9]+: .*values file "values\.txt" leads outside the repository'
if leaked; then echo "FAIL helm-values-symlink: the file outside the repository reached the output"; fi

rhc 'helmCharts:
  - chartArgs:
      name: c
    templateOptions:
      values:
        valuesFiles: [values.txt]'
check helm-values-symlink-rhc 1 'helm\.yaml:[0-9]+: .*values file "values\.txt" leads outside the repository'

newpkg; values_chart "$pkg/charts/c"; step 'name: c' 'valuesFiles: ../../secret-values.yaml'
check helm-values-dotdot 1 'values file "\.\./\.\./secret-values\.yaml" leads outside the repository'
if leaked; then echo "FAIL helm-values-dotdot: the file outside the repository reached the output"; fi
step 'name: c' "valuesFiles: $tmp/secret-values.yaml"
check helm-values-absolute 1 'values file "/[^"]*" must be a path relative to the package, not absolute'

# a directory symlink in the path (values/ -> outside), then a name under it
newpkg; values_chart "$pkg/charts/c"; ln -s "$tmp" "$pkg/vals"; step 'name: c' 'valuesFiles: vals/secret-values.yaml'
check helm-values-dir-symlink 1 'values file "vals/secret-values\.yaml" leads outside the repository'
# ... and a missing name under it reads the same: no oracle for what exists outside
step 'name: c' 'valuesFiles: vals/no-such-file.yaml'
check helm-values-no-oracle 1 'values file "vals/no-such-file\.yaml" leads outside the repository'

# a comma: "x,<abs>" is one path to us (a directory named "x,") and two files to helm
newpkg; values_chart "$pkg/charts/c"; : >"$pkg/x"; mkdir -p "$pkg/x,$(dirname "$tmp/secret-values.yaml")"
: >"$pkg/x,$tmp/secret-values.yaml"
rhc "helmCharts:
  - chartArgs:
      name: c
    templateOptions:
      values:
        valuesFiles: ['x,$tmp/secret-values.yaml']"
check helm-values-comma 1 'values file "x,.*": its path has a comma, which helm.s --values splits on'
if leaked; then echo "FAIL helm-values-comma: the file outside the repository reached the output"; fi
