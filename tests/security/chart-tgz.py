#!/usr/bin/env python3
"""Chart archives (.tgz) written the way an attacker writes them, byte by byte, for helm-archive-reading.sh.

usage: chart-tgz.py OUT TRICK NAME SCHEMA

Writes OUT, a chart archive whose top directory is NAME: NAME/Chart.yaml, NAME/templates/cm.yaml and a
NAME/values.schema.json holding SCHEMA, the last one placed the way TRICK says. Each trick is a place where a tar
or gzip reader other than Go's (archive/tar, compress/gzip, which helm uses) may read a different file list:

  plain           an ordinary ustar archive, one gzip member
  two-members     the schema's entry in a second gzip member (Go reads concatenated members as one stream)
  nul-size        a README before the schema whose size field starts with a NUL (Go trims leading NULs and
                  spaces); its data is a fake header that swallows the schema for a reader that reads size 0
  base256-size    the schema's size in base-256 (high bit set), as GNU tar writes large sizes
  pax-size        a README whose ustar size swallows the schema, with a PAX "size=0" record (Go honours it)
  pax-path        the schema's PAX header names another path, then an empty path (the last record wins, and an
                  empty one keeps the ustar name)
  gnu-long-name   an empty GNU long name ('L') before the schema (Go ignores an empty one)
  gnu-and-pax     a GNU long name naming the schema and a PAX path naming another file (Go: the GNU name wins)
  dot-suffix      the schema named NAME/values.schema.json/. (helm cleans the path)
  backslash       the schema named NAME\\values.schema.json (helm splits on backslashes when a name has one)
  symlink-size    a symlink with a size field that swallows the schema (Go reads no data for a symlink)
  dir-size        a type-NUL entry named NAME/d/ with a size that swallows the schema (Go: a directory, no data)
  unknown-type    the schema as an entry of type 'Z' (Go reads it as a file, and so does helm)
  global-path     a PAX global header ('g') with path= and size= records before the schema
  global-comment  a PAX global header with a comment only, as `git archive` writes, before the schema
  sparse          the schema as an old GNU sparse file ('S')
  trailing-junk   bytes that are not gzip after the last member
  duplicate       a harmless values.schema.json, then the schema under the same name (helm keeps the last)
The header checksums are right: Go refuses a header whose checksum is wrong.
"""
import gzip
import sys

BLOCK = 512


def octal(n, width):
    return b"%0*o\0" % (width - 1, n)


def header(name, size, typeflag=b"0", linkname=b"", magic=b"ustar\x0000", size_field=None, mode=0o644, at=()):
    """One 512-byte header; size_field (12 bytes) replaces the octal size when given; at: (offset, bytes) to set."""
    if isinstance(name, str):
        name = name.encode()
    h = bytearray(BLOCK)
    h[0:len(name)] = name
    h[100:108] = octal(mode, 8)
    h[108:116] = octal(0, 8)
    h[116:124] = octal(0, 8)
    h[124:136] = size_field if size_field is not None else octal(size, 12)
    h[136:148] = octal(0, 12)
    h[156:157] = typeflag
    h[157:157 + len(linkname)] = linkname
    h[257:257 + len(magic)] = magic
    for off, b in at:
        h[off:off + len(b)] = b
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def padded(data):
    return data + b"\0" * (-len(data) % BLOCK)


def entry(name, data, **kw):
    return header(name, len(data), **kw) + padded(data)


def pax_record(key, value):
    body = b" %s=%s\n" % (key, value)
    n = len(body) + 1
    while len(b"%d" % n) + len(body) != n:
        n += 1
    return b"%d%s" % (n, body)


def pax(records, typeflag=b"x", name="PaxHeaders/x"):
    data = b"".join(pax_record(k, v) for k, v in records)
    return entry(name, data, typeflag=typeflag)


def main():
    out, trick, name, schema = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].encode()
    chart = b"apiVersion: v2\nname: %s\nversion: 0.1.0\n" % name.encode()
    cm = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-cm\ndata:\n  x: \"1\"\n" % name.encode()
    head = entry(name + "/Chart.yaml", chart) + entry(name + "/templates/cm.yaml", cm)
    sch = name + "/values.schema.json"
    # a header a careless reader takes for the next entry: its size covers the schema's header and data
    swallow = len(padded(schema)) + BLOCK
    fake = header(name + "/pad", swallow)
    end = b"\0" * (2 * BLOCK)
    members = None
    if trick == "plain":
        body = entry(sch, schema)
    elif trick == "two-members":
        members = [head, entry(sch, schema) + end]
    elif trick == "nul-size":
        body = header(name + "/README.md", 0, size_field=b"\0" + octal(BLOCK, 11)) + fake + entry(sch, schema)
    elif trick == "base256-size":
        body = header(sch, 0, size_field=b"\x80" + len(schema).to_bytes(11, "big")) + padded(schema)
    elif trick == "pax-size":
        body = pax([(b"size", b"0")]) + header(name + "/README.md", swallow) + entry(sch, schema)
    elif trick == "pax-path":
        body = pax([(b"path", (name + "/notes.txt").encode()), (b"path", b"")]) + entry(sch, schema)
    elif trick == "gnu-long-name":
        body = entry("././@LongLink", b"\0", typeflag=b"L", magic=b"ustar  \0") + entry(sch, schema, magic=b"ustar  \0")
    elif trick == "gnu-and-pax":
        body = (entry("././@LongLink", sch.encode() + b"\0", typeflag=b"L", magic=b"ustar  \0") +
                pax([(b"path", (name + "/notes.txt").encode())]) + entry(name + "/x", schema))
    elif trick == "dot-suffix":
        body = entry(sch + "/.", schema)
    elif trick == "backslash":
        body = entry(name + "\\values.schema.json", schema)
    elif trick == "symlink-size":
        body = header(name + "/link", swallow, typeflag=b"2", linkname=b"Chart.yaml") + entry(sch, schema)
    elif trick == "dir-size":
        body = header(name + "/d/", swallow, typeflag=b"\0") + entry(sch, schema)
    elif trick == "unknown-type":
        body = entry(sch, schema, typeflag=b"Z")
    elif trick == "global-path":
        body = pax([(b"path", sch.encode()), (b"size", b"0")], typeflag=b"g", name="pax_global_header") + \
            entry(sch, schema)
    elif trick == "global-comment":
        body = pax([(b"comment", b"0123456789abcdef0123456789abcdef01234567")], typeflag=b"g",
                   name="pax_global_header") + entry(sch, schema)
    elif trick == "sparse":
        # one data fragment covering the whole file: offset 0, length and real size the schema's
        body = entry(sch, schema, typeflag=b"S", magic=b"ustar  \0",
                     at=((386, octal(0, 12)), (398, octal(len(schema), 12)), (483, octal(len(schema), 12))))
    elif trick == "trailing-junk":
        body = entry(sch, schema)
    elif trick == "duplicate":
        body = entry(sch, b'{"type": "object"}') + entry(sch, schema)
    else:
        sys.exit("unknown trick " + trick)
    if members is None:
        members = [head + body + end]
    data = b"".join(gzip.compress(m, mtime=0) for m in members)
    if trick == "trailing-junk":
        data += b"not gzip"
    with open(out, "wb") as f:
        f.write(data)


main()
