#!/usr/bin/env python3
"""What helm-controller would install, from `helm template`'s own output, against what cmp-generate rendered.

    expect.py HELM_OUT OURS_OUT SPEC_JSON

HELM_OUT is the real helm's `helm template` of the chart with the release name, namespace and values helm-controller
computes (the test computes them); SPEC_JSON says what helm-controller does on top of helm's manifest, from its code
(research section 3): namespaced objects without a namespace go to the release namespace (helm's client), CRDs of
the chart's crds/ directory are applied by helm-controller itself with the origin labels only (and are marked for
Argo CD never to delete or prune them), every other object gets commonMetadata and then the origin labels (hooks too,
unless postRenderStrategy is nohooks), and cmp-generate's traceability annotations go on every object (an OCI chart's /chart-oci-* ones as the test read them
from the registry's manifest, spec "oci"). The documents
of OURS_OUT that carry <domain>/helmrelease: <hr> must be exactly these, in helm's order. Prints nothing and exits 0
when they are; else one line saying where they differ, exit 1."""
import json
import sys

import yaml


def helm_docs(text):
    """helm's documents, each with whether it came from a crds/ directory (helm's "# Source:" line)."""
    docs, cur = [], []
    for line in text.split("\n") + ["---"]:
        if line.startswith("---"):
            chunk = "\n".join(cur)
            cur = []
            obj = yaml.safe_load(chunk) if chunk.strip() else None
            if obj is not None:
                src = [l for l in chunk.split("\n") if l.startswith("# Source: ")]
                docs.append((obj, bool(src) and "/crds/" in src[0]))
            continue
        cur.append(line)
    return docs


def main():
    helm_out, ours_out, spec = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    d = spec.get("domain", "cmp-generate")
    hr_ns, hr_name = spec["hr"].split("/")
    common = spec.get("common") or {}
    want = []
    for obj, crd_dir in helm_docs(open(helm_out).read()):
        md = obj.setdefault("metadata", {})
        if not md.get("namespace") and obj.get("kind") not in spec.get("cluster", []):
            md["namespace"] = spec["ns"]
        ann = md.get("annotations") or {}
        hook = "helm.sh/hook" in ann
        if crd_dir and spec.get("crds", True):
            md.setdefault("annotations", {})["argocd.argoproj.io/sync-options"] = "Delete=false,Prune=false"
        if crd_dir or not hook or spec.get("hooks_too", True):
            if not crd_dir:
                for k, v in (common.get("labels") or {}).items():
                    md.setdefault("labels", {})[k] = v
                for k, v in (common.get("annotations") or {}).items():
                    md.setdefault("annotations", {})[k] = v
            md.setdefault("labels", {})["helm.toolkit.fluxcd.io/name"] = hr_name
            md["labels"]["helm.toolkit.fluxcd.io/namespace"] = hr_ns
        a = md.setdefault("annotations", {})
        a[d + "/helmrelease"] = spec["hr"]
        a[d + "/chart"] = spec["chart"]
        a[d + "/chart-source"] = spec["source"]
        a[d + "/chart-digest"] = spec["digest"]
        for k, v in (spec.get("oci") or {}).items():
            a[d + "/" + k] = v
        want.append(obj)
    got = [o for o in yaml.safe_load_all(open(ours_out)) if o and
           ((o.get("metadata") or {}).get("annotations") or {}).get(d + "/helmrelease") == spec["hr"]]
    if got == want:
        return 0
    if len(got) != len(want):
        print("%d objects of %s rendered, helm-controller would install %d: %s / %s" % (
            len(got), spec["hr"], len(want),
            [o.get("kind") + "/" + o["metadata"].get("name", "") for o in got],
            [o.get("kind") + "/" + o["metadata"].get("name", "") for o in want]))
        return 1
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            print("object %d differs: got %s want %s" % (i, json.dumps(g, sort_keys=True)[:700],
                                                        json.dumps(w, sort_keys=True)[:700]))
            return 1
    return 1


sys.exit(main())
