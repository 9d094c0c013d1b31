#!/usr/bin/env bash
# The CUDA path on a lent GPU machine: the ResNet on CUDA against the CPU, the default `process`
# with --device cpu / cuda (and --markdown) on WARCs of WCXB-dev's held-out fifth x8 and
# trafi-dev x6, the ResNet on every page, sample-warcs/ on each --device, and every column of
# the rows compared. Logs: docs/results/*-check.log (docs/classification.md, "On a GPU").
# Run from the repository root on the GPU machine with .gpu/ carried (git-ignored):
#   goce-warc.xz   the stripped binary, built by scripts/build_against_torch.sh against the
#                  PyTorch wheel the machine holds (its torch/ folder), xz-compressed
#   libgoce_warc_torch.so.xz  the library it opens for its networks, from the same build
#   pages.tar.xz   wcxb/: the 305 held-out WCXB-dev pages (number 0 mod 5); trafi/: the 470
#                  trafi-dev pages (html/ID.html.gz, ground-truth/ID.json cut to the URL)
#   make_warc.py   ../shared/tools/make_warc.py
# Output: the log, on stdout and in $OUT/log.
G=$PWD/.gpu; W=/tmp/g; mkdir -p $W
exec > >(tee "$OUT/log") 2>&1
T=$(python3 -c "import torch,os;print(os.path.dirname(torch.__file__))")
export LD_LIBRARY_PATH=$T/lib GOCE_MODELS=$PWD/models
BIN=$W/goce-warc; xz -dc $G/goce-warc.xz > $BIN; chmod +x $BIN
xz -dc $G/libgoce_warc_torch.so.xz > $W/libgoce_warc_torch.so   # opened from beside the binary
tar -xJf $G/pages.tar.xz -C $W
echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
echo "$(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"; echo "torch lib: $T/lib"; $BIN --version
echo "== 1. classify --classifier resnet: CPU and CUDA on the 305 held-out WCXB-dev pages (number 0 mod 5)"
mapfile -t held < <(ls $W/wcxb/html/*.html.gz | sort)
for d in cpu cuda; do $BIN classify --json --classifier resnet --device $d "${held[@]}" > $W/cl-$d.jsonl || echo "classify $d failed"; done
python3 - $W/cl-cpu.jsonl $W/cl-cuda.jsonl <<'PY'
import json, sys
cpu, gpu = ([json.loads(l) for l in open(p)] for p in sys.argv[1:3])
types = sum(a["page_type"] == b["page_type"] for a, b in zip(cpu, gpu)); genres = sum(a["genre"] == b["genre"] for a, b in zip(cpu, gpu))
diff = max(abs(a["probabilities"][t] - b["probabilities"][t]) for a, b in zip(cpu, gpu) for t in a["probabilities"])
print(f"{len(cpu)} / {len(gpu)} pages: page type agrees on {types}, genre on {genres}; largest probability difference {diff:.4f}")
PY
echo "== 2. WARC files"
python3 $G/make_warc.py $W/wcxb --repeat 8 -o $W/wcxb-x8.warc.gz > /dev/null & p1=$!
python3 $G/make_warc.py $W/trafi --repeat 6 -o $W/trafi-x6.warc.gz > /dev/null & p2=$!
wait $p1 $p2; ls -l $W/*.warc.gz
stat() { python3 -c "import json,sys; s=json.load(open(sys.argv[1])); c=s['counts']; p=c['pages']; print(f'  {p} pages in {s[\"seconds\"]:.2f} s = {p/s[\"seconds\"]:.0f} pages/s; classify {s[\"stage_seconds\"][\"classify\"]:.2f} s; rendered for the ResNet {sum(c.get(\"rendered\", {}).values())/p:.1%}; workers CPU {s[\"stage_seconds\"][\"workers_cpu\"]:.1f} s')" $1; }
echo "== 3. the default process, -j 16: --device cpu and cuda (and cuda --markdown), two rounds"
for w in wcxb-x8 trafi-x6; do for r in 1 2; do for d in cpu cuda cuda-md; do
  flags="--device ${d%-md}"; [ $d = cuda-md ] && flags="$flags --markdown"
  /usr/bin/time -f "$w $d round $r: %e s wall, %U + %S s CPU, %M KB peak" $BIN process $W/$w.warc.gz --out $W/o-$w-$d --overwrite --quiet -j 16 $flags --stats $W/st.json || echo "$w $d failed"
  stat $W/st.json
done; done; done
echo "== 4. the ResNet on every page (--classifier resnet), -j 16, wcxb-x8"
for m in "cuda 64" "cuda 256" "cpu 16"; do set -- $m
  /usr/bin/time -f "resnet on $1 batch $2: %e s wall, %U + %S s CPU, %M KB peak" $BIN process $W/wcxb-x8.warc.gz --out $W/o-resnet-$1 --overwrite --quiet -j 16 --classifier resnet --device $1 --batch-size $2 --stats $W/st.json || echo "resnet $1 failed"
  stat $W/st.json
done
echo "== 5. sample-warcs with each --device"
for d in cpu cuda auto; do $BIN process sample-warcs/*.warc* --out $W/s-$d --overwrite --quiet --markdown --device $d || echo "sample-warcs --device $d failed"; done
$BIN -v process sample-warcs/articles.warc.gz --out $W/s-log --overwrite --quiet 2>&1 | grep -i -E "cuda|device" | head -3
python3 - $W <<'PY'
import glob, sys, pyarrow.parquet as pq
w = sys.argv[1]
def rows(d):
    return {(r["warc_file"], r["warc_record_id"]): r for f in sorted(glob.glob(f"{w}/{d}/*.parquet")) if "manifest" not in f for r in pq.read_table(f).to_pylist()}
for a, b in (("o-wcxb-x8-cpu", "o-wcxb-x8-cuda"), ("o-trafi-x6-cpu", "o-trafi-x6-cuda"), ("o-wcxb-x8-cuda", "o-wcxb-x8-cuda-md"), ("o-resnet-cpu", "o-resnet-cuda"), ("s-cpu", "s-cuda"), ("s-cpu", "s-auto")):
    x, y = rows(a), rows(b)
    diff = {c: sum(x[k].get(c) != y.get(k, {}).get(c) for k in x) for c in ("genre", "page_type", "text", "markdown", "title", "extraction_confidence")}
    conf = max((abs((x[k].get("genre_confidence") or 0) - (y[k].get("genre_confidence") or 0)) for k in x if k in y), default=0)
    print(f"{b} ({len(y)} rows) against {a} ({len(x)} rows): rows differing {diff}; largest genre confidence difference {conf:.4f}")
PY
echo "== done"
