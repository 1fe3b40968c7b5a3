#!/usr/bin/env python3
"""Trunk post-build hook: ships each token vocabulary as its own content-hashed file.

It runs `cargo run --example vocab_asset`, which writes the compact vocabularies
(src/tokens/compact.rs) from tiktoken-rs's own data, copies each into the staged dist as
`<encoding>-<sha256 prefix>.smv`, and names the file in index.html with
`<meta name="sm-vocab-<encoding>" content="...">`, where the app looks it up. A new vocabulary
gets a new name, so a browser or service worker can cache the file forever.

It then checks that the wasm holds no vocabulary (tiktoken-rs's base64 text or our compact form)
and stays under a size ceiling: a change that linked a vocabulary into the wasm again fails the
build.
"""
import glob
import hashlib
import os
import subprocess
import sys
import tempfile

# No wasm of the release build comes near this: scripts/split.py holds the page's first load and
# each module loaded on first use to tighter guards of their own (2 MiB for the first load), and
# the corpus worker is about 1.3 MB. One embedded vocabulary adds 0.7 MB or more. 2.75 MiB, split.py's first-load ceiling
# before the transcript readers left the first load; the end-to-end tests use it to refuse a
# debug dist.
WASM_CEILING_BYTES = 2816 * 1024
# The first ranks of both vocabularies, as tiktoken-rs embeds them and as the compact form has them.
VOCABULARY_MARKERS = [b"IQ== 0\nIg== 1\nIw== 2", b"\x01!\x01\"\x01#\x01$\x01%"]

staging = os.environ.get("TRUNK_STAGING_DIR")
if not staging:
    sys.exit("vocab.py: TRUNK_STAGING_DIR is not set; run it as a Trunk hook")
public_url = os.environ.get("TRUNK_PUBLIC_URL", "/")
if not public_url.endswith("/"):
    public_url += "/"

metas = []
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run(
        ["cargo", "run", "--quiet", "--example", "vocab_asset", "--", tmp],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    for encoding in ["o200k_base", "cl100k_base"]:
        data = open(os.path.join(tmp, f"{encoding}.smv"), "rb").read()
        name = f"{encoding}-{hashlib.sha256(data).hexdigest()[:16]}.smv"
        open(os.path.join(staging, name), "wb").write(data)
        metas.append(f'<meta name="sm-vocab-{encoding}" content="{public_url}{name}">')
        print(f"vocab.py: {name}, {len(data)} bytes")

path = os.path.join(staging, "index.html")
html = open(path, encoding="utf-8").read()
if "</head>" not in html:
    sys.exit("vocab.py: index.html has no </head>")
html = html.replace("</head>", "".join(metas) + "</head>", 1)
open(path, "w", encoding="utf-8").write(html)

wasms = glob.glob(os.path.join(staging, "*.wasm"))
if not wasms:
    sys.exit("vocab.py: no wasm in the staged dist")
for wasm in wasms:
    data = open(wasm, "rb").read()
    for marker in VOCABULARY_MARKERS:
        if marker in data:
            sys.exit(f"vocab.py: {os.path.basename(wasm)} embeds a vocabulary ({marker!r})")
    # The ceiling guards what users download: the release build. A debug build (developers'
    # quick end-to-end runs) carries debug info and is ten times larger; the marker check above
    # still runs on it.
    if os.environ.get("TRUNK_PROFILE", "release") == "release" and len(data) > WASM_CEILING_BYTES:
        sys.exit(
            f"vocab.py: {os.path.basename(wasm)} is {len(data)} bytes, over the "
            f"{WASM_CEILING_BYTES}-byte ceiling; did a vocabulary get linked in?"
        )
    print(f"vocab.py: {os.path.basename(wasm)} is {len(data)} bytes, with no vocabulary in it")
