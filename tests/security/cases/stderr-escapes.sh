# Attack: terminal escapes in the one stderr line Argo CD shows (argocd app get, the UI, the repo-server's logs):
# a file name, a YAML value, helm's `fail` message or kustomize's error carrying ESC sequences (CSI that recolours
# or clears the screen, OSC that sets the title or writes the clipboard), BEL, CR (rewrites the line), C1 controls
# (raw or as UTF-8), bidi overrides and invalid UTF-8. Rule: every byte of the package's or a child's text that
# reaches stderr goes through one escaping path (text_escape, util/diag.h), so the line holds no control byte but its
# final newline, no DEL, no C1, only valid UTF-8, and each escape shows as text (\x1b, \x07, \r, \u009b, \xff).

# stderr_clean NAME TAG: one PASS/FAIL line on $err, the last check's stderr: every line as the rule says
stderr_clean() {
  if perl -e 'local $/; my $s = <>; $s =~ s/\n\z// or exit 4;
      for my $l (split /\n/, $s, -1) {
        exit 1 if $l =~ /[\x00-\x1f\x7f]/;    # C0 (ESC, BEL, CR, TAB, a line break inside) and DEL
        utf8::decode($l) or exit 2;           # a raw C1 byte or any other byte that is not UTF-8
        exit 3 if $l =~ /[\x{80}-\x{9f}\x{2028}\x{2029}\x{202a}-\x{202e}\x{2066}-\x{2069}]/; # C1, LS/PS, bidi
      }' "$err"; then echo "PASS $1 [$2]"
  else echo "FAIL $1 [$2]: stderr holds raw control bytes (perl rule $?): $(od -An -c "$err" | tr -s ' \n' ' ' | head -c 400)"; fi
}

# escapes_case NAME WANT_EXIT REGEX: check with each build, then that its stderr is clean
escapes_case() {
  local b tag
  for b in "${bins[@]}"; do
    tag=${b##*:}
    check "$1" "$2" "$3" "$tag"
    stderr_clean "$1-stderr-clean" "$tag"
  done
}

# 1. a file name: OSC (window title), BEL, CSI (red), C1 CSI as UTF-8, CR, LF, TAB, an invalid byte and DEL
newpkg
printf 'a: [\n' >"$pkg/$(printf 'bad\033]0;pwned\007\033[31m\302\233x\r\n\tz\377\177.yaml')"
escapes_case stderr-escapes-file-name 1 \
  'bad\\x1b\]0;pwned\\x07\\x1b\[31m\\u009bx\\r\\n\\tz\\xff\\x7f\.yaml:2: read: invalid YAML'

# 2. a YAML value quoted in an error (double-quoted YAML escapes: \e ESC, \a BEL, \x9b and \N C1, \L LS, \u202e RLO)
newpkg
cat >"$pkg/Kptfile" <<'EOF'
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: attack
pipeline:
  mutators:
    - image: kustomize-build
      configMap:
        path: "ov\e]0;pwned\a\e[2J\x9b\N\L\u202e"
EOF
escapes_case stderr-escapes-yaml-value 1 \
  'overlay "ov\\x1b\]0;pwned\\x07\\x1b\[2J\\u009b\\u0085\\u2028\\u202e" does not exist in the package'

# 3. helm's own error: a template that fails with a message full of escapes (Go string escapes in the template)
newpkg
cat >"$pkg/Kptfile" <<'EOF'
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: attack
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/render-helm-chart:v0.2.0
      configMap:
        name: web
        chartHome: charts
EOF
mkdir -p "$pkg/charts/web/templates"
printf 'apiVersion: v2\nname: web\nversion: 0.1.0\n' >"$pkg/charts/web/Chart.yaml"
printf '{{ fail "boom\\x1b]0;pwned\\x07\\x1b[31m\\u009b\\x9b\\r\\nline2\\xff" }}\n' >"$pkg/charts/web/templates/cm.yaml"
escapes_case stderr-escapes-helm-fail 1 \
  'helm template of chart web failed \(exit 1\): .*boom\\x1b\]0;pwned\\x07\\x1b\[31m\\u009b\\x9b +line2\\xff'

# 4. kustomize's own error, which quotes a resource's file name as it is (its YAML is invalid)
newpkg
printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: attack\npipeline:\n  mutators:\n    - image: kustomize-build\n      configMap:\n        path: ov\n' >"$pkg/Kptfile"
mkdir -p "$pkg/ov"
printf 'resources:\n  - "cm\\e]0;pwned\\a\\x9bx.yaml"\n' >"$pkg/ov/kustomization.yaml"
printf 'a: [\n' >"$pkg/ov/$(printf 'cm\033]0;pwned\007\302\233x.yaml')"
escapes_case stderr-escapes-kustomize-error 1 \
  "kustomize build ov failed \(exit 1\): .*'cm\\\\x1b\]0;pwned\\\\x07\\\\u009bx\.yaml'"

# 5. a warning (the render succeeds): a step's image tag that is no release, quoted in the warning line
newpkg
printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: attack\npipeline:\n  mutators:\n    - image: "gcr.io/kpt-fn/set-labels:v\\e]0;pwned\\a\\x9b31m\\N"\n      configMap:\n        team: web\n' >"$pkg/Kptfile"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n' >"$pkg/cm.yaml"
escapes_case stderr-escapes-warning 0 \
  'warning: .*tag "v\\x1b\]0;pwned\\x07\\u009b31m\\u0085" is not a release version'
