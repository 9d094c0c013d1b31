#!/usr/bin/env bash
# Device checks on lent H100 machines (2026-11-26, binaries 6ca0e37 and a716f45), one per call:
#   h100-runs.sh batching    (log 2026-11-26-eeac12c-h100-scaling-batching.log; binary 6ca0e37)
#   h100-runs.sh old-and-new (log 2026-11-26-eeac12c-h100-scaling-classify-in-workers.log; .gpu/goce-warc.xz a716f45, .gpu/goce-warc-old.xz 6ca0e37)
#   h100-runs.sh cuda-long   (log 2026-11-26-eeac12c-h100-cuda-long-run.log; a716f45)
# Added with e02a67a (2026-11-26), after `make model` with `--add` and `make model-extract`:
#   h100-runs.sh new-models  (log 2026-11-26-e02a67a-h100-new-models.log; the a716f45 binary, whose `process` and
#                             `classify` code is unchanged since, with the working tree's models/)
# Run from the repository root with .gpu/ carried: goce-warc.xz (stripped, built by scripts/build_against_torch.sh
# against the machine's PyTorch), classify-bench.xz (batching only), pages.tar.xz (the WCXB-dev pages), make_warc.py.
set -uo pipefail
case ${1:-} in batching | old-and-new | cuda-long | new-models) ;; *) echo "usage: h100-runs.sh batching|old-and-new|cuda-long|new-models" >&2; exit 2 ;; esac
G=$PWD/.gpu; W=/tmp/g; mkdir -p $W
exec > "$OUT/log" 2>&1
T0=$(date +%s)
el() { echo "[t+$(( $(date +%s) - T0 ))s]"; }
T=$(python3 -c "import torch,os;print(os.path.dirname(torch.__file__))")
export LD_LIBRARY_PATH=$T/lib GOCE_MODELS=$PWD/models
BIN=$W/goce-warc; BENCH=$W/classify-bench
xz -dc $G/goce-warc.xz > $BIN; chmod +x $BIN
OLD=$W/goce-warc-old; [ -f $G/goce-warc-old.xz ] && { xz -dc $G/goce-warc-old.xz > $OLD; chmod +x $OLD; }
[ -f $G/classify-bench.xz ] && { xz -dc $G/classify-bench.xz > $BENCH; chmod +x $BENCH; }
PAGES=$W/wcxb
mkdir -p $PAGES/plain && tar -xJf $G/pages.tar.xz -C $PAGES/plain
mkdir -p $PAGES/html && mv $PAGES/plain/ground-truth $PAGES/
python3 - "$PAGES" <<'PY'
import gzip, os, sys
from concurrent.futures import ProcessPoolExecutor
root = sys.argv[1]
names = sorted(os.listdir(f"{root}/plain/html"))
def z(n):
    data = open(f"{root}/plain/html/{n}", "rb").read()
    with gzip.open(f"{root}/html/{n}.gz", "wb", compresslevel=1) as f:
        f.write(data)
with ProcessPoolExecutor(16) as ex:
    list(ex.map(z, names, chunksize=32))
print(len(names), "pages")
PY
for i in 1 2 3 4; do python3 $G/make_warc.py $PAGES --shuffle --seed $i -o $W/w$i.warc.gz > /dev/null & done; wait
for k in $(seq 5 16); do ln -sf $W/w$(( (k - 1) % 4 + 1 )).warc.gz $W/w$k.warc.gz; done
ls -la $W/w1.warc.gz; el
echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
lscpu | grep -E "^CPU\(s\)|Model name|Thread|Core|Socket|L3"
echo "torch lib: $T/lib"; $BIN --version
F2="$W/w1.warc.gz $W/w2.warc.gz"; F4="$F2 $W/w3.warc.gz $W/w4.warc.gz"
hdr() { printf '%-18s %3s %6s %6s %7s %7s %7s %6s %7s %7s %6s %6s %6s %6s %6s\n' mode j pages wall pages/s per-wkr wkr-ms busy procCPU proc-ms rdwait full classify wcpu RSS; }
one() {  # NAME J [ENV=..] -- process args
  local name=$1 j=$2; shift 2
  local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" /usr/bin/time -f '%e %U %S %M' -o $W/time ${B:-$BIN} process "$@" --overwrite --quiet -j $j --stats $W/st.json || { echo "$name -j $j failed"; return; }
  python3 - "$name" "$j" $W/st.json $W/time <<'PY'
import json, sys
name, j, path, tpath = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
s = json.load(open(path)); st = s["stage_seconds"]
p, sec, wc = s["counts"]["pages"], s["seconds"], st["workers_cpu"]
e, u, sy, m = open(tpath).read().split()[-4:]
cpu = float(u) + float(sy)
print(f"{name:<18} {j:>3} {p:>6} {sec:6.1f} {p/sec:7.0f} {p/sec/j:7.0f} {1000*wc/p:7.2f} {wc/(sec*j):6.2f} {cpu:7.1f} {1000*cpu/p:7.2f} {st['waiting_for_reader']:6.1f} {st['pipeline_full']:6.1f} {st['classify']:6.1f} {st['write_cpu']:6.1f} {int(m)/1024:6.0f}")
PY
}
layouts() {  # "P J"...: P processes of -j J over the 16 inputs together
  local pw
  for pw in "$@"; do
    set -- $pw; P=$1; J=$2; per=$(( 16 / P )); s=$(date +%s.%N); pids=()
    for p in $(seq 0 $(( P - 1 ))); do
      files=(); for k in $(seq 1 $per); do files+=($W/w$(( p * per + k )).warc.gz); done
      $BIN process "${files[@]}" --out $W/pp$p --overwrite --quiet -j $J --classifier none --stats $W/pp$p.json & pids+=($!)
    done
    wait "${pids[@]}"
    python3 - $P $J $s $(date +%s.%N) $W <<'PY'
import json, sys
P, J, s, e, w = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
st = [json.load(open(f"{w}/pp{p}.json")) for p in range(P)]
pages = sum(x["counts"]["pages"] for x in st); wc = sum(x["stage_seconds"]["workers_cpu"] for x in st)
print(f"{P:>2} processes x -j {J:>2}: {pages} pages in {e-s:5.1f} s wall = {pages/(e-s):6.0f} pages/s; worker CPU {1000*wc/pages:.2f} ms/page")
PY
  done
}

# The ResNet on CUDA against the CPU over the 299 held-out pages, and sample-warcs/ with each --device.
cuda_agrees_with_cpu() {
mapfile -t held < <(find $PAGES/html -maxdepth 1 -type f | sort | awk 'NR % 5 == 0')
$BIN classify --json --classifier resnet --device cpu "${held[@]}" > $W/c-cpu.jsonl
$BIN classify --json --classifier resnet --device cuda "${held[@]}" > $W/c-cuda.jsonl
python3 - $W/c-cpu.jsonl $W/c-cuda.jsonl <<'PY'
import json, sys
cpu, gpu = ([json.loads(l) for l in open(p)] for p in sys.argv[1:3])
t = sum(a["page_type"] == b["page_type"] for a, b in zip(cpu, gpu)); g = sum(a["genre"] == b["genre"] for a, b in zip(cpu, gpu))
d = max(abs(a["probabilities"][k] - b["probabilities"][k]) for a, b in zip(cpu, gpu) for k in a["probabilities"])
print(f"classify --classifier resnet, {len(cpu)} held-out pages ({len(gpu)} on CUDA): page type agrees on {t}, genre on {g}; largest probability difference {d:.4f}")
PY
for d in cpu cuda auto; do $BIN process sample-warcs/*.warc* --out $W/s-$d --overwrite --quiet --device $d || echo "sample-warcs --device $d failed"; done
python3 - $W <<'PY'
import glob, sys, pyarrow.parquet as pq
w = sys.argv[1]
def rows(d):
    return {r["warc_record_id"]: r for f in sorted(glob.glob(f"{w}/s-{d}/*.parquet")) if "manifest" not in f for r in pq.read_table(f).to_pylist()}
a = rows("cpu")
for d in ("cuda", "auto"):
    b = rows(d)
    print(f"sample-warcs --device {d}: {len(b)} rows vs cpu {len(a)}; rows differing", {c: sum(a[k].get(c) != b.get(k, {}).get(c) for k in a) for c in ("genre", "page_type", "text", "title")})
PY
}

batching() {
echo "== 1. one process, extraction only (--classifier none): -j 1, 2 on 2 files (2,994 pages), -j 4, 8, 16 on 4 (5,988)"; el; hdr
for j in 1 2; do one extract $j -- $F2 --out $W/o --classifier none; done
for j in 4 8 16; do one extract $j -- $F4 --out $W/o --classifier none; done
echo "== 2. -j 16, 4 files, extraction only: batching and allocator, two rounds"; el; hdr
for r in 1 2; do
  one base 16 -- $F4 --out $W/o --classifier none
  one inflight8 16 GOCE_IN_FLIGHT_BATCHES=8 -- $F4 --out $W/o --classifier none
  one inflight16 16 GOCE_IN_FLIGHT_BATCHES=16 -- $F4 --out $W/o --classifier none
  one inflight16-b64 16 GOCE_IN_FLIGHT_BATCHES=16 GOCE_BATCH_RECORDS=64 -- $F4 --out $W/o --classifier none
  one purge-never 16 MIMALLOC_PURGE_DELAY=-1 -- $F4 --out $W/o --classifier none
  one purge-10ms 16 MIMALLOC_PURGE_DELAY=10 -- $F4 --out $W/o --classifier none
done
echo "== 3. the default on the CPU (--device cpu), 2 files"; el; hdr
for j in 1 2 4 8 16; do one default-cpu $j -- $F2 --out $W/o-cpu --device cpu; done
one cpu-inflight16 16 GOCE_IN_FLIGHT_BATCHES=16 -- $F2 --out $W/o-cpu16 --device cpu
one cpu-if16-b64 16 GOCE_IN_FLIGHT_BATCHES=16 GOCE_BATCH_RECORDS=64 -- $F2 --out $W/o-cpu16b --device cpu
echo "== 4. CUDA"; el; hdr
for j in 4 16; do one default-cuda $j -- $F2 --out $W/o-cuda --device cuda; done
one cuda-inflight16 16 GOCE_IN_FLIGHT_BATCHES=16 -- $F2 --out $W/o-cuda16 --device cuda
python3 - $W <<'PY'
import glob, sys, pyarrow.parquet as pq
w = sys.argv[1]
def rows(d):
    out = {}
    for f in sorted(glob.glob(f"{w}/{d}/*.parquet")):
        if "manifest" in f: continue
        for r in pq.read_table(f).to_pylist():
            out[(r["warc_file"], r["warc_record_id"])] = r
    return out
a = rows("o-cpu")
for d in ("o-cuda", "o-cpu16", "o-cpu16b", "o-cuda16"):
    b = rows(d)
    diff = {c: sum(a[k].get(c) != b.get(k, {}).get(c) for k in a) for c in ("genre", "page_type", "text", "title")}
    conf = max(abs((a[k].get("genre_confidence") or 0) - (b[k].get("genre_confidence") or 0)) for k in a if k in b)
    print(f"{d} ({len(b)} rows) against o-cpu (-j 16, {len(a)} rows): rows differing {diff}; largest confidence difference {conf:.4f}")
PY
cuda_agrees_with_cpu
$BIN -v process sample-warcs/articles.warc.gz --out $W/s-log --overwrite --quiet 2>&1 | grep -i -E "cuda|device" | head -3
echo "== 5. the same 16 cores, 23,952 pages (16 inputs of 1,497): P processes x -j W, extraction only"; el
layouts "16 1" "4 4" "2 8" "1 16"
echo "== 6. ResNet on CUDA, half precision (criterion, short)"; el
[ -x $BENCH ] && GOCE_BENCH_CUDA=1 GOCE_BENCH_PAGES=$PAGES $BENCH --bench 'resnet-cuda/batch (64|256)' --warm-up-time 1 --measurement-time 3 2>&1 | grep -E "^resnet-cuda|time:|thrpt:"
echo "== 7. the machine alone: N python processes, a fixed 20M-step integer loop"; el
for n in 1 16; do python3 - $n <<'PY'
import sys, time
from multiprocessing import Pool
def spin(_):
    t = time.perf_counter(); x = 0
    for i in range(20_000_000): x += i * i
    return time.perf_counter() - t
n = int(sys.argv[1])
with Pool(n) as p: s = p.map(spin, range(n))
print(f"{n:>2} processes: loop {sum(s)/n:5.2f} s each (max {max(s):.2f})")
PY
done
echo "== done"; el
}

old_and_new() {
echo "== 1. old (6ca0e37) and new (a716f45) in turn, -j 16: extraction on 4 files, the default on the CPU and on CUDA on 2"; el; hdr
for r in 1 2; do
  for v in old new; do
    [ $v = old ] && B=$OLD || B=$BIN
    B=$B one extract-$v 16 -- $F4 --out $W/o --classifier none
    B=$B one cpu-$v 16 -- $F2 --out $W/o-cpu-$v --device cpu
    B=$B one cuda-$v 16 -- $F2 --out $W/o-cuda-$v --device cuda
  done
done
unset B
python3 - $W <<'PY'
import glob, sys, pyarrow.parquet as pq
w = sys.argv[1]
def rows(d):
    return {(r["warc_file"], r["warc_record_id"]): r for f in sorted(glob.glob(f"{w}/{d}/*.parquet")) if "manifest" not in f for r in pq.read_table(f).to_pylist()}
for a, b in (("o-cpu-old", "o-cpu-new"), ("o-cuda-old", "o-cuda-new"), ("o-cpu-new", "o-cuda-new")):
    x, y = rows(a), rows(b)
    diff = {c: sum(x[k].get(c) != y.get(k, {}).get(c) for k in x) for c in ("genre", "page_type", "text", "title", "genre_confidence")}
    print(f"{b} ({len(y)} rows) against {a} ({len(x)} rows): rows differing {diff}")
PY
echo "== 2. new, one process, extraction only: -j 1, 2 on 2 files, -j 4, 8, 16 on 4"; el; hdr
for j in 1 2; do one extract $j -- $F2 --out $W/o --classifier none; done
for j in 4 8 16; do one extract $j -- $F4 --out $W/o --classifier none; done
echo "== 3. new, the default on the CPU (--device cpu), 2 files"; el; hdr
for j in 1 2 4 8 16; do one default-cpu $j -- $F2 --out $W/o-cpu --device cpu; done
one default-cuda 4 -- $F2 --out $W/o-cuda --device cuda
echo "== 4. the same 16 cores, 23,952 pages (16 inputs of 1,497): P processes x -j W, extraction only, new"; el
layouts "16 1" "1 16"
echo "== done"; el
}

cuda_long() {
echo "== 1. classify --classifier resnet: 1 page, then 299 (wall, start-up included)"; el
mapfile -t held < <(find $PAGES/html -maxdepth 1 -type f | sort | awk 'NR % 5 == 0')
for d in cpu cuda; do for n in 1 299; do
  s=$(date +%s.%N); $BIN classify --json --classifier resnet --device $d "${held[@]:0:$n}" > /dev/null; e=$(date +%s.%N)
  python3 -c "print(f'--device $d, $n pages: {$e - $s:.2f} s wall')"
done; done
echo "== 2. -j 16, 16 inputs (23,952 pages): the default on CUDA and on the CPU, extraction only; in turn"; el; hdr
F16=$(for k in $(seq 1 16); do printf '%s ' $W/w$k.warc.gz; done)
one default-cuda 16 -- $F16 --out $W/o-cuda --device cuda
one default-cpu 16 -- $F16 --out $W/o-cpu --device cpu
one extract 16 -- $F16 --out $W/o --classifier none
one default-cuda 16 -- $F16 --out $W/o-cuda --device cuda
one default-cpu 16 -- $F16 --out $W/o-cpu --device cpu
echo "== done"; el
}

new_models() {
echo "== 1. the shipped models on CUDA against the CPU: classify --classifier resnet over the 299 held-out pages"; el
cuda_agrees_with_cpu
echo "== 2. -j 16, 2 files (2,994 pages): the default on CUDA, on the CPU, extraction only; two rounds in turn"; el; hdr
for r in 1 2; do
  one default-cuda 16 -- $F2 --out $W/o-cuda --device cuda
  one default-cpu 16 -- $F2 --out $W/o-cpu --device cpu
  one extract 16 -- $F2 --out $W/o --classifier none
done
python3 - $W <<'PY'
import glob, sys, pyarrow.parquet as pq
w = sys.argv[1]
def rows(d):
    return {(r["warc_file"], r["warc_record_id"]): r for f in sorted(glob.glob(f"{w}/{d}/*.parquet")) if "manifest" not in f for r in pq.read_table(f).to_pylist()}
x, y = rows("o-cpu"), rows("o-cuda")
diff = {c: sum(x[k].get(c) != y.get(k, {}).get(c) for k in x) for c in ("genre", "page_type", "text", "title")}
print(f"o-cuda ({len(y)} rows) against o-cpu ({len(x)} rows): rows differing {diff}")
PY
echo "== 3. -j 16, 16 inputs (23,952 pages): the default on CUDA and on the CPU, extraction only"; el; hdr
F16=$(for k in $(seq 1 16); do printf '%s ' $W/w$k.warc.gz; done)
one default-cuda 16 -- $F16 --out $W/o-cuda --device cuda
one default-cpu 16 -- $F16 --out $W/o-cpu --device cpu
one extract 16 -- $F16 --out $W/o --classifier none
echo "== done"; el
}

case $1 in
  batching) batching ;;
  old-and-new) old_and_new ;;
  cuda-long) cuda_long ;;
  new-models) new_models ;;
esac
