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

# The same through the Application: helm-value-files (Argo CD's valueFiles) names files from the Application's
# directory, and a leading '/' starts at the repository root (as Argo CD reads it), never at the filesystem's.
# Each is checked before any step runs; a missing file may be skipped on request, one that leads out never is.
files() { # JSON array items -> CASE_ENV with helm-value-files (and any extra parameters given after)
  local extra=${2:-}
  CASE_ENV="$argocd ARGOCD_APP_PARAMETERS=[{\"name\":\"helm-value-files\",\"array\":[$1]}$extra]"
}
newpkg; values_chart "$pkg/charts/c"; step 'name: c'
files '"../../secret-values.yaml"'
check helm-app-value-files-dotdot 1 '^cmp-generate: parameters: parameter "helm-value-files": value file "\.\./\.\./secret-values\.yaml" leads outside the repository'
if leaked; then echo "FAIL helm-app-value-files-dotdot: the file outside the repository reached the output"; fi
files "\"$tmp/secret-values.yaml\""
check helm-app-value-files-absolute-is-from-the-repository-root 1 'parameter "helm-value-files": value file "/[^"]*" does not exist \(a path from the repository root'
if leaked; then echo "FAIL helm-app-value-files-absolute-is-from-the-repository-root: the file outside the repository reached the output"; fi
# a file symlink, then a directory symlink, out of the repository; asking to skip missing files skips neither
ln -s "$tmp/secret-values.yaml" "$pkg/values.txt"; ln -s "$tmp" "$pkg/vals"
files '"values.txt"'
check helm-app-value-files-symlink 1 'parameter "helm-value-files": value file "values\.txt" leads outside the repository'
if leaked; then echo "FAIL helm-app-value-files-symlink: the file outside the repository reached the output"; fi
files '"vals/secret-values.yaml"' ',{"name":"helm-ignore-missing-value-files","string":"true"}'
check helm-app-value-files-dir-symlink-not-skipped 1 'parameter "helm-value-files": value file "vals/secret-values\.yaml" leads outside the repository'
if leaked; then echo "FAIL helm-app-value-files-dir-symlink-not-skipped: the file outside the repository reached the output"; fi
files '"vals/no-such-file.yaml"' ',{"name":"helm-ignore-missing-value-files","string":"true"}'
check helm-app-value-files-no-oracle 1 'value file "vals/no-such-file\.yaml" leads outside the repository'
# a URL: only where the operator allows remote values, and never repeated (it may carry credentials)
files '"https://user:token@127.0.0.1:1/values.yaml"'
check helm-app-value-files-url-refused 1 'parameter "helm-value-files": entry 1 is a URL; .*CMP_ALLOW_REMOTE_VALUES=true'
if grep -q token "$err"; then echo "FAIL helm-app-value-files-url-refused: the message repeats the URL"; fi
# a comma: helm's --values would read two files
mkdir -p "$pkg/x,$(dirname "$tmp/secret-values.yaml")"; : >"$pkg/x,$tmp/secret-values.yaml"
files "\"x,$tmp/secret-values.yaml\""
check helm-app-value-files-comma 1 'parameter "helm-value-files": value file "x,.*": its path has a comma'
if leaked; then echo "FAIL helm-app-value-files-comma: the file outside the repository reached the output"; fi
# inside the repository (a sibling directory of the package): read
mkdir -p "$tmp/repo/platform"; printf 'x: from-the-repository\n' >"$tmp/repo/platform/values.yaml"
files '"../platform/values.yaml"'
check helm-app-value-files-inside-read 0 'x: "from-the-repository"'
files '"/platform/values.yaml"'
check helm-app-value-files-from-root-read 0 'x: "from-the-repository"'
