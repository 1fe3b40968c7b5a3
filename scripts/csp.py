#!/usr/bin/env python3
"""Trunk post-build hook: allows exactly the inline scripts Trunk wrote, by their SHA-256.

Trunk loads the wasm through a small inline <script type="module">. The page's CSP only lets
scripts run from the app's own origin, so this hook hashes every inline script in the staged
index.html and puts the hashes in place of INLINE_SCRIPT_HASHES. It fails the build when the
placeholder is missing, so a policy that blocks the loader can never ship silently.
"""
import base64
import hashlib
import os
import re
import sys

staging = os.environ.get("TRUNK_STAGING_DIR")
if not staging:
    sys.exit("csp.py: TRUNK_STAGING_DIR is not set; run it as a Trunk hook")
path = os.path.join(staging, "index.html")
html = open(path, encoding="utf-8").read()
if "INLINE_SCRIPT_HASHES" not in html:
    sys.exit("csp.py: index.html has no INLINE_SCRIPT_HASHES placeholder in its CSP")

hashes = []
for attrs, body in re.findall(r"<script([^>]*)>(.*?)</script>", html, flags=re.S):
    if "src=" in attrs or not body.strip():
        continue
    digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode()
    hashes.append(f"'sha256-{digest}'")

html = html.replace("INLINE_SCRIPT_HASHES", " ".join(hashes))
open(path, "w", encoding="utf-8").write(html)
print(f"csp.py: allowed {len(hashes)} inline script(s) by hash")
