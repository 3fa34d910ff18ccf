# Attack: helm loads a chart directory whole and follows symlinks, so `.Files.Get` prints any file the sidecar can
# read when the chart holds a symlink (to a file or a directory) that points outside the repository.
# Defence: the chart is walked before helm runs; every symlink must resolve inside the repository (resolved one step
# at a time, never looking outside), loops and huge charts are refused.
. "$here/helm-lib.sh"
files_chart() { mkchart "$1" "$(printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  x: {{ .Files.Get "%s" | quote }}' "$2")"; }

newpkg; files_chart "$pkg/charts/c" leak.txt; ln -s "$tmp/secret.txt" "$pkg/charts/c/leak.txt"; step 'name: c'
check helm-chart-file-symlink 1 'Kptfile:[0-9]+: .*chart "app/charts/c": "leak\.txt" is a symlink that leads outside the repository'
if leaked; then echo "FAIL helm-chart-file-symlink: the file outside the repository reached the output"; fi

newpkg; files_chart "$pkg/charts/c" d/secret.txt; mkdir -p "$tmp/outside"; cp "$tmp/secret.txt" "$tmp/outside/"
ln -s "$tmp/outside" "$pkg/charts/c/d"; step 'name: c'
check helm-chart-dir-symlink 1 'chart "app/charts/c": "d" is a symlink that leads outside the repository'
if leaked; then echo "FAIL helm-chart-dir-symlink: the file outside the repository reached the output"; fi

# relative, through "..": the same
newpkg; files_chart "$pkg/charts/c" leak.txt; ln -s ../../../../secret.txt "$pkg/charts/c/leak.txt"; step 'name: c'
check helm-chart-relative-symlink 1 '"leak\.txt" is a symlink that leads outside the repository'

# a symlink to a directory inside the repository that itself holds a symlink out
newpkg; files_chart "$pkg/charts/c" platform/leak.txt; mkdir -p "$tmp/repo/platform"
ln -s "$tmp/secret.txt" "$tmp/repo/platform/leak.txt"; ln -s ../../../platform "$pkg/charts/c/platform"; step 'name: c'
check helm-chart-symlink-chain 1 '"platform/leak\.txt" is a symlink that leads outside the repository'
if leaked; then echo "FAIL helm-chart-symlink-chain: the file outside the repository reached the output"; fi

# the chart directory itself a symlink out of the repository
newpkg; mkchart "$tmp/elsewhere/c"; mkdir -p "$pkg/charts"; ln -s "$tmp/elsewhere/c" "$pkg/charts/c"; step 'name: c'
check helm-chart-dir-is-symlink-out 1 'chart "charts/c" leads outside the repository'

# no oracle: a symlink to a missing file outside reads the same as one to an existing file
newpkg; files_chart "$pkg/charts/c" probe; ln -s "$tmp/no-such-file" "$pkg/charts/c/probe"; step 'name: c'
check helm-chart-symlink-no-oracle 1 '"probe" is a symlink that leads outside the repository'

# what stays allowed: a symlink to a file elsewhere in the same repository
newpkg; files_chart "$pkg/charts/c" common.txt; mkdir -p "$tmp/repo/common"; echo shared-ok >"$tmp/repo/common/common.txt"
ln -s ../../../common/common.txt "$pkg/charts/c/common.txt"; step 'name: c'
check helm-chart-symlink-inside-repo 0 'x: "shared-ok'

# a loop (helm would walk it until the path is too long)
newpkg; mkchart "$pkg/charts/c"; ln -s .. "$pkg/charts/c/templates/loop"; step 'name: c'
check helm-chart-symlink-loop 1 '"templates/loop" is a symlink to a directory that contains it'

# limits, raised only by the operator
newpkg; mkchart "$pkg/charts/c"; step 'name: c'
CASE_ENV="$argocd CMP_MAX_CHART_FILES=2" check helm-chart-max-files 1 'chart "app/charts/c" has more than 2 files and directories.*CMP_MAX_CHART_FILES'
CASE_ENV="$argocd CMP_MAX_CHART_BYTES=20" check helm-chart-max-bytes 1 'chart "app/charts/c" holds more than 20 bytes.*CMP_MAX_CHART_BYTES'
