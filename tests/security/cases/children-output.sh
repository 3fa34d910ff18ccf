# Attack: a helm (or kustomize) whose output is the weapon: documents trickled out before it fails, output that never
# ends, millions of tiny objects, malformed YAML deep inside, a document cut into single bytes. Children's output is
# parsed while they write it (src/yaml/load_stream.c), counted against the same limits as files, and all or nothing:
# a child stopped or failed leaves nothing on stdout and one line naming the step, the limit or the line in its output.
. "$here/children.sh"
helmpkg

# $rec/finished: written by a fake helm that got to the end of what it meant to write
finished() { [ -e "$rec/finished" ] && echo "helm wrote all its output (it should have been stopped early)"; }

# a shell loop writing N small ConfigMaps (5 lines each: object k starts on line 5k+1), then $rec/finished
many_docs() {
  printf 'i=0\nwhile [ $i -lt %s ]; do\n  printf -- "---\\napiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: cm-%%d\\n" $i\n  i=$((i + 1))\ndone\n' "$1"
}

for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}

  # documents arrive slowly, then helm fails: the documents already parsed are dropped with it
  fakehelm <<'EOF'
for n in 1 2 3; do printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: early-%s\n' $n; sleep 0.3; done
echo 'Error: template: web/templates/cm.yaml:9: executing "late" at <fail>: rendering failed half way' >&2
exit 1
EOF
  start_cg "$bin"; finish
  verdict children-output-fails-midway "$tag" 1 \
    'helm template of chart web failed \(exit 1\): Error: template: .*rendering failed half way' "$(leftovers 0)"

  # more objects than max-objects: stopped at the one too many, long before it is done (200,000 would take seconds)
  { many_docs 200000; echo 'echo done >"$rec/finished"'; } | fakehelm
  start_cg "$bin" CMP_MAX_OBJECTS=1000; finish
  # the Kptfile and chart.yaml are objects 1 and 2, so helm's object 999 (cm-998, line 5*998+2) is the 1001st
  verdict children-output-objects-stop-early "$tag" 1 \
    'helm template of chart web:4992: .*more than 1000 objects \(max-objects; raise it with CMP_MAX_OBJECTS\)' \
    "$(leftovers 0)$(finished)"

  # ... and they count together with the package's files: 2 + 3 here
  { many_docs 3; } | fakehelm
  start_cg "$bin" CMP_MAX_OBJECTS=4; finish
  verdict children-output-objects-count-with-files "$tag" 1 \
    'helm template of chart web:12: .*more than 4 objects \(max-objects; raise it with CMP_MAX_OBJECTS\)' "$(leftovers 0)"

  # more bytes than max-file-bytes: stopped there, not read to its end
  { many_docs 200000; echo 'echo done >"$rec/finished"'; } | fakehelm
  start_cg "$bin" CMP_MAX_FILE_BYTES=1M; finish
  verdict children-output-bytes-stop-early "$tag" 1 \
    'helm template of chart web wrote more than 1048576 bytes and was killed \(max-file-bytes; raise it with CMP_MAX_FILE_BYTES\)' \
    "$(leftovers 0)$(finished)"

  # malformed YAML after 150 KB of good documents: its line in helm's output, and helm stopped there
  { many_docs 3000
    printf 'printf -- "---\\napiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: bad\\ndata:\\n  a: 1\\n b: 2\\n"\n'
    many_docs 200000; echo 'echo done >"$rec/finished"'; } | fakehelm
  start_cg "$bin"; finish
  # 3000 documents of 5 lines, then the bad one: " b: 2" is its 8th line
  verdict children-output-malformed-line "$tag" 1 \
    'helm template of chart web:15008: .*invalid YAML: invalid indentation in mapping' "$(leftovers 0)$(finished)"
done

# A document cut into single bytes reads as the same text read from a file. The text comes in five segments, each
# written a byte at a time and followed by a pause, so the stream has read all of a segment when it decides where
# the parsed part ends: after each large document (a part is parsed once 64 KiB are complete), right where a
# segment ends. The traps of a YAML stream sit there: a line that starts with "---" but is a key, a "---" after a
# directive (the directive belongs to the next document), a CRLF marker, a marker with a tab; and elsewhere a
# marker with a comment, "---" inside block scalars, a List, "...".
pad() { # a ConfigMap of about 80 KB, larger than a part
  printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pad-%s\ndata:\n' "$1"
  for k in $(seq 1000); do printf '  key-%04d: "a value long enough to make the document larger than a part: %04d"\n' $k $k; done
}
seg=$tmp/segment
{ pad 1; printf -- '---x: a top-level key that starts with dashes\n'; } >"$seg.1"
{ printf 'more: keys after it\n'
  printf -- '--- # a marker with a comment\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: in-list}}\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: in-list-secret\n  stringData: {a: "x\\ny", b: "two\n    lines"}\n'
  pad 2; printf -- '...\n%%YAML 1.2\n---\n'; } >"$seg.2"
{ printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after-directive\n'; pad 3; printf -- '---\r\n'; } >"$seg.3"
{ printf 'apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: crlf\r\n'; pad 4; printf -- '---\t\n'; } >"$seg.4"
printf -- '# Source: web/templates/tricky.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tricky # a comment\ndata:\n  script: |\n    #!/bin/sh\n    echo ---\n    ---\n    --- indented, not a marker\n  keep: |+\n    kept\n\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: last\n' >"$seg.5"
sample=$tmp/sample.yaml
cat "$seg".[1-5] >"$sample"
for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}
  # the reference: the same text as a file of a package without a pipeline, at the same place
  newpkg; cp "$sample" "$pkg/sample.yaml"
  start_cg "$bin"; finish 60; leftovers 0 >/dev/null
  cp "$tmp/out" "$tmp/want"; cp "$tmp/err" "$tmp/want.err"
  helmpkg
  for how in one-write byte-writes; do
    if [ $how = one-write ]; then echo 'exec cat "'"$sample"'"' | fakehelm
    else echo 'for s in "'"$seg"'".[1-5]; do dd if="$s" bs=1 status=none; sleep 0.5; done' | fakehelm; fi
    start_cg "$bin"; finish 60
    left=$(leftovers 0)
    if [ ! -s "$tmp/want" ]; then echo "FAIL children-output-$how-as-file [$tag]: the file render failed: $(head -c 300 "$tmp/want.err")"
    elif [ $rc -ne 0 ]; then echo "FAIL children-output-$how-as-file [$tag]: exit $rc: $(head -c 300 "$tmp/err")"
    elif ! cmp -s "$tmp/out" "$tmp/want"; then
      echo "FAIL children-output-$how-as-file [$tag]: differs from the file's render: $(diff "$tmp/out" "$tmp/want" | head -5 | tr '\n' ' ')"
    elif [ -n "$left" ]; then echo "FAIL children-output-$how-as-file [$tag]: left behind: $left"
    else echo "PASS children-output-$how-as-file [$tag]"; fi
  done
done

# kustomize's output goes the same way
newpkg
printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: attack\npipeline:\n  mutators:\n    - image: kustomize-build\n      configMap:\n        path: ov\n' >"$pkg/Kptfile"
mkdir -p "$pkg/ov" "$tmp/bin"
printf 'resources: []\n' >"$pkg/ov/kustomization.yaml"
{ echo '#!/bin/sh'; echo "rec='$rec'"; echo 'echo $$ >"$rec/kustomize.pid"'; many_docs 200000; echo 'echo done >"$rec/finished"'; } >"$tmp/bin/kustomize"
chmod +x "$tmp/bin/kustomize"
for b in "${bins[@]}"; do
  bin=${b%:*} tag=${b##*:}
  start_cg "$bin" KUSTOMIZE_BIN="$tmp/bin/kustomize" CMP_MAX_OBJECTS=500; finish
  # the Kptfile is object 1: kustomize's object 500 (cm-499, line 5*499+2) is the 501st
  verdict children-output-kustomize-objects-stop-early "$tag" 1 \
    'kustomize build ov:2497: .*more than 500 objects \(max-objects; raise it with CMP_MAX_OBJECTS\)' \
    "$(leftovers 0)$(finished)"
done
