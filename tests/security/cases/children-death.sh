# Attack: a helm (or what it starts) that outlives us. Whatever way we end (success, error, child timeout, render
# deadline, SIGTERM, SIGINT, SIGKILL to us alone, argocd-cmp-server's kill sequence), no process the child started
# may survive (one in our process group, one that escaped it with setsid) and the scratch directory must be gone.
. "$here/children.sh"
helmpkg

for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}

  # a hanging helm and its children, stopped by the child timeout
  fakehelm <<<"$HANG_BODY
exec sleep 301"
  start_cg "$bin" CMP_CHILD_TIMEOUT=1; finish
  verdict children-child-timeout "$tag" 1 'helm template of chart web did not finish within 1 s and was killed \(raise the limit with CMP_CHILD_TIMEOUT\)' "$(leftovers 5)"

  # ... by the render deadline
  start_cg "$bin" PARAM_TIMEOUT=2 CMP_CHILD_TIMEOUT=60; finish
  verdict children-render-deadline "$tag" 1 'the render went over its time budget of 2 s' "$(leftovers 5)"

  # ... by SIGTERM to us (a shutdown); our handler kills, removes and waits, so nothing is left the moment we are
  # gone (the fake helm made 5,000 files in scratch, which take a while to remove)
  start_cg "$bin"; wait_ready; kill -TERM "$pid"; finish_now
  verdict children-sigterm "$tag" 1 'stopped by SIGTERM' "$(leftovers 0)"

  # ... by SIGINT to us (Ctrl-C)
  start_cg "$bin"; wait_ready; kill -INT "$pid"; finish_now
  verdict children-sigint "$tag" 1 'interrupted \(SIGINT\)' "$(leftovers 0)"

  # ... by SIGKILL to us alone (the OOM killer, say): no handler runs; the supervisor and the janitor see us die
  start_cg "$bin"; wait_ready; kill -KILL "$pid"; finish
  [ $rc -eq 137 ] && rc=1 && : >"$tmp/err" && echo killed >"$tmp/err"
  verdict children-sigkill-alone "$tag" 1 'killed' "$(leftovers 5)"

  # ... by argocd-cmp-server's kill sequence: SIGKILL to us and SIGTERM to our group at once, SIGKILL to the group
  # 5 s later. Everything must be gone before that last SIGKILL (it would hide a helper that did not finish).
  start_cg "$bin"; wait_ready; kill -KILL "$pid"; kill -TERM -- "-$pid"; finish
  early=$(leftovers 4)
  kill -KILL -- "-$pid" 2>/dev/null
  [ $rc -eq 137 ] && rc=1 && echo killed >"$tmp/err"
  verdict children-argocd-kill-sequence "$tag" 1 'killed' "$early"

  # ... by SIGTERM to our whole group, then SIGKILL to it after a grace period
  start_cg "$bin"; wait_ready; kill -TERM -- "-$pid"; finish
  early=$(leftovers 4)
  kill -KILL -- "-$pid" 2>/dev/null
  verdict children-group-sigterm-then-sigkill "$tag" 1 'stopped by SIGTERM' "$early"

  # ... by SIGKILL to our whole group at once: no helper of ours survives to clean up, but the tool and the child it
  # left in the group die too because they stayed in it (the escaped one and scratch cannot be helped then: values
  # were never written there, see children-values-never-in-a-file)
  start_cg "$bin"; wait_ready; kill -KILL -- "-$pid"; finish
  [ $rc -eq 137 ] && rc=1 && echo killed >"$tmp/err"
  # a SIGKILLed process is gone only once the kernel has torn it down, which a loaded machine takes its time to do:
  # polled for up to 10 s (a process that the signal did not reach never goes, so this only waits out the race)
  for (( i = 0; i < 100; i++ )); do
    left=
    for f in helm grandchild; do alive "$(cat "$rec/$f.pid")" && left="$left $f=$(cat "$rec/$f.pid")"; done
    p=$(group_left "$pid"); [ -n "$p" ] && left="$left group:$p"
    [ -z "$left" ] && break
    sleep 0.1
  done
  leftovers 0 >/dev/null
  verdict children-group-sigkill "$tag" 1 'killed' "$left"

  # the supervisor SIGKILLed alone (from outside): the tool dies with it (PR_SET_PDEATHSIG) and we fail cleanly
  start_cg "$bin"; wait_ready
  sup=$(read -r l <"/proc/$(cat "$rec/helm.pid")/stat"; l=${l##*) }; l=${l#* }; echo "${l%% *}")
  [ -n "$sup" ] && [ "$sup" != "$pid" ] && kill -KILL "$sup"
  for _ in $(seq 30); do alive "$(cat "$rec/helm.pid")" || break; sleep 0.1; done
  alive "$(cat "$rec/helm.pid")" && tool_left="helm=$(cat "$rec/helm.pid")" || tool_left=
  finish
  leftovers 0 >/dev/null # the grandchildren lost their supervisor: not claimed here, only cleaned up
  verdict children-supervisor-killed "$tag" 1 'helm template of chart web was killed from outside' "$tool_left"

  # a helm that succeeds but leaves children running: they are killed, the render succeeds, scratch is gone
  fakehelm <<<"$HANG_BODY
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n'"
  start_cg "$bin"; finish
  verdict children-success-leaves-nothing "$tag" 0 'name: ok' "$(leftovers 0)"

  # ... or fails, leaving children running
  fakehelm <<<"$HANG_BODY
echo 'Error: the chart refuses' >&2; exit 3"
  start_cg "$bin"; finish
  verdict children-error-leaves-nothing "$tag" 1 'helm template of chart web failed \(exit 3\): Error: the chart refuses' "$(leftovers 0)"
done
