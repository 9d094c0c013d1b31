#!/usr/bin/env python3
"""The peer goce-warc is measured against: FastWARC reads the WARC, Resiliparse extracts the
main content, pyarrow writes one Parquet row per page (URL, record id, text). It keeps what
`goce-warc process` keeps by default: HTTP 200 responses with an HTML content type.

Usage: peer_pipeline.py WARC OUT.parquet   (prints the pages written)
"""
import sys

import pyarrow as pa
import pyarrow.parquet as pq
from fastwarc.warc import ArchiveIterator, WarcRecordType
from resiliparse.extract.html2text import extract_plain_text
from resiliparse.parse.encoding import bytes_to_str, detect_encoding


def main(warc_path, out_path):
    urls, ids, texts = [], [], []
    with open(warc_path, "rb") as stream:
        for record in ArchiveIterator(stream, record_types=WarcRecordType.response, parse_http=True):
            if record.http_headers is None or record.http_headers.status_code != 200:
                continue
            content_type = record.http_headers.get("Content-Type", "")
            if "html" not in content_type.lower():
                continue
            body = record.reader.read()
            html = bytes_to_str(body, detect_encoding(body))
            urls.append(record.headers.get("WARC-Target-URI", ""))
            ids.append(record.record_id)
            texts.append(extract_plain_text(html, main_content=True))
    pq.write_table(pa.table({"url": urls, "warc_record_id": ids, "text": texts}), out_path)
    print(len(texts))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
