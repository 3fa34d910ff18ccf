# Attack: a chart that makes helm eat the sidecar: gigabytes of memory, minutes of CPU, a huge file, endless
# output. Each is stopped by its limit (the real helm where a template can do it, a fake one otherwise) with one
# line naming the tool, the limit and its variable, and nothing left behind.
. "$here/children.sh"
realhelm=$tools/helm

# a template that asks for 2 GB in one allocation (RLIMIT_DATA alone misses it: see util/child.c)
helmpkg
printf '{{- $x := repeat 2000000000 "x" }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m{{ len $x }}\n' \
  >"$pkg/charts/web/templates/cm.yaml"
for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}
  # in a container with no memory limit ("max"), so the render's budget is 192 MB (the Components' 256Mi) whatever
  # this machine's cgroup says, and the child gets 3/4 of what it has free
  in_container memory.max max
  start_cg "$bin" HELM_BIN="$realhelm" CMP_CHILD_TIMEOUT=120; finish 130 # filling memory is slow on a busy machine
  wrap=()
  verdict children-memory-one-allocation "$tag" 1 'helm template of chart web ran out of memory: a child may use 14[0-9] MB, 3/4 of what the render.s memory budget of 192 MB had free when it started \(CMP_MAX_MEMORY_MB unset and no container memory limit visible' "$(leftovers 0)"
done

# ... or in many: a list that keeps growing (RLIMIT_DATA stops it inside Go's runtime, or the watchdog)
printf '{{- $l := list }}{{- range until 40 }}{{- $l = append $l (repeat 50000000 "x") }}{{- end }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m{{ len $l }}\n' \
  >"$pkg/charts/web/templates/cm.yaml"
for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}
  start_cg "$bin" HELM_BIN="$realhelm" CMP_CHILD_MAX_MEMORY_MB=400; finish
  verdict children-memory-growing "$tag" 1 'helm template of chart web ran out of memory: a child may use 400 MB \(raise it with CMP_CHILD_MAX_MEMORY_MB\)' "$(leftovers 0)"
done

# ... and unset, the limit is 3/4 of what the render's memory budget has free, the budget 3/4 of the sidecar
# container's memory limit (cgroup v2, else v1): the error says that is where it came from, since raising the
# container's limit is the fix. A value that is set wins, and its error says nothing of the container.
for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}
  in_container memory.max 134217728 # 128 MiB
  start_cg "$bin" HELM_BIN="$realhelm"; finish
  verdict children-memory-container-limit-v2 "$tag" 1 'helm template of chart web ran out of memory: a child may use [67][0-9] MB, 3/4 of what the render.s memory budget of 96 MB had free when it started \(CMP_MAX_MEMORY_MB unset: 3/4 of the sidecar container.s 128 MiB memory limit; the operator raises the container.s limit or sets CMP_MAX_MEMORY_MB; or the operator sets CMP_CHILD_MAX_MEMORY_MB\)' "$(leftovers 0)"
  in_container memory/memory.limit_in_bytes 201326592 # 192 MiB, and no v2 file
  start_cg "$bin" HELM_BIN="$realhelm"; finish
  verdict children-memory-container-limit-v1 "$tag" 1 'helm template of chart web ran out of memory: a child may use 10[0-9] MB, 3/4 of what the render.s memory budget of 144 MB had free when it started \(CMP_MAX_MEMORY_MB unset: 3/4 of the sidecar container.s 192 MiB memory limit' "$(leftovers 0)"
  in_container memory.max 134217728
  start_cg "$bin" HELM_BIN="$realhelm" CMP_CHILD_MAX_MEMORY_MB=100; finish
  verdict children-memory-set-beats-container "$tag" 1 'helm template of chart web ran out of memory: a child may use 100 MB \(raise it with CMP_CHILD_MAX_MEMORY_MB\)' "$(leftovers 0)"
  wrap=()
done

# a template that loops for minutes without holding more memory as it goes: three ranges over one list of 1,000
# (10^9 turns; helm stays at ~50 MB of RSS however long it runs), so CPU time is the only limit it can reach, on an
# idle machine or a loaded one. The loop this case had, "range until 1000000000", builds a list that grows with
# every CPU second (230 MB after 2 s here, more where page faults cost more), so on a loaded machine it once hit
# the 1024 MB memory limit first and the verdict depended on the load. children-cpu-not-memory shows it cannot:
# under a 128 MB memory limit the loop still runs out of CPU time (the old loop ran out of memory there). The
# timeouts are guards for a broken run only, far above the 2 s of CPU even on a starved machine.
printf '{{- $l := until 1000 }}{{- range $l }}{{- range $l }}{{- range $l }}{{- end }}{{- end }}{{- end }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n' \
  >"$pkg/charts/web/templates/cm.yaml"
cpu_killed='helm template of chart web used its 2 s of CPU time and was killed \(raise it with CMP_CHILD_MAX_CPU_SECONDS\)'
for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}
  start_cg "$bin" HELM_BIN="$realhelm" CMP_CHILD_MAX_CPU_SECONDS=2 CMP_CHILD_TIMEOUT=300; finish 310
  verdict children-cpu "$tag" 1 "$cpu_killed" "$(leftovers 0)"
  start_cg "$bin" HELM_BIN="$realhelm" CMP_CHILD_MAX_CPU_SECONDS=2 CMP_CHILD_MAX_MEMORY_MB=128 CMP_CHILD_TIMEOUT=300; finish 310
  verdict children-cpu-not-memory "$tag" 1 "$cpu_killed" "$(leftovers 0)"
done

# a helm that writes a file bigger than the limit into its TMPDIR
fakehelm <<'EOF'
exec head -c 3000000 /dev/zero >"$TMPDIR/big"
EOF
for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}
  start_cg "$bin" CMP_CHILD_MAX_FILE_MB=1; finish
  verdict children-file-size "$tag" 1 'helm template of chart web tried to write a file over 1 MB \(raise it with CMP_CHILD_MAX_FILE_MB\)' "$(leftovers 0)"
done

# a helm whose output never ends: stopped at the input limit, and no more than that is read (memory stays small)
fakehelm <<'EOF'
exec yes 'a: b'
EOF
for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}
  start_cg "$bin" CMP_MAX_FILE_BYTES=1M; finish
  verdict children-output-file-limit "$tag" 1 'helm template of chart web wrote more than 1048576 bytes and was killed \(max-file-bytes; raise it with CMP_MAX_FILE_BYTES\)' "$(leftovers 0)"
  start_cg "$bin" CMP_MAX_TOTAL_BYTES=300K; finish
  verdict children-output-total-limit "$tag" 1 'helm template of chart web wrote more than the [0-9]+ bytes left of the input limit and was killed \(max-total-bytes 307200; raise it with CMP_MAX_TOTAL_BYTES\)' "$(leftovers 0)"
done
# the default limits (CMP_MAX_TOTAL_BYTES follows the memory budget: a 32nd of it, 6 MiB with no container limit):
# the render fails at the first it meets, having held at most that much (plain build: ASan's own memory would hide
# it)
bin=${bins[0]%:*}
rm -rf "$scratch"; mkdir -p "$scratch"
(cd "$pkg" && env -i PATH="$tools:/usr/bin:/bin" TMPDIR="$scratch" HELM_BIN="$tmp/bin/helm" /usr/bin/time -o "$tmp/time" \
  -f 'maxrss %M' "$bin" render . >"$tmp/out" 2>"$tmp/err"); rc=$?
kb=$(sed -n 's/^maxrss //p' "$tmp/time")
[ -n "$kb" ] && [ "$kb" -lt 200000 ] || rc=98
[ "$rc" = 98 ] && rc=1 && left="maxrss ${kb:-?} KB" || left=
[ -n "$(ls -A "$scratch")" ] && left="$left scratch not empty"
verdict children-output-read-no-further "plain" 1 'wrote more than (the [0-9]+ bytes left of the input limit|[0-9]+ bytes) and was killed' "$left"
