# Attack: a package author's Starlark script (the starlark catalog function) tries to hang or crash the render, or
# to make it use unbounded memory: endless loops, runaway recursion, values that double each turn, huge ints and
# repeats, source nested deeper than the parser's stack, sorting values that do not compare, mutating a list while
# looping over it. Defence: src/starlark counts steps (CMP_STARLARK_MAX_STEPS), memory (CMP_STARLARK_MAX_MEMORY_MB),
# nested calls (CMP_STARLARK_MAX_DEPTH, and 4 MB of C stack whatever it says) and the size of every value it makes
# (CMP_STARLARK_MAX_LEN), checked before the value is made; the parser bounds the tree's height. Each ends in one
# error line naming the config's line, the step, the script's line and the limit.

starlark_pkg() { # script text
  newpkg
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: v\n' >"$pkg/cm.yaml"
  { printf 'apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: attack\n  annotations:\n'
    printf '    config.kubernetes.io/local-config: "true"\nsource: |\n'
    sed 's/^/  /' <<<"$1"; } >"$pkg/fn.yaml"
  printf 'pipeline:\n  mutators:\n    - image: starlark:v0.5.0\n      configPath: fn.yaml\n' >>"$pkg/Kptfile"
}
steps="CMP_STARLARK_MAX_STEPS=2000000"

starlark_pkg 'while True:
    pass'
CASE_ENV=$steps check starlark-endless-loop 1 \
  '^cmp-generate: fn.yaml:[0-9]+: .*starlark.*: attack:2:5: the script ran more than 2000000 steps \(CMP_STARLARK_MAX_STEPS\)$'

starlark_pkg 'def f(n):
    return f(n + 1)
f(0)'
check starlark-runaway-recursion 1 'attack:2:13: calls nested (more than 1000 deep|too deep .* for the interpreter.s stack) \(CMP_STARLARK_MAX_DEPTH\)$'

starlark_pkg 's = "x"
for i in range(100):
    s = s + s'
check starlark-string-doubling 1 'attack:3:11: (a string of [0-9]+ elements is over the size limit of 67108864 \(CMP_STARLARK_MAX_LEN\)|the script used more than [0-9]+ MB of memory \(CMP_STARLARK_MAX_MEMORY_MB\))$'

starlark_pkg 'l = [1]
for i in range(100):
    l = l + l'
check starlark-list-doubling 1 'attack:3:11: (a list of [0-9]+ elements is over the size limit of 67108864 \(CMP_STARLARK_MAX_LEN\)|the script used more than [0-9]+ MB of memory \(CMP_STARLARK_MAX_MEMORY_MB\))$'

starlark_pkg 'x = "x" * (1 << 62)'
check starlark-huge-repeat 1 'attack:1:9: repeat count [0-9]+ too large$'

# below go.starlark.net's own refusal (2^30 elements), the operator's size limit holds
starlark_pkg 'x = "x" * 100000000'
check starlark-big-repeat 1 'attack:1:9: a string of 100000000 elements is over the size limit of 67108864 \(CMP_STARLARK_MAX_LEN\)$'

starlark_pkg 'x = 1 << (1 << 40)'
check starlark-huge-shift 1 'attack:1:7: (shift count too large|an int of bits .* over the size limit)'

starlark_pkg 'x = 3
for i in range(64):
    x = x * x'
check starlark-int-squaring 1 'attack:3:11: (an int of bits of [0-9]+ elements is over the size limit of 67108864 \(CMP_STARLARK_MAX_LEN\)|the script ran more than 100000000 steps \(CMP_STARLARK_MAX_STEPS\))$'

# Starlark has no ** operator: the classic 10**10**10 is a syntax error
starlark_pkg 'x = 10**10**10'
check starlark-power-tower 1 "attack:1:7: got '\\*\\*', want newline$"

starlark_pkg "x = $(printf '[%.0s' $(seq 1 100000))$(printf ']%.0s' $(seq 1 100000))"
check starlark-deep-brackets 1 'attack:1:[0-9]+: (brackets nested more than 200 deep|expression nested more than 400 levels deep)$'

starlark_pkg "x = $(printf -- '-%.0s' $(seq 1 100000))1"
check starlark-deep-unary 1 'attack:1:[0-9]+: expression nested more than 400 levels deep$'

starlark_pkg "x = 1$(printf ' + 1%.0s' $(seq 1 20000))"
check starlark-long-sum 1 'attack:1:[0-9]+: expression nested more than 400 levels deep$'

starlark_pkg 'x = sorted([3, "a", None, 1])'
check starlark-sort-incomparable 1 'attack:1:11: (string < int|int < string|NoneType < string|string < NoneType|int < NoneType|NoneType < int) not implemented$'

starlark_pkg 'l = [1, 2]
for x in l:
    l.append(x)'
check starlark-mutate-while-iterating 1 'attack:3:13: (append: )?cannot append to list during iteration$'

starlark_pkg 'd = {"a": 1}
for k in d:
    d["b" + k] = 2'
check starlark-dict-insert-while-iterating 1 'attack:3:[0-9]+: cannot insert into hash table during iteration$'

starlark_pkg 'l = []
for i in range(1000000):
    l.append("x" * 100000)'
CASE_ENV="CMP_STARLARK_MAX_MEMORY_MB=64" check starlark-memory 1 'attack:3:18: the script used more than 64 MB of memory \(CMP_STARLARK_MAX_MEMORY_MB\)$'

# many distinct keys: a keyed hash keeps inserts and lookups linear whatever the keys are
starlark_pkg 'd = {}
for i in range(200000):
    d["k%d" % i] = i
s = set([str(i) for i in range(200000)])
if len(d) != 200000 or len(s) != 200000:
    fail("lost keys")'
check starlark-many-keys 0 ''

# no environment, no files, no network
starlark_pkg 'if ctx.environment:
    fail("sees the environment")
load("http.star", "http")'
CASE_ENV="SECRET_TOKEN=hunter2" check starlark-no-environment-no-http 1 'attack:3:1: cannot load http.star: no such module \(this build offers krmfn.star, encoding/json.star\)$'

# Found by an attacker's review: values nested a million deep. Freezing a module's globals and hashing a tuple
# walked them by C recursion, past the stack (SIGSEGV with nothing on stderr), well inside every budget. Freezing
# now keeps a work list of its own; a hash deeper than 1,000 levels is refused, as a comparison is.
starlark_pkg 'l = []
for i in range(1000000):
    l = [l]'
check starlark-deep-value-frozen 0 'name: cm'
starlark_pkg 'def f():
    t = ()
    for i in range(300000):
        t = (t,)
    x = {t: 1}
f()'
check starlark-deep-tuple-hashed 1 'attack:5:10: hash exceeds maximum recursion depth \(a tuple nested over 1000 deep\)$'

# Found by the same review: big-int work charged far below its cost, and int() charged after the work, so one
# statement took the render's whole deadline whatever CMP_STARLARK_MAX_STEPS said. Each is now charged, before the
# work, by what it costs; the step count decides (deterministic), not the clock.
starlark_pkg 'x = int("7" * 200000)'
check starlark-bigint-parse-charged 1 'attack:1:8: the script ran more than 100000000 steps \(CMP_STARLARK_MAX_STEPS\)$'
starlark_pkg 'x = 2
for i in range(19):
    x = x * x
s = str(x)'
check starlark-bigint-format-charged 1 'attack:4:[0-9]+: the script ran more than 100000000 steps \(CMP_STARLARK_MAX_STEPS\)$'
starlark_pkg 'x = 2
for i in range(20):
    x = x * x
y = x * x
z = y * x'
check starlark-bigint-multiply-charged 1 'attack:5:[0-9]+: the script ran more than 100000000 steps \(CMP_STARLARK_MAX_STEPS\)$'
