#!/usr/bin/env python3
"""Writes unicode_tables.h, the Unicode facts the string methods need to behave as go.starlark.net's do: Go's
unicode package (ToUpper, ToLower, ToTitle, SimpleFold, IsLetter, IsDigit, IsUpper, IsLower, IsTitle, IsSpace) as
Go 1.21 has it, which is Unicode 15.0.0.

The data is the Unicode Character Database of Debian's unicode-data package (15.0.0-1: apt-get install
unicode-data), under the Unicode license (src/starlark/UNICODE-LICENSE). Run it again only to move to another
Unicode version, and say which in unicode_tables.h's first line:

    python3 src/starlark/unicode_gen.py /usr/share/unicode > src/starlark/unicode_tables.h

What it derives, and how Go derives the same:
  * the simple case mappings of UnicodeData.txt (fields 12-14; an empty field maps a code point to itself), as
    ranges of equal deltas, or of alternating upper/lower pairs (Go's UpperLower ranges);
  * each code point's class: Lu, Ll, Lt, another letter (Lm, Lo), Nd, White_Space (PropList.txt), or none;
  * where SimpleFold(r) != r is not simply "r has another case": Go's SimpleFold follows the orbits of
    CaseFolding.txt's C and S foldings when a class has more than two members or its two members are not each
    other's upper and lower case, and a code point with a case mapping but no folding is its own orbit.
"""
import sys

MAXRUNE = 0x10FFFF
CLASS = {"Lu": 1, "Ll": 2, "Lt": 3, "Lm": 4, "Lo": 4, "Nd": 5}
SPACE = 6


def read_unicode_data(path):
    upper, lower, title, cat = {}, {}, {}, {}
    first = None
    with open(path, encoding="ascii") as f:
        for line in f:
            fld = line.rstrip("\n").split(";")
            cp = int(fld[0], 16)
            name, gc = fld[1], fld[2]
            if name.endswith(", First>"):
                first = cp
                continue
            if name.endswith(", Last>"):
                for c in range(first, cp + 1):
                    cat[c] = gc
                first = None
                continue
            cat[cp] = gc
            if fld[12]:
                upper[cp] = int(fld[12], 16)
            if fld[13]:
                lower[cp] = int(fld[13], 16)
            if fld[14]:
                title[cp] = int(fld[14], 16)
    return upper, lower, title, cat


def read_white_space(path):
    ws = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            rng, prop = [x.strip() for x in line.split(";")]
            if prop != "White_Space":
                continue
            lo, _, hi = rng.partition("..")
            for c in range(int(lo, 16), int(hi or lo, 16) + 1):
                ws.add(c)
    return ws


def read_folding(path):
    fold = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            code, status, mapping = [x.strip() for x in line.split(";")[:3]]
            if status in ("C", "S"):
                fold[int(code, 16)] = int(mapping, 16)
    return fold


def simple_fold_orbits(upper, lower, fold, codepoints):
    """The next member of each orbit SimpleFold walks, for the code points where that is not ToLower/ToUpper."""
    orbit = {}
    for c in sorted(codepoints):
        f = fold.get(c)
        if f is None:
            continue
        orbit.setdefault(f, [f]).append(c)
    for c in sorted(codepoints):
        f = fold.get(c, c)
        if f not in orbit and (upper.get(c, c) != c or lower.get(c, c) != c):
            orbit[c] = [c]  # has another case, but no folding: SimpleFold keeps it
    nxt = {}
    for key, orb in orbit.items():
        if len(orb) == 2:
            a, b = orb
            if upper.get(a) == b and lower.get(b) == a or upper.get(b) == a and lower.get(a) == b:
                continue
        orb = sorted(orb)
        prev = orb[-1]
        for d in orb:
            nxt[prev] = d
            prev = d
    return nxt


def case_ranges(upper, lower, title):
    cps = sorted(set(upper) | set(lower) | set(title))
    deltas = {c: (upper.get(c, c) - c, lower.get(c, c) - c, title.get(c, c) - c) for c in cps}
    out = []  # [lo, hi, du, dl, dt, alt]
    i = 0
    while i < len(cps):
        c = cps[i]
        d = deltas[c]
        # an alternating run: upper at even offsets, each followed by its lower case
        j = i
        while (j + 1 < len(cps) and cps[j + 1] == cps[j] + 1 and
               deltas[cps[j]] == ((0, 1, 0) if (cps[j] - c) % 2 == 0 else (-1, 0, -1)) and
               deltas[cps[j + 1]] == ((0, 1, 0) if (cps[j + 1] - c) % 2 == 0 else (-1, 0, -1))):
            j += 1
        if j - i >= 3:
            if (cps[j] - c) % 2 == 0:  # end on a lower case
                j -= 1
            out.append([c, cps[j], 0, 0, 0, 1])
            i = j + 1
            continue
        j = i
        while j + 1 < len(cps) and cps[j + 1] == cps[j] + 1 and deltas[cps[j + 1]] == d:
            j += 1
        out.append([c, cps[j], d[0], d[1], d[2], 0])
        i = j + 1
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/unicode"
    upper, lower, title, cat = read_unicode_data(root + "/UnicodeData.txt")
    ws = read_white_space(root + "/PropList.txt")
    fold = read_folding(root + "/CaseFolding.txt")
    with open(root + "/CaseFolding.txt", encoding="utf-8") as f:
        version = f.readline().strip("# \n").replace("CaseFolding-", "").replace(".txt", "")

    # classes as runs over all code points
    runs = []
    prev = None
    for c in range(MAXRUNE + 1):
        k = SPACE if c in ws else CLASS.get(cat.get(c), 0)
        if k != prev:
            runs.append((c, k))
            prev = k

    cases = case_ranges(upper, lower, title)
    orbit = simple_fold_orbits(upper, lower, fold, set(cat) | set(fold))

    # SimpleFold(r) != r where "r has another case" says otherwise
    def other_case(c):
        return upper.get(c, c) != c or lower.get(c, c) != c

    except_cased, except_uncased = [], []
    for c in sorted(orbit):
        if c < 0x80:
            continue  # ASCII is decided before the tables
        cased = orbit[c] != c
        if cased and not other_case(c):
            except_cased.append(c)
        elif not cased and other_case(c):
            except_uncased.append(c)

    w = sys.stdout.write
    w("/* Unicode %s, generated by unicode_gen.py from Debian's unicode-data (UnicodeData.txt, PropList.txt,\n"
      " * CaseFolding.txt; Unicode license: UNICODE-LICENSE): do not edit, run the generator. */\n\n" % version)
    w("/* each code point's class from the run's start to the next one's: start << 3 | class */\n")
    w("static const uint32_t uc_class_runs[%d] = {\n" % len(runs))
    for i in range(0, len(runs), 6):
        w("    " + " ".join("0x%08x," % (c << 3 | k) for c, k in runs[i:i + 6]) + "\n")
    w("};\n\n")
    w("/* simple case mappings: lo, hi, the deltas to upper, lower and title case, or alt: upper at even offsets\n"
      " * from lo, each followed by its lower case */\n")
    w("static const uc_case uc_cases[%d] = {\n" % len(cases))
    for lo, hi, du, dl, dt, alt in cases:
        w("    {0x%05x, 0x%05x, %d, %d, %d, %d},\n" % (lo, hi, du, dl, dt, alt))
    w("};\n\n")
    w("/* SimpleFold(r) != r though r has no other case (cased), or == r though it has one (uncased) */\n")
    w("static const uint32_t uc_fold_cased[%d] = {%s};\n" % (
        len(except_cased), ", ".join("0x%04x" % c for c in except_cased)))
    w("static const uint32_t uc_fold_uncased[%d] = {%s};\n" % (
        len(except_uncased), ", ".join("0x%04x" % c for c in except_uncased)))
    if "--orbit" in sys.argv:  # for checking against Go's caseOrbit table by eye
        for c in sorted(orbit):
            sys.stderr.write("{0x%04X, 0x%04X}\n" % (c, orbit[c]))


main()
