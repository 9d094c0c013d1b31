#!/usr/bin/env python3
"""Build the sample WARC files in sample-warcs/ from the handwritten fixture pages.

Input: the fixture pages in tests/fixtures/pages/ (NAME.html, each with a gold
file NAME.json that gives its URL) and the sidecar encodings.json, which names
the URLs and expected phrases of the charset/transfer-encoding variants.

Output (all byte-for-byte deterministic: fixed dates, uuid5 record ids,
gzip members written with mtime=0, no randomness):

  articles.warc.gz  warcinfo, then request/response/metadata for each of the
                    6 article-genre pages.
  listings.warc.gz  warcinfo, then request/response/metadata for each of the
                    6 list-view pages, then three captures that are NOT pages:
                    a 301 redirect, a robots.txt (text/plain) and a PNG image.
  encodings.warc    uncompressed; warcinfo, then request/response/metadata for
                    three variants: a windows-1252 page declared only by
                    <meta charset>, a page stored raw with Content-Encoding: gzip
                    and Transfer-Encoding: chunked, and a windows-1251 Russian
                    page with no charset declared anywhere.

The layout follows Common Crawl: WARC/1.0, CRLF line ends, one gzip member per
record in .warc.gz files, sha1 base32 block and payload digests,
WARC-Concurrent-To linking request, response and metadata, and for normal
captures the payload stored decoded with the original encoding kept as
X-Crawler-Content-Encoding. The payload digest covers the HTTP body bytes as
stored after the HTTP header (for the chunked variant: the chunked bytes), which
is what Heritrix writes and warcio verifies.

Standard library only (Python 3.8+). Run via `make sample-warcs`.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import email.utils
import gzip
import hashlib
import html
import json
import re
import struct
import sys
import uuid
import zlib
from pathlib import Path
from urllib.parse import urlsplit

ARTICLE_PAGES = [
    "article-news",
    "article-blog",
    "article-docs",
    "article-recipe",
    "article-product",
    "article-service",
]
LIST_PAGES = [
    "list-product-grid",
    "list-forum-thread",
    "list-search-results",
    "list-news-category",
    "list-classifieds-table",
    "list-qa",
]

BASE_DATE = dt.datetime(2024, 5, 18, 10, 0, 0, tzinfo=dt.timezone.utc)
CRAWL_NAME = "CC-MAIN-2024-22"
USER_AGENT = "CCBot/2.0 (https://commoncrawl.org/faq/)"
CRLF = b"\r\n"

# ---------------------------------------------------------------------------
# Inline pages for the encodings variants.

# Fallback for variant (a), selected in encodings.json with
# "source": "inline:de-cp1252" should article-news.html ever stop being
# encodable in windows-1252.
GERMAN_CP1252_PAGE = """<!DOCTYPE html>
<html lang="de">
<head>
<meta charset="windows-1252">
<title>Wochenmarkt zieht um – Stadtanzeiger Lindenhafen</title>
<script>var stadtAds = "sta_slot_markt_01";</script>
</head>
<body>
<nav><a href="/">Startseite</a> <a href="/lokales">Lokales</a> <a href="/kontakt">Kontakt</a></nav>
<main>
<h1>Wochenmarkt zieht auf den Rathausplatz</h1>
<p>Ab dem ersten Juni findet der Wochenmarkt nicht mehr am Hafenbecken statt, sondern auf dem
Rathausplatz. Die Händler begrüßen den Umzug, weil dort mehr Platz für Stände ist.</p>
<p>„Wir haben endlich Schatten für das Gemüse“, sagt Käsehändlerin Jutta Brückner. Geöffnet ist
der Markt weiterhin dienstags und samstags von sieben bis dreizehn Uhr.</p>
</main>
<footer>© 2024 Stadtanzeiger Lindenhafen</footer>
</body>
</html>
"""

# Variant (c): a Russian version of the Q&A page, stored as windows-1251 with
# no charset in HTTP, <meta> or anywhere else.
RUSSIAN_QA_PAGE = """<!DOCTYPE html>
<html lang="ru">
<head>
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Как ухаживать за чугунной сковородой после мытья? — Кухня: вопросы и ответы</title>
<style>.answer.accepted { border-left: 4px solid #2f9e44; } /* kvo-skin-ru */</style>
<script>window.kvo = { questionId: 5521, gate: "kvo_rep_gate_ru_15" };</script>
</head>
<body>
<div class="cookie">Мы используем файлы cookie. <button>Согласен</button></div>
<header><a href="/">Кухня: вопросы и ответы</a>
<nav><a href="/questions">Вопросы</a> <a href="/tags">Метки</a> <a href="/users">Участники</a></nav></header>
<main>
<div class="question">
<h1>Как ухаживать за чугунной сковородой после мытья?</h1>
<p>Купил чугунную сковороду, а после каждого мытья на ней появляются рыжие пятна ржавчины.
Вытираю её полотенцем, но это не помогает. Что я делаю не так?</p>
</div>
<h2>4 ответа</h2>
<div class="answer accepted"><p>Полотенца недостаточно. Поставьте сковороду на огонь на две-три
минуты, чтобы испарилась вся влага, а потом смажьте её тонким слоем масла, пока она ещё тёплая.</p>
<p class="meta">ответил Игорь П.</p></div>
<div class="answer"><p>Заводское покрытие у дешёвых сковородок обычно очень тонкое. Прокалите её
в духовке три или четыре раза с каплей подсолнечного масла.</p><p class="meta">ответила Наталья</p></div>
<div class="answer"><p>Не оставляйте чугун замоченным в раковине. Даже десять минут в воде могут
испортить молодой слой масла.</p><p class="meta">ответил Паша</p></div>
<div class="answer"><p>Лёгкая ржавчина не страшна: снимите её металлической губкой, просушите
сковороду на огне и снова смажьте маслом. Испортить чугун почти невозможно.</p>
<p class="meta">ответила бабушка Вера</p></div>
</main>
<!-- kvo-web-ru-03 render 21 ms -->
<footer>© 2024 Кухня: вопросы и ответы. Все права защищены.</footer>
</body>
</html>
"""

# A 1x1 PNG (valid signature, IHDR, IDAT, IEND), built without randomness.
def tiny_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)  # 1x1, 8-bit RGBA
    idat = zlib.compress(b"\x00\xff\x80\x00\xff", 9)  # filter 0, one orange pixel
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


# ---------------------------------------------------------------------------
# WARC building blocks.


def sha1_b32(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


def record_id(kind: str, key: str) -> str:
    return "<urn:uuid:%s>" % uuid.uuid5(uuid.NAMESPACE_URL, "%s %s" % (kind, key))


def warc_date(i: int) -> str:
    return (BASE_DATE + dt.timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")


def http_date(i: int) -> str:
    # email.utils is locale-independent, unlike strftime("%a %b").
    return email.utils.format_datetime(BASE_DATE + dt.timedelta(seconds=i), usegmt=True)


def warc_record(headers: list[tuple[str, str]], block: bytes) -> bytes:
    """One WARC record: version line, headers (Content-Length filled in), block."""
    lines = [b"WARC/1.0"]
    for name, value in headers:
        if name == "Content-Length":
            value = str(len(block))
        lines.append(("%s: %s" % (name, value)).encode("utf-8"))
    return CRLF.join(lines) + CRLF + CRLF + block + CRLF + CRLF


def http_head(status_line: str, headers: list[tuple[str, str]]) -> bytes:
    lines = [status_line] + ["%s: %s" % (k, v) for k, v in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


class WarcWriter:
    """Collects records for one file; `gz` decides one gzip member per record."""

    def __init__(self, filename: str, gz: bool):
        self.filename = filename
        self.gz = gz
        self.chunks: list[bytes] = []
        self.records = 0
        self.pages = 0
        self.seq = 0  # seconds after BASE_DATE for the next capture
        self.warcinfo_id = record_id("warcinfo", "urn:goce-warc:sample/" + filename)

    def add(self, record: bytes) -> None:
        self.chunks.append(gzip.compress(record, compresslevel=9, mtime=0) if self.gz else record)
        self.records += 1

    def warcinfo(self, description: str) -> None:
        fields = [
            ("software", "goce-warc scripts/make_sample_warcs.py"),
            ("format", "WARC File Format 1.0"),
            ("conformsTo", "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.0/"),
            ("isPartOf", CRAWL_NAME + "-goce-sample"),
            ("operator", "goce-warc test fixtures (fictional .example sites)"),
            ("description", description),
            ("robots", "checked via crawler-commons (sample, not a real crawl)"),
            ("http-header-user-agent", USER_AGENT),
        ]
        block = "".join("%s: %s\r\n" % kv for kv in fields).encode("utf-8")
        self.add(
            warc_record(
                [
                    ("WARC-Type", "warcinfo"),
                    ("WARC-Date", warc_date(0)),
                    ("WARC-Filename", self.filename),
                    ("WARC-Record-ID", self.warcinfo_id),
                    ("Content-Type", "application/warc-fields"),
                    ("Content-Length", ""),
                ],
                block,
            )
        )
        self.seq = 1

    def capture(
        self,
        url: str,
        status_line: str,
        resp_headers: list[tuple[str, str]],
        body: bytes,
        identified_type: str,
        is_page: bool,
    ) -> None:
        """request + response + metadata for one URL, Common Crawl style."""
        i = self.seq
        self.seq += 1
        parts = urlsplit(url)
        target = parts.path or "/"
        if parts.query:
            target += "?" + parts.query
        ip = "192.0.2.%d" % (10 + i)
        req_id = record_id("request", url)
        resp_id = record_id("response", url)
        meta_id = record_id("metadata", url)

        request = http_head(
            "GET %s HTTP/1.1" % target,
            [
                ("User-Agent", USER_AGENT),
                ("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"),
                ("Accept-Language", "en-US,en;q=0.5"),
                ("Accept-Encoding", "br,gzip"),
                ("Host", parts.netloc),
                ("Connection", "Keep-Alive"),
            ],
        )
        self.add(
            warc_record(
                [
                    ("WARC-Type", "request"),
                    ("WARC-Date", warc_date(i)),
                    ("WARC-Record-ID", req_id),
                    ("Content-Length", ""),
                    ("Content-Type", "application/http; msgtype=request"),
                    ("WARC-Warcinfo-ID", self.warcinfo_id),
                    ("WARC-IP-Address", ip),
                    ("WARC-Target-URI", url),
                    ("WARC-Block-Digest", sha1_b32(request)),
                ],
                request,
            )
        )

        head = http_head(status_line, [("Date", http_date(i))] + resp_headers)
        block = head + body
        self.add(
            warc_record(
                [
                    ("WARC-Type", "response"),
                    ("WARC-Date", warc_date(i)),
                    ("WARC-Record-ID", resp_id),
                    ("Content-Length", ""),
                    ("Content-Type", "application/http; msgtype=response"),
                    ("WARC-Warcinfo-ID", self.warcinfo_id),
                    ("WARC-Concurrent-To", req_id),
                    ("WARC-IP-Address", ip),
                    ("WARC-Target-URI", url),
                    ("WARC-Payload-Digest", sha1_b32(body)),
                    ("WARC-Block-Digest", sha1_b32(block)),
                    ("WARC-Identified-Payload-Type", identified_type),
                ],
                block,
            )
        )

        meta = ("fetchTimeMs: %d\r\n" % (90 + 13 * i)).encode("ascii")
        self.add(
            warc_record(
                [
                    ("WARC-Type", "metadata"),
                    ("WARC-Date", warc_date(i)),
                    ("WARC-Record-ID", meta_id),
                    ("Content-Length", ""),
                    ("Content-Type", "application/warc-fields"),
                    ("WARC-Warcinfo-ID", self.warcinfo_id),
                    ("WARC-Concurrent-To", resp_id),
                    ("WARC-Target-URI", url),
                    ("WARC-Block-Digest", sha1_b32(meta)),
                ],
                meta,
            )
        )
        if is_page:
            self.pages += 1

    def page(self, url: str, payload: bytes) -> None:
        """A normal 200 HTML page, stored decoded as Common Crawl does."""
        self.capture(
            url,
            "HTTP/1.1 200 OK",
            [
                ("Server", "nginx"),
                ("Content-Type", "text/html; charset=utf-8"),
                ("Vary", "Accept-Encoding"),
                ("X-Crawler-Content-Encoding", "gzip"),
                ("Content-Length", str(len(payload))),
            ],
            payload,
            "text/html",
            True,
        )

    def data(self) -> bytes:
        return b"".join(self.chunks)


# ---------------------------------------------------------------------------


def load_page(pages: Path, name: str) -> tuple[dict, bytes]:
    gold = json.loads((pages / (name + ".json")).read_text(encoding="utf-8"))
    payload = (pages / (name + ".html")).read_bytes()
    payload.decode("utf-8")  # fixtures are stored as UTF-8; fail early otherwise
    return gold, payload


def visible(text: str) -> str:
    """Rough text of an HTML string, only for checking that phrases are present."""
    text = re.sub(r"(?is)<(script|style|template|noscript)\b.*?</\1\s*>", " ", text)
    text = re.sub(r"(?s)<!--.*?-->", " ", text)
    text = re.sub(r"(?s)<[^>]*>", " ", text)
    return re.sub(r"\s+", " ", html.unescape(text))


def check_phrases(label: str, text: str, phrases: list[str]) -> None:
    vis = visible(text)
    missing = [p for p in phrases if p not in vis]
    if missing:
        sys.exit("%s: must_contain phrases not found in the page text: %r" % (label, missing))


def chunked(data: bytes, size: int) -> bytes:
    out = []
    for start in range(0, len(data), size):
        piece = data[start : start + size]
        out.append(b"%x\r\n" % len(piece) + piece + CRLF)
    out.append(b"0\r\n\r\n")
    return b"".join(out)


def build_encodings(pages: Path, writer: WarcWriter) -> None:
    sidecar = json.loads((pages / "encodings.json").read_text(encoding="utf-8"))
    for entry in sidecar["pages"]:
        variant, source, url = entry["variant"], entry["source"], entry["url"]
        phrases = entry["must_contain"]
        if source.startswith("inline:"):
            text = {"inline:de-cp1252": GERMAN_CP1252_PAGE, "inline:ru-cp1251-qa": RUSSIAN_QA_PAGE}[source]
        else:
            text = (pages / source).read_text(encoding="utf-8")
        check_phrases(url, text, phrases)

        if variant == "cp1252-meta-only":
            text = re.sub(r'<meta charset="utf-8">', '<meta charset="windows-1252">', text, count=1, flags=re.I)
            if 'charset="windows-1252"' not in text:
                sys.exit("%s: no <meta charset> to rewrite in %s" % (url, source))
            try:
                body = text.encode("cp1252")
            except UnicodeEncodeError as e:
                sys.exit(
                    "%s: %s is not encodable in windows-1252 (%s); set its source to "
                    "inline:de-cp1252 in encodings.json and update its must_contain" % (url, source, e)
                )
            headers = [("Server", "Apache"), ("Content-Type", "text/html"), ("Content-Length", str(len(body)))]
        elif variant == "gzip-chunked-raw":
            compressed = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
            body = chunked(compressed, 500)
            headers = [
                ("Server", "Apache"),
                ("Content-Type", "text/html; charset=utf-8"),
                ("Content-Encoding", "gzip"),
                ("Transfer-Encoding", "chunked"),
                ("Vary", "Accept-Encoding"),
            ]
        elif variant == "cp1251-undeclared":
            if re.search(r"(?i)charset", text):
                sys.exit("%s: the undeclared variant must not mention a charset" % url)
            body = text.encode("cp1251")
            headers = [("Server", "nginx"), ("Content-Type", "text/html"), ("Content-Length", str(len(body)))]
        else:
            sys.exit("encodings.json: unknown variant %r" % variant)
        writer.capture(url, "HTTP/1.1 200 OK", headers, body, "text/html", True)


def build(pages: Path, out: Path) -> list[WarcWriter]:
    articles = WarcWriter("articles.warc.gz", gz=True)
    articles.warcinfo("Six article-genre fixture pages (news, blog, docs, recipe, product, service).")
    for name in ARTICLE_PAGES:
        gold, payload = load_page(pages, name)
        articles.page(gold["url"], payload)

    listings = WarcWriter("listings.warc.gz", gz=True)
    listings.warcinfo("Six list-view fixture pages, then a redirect, a robots.txt and an image that are not pages.")
    for name in LIST_PAGES:
        gold, payload = load_page(pages, name)
        listings.page(gold["url"], payload)

    moved = b"<html><head><title>301 Moved Permanently</title></head><body>Moved</body></html>\n"
    listings.capture(
        "https://www.kettleworks.example/tea/kettles",
        "HTTP/1.1 301 Moved Permanently",
        [
            ("Server", "nginx"),
            ("Location", "https://www.kettleworks.example/tea/kettles-teapots"),
            ("Content-Type", "text/html; charset=utf-8"),
            ("Content-Length", str(len(moved))),
        ],
        moved,
        "text/html",
        False,
    )
    robots = (
        b"User-agent: *\n"
        b"Disallow: /admin/\n"
        b"Disallow: /cart\n"
        b"Crawl-delay: 2\n"
        b"\n"
        b"Sitemap: https://www.ceac.example/sitemap.xml\n"
    )
    listings.capture(
        "https://www.ceac.example/robots.txt",
        "HTTP/1.1 200 OK",
        [("Server", "nginx"), ("Content-Type", "text/plain"), ("Content-Length", str(len(robots)))],
        robots,
        "text/plain",
        False,
    )
    png = tiny_png()
    listings.capture(
        "https://www.kettleworks.example/img/badge-new.png",
        "HTTP/1.1 200 OK",
        [("Server", "nginx"), ("Content-Type", "image/png"), ("Content-Length", str(len(png)))],
        png,
        "image/png",
        False,
    )

    encodings = WarcWriter("encodings.warc", gz=False)
    encodings.warcinfo("Charset and transfer-encoding variants; see tests/fixtures/pages/encodings.json.")
    build_encodings(pages, encodings)

    out.mkdir(parents=True, exist_ok=True)
    for w in (articles, listings, encodings):
        (out / w.filename).write_bytes(w.data())
    return [articles, listings, encodings]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=Path, default=Path("tests/fixtures/pages"), help="fixture pages directory")
    parser.add_argument("--out", type=Path, default=Path("sample-warcs"), help="output directory")
    args = parser.parse_args()
    for w in build(args.pages, args.out):
        data = w.data()
        print(
            "%s: %d records, %d pages, %d bytes, sha256 %s"
            % (args.out / w.filename, w.records, w.pages, len(data), hashlib.sha256(data).hexdigest()[:16])
        )


if __name__ == "__main__":
    main()
