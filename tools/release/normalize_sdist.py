#!/usr/bin/env python3
"""Rewrites sdist tarballs so that two builds of one commit are byte-identical.

setuptools writes each file's mtime, owner and the gzip header's time into an
sdist. This keeps every member and its content and mode, in the same order,
and sets mtime to SOURCE_DATE_EPOCH, owner to root (0/0, no names) and the
gzip header time to 0. Usage: normalize_sdist.py FILE.tar.gz...
"""
import gzip
import io
import os
import sys
import tarfile


def normalize(path: str, epoch: int) -> None:
    out = io.BytesIO()
    with tarfile.open(path, "r:gz") as src, tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as dst:
        for m in src.getmembers():
            data = src.extractfile(m).read() if m.isfile() else None
            m.mtime = epoch
            m.uid = m.gid = 0
            m.uname = m.gname = ""
            m.pax_headers = {}
            dst.addfile(m, io.BytesIO(data) if data is not None else None)
    with open(path, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as gz:
        gz.write(out.getvalue())


if __name__ == "__main__":
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
    for p in sys.argv[1:]:
        normalize(p, epoch)
