# Shared by the children-*.sh cases (helm and kustomize as children: their environment, limits, death with us,
# scratch space, the init + render deadline). Sourced after lib.sh, inside the case's own subshell.
# A case writes a fake helm ($tmp/bin/helm, a shell script recording its PID and its children's in $rec), starts
# cmp-generate in the background in a process group of its own (set -m: the group id is its PID, as under
# argocd-cmp-server), signals it the way a case needs, then checks by PID (never by name) that nothing survives
# and that the scratch parent ($scratch, the TMPDIR given to cmp-generate) is empty.
set -m

rec=$tmp/rec
scratch=$tmp/scratch

# $pkg: a Kptfile whose pipeline renders charts/web with render-helm-chart, inline values included.
helmpkg() {
  newpkg
  cat >"$pkg/Kptfile" <<'EOF'
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: attack
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/render-helm-chart:v0.2.0
      configPath: chart.yaml
EOF
  cat >"$pkg/chart.yaml" <<'EOF'
apiVersion: fn.kpt.dev/v1alpha1
kind: RenderHelmChart
metadata:
  name: web
  annotations:
    config.kubernetes.io/local-config: "true"
helmCharts:
  - chartArgs:
      name: web
    templateOptions:
      releaseName: web
      values:
        valuesInline:
          inline: s3cr3t-inline
EOF
  mkdir -p "$pkg/charts/web/templates"
  printf 'apiVersion: v2\nname: web\nversion: 0.1.0\n' >"$pkg/charts/web/Chart.yaml"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: "1"\n' >"$pkg/charts/web/templates/cm.yaml"
}

# fakehelm < BODY: $tmp/bin/helm, a shell script that records its PID in $rec/helm.pid, then runs BODY.
fakehelm() {
  mkdir -p "$tmp/bin"
  rm -f "$tmp/bin/helm" # never write through a link (to the shared real helm, say)
  { echo '#!/bin/sh'; echo "rec='$rec'"; echo 'echo $$ >"$rec/helm.pid"'; cat; } >"$tmp/bin/helm"
  chmod +x "$tmp/bin/helm"
}

# What a hostile helm does before it hangs: a child in our process group, one that escaped it (setsid), files in
# its HOME and cache, and the values it was handed read once.
HANG_BODY='sleep 300 & echo $! >"$rec/grandchild.pid"
setsid sleep 302 & echo $! >"$rec/escaped.pid"
echo cached >"$HOME/cache-file"; mkdir -p "$HELM_CACHE_HOME" && echo x >"$HELM_CACHE_HOME/index.yaml"
echo tmp >"$TMPDIR/helm-tmp-file"
mkdir "$HOME/many" && for i in $(seq 5000); do : >"$HOME/many/$i"; done # removal takes a while
for a in "$@"; do case $a in /proc/self/fd/*) cat "$a" >/dev/null;; esac; done
echo ready >"$rec/ready"'

# start_cg BIN [NAME=VALUE...] [-- ARGS...]: cmp-generate ARGS (default: render .) in $pkg, in the background, in a
# process group of its own, with env -i plus the given variables, TMPDIR=$scratch and HELM_BIN=$tmp/bin/helm, run
# through the command in the array $wrap when a case sets one (each command execs the next: $pid stays ours).
# Sets $pid; stdout and stderr go to $tmp/out and $tmp/err.
wrap=()
start_cg() {
  local b=$1; shift
  local vars=() args=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
  [ "${1:-}" = -- ] && shift
  args=("$@"); [ ${#args[@]} -eq 0 ] && args=(render .)
  rm -rf "$rec" "$scratch"; mkdir -p "$rec" "$scratch"
  # SIGINT restored: a suite run as a background job hands its children SIGINT ignored, which we keep ignored (as a
  # background job should), and children-sigint's verdict then depended on how the suite was started
  (cd "$pkg" && exec "${wrap[@]}" env -i --default-signal=INT PATH="$tools:/usr/bin:/bin" HOME="$tmp/home" TMPDIR="$scratch" \
    HELM_BIN="$tmp/bin/helm" ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" "${vars[@]}" "$b" "${args[@]}") \
    >"$tmp/out" 2>"$tmp/err" &
  pid=$!
}

# in_container FILE TEXT: sets $wrap so that cmp-generate runs as in a container whose cgroup file FILE (memory.max,
# or memory/memory.limit_in_bytes for cgroup v1) holds TEXT: a user and mount namespace of its own whose
# /sys/fs/cgroup is a tmpfs holding that one file. The program reads its real paths; nothing in it is a test knob.
# As root, a mount namespace alone: the kernel refuses a user namespace inside a chroot (make test-fresh runs there),
# and unshare's default "make / private" fails where / is not a mount point, so /sys is made private by hand first
# (the stand-in must never reach the parent's /sys; if that fails, the case fails).
in_container() {
  local ns=(unshare --user --map-root-user --mount) private=:
  if [ "$(id -u)" = 0 ]; then ns=(unshare --mount --propagation unchanged); private='mount --make-rprivate /sys'; fi
  wrap=("${ns[@]}" sh -c "$private"' && mount -t tmpfs cgroup-stand-in /sys/fs/cgroup &&
    f=/sys/fs/cgroup/$1 && mkdir -p "${f%/*}" && printf "%s\n" "$2" >"$f" && shift 2 && exec "$@"' in-container "$1" "$2")
}

# Waits (10 s at most) until the fake helm wrote $rec/ready.
wait_ready() {
  for _ in $(seq 100); do [ -e "$rec/ready" ] && return 0; sleep 0.1; done
  return 1
}

# finish [S]: waits for cmp-generate (S seconds at most, default 20, then SIGKILL to its group); sets $rc.
# (stderr: bash's job notices)
finish() {
  for _ in $(seq $(( ${1:-20} * 10 ))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL -- "-$pid" 2>/dev/null
  wait "$pid"; rc=$?
} 2>/dev/null

# finish_now: like finish for a process about to exit, but returns the moment it does (a blocking wait, with a
# 120 s guard against a hang only: on a loaded machine the SIGINT cleanup of 5,000 scratch files once took over
# 20 s and the guard's SIGKILL, not our code, decided the verdict), so leftovers 0 right after shows what was still
# there when it exited.
finish_now() {
  (sleep 120; kill -KILL -- "-$pid") >/dev/null 2>&1 & local guard=$!
  wait "$pid"; rc=$?
  kill "$guard"; wait "$guard"
} 2>/dev/null

alive() { # PID is a process and not a zombie
  local line
  { read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
  line=${line##*) }
  [ "${line%% *}" != Z ]
}

group_left() { # the live processes of process group $1, read from /proc without a fork per process
  local f line st pg out=
  for f in /proc/[0-9]*/stat; do
    { read -r line <"$f"; } 2>/dev/null || continue
    line=${line##*) }; st=${line%% *}; line=${line#* }; line=${line#* }; pg=${line%% *}
    [ "$pg" = "$1" ] && [ "$st" != Z ] && out="$out ${f//[^0-9]/}"
  done
  echo $out
}

# leftovers [WAIT_S]: what survives (recorded PIDs, members of our process group, files under $scratch), polled up
# to WAIT_S seconds (default 0: now); empty when nothing does. Survivors are then killed so a failure leaves nothing.
leftovers() {
  local n=$(( ${1:-0} * 10 )) i p left
  for (( i = 0; ; i++ )); do
    left=
    for f in "$rec"/*.pid; do [ -s "$f" ] && p=$(cat "$f") && alive "$p" && left="$left $(basename "$f" .pid)=$p"; done
    p=$(group_left "$pid"); [ -n "$p" ] && left="$left group:$p"
    [ -n "$(ls -A "$scratch" 2>/dev/null)" ] && left="$left files:$(cd "$scratch" && find . -mindepth 1 | head -5 | tr '\n' ' ')"
    [ -z "$left" ] || [ "$i" -ge "$n" ] && break
    sleep 0.1
  done
  for f in "$rec"/*.pid; do [ -s "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null; done
  kill -KILL -- "-$pid" 2>/dev/null
  echo $left
}

# verdict NAME TAG WANT_RC REGEX LEFT: one PASS/FAIL line from $rc, $tmp/out, $tmp/err and the leftovers.
verdict() {
  local name=$1 tag=$2 want=$3 pat=$4 left=$5
  if [ "$rc" -ge 99 ] || grep -q "Sanitizer\|runtime error" "$tmp/err"; then
    echo "FAIL $name [$tag]: crash or sanitizer report (exit $rc): $(head -c 300 "$tmp/err")"
  elif [ "$rc" -ne "$want" ]; then echo "FAIL $name [$tag]: exit $rc, want $want: $(head -c 300 "$tmp/err")"
  elif [ "$want" -ne 0 ] && [ -s "$tmp/out" ]; then echo "FAIL $name [$tag]: stdout not empty on error"
  elif [ "$want" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then echo "FAIL $name [$tag]: stderr is not one line: $(head -c 300 "$tmp/err")"
  elif [ -n "$pat" ] && ! grep -Eq -- "$pat" "$tmp/err" "$tmp/out"; then echo "FAIL $name [$tag]: /$pat/ not found: $(head -c 300 "$tmp/err")"
  elif [ -n "$left" ]; then echo "FAIL $name [$tag]: left behind: $left"
  else echo "PASS $name [$tag]"; fi
}
