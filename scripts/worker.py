#!/usr/bin/env python3
"""Trunk post-build hook: names the corpus worker's loader in index.html.

Trunk builds src/bin/corpus_worker.rs as a worker (index.html's `data-type="worker"` link) and
writes a loader shim, `corpus_worker-<hash>_loader.js`, whose name changes with every build. The
page's pool (src/ui/run/corpus_pool.rs) starts its workers from that file, so this hook finds it
and writes `<meta name="sm-corpus-worker" content="...">`, as vocab.py does for the
vocabularies. It fails the build when the loader is missing or ambiguous, and prints the worker
wasm's size, which is not the page's and has no part in the page's ceiling.
"""
import glob
import os
import sys

staging = os.environ.get("TRUNK_STAGING_DIR")
if not staging:
    sys.exit("worker.py: TRUNK_STAGING_DIR is not set; run it as a Trunk hook")
public_url = os.environ.get("TRUNK_PUBLIC_URL", "/")
if not public_url.endswith("/"):
    public_url += "/"

loaders = glob.glob(os.path.join(staging, "corpus_worker*_loader.js"))
if len(loaders) != 1:
    sys.exit(f"worker.py: expected one corpus worker loader in the staged dist, found {loaders}")
name = os.path.basename(loaders[0])

path = os.path.join(staging, "index.html")
html = open(path, encoding="utf-8").read()
if "</head>" not in html:
    sys.exit("worker.py: index.html has no </head>")
html = html.replace("</head>", f'<meta name="sm-corpus-worker" content="{public_url}{name}"></head>', 1)
open(path, "w", encoding="utf-8").write(html)
for wasm in glob.glob(os.path.join(staging, "corpus_worker*_bg.wasm")):
    print(f"worker.py: {name}; {os.path.basename(wasm)} is {os.path.getsize(wasm)} bytes")
