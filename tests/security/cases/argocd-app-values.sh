# ARGOCD_APP_* values that are not one line of printable text. Argo CD fills them from the Application (name,
# namespace, project, revision, repoURL, targetRevision, path), which an ApplicationSet may build from a branch or
# directory name the package author chose. Each is stamped on every object and handed to helm: a line break there
# could add fields to the YAML a Go reader sees. Each must be refused naming the variable, before any step runs,
# and without echoing the value (a URL or revision may carry a secret).

newpkg
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n' >"$pkg/cm.yaml"
sep=$'\x1f' # CASE_ENV is split on IFS: this one keeps newlines, tabs and spaces inside values

refused() { # NAME VARIABLE VALUE WHAT
  IFS=$sep CASE_ENV="ARGOCD_APP_NAME=app${sep}$2=$3" check "$1" 1 "^cmp-generate: parameters: $2 $4 at byte [0-9]+; .*\(the value is not shown\)$"
  if grep -q 'S3CRET' "$err"; then echo "FAIL $1-not-echoed: the value was echoed: $(head -c 300 "$err")"; else echo "PASS $1-not-echoed"; fi
}

refused argocd-app-name-newline ARGOCD_APP_NAME $'web\nS3CRET: injected' 'holds a control character or a line break'
refused argocd-app-namespace-c1-control ARGOCD_APP_NAMESPACE $'ns\xc2\x9bS3CRET' 'holds a control character or a line break'
refused argocd-app-project-tab ARGOCD_APP_PROJECT_NAME $'proj\tS3CRET' 'holds a control character or a line break'
refused argocd-app-revision-invalid-utf8 ARGOCD_APP_REVISION $'abc\xffS3CRET' 'is not valid UTF-8'
refused argocd-app-repo-url-escape ARGOCD_APP_SOURCE_REPO_URL $'https://t:S3CRET@host/r\x1b[2J' 'holds a control character or a line break'
refused argocd-app-target-revision-line-separator ARGOCD_APP_SOURCE_TARGET_REVISION $'main\xe2\x80\xa8S3CRET: x' 'holds a control character or a line break'
refused argocd-app-target-revision-paragraph-separator ARGOCD_APP_SOURCE_TARGET_REVISION $'main\xe2\x80\xa9S3CRET' 'holds a control character or a line break'
refused argocd-app-path-nel ARGOCD_APP_SOURCE_PATH $'apps/web\xc2\x85S3CRET: x' 'holds a control character or a line break'
refused argocd-app-path-cr ARGOCD_APP_SOURCE_PATH $'apps/web\rS3CRET' 'holds a control character or a line break'

# checked before any step runs (helm would get ARGOCD_APP_NAME as its release name): a pipeline that would fail
# does not get to
printf 'pipeline:\n  mutators:\n    - image: no-such-function\n' >>"$pkg/Kptfile"
IFS=$sep CASE_ENV="ARGOCD_APP_NAME=web"$'\n'"x" check argocd-app-values-checked-before-the-pipeline 1 'parameters: ARGOCD_APP_NAME holds'

# ordinary values (UTF-8 text included) are stamped as they are
newpkg
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n' >"$pkg/cm.yaml"
IFS=$sep CASE_ENV="ARGOCD_APP_NAME=web${sep}ARGOCD_APP_SOURCE_PATH=apps/café web${sep}ARGOCD_APP_SOURCE_TARGET_REVISION=release/1.0" \
  check argocd-app-values-ordinary-text-stamped 0 'cmp-generate/path: apps/café web'
