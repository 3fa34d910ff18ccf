# Attack: a helm (or what it starts) that ignores SIGTERM, so that a supervisor sending it a polite signal leaves it
# running. Every other children-* case uses processes that die of SIGTERM, so a supervisor that killed leftovers with
# SIGTERM instead of SIGKILL passed them all. Here the stand-in helm ignores TERM, and so does everything it starts
# (an ignored signal stays ignored across fork and exec): a grandchild in our process group, a shell grandchild with
# a child of its own, and one that escaped the group with setsid. Whatever way the run ends, none of them may be
# alive afterwards, checked by the PIDs they wrote to $rec (alive: kill -0 without zombies, read from /proc).
. "$here/children.sh"
helmpkg

TERM_BODY='trap "" TERM
sleep 300 & echo $! >"$rec/grandchild.pid"
sh -c "sleep 300 & echo \$! >\"$rec/great-grandchild.pid\"; exec sleep 303" & echo $! >"$rec/grandchild-sh.pid"
setsid sleep 302 & echo $! >"$rec/escaped.pid"
for a in "$@"; do case $a in /proc/self/fd/*) cat "$a" >/dev/null;; esac; done
echo ready >"$rec/ready"'

# supervisor_gone: waits until the supervisor (helm's parent, read once helm is ready) has exited, which it does only
# after its last kill; a guard of 60 s for a broken run. Then what is left is left for good.
supervisor_of_helm() { local l; read -r l <"/proc/$(cat "$rec/helm.pid")/stat" && l=${l##*) } && l=${l#* } && echo "${l%% *}"; }
supervisor_gone() {
  [ -n "$1" ] || return 0
  for _ in $(seq 600); do alive "$1" || return 0; sleep 0.1; done
}

for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}

  # the stand-in really ignores SIGTERM: without that the cases below prove nothing
  fakehelm <<<"$TERM_BODY
exec sleep 301"
  start_cg "$bin" CMP_CHILD_TIMEOUT=60
  if wait_ready; then
    for f in helm grandchild great-grandchild escaped; do kill -TERM "$(cat "$rec/$f.pid")"; done
    sleep 1 # a process that dies of SIGTERM is gone long before; one that ignores it is still there after any wait
    ign=; for f in helm grandchild great-grandchild escaped; do alive "$(cat "$rec/$f.pid")" || ign="$ign $f"; done
  else ign=" (never ready)"; fi
  kill -KILL "$pid" 2>/dev/null; finish; leftovers 5 >/dev/null
  [ -z "$ign" ] && echo "PASS children-term-ignored-stand-in [$tag]" ||
    echo "FAIL children-term-ignored-stand-in [$tag]: died of SIGTERM:$ign"

  # the child timeout: we return only once the supervisor finished, so nothing may be left the moment we exit
  start_cg "$bin" CMP_CHILD_TIMEOUT=1; finish 60
  verdict children-term-ignored-child-timeout "$tag" 1 'helm template of chart web did not finish within 1 s and was killed' "$(leftovers 0)"

  # the render deadline (our handler kills and waits)
  start_cg "$bin" PARAM_TIMEOUT=2 CMP_CHILD_TIMEOUT=60; finish 60
  verdict children-term-ignored-render-deadline "$tag" 1 'the render went over its time budget of 2 s' "$(leftovers 0)"

  # argocd-cmp-server's kill sequence without its last SIGKILL to the group (which would hide the survivors): SIGKILL
  # to us, SIGTERM to our group; helm ignores the TERM, the supervisor sees us die and must finish it
  start_cg "$bin" CMP_CHILD_TIMEOUT=60
  if wait_ready; then
    sup=$(supervisor_of_helm)
    kill -KILL "$pid"; kill -TERM -- "-$pid" 2>/dev/null; finish 60
    supervisor_gone "$sup"
    left=$(leftovers 20) # the janitor empties scratch once the supervisor is gone; processes are gone already
  else finish 60; left="never ready $(leftovers 0)"; fi
  [ $rc -eq 137 ] && rc=1 && echo killed >"$tmp/err"
  verdict children-term-ignored-parent-killed "$tag" 1 'killed' "$left"

  # a helm that succeeds and leaves them running: the supervisor kills them before it reports
  fakehelm <<<"$TERM_BODY
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n'"
  start_cg "$bin" CMP_CHILD_TIMEOUT=60; finish 60
  verdict children-term-ignored-success "$tag" 0 'name: ok' "$(leftovers 0)"
done
