# --results-dir inside the package: the author plants results.yaml as a symlink out of the package (or dangling),
# hoping the results file is written through it. The file must be replaced, never written through; and a results
# file that cannot be written fails the render before anything reaches stdout.

newpkg
mkdir -p "$tmp/outside" "$pkg/results"
printf 'data: keep\n' >"$tmp/outside/cm.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n' >"$pkg/a.yaml"
printf 'results\n' >"$pkg/.krmignore"
for b in "${bins[@]}"; do
  tag=${b##*:}
  rm -f "$pkg/results/results.yaml" "$tmp/outside/created.yaml"
  ln -s ../../../outside/cm.yaml "$pkg/results/results.yaml"
  line=$(check results-dir-symlink-replaced-not-followed 0 'name: a' "$tag" -- render . --results-dir results)
  if [[ $line == PASS* ]] && ! { [ "$(cat "$tmp/outside/cm.yaml")" = 'data: keep' ] && [ ! -L "$pkg/results/results.yaml" ] &&
      grep -q 'kind: FunctionResultList' "$pkg/results/results.yaml"; }; then
    line="FAIL results-dir-symlink-replaced-not-followed [$tag]: outside: $(head -c 100 "$tmp/outside/cm.yaml" | tr "\n" " ")"
  fi
  echo "$line"
  rm -f "$pkg/results/results.yaml"
  ln -s ../../../outside/created.yaml "$pkg/results/results.yaml"
  line=$(check results-dir-dangling-symlink-not-followed 0 'name: a' "$tag" -- render . --results-dir results)
  if [[ $line == PASS* ]] && [ -e "$tmp/outside/created.yaml" ]; then
    line="FAIL results-dir-dangling-symlink-not-followed [$tag]: created outside/created.yaml"
  fi
  echo "$line"
done
# a results directory that cannot be made: an error, and the objects are not printed
check results-dir-unwritable-fails 1 'results: cannot create the directory' -- render . --results-dir Kptfile/results
