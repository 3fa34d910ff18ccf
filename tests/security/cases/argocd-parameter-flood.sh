# Attack (the Application's author): exhaust the sidecar's memory with names alone. Every plugin env entry and
# parameter nobody reads is reported in one warning, and the list of them grew by copying itself for each name:
# memory and time quadratic in their number (8,000 ARGOCD_ENV_ entries, 180 KB of environment, took 0.5 GB and
# 4.5 s; an Application object holds 60,000). A name is the author's verbatim (JSON parameters too): it must not
# break the warning's one line either.
# Defence: the warning names the first ten and counts the rest; names pass through shown(). The flood runs under
# an address-space limit (plain build only: ASan reserves terabytes of shadow) that the quadratic list overran.

newpkg
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n' >"$pkg/cm.yaml"
argo="ARGOCD_APP_NAME=attack ARGOCD_APP_SOURCE_PATH=app"
flood=$(seq 1 20000 | sed 's/^/ARGOCD_ENV_UNREAD/; s/$/=v/' | tr '\n' ' ')

# a plain variable, not a prefix (which would export all of it as one string over the kernel's 128 KiB)
CASE_ENV="$argo $flood"
(
  ulimit -v 600000
  check argocd-parameter-flood-plugin-env 0 \
    'ignoring unknown plugin env "UNREAD1", "UNREAD2", .*"UNREAD10" \(and 19990 more\) \(known: ' plain
)
check argocd-parameter-flood-plugin-env-named 0 '\(and 19990 more\)' asan
unset CASE_ENV
if [ "$(grep -o UNREAD "$err" | wc -l)" -ne 10 ]; then echo "FAIL argocd-parameter-flood-ten-named: $(head -c 300 "$err")"
else echo "PASS argocd-parameter-flood-ten-named"; fi

# ARGOCD_APP_PARAMETERS: one variable (Linux caps it at 128 KiB), thousands of unknown names, one of them two lines
json=$(seq 1 6000 | sed 's/.*/{"name":"p&"}/' | paste -sd, -)
sep=$'\x1f'
IFS=$sep CASE_ENV="ARGOCD_APP_NAME=attack${sep}ARGOCD_APP_SOURCE_PATH=app${sep}ARGOCD_APP_PARAMETERS=[{\"name\":\"two\\nlines\"},$json]" \
  check argocd-parameter-flood-json-names 0 'ignoring unknown parameters "two\\nlines", "p1", .*"p9" \(and 5991 more\) \(known: '
if [ "$(wc -l <"$err")" -ne 1 ]; then echo "FAIL argocd-parameter-flood-json-one-line: $(head -c 300 "$err")"
else echo "PASS argocd-parameter-flood-json-one-line"; fi
