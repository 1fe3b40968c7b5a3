#!/usr/bin/env python3
"""Trunk post-build hook: names the corpus worker's loader in index.html, and guards its size.

Trunk builds src/bin/corpus_worker.rs as a worker (index.html's `data-type="worker"` link) and
writes a loader shim, `corpus_worker-<hash>_loader.js`, whose name changes with every build. The
page's pool (src/ui/run/corpus_pool.rs) starts its workers from that file, so this hook finds it
and writes `<meta name="sm-corpus-worker" content="...">`, as vocab.py does for the
vocabularies. It fails the build when the loader is missing or ambiguous, and a release build
whose worker wasm is over its own ceiling: the worker is fetched when a corpus run or an import
first starts, as a module loaded on first use is (docs/size.md).
"""
import glob
import os
import sys

# The corpus worker's wasm after wasm-opt, in a release build: 1,395,716 bytes when the page was
# one bundle, 1,280,027 since the core's regexes left regex's engines (docs/size.md). This
# ceiling only goes down (tests/split_guard.py checks the rule).
WORKER_CEILING = 1344 * 1024


def over_ceiling(name, size):
    """Why a worker wasm of `size` bytes is too large, or None."""
    if size > WORKER_CEILING:
        return f"{name} is {size} bytes, over the corpus worker's {WORKER_CEILING}"
    return None


def main():
    staging = os.environ.get("TRUNK_STAGING_DIR")
    if not staging:
        sys.exit("worker.py: TRUNK_STAGING_DIR is not set; run it as a Trunk hook")
    release = os.environ.get("TRUNK_PROFILE") == "release"
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
        size = os.path.getsize(wasm)
        print(f"worker.py: {name}; {os.path.basename(wasm)} is {size} bytes")
        over = over_ceiling(os.path.basename(wasm), size)
        if release and over:
            sys.exit(f"worker.py: {over} (docs/size.md: what to move out of it)")


if __name__ == "__main__":
    main()
