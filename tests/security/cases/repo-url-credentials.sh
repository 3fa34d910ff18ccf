# Credentials in the repository URL: in the user-info part (https://user:token@host), in the query
# (?private_token=, ?access_token=, X-Amz-Signature=) or the fragment. Whether the URL comes from Argo CD
# (ARGOCD_APP_SOURCE_REPO_URL, the Application's repoURL as written) or from the git remote on a local dry run,
# only scheme, host and path may be stamped or printed. And git-derived values (remote URL, branch or tag,
# package path) must be printable text, like Argo CD's.

sep=$'\x1f'
newpkg
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n' >"$pkg/cm.yaml"

stripped() { # NAME URL WANT
  IFS=$sep CASE_ENV="ARGOCD_APP_NAME=app${sep}ARGOCD_APP_SOURCE_REPO_URL=$2" check "$1" 0 "cmp-generate/repo: $3\$"
  if grep -qi 's3cret' "$out" "$err"; then echo "FAIL $1-nowhere: a credential was printed: $(grep -i s3cret "$out" "$err" | head -c 300)"
  else echo "PASS $1-nowhere"; fi
}
stripped repo-url-argocd-userinfo 'https://oauth2:S3CRET@gitlab.example.com/g/r.git' 'https://gitlab\.example\.com/g/r\.git'
stripped repo-url-argocd-private-token 'https://gitlab.example.com/g/r.git?private_token=S3CRET' 'https://gitlab\.example\.com/g/r\.git'
stripped repo-url-argocd-access-token-and-fragment 'https://host/r?ref=main&access_token=S3CRET#S3CRET' 'https://host/r'
stripped repo-url-argocd-presigned 'https://u:S3CRET@bucket.s3.amazonaws.com/r.git?X-Amz-Credential=AKIA&X-Amz-Signature=S3CRET' \
  'https://bucket\.s3\.amazonaws\.com/r\.git'
stripped repo-url-argocd-ssh-password 'ssh://git:S3CRET@host/r.git' 'ssh://git@host/r\.git'

# a local dry run: the metadata comes from the git repository around the package
gitrepo() { # URL [BRANCH]
  rm -rf "$tmp/repo/.git"
  (cd "$tmp/repo" && git init -q -b "${2:-main}" . && git -c user.name=t -c user.email=t@t add -A &&
   git -c user.name=t -c user.email=t@t commit -q -m init && git config remote.origin.url "$1") >/dev/null 2>&1
}
gitrepo 'https://oauth2:S3CRET@gitlab.example.com/g/r.git?private_token=S3CRET#S3CRET'
check repo-url-git-remote-stripped 0 'cmp-generate/repo: https://gitlab\.example\.com/g/r\.git$'
if grep -qi 's3cret' "$out" "$err"; then echo "FAIL repo-url-git-remote-nowhere: $(grep -i s3cret "$out" | head -c 300)"; else echo "PASS repo-url-git-remote-nowhere"; fi
check repo-url-git-print-env-stripped 0 "^ARGOCD_APP_SOURCE_REPO_URL='https://gitlab\.example\.com/g/r\.git'\$" -- --print-env .
if grep -qi 's3cret' "$out" "$err"; then echo "FAIL repo-url-git-print-env-nowhere: $(grep -i s3cret "$out" | head -c 300)"; else echo "PASS repo-url-git-print-env-nowhere"; fi

# git-derived values that are not printable text
gitrepo "$(printf 'https://host/S3CRET\001r.git')"
check git-meta-remote-url-control-character 1 \
  "^cmp-generate: \.: annotate: git metadata: remote\.origin\.url \(ARGOCD_APP_SOURCE_REPO_URL\) holds a control character or a line break at byte 19; .*\(the value is not shown\)$"
if grep -qi 's3cret' "$err"; then echo "FAIL git-meta-remote-url-not-echoed"; else echo "PASS git-meta-remote-url-not-echoed"; fi
gitrepo https://host/r.git "$(printf 'main\xe2\x80\xa8S3CRET')"
check git-meta-branch-line-separator 1 \
  'git metadata: the branch or tag name \(ARGOCD_APP_SOURCE_TARGET_REVISION\) holds a control character or a line break at byte 4'
gitrepo https://host/r.git "$(printf 'main\xc2\x85x')"
check git-meta-branch-nel 1 'the branch or tag name \(ARGOCD_APP_SOURCE_TARGET_REVISION\) holds'
# a detached HEAD at a tag named by the author
gitrepo https://host/r.git
(cd "$tmp/repo" && git tag "$(printf 'v1\xe2\x80\xa9x')" && git checkout -q --detach) >/dev/null 2>&1
check git-meta-tag-paragraph-separator 1 'the branch or tag name \(ARGOCD_APP_SOURCE_TARGET_REVISION\) holds'
# the package directory's own name
newpkg "$(printf 'we\nb')"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n' >"$pkg/cm.yaml"
gitrepo https://host/r.git
check git-meta-package-path-newline 1 "git metadata: the package's path in the work tree \(ARGOCD_APP_SOURCE_PATH\) holds a control character or a line break at byte 2"
