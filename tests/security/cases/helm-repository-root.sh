# The boundary is the repository, not the package: Argo CD lets an Application read any directory of its repository,
# so a chart, a values file or a file:// dependency in a sibling directory renders. The root is the Application's
# directory minus ARGOCD_APP_SOURCE_PATH under Argo CD, the nearest .git locally; one step past it is refused.
. "$here/helm-lib.sh"
values_chart() { mkchart "$1" "$(printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  x: {{ .Values.x | quote }}\n  release: {{ .Release.Name | quote }}')"; }
# a chart one level up from the repository, which must stay out of reach
values_chart "$tmp/outside-chart"

# teams/a/app in the repository; the chart in platform/charts, values in platform/values (siblings of teams/)
newpkg teams/a/app; values_chart "$tmp/repo/platform/charts/web"; mkdir -p "$tmp/repo/platform/values"
printf 'x: from-a-sibling\n' >"$tmp/repo/platform/values/prod.yaml"
rhc 'helmCharts:
  - chartArgs:
      name: web
    chartHome: ../../../platform/charts
    templateOptions:
      values:
        valuesFiles: [../../../platform/values/prod.yaml]'
CASE_ENV="ARGOCD_APP_NAME=web ARGOCD_APP_SOURCE_PATH=teams/a/app" \
  check helm-sibling-chart-renders 0 'x: "from-a-sibling"'

# the same chart name, one ".." too many: outside $tmp/repo, though the directory exists
rhc 'helmCharts:
  - chartArgs:
      name: outside-chart
    chartHome: ../../../..'
CASE_ENV="ARGOCD_APP_NAME=web ARGOCD_APP_SOURCE_PATH=teams/a/app" \
  check helm-source-path-root-is-the-boundary 1 'chart "\.\./\.\./\.\./\.\./outside-chart" leads outside the repository'

# the root comes from ARGOCD_APP_SOURCE_PATH: "." makes the package the whole repository, "a/app" makes teams/ the
# root; either way platform/ is out of reach
rhc 'helmCharts:
  - chartArgs:
      name: web
    chartHome: ../../../platform/charts'
CASE_ENV="ARGOCD_APP_NAME=web ARGOCD_APP_SOURCE_PATH=." \
  check helm-source-path-dot-is-the-package 1 'chart "\.\./\.\./\.\./platform/charts/web" leads outside the repository'
CASE_ENV="ARGOCD_APP_NAME=web ARGOCD_APP_SOURCE_PATH=a/app" \
  check helm-source-path-decides-the-root 1 'chart "\.\./\.\./\.\./platform/charts/web" leads outside the repository'

# locally (no Argo CD), the nearest .git
mkdir -p "$tmp/repo/.git"
CASE_ENV="" check helm-local-git-root 0 'release: "release-name"' -- render --no-git-metadata .

# a file:// dependency in a sibling directory of the same repository is built and rendered
newpkg app; values_chart "$tmp/repo/platform/lib"; mkchart "$pkg/charts/app"
printf 'dependencies:\n  - name: lib\n    version: 0.1.0\n    repository: file://../../../platform/lib\n' >>"$pkg/charts/app/Chart.yaml"
(cd "$pkg/charts/app" && helmx dependency update . >/dev/null 2>&1); rm -rf "$pkg/charts/app/charts"
step 'name: app'
check helm-sibling-file-dependency-renders 0 '# Source: app/charts/lib/templates/cm\.yaml'

# a chart that is the whole repository: its .git (git's own, nothing the author can write) is not counted
newpkg app; mkchart "$pkg"; rm "$pkg/Kptfile"; mkdir -p "$pkg/.git/objects"
for i in $(seq 20); do : >"$pkg/.git/objects/o$i"; done
CASE_ENV="ARGOCD_APP_NAME=root ARGOCD_APP_SOURCE_PATH=. CMP_MAX_CHART_FILES=10" \
  check helm-chart-at-root-git-not-counted 0 'release: "root"'
