# shellcheck shell=bash
# Small YAML helpers for the test suites, in bash and awk (no python, jq or yq needed). Sourced, not run.
#
# They read block-style YAML as kustomize prints it (two-space indent, one key per line, sequences either at the
# key's indent or deeper) and also the hand-written files of this repo. They are not a YAML parser: no anchors,
# no flow mappings, no multi-line flow sequences, no keys containing ": ".
#
# Lines travel numbered ("<line number><TAB><text>") so a selection can also be cut out of its document.
#
#   ynum FILE                    number FILE's lines (the input of ysel)
#   ysel PATH                    numbered block on stdin -> numbered sub-block (or scalar) at PATH; rc 1 if absent
#   ytext                        numbered lines on stdin -> plain text
#   yget FILE PATH               plain text at PATH in FILE (scalar: unquoted value); rc 1 if absent
#   yitems                       plain sequence block (or inline "[a, b]") on stdin -> one scalar item per line
#   yfield KEY                   plain sequence-of-mappings block on stdin -> each item's KEY value, one per line
#   ycut FILE NUMBERED           FILE without the lines numbered in NUMBERED (a ysel result)
#   ysplit FILE DIR              split a multi-document stream into DIR/0001.yaml ... (empty documents dropped)
#   yfind DIR KIND NAME          path of the document in DIR with that top-level kind and metadata.name
#
# PATH steps are separated by dots: a mapping key ("spec"), or a sequence item chosen by a key's value
# ("[name=cmp-generate]"), e.g. spec.template.spec.containers[name=cmp-generate].securityContext.runAsUser

ynum() { awk '{ printf "%d\t%s\n", NR, $0 }' "$1"; }

ytext() { cut -f2-; }

# One mapping step: the value of KEY in the mapping at the block's first indent.
_ystep_key() {
  awk -F'\t' -v key="$1" '
    function ind(s) { match(s, /^ */); return RLENGTH }
    function unq(s) {
      sub(/^[ ]+/, "", s); sub(/[ ]+$/, "", s)
      if (s ~ /^".*"$/ || s ~ /^\047.*\047$/) s = substr(s, 2, length(s) - 2)
      return s
    }
    {
      num = $1; t = substr($0, length(num) + 2)
      blank = (t ~ /^[ ]*$/ || t ~ /^[ ]*#/)
    }
    state == 0 {
      if (blank) next
      if (base == "") base = ind(t)
      if (ind(t) != base) next
      rest = substr(t, base + 1)
      if (index(rest, key ":") != 1) next
      val = substr(rest, length(key) + 2)
      if (val != "" && val !~ /^[ ]/) next
      if (val ~ /^[ ]*(#.*)?$/) { state = 2; next }        # block value follows
      state = 1; scalar = unq(val); snum = num; next        # inline scalar (maybe continued)
    }
    state == 1 {                                              # continuation of a multi-line scalar
      if (blank || ind(t) > base) { if (!blank) scalar = scalar " " unq(t); next }
      exit
    }
    state == 2 {                                              # nested block
      if (blank) { print; next }
      if (ind(t) > base || (ind(t) == base && substr(t, base + 1, 2) == "- ")) { print; found = 1; next }
      exit
    }
    END {
      if (state == 1) { printf "%s\t%s\n", snum, scalar; exit 0 }
      exit (found ? 0 : 1)
    }'
}

# One sequence step: the item (a mapping) whose KEY equals VALUE. Its "- " becomes "  " so that the item reads as
# a plain mapping.
_ystep_item() {
  awk -F'\t' -v key="$1" -v want="$2" '
    function ind(s) { match(s, /^ */); return RLENGTH }
    function flush() {
      if (n > 0 && hit && !done) { for (i = 1; i <= n; i++) print buf[i]; done = 1 }
      n = 0; hit = 0
    }
    {
      num = $1; t = substr($0, length(num) + 2)
      if (t ~ /^[ ]*$/ || t ~ /^[ ]*#/) next
      if (base == "") base = ind(t)
      if (ind(t) == base && substr(t, base + 1, 2) == "- ") {
        flush()
        t = substr(t, 1, base) "  " substr(t, base + 3)
      } else if (ind(t) <= base) { flush(); exit }
      buf[++n] = num "\t" t
      if (ind(t) == base + 2) {
        line = substr(t, base + 3)
        if (line == key ": " want || line == key ": \"" want "\"" || line == key ": \047" want "\047") hit = 1
      }
    }
    END { flush(); exit (done ? 0 : 1) }'
}

ysel() {
  local path=$1 buf step
  buf=$(cat)
  while [ -n "$path" ]; do
    if [[ $path =~ ^(\[[^]]*\]|[^].[]+)\.?(.*)$ ]]; then
      step=${BASH_REMATCH[1]}; path=${BASH_REMATCH[2]}
    else
      echo "ysel: bad path step in '$path'" >&2; return 2
    fi
    if [[ $step == \[*=*\] ]]; then
      step=${step#[}; step=${step%]}
      buf=$(printf '%s\n' "$buf" | _ystep_item "${step%%=*}" "${step#*=}") || return 1
    else
      buf=$(printf '%s\n' "$buf" | _ystep_key "$step") || return 1
    fi
  done
  printf '%s\n' "$buf"
}

yget() { local out; out=$(ynum "$1" | ysel "$2") || return 1; printf '%s\n' "$out" | ytext; }

yitems() {
  awk '
    function unq(s) {
      sub(/^[ ]+/, "", s); sub(/[ ]+$/, "", s)
      if (s ~ /^".*"$/ || s ~ /^\047.*\047$/) s = substr(s, 2, length(s) - 2)
      return s
    }
    /^[ ]*$/ || /^[ ]*#/ { next }
    NR == 1 && /^[ ]*\[.*\][ ]*$/ {                       # inline flow sequence of plain scalars
      s = $0; sub(/^[ ]*\[/, "", s); sub(/\][ ]*$/, "", s)
      k = split(s, a, ","); for (i = 1; i <= k; i++) if (unq(a[i]) != "") print unq(a[i])
      exit
    }
    /^[ ]*- / { if (have) print item; s = $0; sub(/^[ ]*- /, "", s); item = unq(s); have = 1; next }
    { if (have) item = item " " unq($0) }                  # continuation of a multi-line scalar
    END { if (have) print item }'
}

yfield() {
  awk -v key="$1" '
    function ind(s) { match(s, /^ */); return RLENGTH }
    function unq(s) {
      sub(/^[ ]+/, "", s); sub(/[ ]+$/, "", s)
      if (s ~ /^".*"$/ || s ~ /^\047.*\047$/) s = substr(s, 2, length(s) - 2)
      return s
    }
    /^[ ]*$/ || /^[ ]*#/ { next }
    base == "" { base = ind($0) }
    ind($0) == base && substr($0, base + 1, 2) == "- " {
      if (started) print val
      started = 1; val = ""; $0 = substr($0, 1, base) "  " substr($0, base + 3)
    }
    ind($0) == base + 2 && index(substr($0, base + 3), key ":") == 1 { val = unq(substr($0, base + 3 + length(key) + 1)) }
    END { if (started) print val }'
}

ycut() {
  awk -F'\t' 'NR == FNR { drop[$1] = 1; next } !(FNR in drop)' <(printf '%s\n' "$2") "$1"
}

ysplit() {
  mkdir -p "$2"
  awk -v dir="$2" '
    function close_doc() { if (f != "") close(f); f = ""; np = 0 }
    /^---([ ]|$)/ { close_doc(); next }
    f == "" && (/^[ ]*$/ || /^[ ]*#/) { pend[++np] = $0; next }   # nothing but blanks/comments so far
    f == "" { n++; f = sprintf("%s/%04d.yaml", dir, n); for (i = 1; i <= np; i++) print pend[i] > f }
    { print > f }' "$1"
}

yfind() {
  local f
  f=$(awk -v kind="$2" -v name="$3" '
    FNR == 1 { k = ""; m = 0; nm = "" }
    /^kind:[ ]/ { k = $2 }
    /^[^ #]/ { m = ($0 ~ /^metadata:[ ]*$/) }
    m && /^  name:[ ]/ && nm == "" { nm = $2; gsub(/^["\047]|["\047]$/, "", nm) }
    k != "" && nm != "" && k == kind && nm == name { print FILENAME; exit }' "$1"/*.yaml 2>/dev/null)
  [ -n "$f" ] && echo "$f"
}
