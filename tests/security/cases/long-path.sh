# Paths longer than PATH_MAX: the author nests directories (each name well under NAME_MAX, as git checks them out
# one directory at a time) until a resource file's absolute path no longer fits in PATH_MAX. The reader used to
# drop such a file without a word (lstat fails), so a package could hide objects from its own render. It must be an
# error naming the start of the path; so must an in-place write to such a path.

# deep DIR LEVELS: makes LEVELS nested 200-character directories below DIR, walking into each (no long paths
# handed to the system), and leaves the deepest one's relative path in $deep
deep() {
  local seg i; seg=$(printf 'd%.0s' $(seq 200)); deep=""
  ( cd "$1" && for i in $(seq "$2"); do mkdir "$seg" && cd "$seg" || exit 1; done
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hidden\n' >cm.yaml )
  for i in $(seq "$2"); do deep="$deep${deep:+/}$seg"; done
}

newpkg
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: visible\n' >"$pkg/a.yaml"
deep "$pkg" 21
check long-path-reader-refuses 1 'the path "d{60}\.\.\." is [0-9]+ bytes long as an absolute path, over the system.s limit of 4096 \(PATH_MAX\)'

# a subpackage whose directory fits but whose Kptfile does not: the Kptfile used to read as absent, its pipeline
# was skipped and its files were taken as plain resources of the parent (a.yml still fits)
newpkg
mkdir -p "$pkg/x"
room=$(( 4088 - ${#pkg} - 3 ))   # "$pkg/x/<name>" is 4088 bytes: "/a.yml" fits below PATH_MAX, "/Kptfile" does not
seg=$(printf 'e%.0s' $(seq 200)); name=""
while [ $(( ${#name} + 201 )) -le "$room" ]; do name="$name${name:+/}$seg"; done
pad=$(( room - ${#name} - 1 )); [ "$pad" -gt 0 ] && name="$name/$(printf 'f%.0s' $(seq "$pad"))"
( cd "$pkg/x" && IFS=/ && for part in $name; do mkdir "$part" && cd "$part" || exit 1; done &&
  printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub\n' >Kptfile &&
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n' >a.yml )
check long-path-subpackage-kptfile-refused 1 'the path "x/e{58}\.\.\." is 4096 bytes long'

# in place: a target-path that would be written one directory at a time but could never be read back
newpkg
printf 'pipeline:\n  mutators:\n    - image: upsert-resource\n      configPath: u.yaml\n' >>"$pkg/Kptfile"
seg=$(printf 'g%.0s' $(seq 200)); target=""
for i in $(seq 21); do target="$target$seg/"; done
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new\n  annotations:\n    config.kubernetes.io/target-path: %snew.yaml\n' \
  "$target" >"$pkg/u.yaml"
check long-path-in-place-target-refused 1 'the path "g{60}\.\.\." is [0-9]+ bytes long' -- render --in-place .
if [ -e "$pkg/$seg" ]; then echo "FAIL long-path-in-place-nothing-made: $seg/ was created"; else echo "PASS long-path-in-place-nothing-made"; fi

# Attack: overflow the reader's stack. It walks one directory level per call, and a level's frame grew a PATH_MAX
# buffer (4.5 KB): a chain of one-letter subpackages as deep as PATH_MAX allows (about 2,000) took 9.6 MB of the
# 8 MB stack and the render died on SIGSEGV. Every level must be read, the deepest object rendered.
newpkg
levels=$(( (4096 - ${#pkg} - 20) / 2 ))
chain=$(printf 'a/%.0s' $(seq "$levels"))
mkdir -p "$pkg/$chain"
( cd "$pkg" && d=. && for i in $(seq "$levels"); do d=$d/a
    printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: level%s\n' "$i" >"$d/Kptfile"; done &&
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deepest\n' >"$d/cm.yaml" )
CASE_ENV="ARGOCD_APP_NAME=attack ARGOCD_APP_SOURCE_PATH=app" check long-path-deepest-nesting 0 '^  name: deepest$'
