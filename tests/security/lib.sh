# Shared by every tests/security/cases/*.sh (sourced by tests/security/run, one case file at a time).
# A case builds a package the way an attacker would write it, runs cmp-generate on it with both builds
# (plain and ASan+UBSan) under a scrubbed environment, and states what must happen.
# Result lines: "PASS <case> [plain]" / "FAIL <case> [asan]: why" (run-all counts a case once, its sanitizer run apart).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bins=("$(realpath "${CMP_GENERATE:-$root/cmp-generate}"):plain")
asan=${CMP_GENERATE_ASAN:-$root/cmp-generate-asan}
[ -x "$asan" ] && bins+=("$(realpath "$asan"):asan")
tools="$root/.tools/bin"

# A fresh package at $tmp/repo/$1 (default app) with a Kptfile and nothing else; $tmp/repo is the repository root.
newpkg() {
  rm -rf "$tmp/repo"; mkdir -p "$tmp/repo/${1:-app}"
  printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: attack\n' >"$tmp/repo/${1:-app}/Kptfile"
  pkg=$tmp/repo/${1:-app}
}

# With helm enabled inside kustomize, kustomize runs the binary under test again as its helm guard, under the
# children's memory limit; an ASan build cannot reserve its shadow memory under RLIMIT_DATA, so its runs lift that
# one limit (the release build, which is what ships, keeps it; children-* cases test the limit with both builds).
asan_guard_env() {
  [ "$1" = asan ] && case " ${CASE_ENV:-} " in *" CMP_KUSTOMIZE_ENABLE_HELM=true "*) echo CMP_CHILD_MAX_MEMORY_MB=0;; esac
}

# check NAME WANT_EXIT STDERR_REGEX [plain-only] -- ARGS...
#   Runs cmp-generate ARGS (default: render .) in $pkg with env -i plus CASE_ENV (words "K=V"), PATH with helm/kubectl.
#   On failure (WANT_EXIT != 0): nothing on stdout, exactly one stderr line, the regex matches stderr.
#   On success: the regex matches stdout or stderr. Sets $out and $err to the files of the last run.
check() {
  local name=$1 want=$2 pat=$3 only=; shift 3
  if [ $# -gt 0 ] && [ "$1" != -- ]; then only=$1; shift; fi
  [ "${1:-}" = -- ] && shift
  local args=("$@"); [ ${#args[@]} -eq 0 ] && args=(render .)
  out=$tmp/out; err=$tmp/err
  for b in "${bins[@]}"; do
    local bin=${b%:*} tag=${b##*:}
    [ -n "$only" ] && [ "$tag" != "$only" ] && continue
    (cd "$pkg" && env -i PATH="$tools:/usr/bin:/bin" HOME="$tmp/home" ASAN_OPTIONS="${ASAN_OPTIONS:-}" \
      UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" ${CASE_ENV:-} $(asan_guard_env "$tag") timeout 120 "$bin" "${args[@]}" \
      >"$out" 2>"$err"); local rc=$?
    if [ $rc -ge 99 ] || [ $rc -eq 124 ] || grep -q "Sanitizer\|runtime error" "$err"; then
      echo "FAIL $name [$tag]: crash, hang or sanitizer report (exit $rc): $(head -c 400 "$err")"; continue
    fi
    if [ $rc -ne "$want" ]; then echo "FAIL $name [$tag]: exit $rc, want $want: $(head -c 300 "$err")"; continue; fi
    if [ "$want" -ne 0 ] && [ -s "$out" ]; then echo "FAIL $name [$tag]: stdout not empty on error"; continue; fi
    if [ "$want" -ne 0 ] && [ "$(wc -l <"$err")" -ne 1 ]; then echo "FAIL $name [$tag]: stderr is not one line: $(head -c 300 "$err")"; continue; fi
    if [ -n "$pat" ] && ! grep -Eq -- "$pat" "$err" "$out"; then echo "FAIL $name [$tag]: /$pat/ not found: $(head -c 300 "$err")"; continue; fi
    echo "PASS $name [$tag]"
  done
}
