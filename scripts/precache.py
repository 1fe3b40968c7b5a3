#!/usr/bin/env python3
"""Trunk post-build hook: tells the service worker which build it belongs to and what to keep.

It runs last (after vocab.py and csp.py have finished index.html), hashes every file of the
staged dist into the build's id, and writes into the staged sw.js the line

    const BUILD = {"id": "<16 hex>", "files": [...], "lazy": [...]}; // written by scripts/precache.py

`files` are every file the app needs to start offline (the page, the loader, the wasm, the CSS,
the web manifest and its icons, the default o200k_base vocabulary, ...), `lazy` the other
vocabularies, which the worker keeps only once the page has loaded one. Any change to any file
gives sw.js new bytes, so the browser installs the new build's worker, which keeps its files in
a cache named after the id and deletes the older builds' caches. It fails the build if sw.js lacks the line to replace.
"""
import hashlib
import json
import os
import re
import sys

staging = os.environ.get("TRUNK_STAGING_DIR")
if not staging:
    sys.exit("precache.py: TRUNK_STAGING_DIR is not set; run it as a Trunk hook")
worker_path = os.path.join(staging, "sw.js")
if not os.path.isfile(worker_path):
    sys.exit("precache.py: the staged dist has no sw.js")
worker = open(worker_path, encoding="utf-8").read()
LINE = re.compile(r"^const BUILD = .*; // written by scripts/precache\.py$", re.M)
if len(LINE.findall(worker)) != 1:
    sys.exit("precache.py: sw.js needs exactly one `const BUILD = ...; // written by scripts/precache.py` line")

paths = []
for root, _dirs, names in os.walk(staging):
    for name in names:
        path = os.path.relpath(os.path.join(root, name), staging).replace(os.sep, "/")
        if path != "sw.js":
            paths.append(path)
paths.sort()

digest = hashlib.sha256(worker.encode("utf-8"))
for path in paths:
    digest.update(path.encode("utf-8") + b"\0")
    digest.update(open(os.path.join(staging, path), "rb").read())
# The default vocabulary is kept like any file: the page no longer fetches it on the lesson's
# path, so the install (registered when the page is idle) fetches it in the background, and an
# installed app counts exactly offline. Any other vocabulary is kept once the page has used it.
DEFAULT_VOCABULARY = "o200k_base-"


def lazy(path):
    return path.endswith(".smv") and not path.startswith(DEFAULT_VOCABULARY)


build = {
    "id": digest.hexdigest()[:16],
    "files": [p for p in paths if not lazy(p)],
    "lazy": [p for p in paths if lazy(p)],
}
line = f"const BUILD = {json.dumps(build, separators=(',', ':'))}; // written by scripts/precache.py"
worker = LINE.sub(lambda _: line, worker)
open(worker_path, "w", encoding="utf-8").write(worker)
print(f"precache.py: build {build['id']}, {len(build['files'])} files to keep, {len(build['lazy'])} lazy")
