# Attack: a subchart archive that our check reads one way and helm another. helm unpacks a .tgz with Go's gzip
# (concatenated members are one stream) and archive/tar (size fields with leading NULs or in base-256, PAX size and
# path records, GNU long names, no data for a symlink or directory whatever its size says, any unknown entry type
# read as a file), then names the chart files its own way (first component dropped, the rest cleaned, '\' as the
# separator when a name has one). Each archive below (tests/security/chart-tgz.py writes them byte by byte) hides a
# values.schema.json whose "$ref" helm follows, from a reader that decodes the archive differently; *-is-real shows
# the real helm, run on the chart alone, fetching the URL.
# Defence: archives are read exactly as Go and helm read them (src/helm/archive.c), every
# values.schema.json in them is checked, and what that reader cannot show to read as Go does is refused.
. "$here/helm-lib.sh"
mkdir -p "$tmp/srv"; printf '{"type": "object"}' >"$tmp/srv/schema.json"
httpd "$tmp/srv"
ref="{\"\$ref\": \"http://127.0.0.1:$port/schema.json\"}"
fetched() { grep -q 'schema\.json' "$httplog" && echo "FAIL $1: the schema URL was fetched"; : >"$httplog"; }
# trick TRICK [SCHEMA]: a package whose chart c holds charts/sub-0.1.0.tgz, written with TRICK
trick() {
  newpkg; mkchart "$pkg/charts/c"; mkdir -p "$pkg/charts/c/charts"; step 'name: c'
  python3 "$here/chart-tgz.py" "$pkg/charts/c/charts/sub-0.1.0.tgz" "$1" sub "${2:-$ref}" ||
    echo "FAIL helm-archive-$1-setup: chart-tgz.py failed"
}
# is_real NAME: helm itself, on the chart, follows the hidden "$ref" (so the trick is an attack, not a curiosity)
is_real() {
  : >"$httplog"; (cd "$pkg" && helmx template r charts/c >/dev/null 2>&1)
  if grep -q 'schema\.json' "$httplog"; then echo "PASS $1"; else echo "FAIL $1: helm did not fetch the \$ref"; fi
  : >"$httplog"
}
found='charts/c/charts/sub-0\.1\.0\.tgz:sub.values\.schema\.json[^:]*:1: .*chart "app/charts/c": "\$ref": "http://127\.0\.0\.1:[0-9]+/schema\.json" reaches outside the schema'
refused='chart "app/charts/c": archive app/charts/c/charts/sub-0\.1\.0\.tgz is refused: '

# read as Go reads them: the schema is found and its "$ref" refused
for t in two-members nul-size base256-size pax-size pax-path gnu-long-name dot-suffix backslash dir-size duplicate; do
  trick "$t"; is_real "helm-archive-$t-is-real"
  check "helm-archive-$t" 1 "$found"; fetched "helm-archive-$t"
done
# (the helm in .tools fails an archive whose symlink claims a size; helm releases without that check read past it)
trick symlink-size; check helm-archive-symlink-size 1 "$found"; fetched helm-archive-symlink-size

# what this reader cannot show to read as Go does: the archive is refused, naming it and why
trick gnu-and-pax; is_real helm-archive-gnu-and-pax-is-real
check helm-archive-gnu-and-pax 1 "${refused}its header 5 \(\"sub/x\"\) has both a GNU long name and a PAX path"
trick unknown-type; is_real helm-archive-unknown-type-is-real
check helm-archive-unknown-type 1 "${refused}its header 3 \(\"sub/values\.schema\.json\"\) has the entry type 'Z', which Go reads as a file"
fetched helm-archive-unknown-type
trick sparse; check helm-archive-sparse 1 "${refused}its header 3 \(\"sub/values\.schema\.json\"\) is a GNU sparse file"
trick global-path; check helm-archive-global-path 1 "${refused}its header 3 \(\"pax_global_header\"\) is a PAX global header that sets a path or size"
trick trailing-junk; check helm-archive-trailing-junk 1 "${refused}after its gzip member 1 come 8 bytes that are not another gzip member"

# the unpacked bytes of every member count against the operator's limit
trick two-members "{\"description\": \"$(head -c 60000 /dev/zero | tr '\0' x)\"}"
CASE_ENV="$argocd CMP_MAX_CHART_BYTES=40K" check helm-archive-limit-every-member 1 \
  'archive app/charts/c/charts/sub-0\.1\.0\.tgz unpacks to more than 40960 bytes \(limit max-chart-bytes; raise it with CMP_MAX_CHART_BYTES\)'

# what stays allowed: a subchart packaged by helm, and one written with a global header as `git archive` writes,
# each with a harmless schema, render
newpkg; mkchart "$pkg/charts/c"; mkchart "$tmp/build/sub"; printf '{"type": "object"}' >"$tmp/build/sub/values.schema.json"
mkdir -p "$pkg/charts/c/charts"; helmx package -d "$pkg/charts/c/charts" "$tmp/build/sub" >/dev/null; step 'name: c'
check helm-archive-packaged-by-helm 0 'release: "attack"'
[ "$(grep -c 'release: "attack"' "$out")" = 2 ] && echo "PASS helm-archive-packaged-by-helm-subchart-rendered" ||
  echo "FAIL helm-archive-packaged-by-helm-subchart-rendered: $(head -c 300 "$out")"
trick global-comment '{"type": "object"}'
check helm-archive-global-comment 0 'name: sub-cm'
