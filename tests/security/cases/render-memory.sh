# Attack: memory. The render's tree costs up to ~28 bytes per input byte on the worst shapes (tests/bench/memory),
# and aliases and functions multiply it: a few KB of aliases copy a million nodes per file, set-labels adds every
# label to every object. With input limits alone (512 MiB by default) a 30 MB input peaked at 490 MiB and the limits
# allowed ~8 GB, in a 256Mi container shared with argocd-cmp-server: the kernel's OOM killer ended both.
# Defence: a memory budget (CMP_MAX_MEMORY_MB, 3/4 of the container's limit) counts every allocation of the render
# (util/arena.h); going past it is one line naming the limit and where it comes from, nothing on stdout. The input
# limits' defaults follow from the budget (a 32nd of it), so within them the worst shape fits; a child's memory
# limit comes out of the same budget while it runs.
# The packages come from tests/bench/shapes.c, the generator of the bench's table. Each verdict counts bytes, not
# time or RSS, so both builds give the same one (ASan's own memory is not ours: the budget does not see it).
. "$here/children.sh"
if ! cc -O2 -o "$tmp/shapes" "$root/tests/bench/shapes.c"; then
  echo "FAIL render-memory-setup: cannot build tests/bench/shapes.c"
  return 0
fi

# shape NAME BYTES: a package at $tmp/repo/app whose input is about BYTES of the shape
shape() {
  rm -rf "$tmp/repo"; mkdir -p "$tmp/repo"
  "$tmp/shapes" "$1" "$2" "$tmp/repo/app" >/dev/null
  pkg=$tmp/repo/app
}
linear="tiny-objects flow-seq null-items deep-seqs deep-maps many-keys short-scalars long-keys line-comments head-comments tags"

# Each shape, 4 MB of it, where the operator raised the input limits but not the budget (8 MB): the budget stops
# the read (every shape needs at least 4 bytes of memory a byte; without the budget each renders).
for s in $linear; do
  shape "$s" 4000000
  CASE_ENV="CMP_MAX_MEMORY_MB=8 CMP_MAX_TOTAL_BYTES=64M CMP_MAX_FILE_BYTES=64M" \
    check "render-memory-$s" 1 '^cmp-generate: r\.yaml: read: the render needs more than 8 MB of memory \(CMP_MAX_MEMORY_MB=8; the operator raises it in the sidecar.s environment\)$'
done

# Products, within every default input limit, in a container of 64 MiB (the budget: 48 MB): aliases copying ~1
# million nodes in each of three 5 KB files (~35 MB each; cgroup v2), and set-labels plus set-annotations adding
# 100 entries each to 7,500 small objects (~80 MB; cgroup v1). The budget follows the container's cgroup file.
shape aliases 15000
for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}
  in_container memory.max 67108864
  start_cg "$bin"; finish 120; wrap=()
  verdict render-memory-aliases-container-v2 "$tag" 1 '^cmp-generate: r[0-9]+\.yaml: read: the render needs more than 48 MB of memory \(CMP_MAX_MEMORY_MB unset: 3/4 of the sidecar container.s 64 MiB memory limit; the operator raises the container.s limit or sets CMP_MAX_MEMORY_MB\)$' "$(leftovers 0)"
done
# (each object has a label and an annotation of its own: objects that lack the map share one, and grow by a pair)
shape function-growth 650000
for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}
  in_container memory/memory.limit_in_bytes 67108864
  start_cg "$bin"; finish 120; wrap=()
  verdict render-memory-function-growth-container-v1 "$tag" 1 '^cmp-generate: pipeline.mutators\[[01]\] [^:]*: the render needs more than 48 MB of memory \(CMP_MAX_MEMORY_MB unset: 3/4 of the sidecar container.s 64 MiB memory limit' "$(leftovers 0)"
done

# The input limits follow the budget: in that container CMP_MAX_TOTAL_BYTES is 48 MB / 32 = 1.5 MiB, and so is
# CMP_MAX_FILE_BYTES (the smaller of that and 64 MiB). Every shape that grows with its input renders at that size
# (the worst fits), and a little more is the input limit's error, not the budget's.
for s in $linear; do
  shape "$s" $((1572864 - 2000)) # the Kptfile is input too
  for b in "${bins[@]}"; do
    bin=${b%:*} tag=${b##*:}
    in_container memory.max 67108864
    # (the output limit, a 16th of the budget, is raised: tiny objects' output is over twice their input)
    start_cg "$bin" CMP_MAX_OUTPUT_BYTES=100M; finish 120; wrap=()
    verdict "render-memory-fits-at-the-input-limit-$s" "$tag" 0 '' "$(leftovers 0)"
  done
done
shape flow-seq 1700000
for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}
  in_container memory.max 67108864
  start_cg "$bin"; finish 120; wrap=()
  verdict render-memory-input-limit-follows-the-budget "$tag" 1 'file is 1700000 bytes, over the limit of 1572864 \(max-file-bytes; raise it with CMP_MAX_FILE_BYTES\)' "$(leftovers 0)"
done

# A child's output parsed past the render's share: unset, helm gets 3/4 of what the budget (16 MB) has free, held
# while it runs, and the render keeps the rest to read what helm writes, as it writes it (here 2 MB of small
# objects, ~22 MB as a tree: the pipe holds 64 KB, so helm is still writing when the share runs out). The error
# says what holds the rest; helm is killed and its scratch removed.
helmpkg
"$tmp/shapes" tiny-objects 2000000 "$tmp/objects" >/dev/null
fakehelm <<EOF
cat '$tmp/objects/r.yaml'
EOF
for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}
  start_cg "$bin" CMP_MAX_MEMORY_MB=16 CMP_MAX_TOTAL_BYTES=64M CMP_MAX_FILE_BYTES=64M; finish 120
  verdict render-memory-child-output "$tag" 1 '^cmp-generate: helm template of chart web: pipeline.mutators\[0\] \(render-helm-chart\): the render needs more than 16 MB of memory \(CMP_MAX_MEMORY_MB=16; the operator raises it in the sidecar.s environment; [0-9]+ MB of it are held for helm template of chart web while it runs\)$' "$(leftovers 0)"
done

# Control: an ordinary package renders under a budget of 2 MB.
newpkg
cp "$root/examples/hello/"*.yaml "$root/examples/hello/Kptfile" "$pkg/"
CASE_ENV="CMP_MAX_MEMORY_MB=2" check render-memory-control-small-budget 0 '^kind: Deployment$'

# All or nothing under any budget. Without a temporary file for the output (TMPDIR missing), the documents are
# emitted twice, the second time straight to stdout in 64 KB pieces. A buffer that grew then went past the budget
# with part of the output out (64 KB of it, exit 1, under 20 to 27 MB): here 116 KB of small objects, then one of
# 8.36 MB (a 1.7 MB text and four aliases of it), which the buffer (8 MiB, as the first emit left it) could not hold
# after the 51 KB not yet written. At every budget from 1 to 40 MB the render prints everything or nothing.
newpkg
{
  for i in $(seq 1 2000); do printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n' "$i"; done
  printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  a: &a |\n'
  yes '    0123456789012345678901234567890123456789012345678901234567890123456789' | head -n 22288
  printf '  b: *a\n  c: *a\n  d: *a\n  e: *a\n'
} >"$pkg/r.yaml"
for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}
  (cd "$pkg" && env -i PATH=/usr/bin:/bin TMPDIR=/nonexistent CMP_MAX_TOTAL_BYTES=64M CMP_MAX_FILE_BYTES=64M \
    ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" "$bin" render --no-git-metadata . >"$tmp/full" 2>"$tmp/err") ||
    { echo "FAIL render-memory-output-all-or-nothing [$tag]: no budget: $(head -c 200 "$tmp/err")"; continue; }
  bad= rendered=0
  for mb in $(seq 1 40); do
    (cd "$pkg" && env -i PATH=/usr/bin:/bin TMPDIR=/nonexistent CMP_MAX_MEMORY_MB="$mb" CMP_MAX_TOTAL_BYTES=64M \
      CMP_MAX_OUTPUT_BYTES=100M \
      CMP_MAX_FILE_BYTES=64M ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" timeout 120 "$bin" \
      render --no-git-metadata . >"$tmp/out" 2>"$tmp/err"); rc=$?
    if [ $rc = 0 ] && cmp -s "$tmp/out" "$tmp/full"; then rendered=$((rendered + 1))
    elif [ $rc = 1 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ]; then :
    else bad="$bad ${mb}MB:exit$rc:$(wc -c <"$tmp/out")bytes"; fi
  done
  if [ -n "$bad" ]; then echo "FAIL render-memory-output-all-or-nothing [$tag]:$bad"
  elif [ "$rendered" = 0 ]; then echo "FAIL render-memory-output-all-or-nothing [$tag]: rendered under none of the budgets"
  else echo "PASS render-memory-output-all-or-nothing [$tag]"; fi
done

# Found by an attacker's review: a 1 MB function config that set-annotations copies onto every object made 100 MB of
# output from 1 MB of input, in 10 MB of our memory, while argocd-cmp-server, in the same 256Mi container, buffers the
# whole output and copies it several times. The output limit now follows the budget (a 16th of it: 4 MiB under
# 64 MB), and the operator's CMP_MAX_OUTPUT_BYTES still wins.
newpkg
printf 'pipeline:\n  mutators:\n    - image: set-annotations:v0.1.4\n      configPath: fn.yaml\n' >>"$pkg/Kptfile"
{ printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fn\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  big: '
  head -c 1000000 /dev/zero | tr '\0' x; printf '\n'; } >"$pkg/fn.yaml"
for i in 1 2 3 4 5 6; do printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n' "$i"; done >"$pkg/r.yaml"
CASE_ENV="CMP_MAX_MEMORY_MB=64" check render-memory-output-follows-the-budget 1 \
  'output is over 4194304 bytes \(max-output-bytes; .*raise it with CMP_MAX_OUTPUT_BYTES\)'
CASE_ENV="CMP_MAX_MEMORY_MB=64 CMP_MAX_OUTPUT_BYTES=8M" check render-memory-output-operator-wins 0 'name: c6'
