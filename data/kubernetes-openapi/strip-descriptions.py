# Regenerates the shipped documents from the full ones (README.md here): only the definitions are kept, without
# their description texts, as JSON with sorted keys, gzip -9 with no timestamp, so the same input gives the same bytes.
# Usage: python3 strip-descriptions.py swagger-v1.N.json.gz(full) swagger-v1.N.json.gz(shipped)
import gzip, json, sys
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if not (k == 'description' and isinstance(v, str))}
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o
src, dst = sys.argv[1], sys.argv[2]
d = json.load(gzip.open(src))
out = {'swagger': d.get('swagger'), 'info': d.get('info'), 'definitions': strip(d['definitions'])}
data = json.dumps(out, indent=1, sort_keys=True).encode()
with open(dst, 'wb') as f:
    f.write(gzip.compress(data, 9, mtime=0))
