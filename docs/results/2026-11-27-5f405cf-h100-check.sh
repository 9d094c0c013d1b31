#!/usr/bin/env bash
# 2026-11-27: the default `process` on CUDA against the CPU with the models of
# a6b23e8 (the combiner refitted with the tiled histogram fill), on a lent GPU machine (log 2026-11-27-5f405cf-h100-check.log).
# Run from the repository root with .gpu/ carried: goce-warc.xz (stripped, built by
# scripts/build_against_torch.sh against the machine's PyTorch from a6b23e8) and pages.warc.gz (the 606
# WCXB-dev pages whose number is 0 or 1 mod 5, by ../shared/tools/make_warc.py).
set -uo pipefail
G=$PWD/.gpu; W=/tmp/g; mkdir -p $W
exec > "$OUT/log" 2>&1
T=$(python3 -c "import torch,os;print(os.path.dirname(torch.__file__))")
export LD_LIBRARY_PATH=$T/lib GOCE_MODELS=$PWD/models
BIN=$W/goce-warc; xz -dc $G/goce-warc.xz > $BIN; chmod +x $BIN
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
nproc; echo "torch lib: $T/lib"; $BIN --version
echo "== the default process, -j 16, 606 pages: --device cpu and cuda, two rounds each"
for r in 1 2; do for d in cpu cuda; do
  /usr/bin/time -f "$d round $r: %e s wall, %U + %S s CPU, %M KB peak" $BIN process $G/pages.warc.gz --out $W/o-$d --overwrite --quiet -j 16 --device $d --stats $W/st-$d.json || echo "$d failed"
  python3 -c "import json,sys; s=json.load(open(sys.argv[1])); p=s['counts']['pages']; print(f'  {p} pages in {s[\"seconds\"]:.2f} s = {p/s[\"seconds\"]:.0f} pages/s; classify {s[\"stage_seconds\"][\"classify\"]:.2f} s')" $W/st-$d.json
done; done
echo "== sample-warcs with each --device"
for d in cpu cuda auto; do $BIN process sample-warcs/*.warc* --out $W/s-$d --overwrite --quiet --device $d || echo "sample-warcs --device $d failed"; done
$BIN -v process sample-warcs/articles.warc.gz --out $W/s-log --overwrite --quiet 2>&1 | grep -i -E "cuda|device" | head -3
python3 - $W <<'PY'
import glob, sys, pyarrow.parquet as pq
w = sys.argv[1]
def rows(d):
    return {(r["warc_file"], r["warc_record_id"]): r for f in sorted(glob.glob(f"{w}/{d}/*.parquet")) if "manifest" not in f for r in pq.read_table(f).to_pylist()}
for a, b in (("o-cpu", "o-cuda"), ("s-cpu", "s-cuda"), ("s-cpu", "s-auto")):
    x, y = rows(a), rows(b)
    diff = {c: sum(x[k].get(c) != y.get(k, {}).get(c) for k in x) for c in ("genre", "page_type", "text", "title")}
    conf = max((abs((x[k].get("genre_confidence") or 0) - (y[k].get("genre_confidence") or 0)) for k in x if k in y), default=0)
    print(f"{b} ({len(y)} rows) against {a} ({len(x)} rows): rows differing {diff}; largest confidence difference {conf:.4f}")
PY
echo "== done"
