# The environment every test runs in, sourced first by tests/run-all and by each tests/<suite>/run:
#   . "$(dirname "$0")/../lib/env.sh"
# cmp-generate reads its settings from the environment (ARGOCD_*, PARAM_*, CMP_*, HELM_BIN, KUBE_VERSION, GIT_*, ...),
# so a test must never inherit the caller's. Unless the environment is already exactly the list below, the script
# that sources this file starts again under `env -i` with only that list:
#   PATH          the project's .tools/bin, then the system directories
#   HOME          $TESTS_TMP/home (helm and git write their caches and config there)
#   LANG, LC_ALL  C.UTF-8
#   TESTS_TMP     where suites make their temp dirs (default <repo>/tests/tmp; created only when defaulted: a
#                 TESTS_TMP that does not exist makes every suite fail cleanly, never write elsewhere)
#   CMP_GENERATE, CMP_GENERATE_ASAN, BUILD_DIR   the builds under test
#   ASAN_OPTIONS, UBSAN_OPTIONS   the runner's sanitizer settings (leaks detected, reports exit 99)
# plus, when set by the caller, the suites' own knobs (tests_knobs below): they configure tests, never cmp-generate.
# After sourcing: TESTS_ENV (the NAME=VALUE list, for `env -i "${TESTS_ENV[@]}"`) and the helper tests_mktemp.
tests_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tests_knobs=(UPDATE KEEP_TMP CC CMP_SERVER_WRAP FUZZ_RUNS FUZZ_SECONDS FUZZ_JOBS FUZZ_ARGS FUZZ_CC FUZZ_BUILD_JOBS FUZZ_ASAN_OPTIONS
             CONFORMANCE_CASES CONFORMANCE_VERBOSE CONFORMANCE_KEEP CONFORMANCE_TIMEOUT CONFORMANCE_DEVIATIONS
             BENCH_SIZES BENCH_RUNS BENCH_KUSTOMIZE_MAX BENCH_TIMEOUT BENCH_QUICK BENCH_KEEP BENCH_KUSTOMIZE BENCH_BIN
             BENCH_ONLY BENCH_TARGET_N BENCH_TARGET_BIG BENCH_HELM_BYTES BENCH_HELLO_RUNS BENCH_IR_MAX
             KPT_COMPARE_KPT KPT_COMPARE_CASES KPT_COMPARE_JOBS KPT_COMPARE_KEEP
             BENCH_MEMORY_BYTES BENCH_MEMORY_SHAPES BENCH_PARAMS_REQUESTS BENCH_DENSE BENCH_DENSE_BIG BENCH_LINEAR_N
             BENCH_LINEAR_FNS)

if [ -z "${TESTS_TMP:-}" ]; then
  TESTS_TMP="$tests_root/tests/tmp"
  mkdir -p "$TESTS_TMP"
fi
TESTS_ENV=(
  "PATH=$tests_root/.tools/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
  "HOME=$TESTS_TMP/home"
  "LANG=C.UTF-8" "LC_ALL=C.UTF-8"
  "TESTS_TMP=$TESTS_TMP"
  "CMP_GENERATE=${CMP_GENERATE:-$tests_root/cmp-generate}"
  "CMP_GENERATE_ASAN=${CMP_GENERATE_ASAN:-$tests_root/cmp-generate-asan}"
  "BUILD_DIR=${BUILD_DIR:-$tests_root/build}"
  "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99"
  "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99"
)
for tests_k in "${tests_knobs[@]}"; do
  [ -n "${!tests_k+x}" ] && TESTS_ENV+=("$tests_k=${!tests_k}")
done
unset tests_k

# Already exactly that environment (bash's own PWD, OLDPWD, SHLVL and _ aside)? Otherwise start again without the rest.
tests_env_now() {
  local n
  for n in $(compgen -e); do
    case $n in PWD|OLDPWD|SHLVL|_|TESTS_ENV_REEXEC) continue;; esac
    printf '%s=%s\0' "$n" "${!n}"
  done | sort -z | tr '\0' '\n'
}
if [ "$(tests_env_now)" != "$(printf '%s\0' "${TESTS_ENV[@]}" | sort -z | tr '\0' '\n')" ]; then
  if [ -n "${TESTS_ENV_REEXEC:-}" ]; then
    echo "FAIL environment: still not scrubbed after env -i: $(tests_env_now | cut -d= -f1 | tr '\n' ' ')"
    exit 1
  fi
  exec env -i TESTS_ENV_REEXEC=1 "${TESTS_ENV[@]}" bash "$0" "$@"
fi
unset TESTS_ENV_REEXEC
[ -d "$TESTS_TMP" ] && mkdir -p "$HOME" 2>/dev/null

# tests_mktemp NAME: a new directory $TESTS_TMP/NAME.XXXXXX on stdout; when it cannot be made, a FAIL line
# "FAIL NAME-setup: ..." and exit status 1 (call it as: tmp=$(tests_mktemp x) || exit 1).
tests_mktemp() {
  local d
  if ! d=$(mktemp -d "$TESTS_TMP/$1.XXXXXX" 2>&1) || [ -z "$d" ] || [ ! -d "$d" ]; then
    echo "FAIL $1-setup: cannot make a temp dir in TESTS_TMP=$TESTS_TMP: $d" >&2
    return 1
  fi
  echo "$d"
}

# tests_objs DIR: the objects under DIR (build/rel or build/san) of today's sources, main.o left out, one per line.
# A developer's build tree keeps the objects of files since moved or removed; linking those too gives duplicate
# symbols, so a test program links exactly what the sources are now.
tests_objs() {
  (cd "$tests_root" && find src -name '*.c' ! -path src/main.c | sort | sed "s#^#$1/#; s#\\.c\$#.o#" |
   while read -r o; do [ -f "$o" ] && echo "$o"; done)
}
