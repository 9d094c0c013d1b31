"""What the peer-comparison scripts share: goce-warc's `process` run on a Common Crawl-style
WARC of a folder of pages, rs-trafilatura's `extract_stdin`, and CPU time counted with the
children a script runs."""

import json
import resource
import subprocess
import sys
import time


def cpu_seconds():
    """This process's CPU time and its finished children's (goce-warc, rs-trafilatura)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def process_warc(binary, shared, folder, work, columns, flags=()):
    """The default `process` (plus `flags`) on a WARC of `folder` (../shared/tools/make_warc.py),
    as a new user runs it: each row's `columns` by URL, and the wall and CPU seconds of the
    `process` run alone."""
    import pyarrow.parquet as pq

    warc = work / f"{folder.name}.warc.gz"
    subprocess.run([sys.executable, str(shared / "tools" / "make_warc.py"), str(folder), "-o", str(warc)], check=True, stdout=subprocess.DEVNULL)
    out = work / "process-out"
    wall, cpu = time.perf_counter(), cpu_seconds()
    subprocess.run([binary, "process", str(warc), "--out", str(out), "--overwrite", "--quiet", *flags], check=True)
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    by_url = {}
    for part in sorted(out.glob("*.parquet")):
        for row in pq.read_table(part, columns=["url", *columns]).to_pylist():
            by_url[row["url"]] = row
    return by_url, wall, cpu


def rs_trafilatura(binary, decode, markdown=False):
    """rs-trafilatura's `extract_stdin` (with `--markdown`, its Markdown): the page, decoded
    by `decode`, as UTF-8 on standard input, JSON out."""
    flags, key = (["--markdown"], "content_markdown") if markdown else ([], "main_content")

    def run(html, url):
        done = subprocess.run([binary, "--url", url, *flags], input=decode(html).encode(), capture_output=True, check=True)
        return json.loads(done.stdout).get(key) or ""

    return run
