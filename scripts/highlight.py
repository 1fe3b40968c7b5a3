#!/usr/bin/env python3
"""Trunk post-build hook: puts the export panel's syntax highlighter into the staged dist.

It copies, from the pinned npm package scripts/tools.sh installs (`scripts/tools.sh --venv
highlight` says where), highlight.js's core and the three grammars the snippets need (Python,
JavaScript, JSON) with the package's licence, and the page's own glue (www/highlight.mjs), into
`highlight/`. The page loads `highlight/highlight.mjs` only when the export panel opens.

When the package is missing (tools.sh not run) it says so and copies nothing: the build still
succeeds, and the panel shows its code plain. It runs before precache.py, so the service worker
keeps the files, and before precompress.mjs, so they get brotli and gzip copies.
"""
import os
import shutil
import subprocess
import sys

# The files the page needs, as the package lays them out (its `es/` folder holds ES modules).
FILES = {
    "es/core.min.js": "core.min.js",
    "es/languages/python.min.js": "python.min.js",
    "es/languages/javascript.min.js": "javascript.min.js",
    "es/languages/json.min.js": "json.min.js",
    "LICENSE": "LICENSE.txt",
}
GLUE = os.path.join("www", "highlight.mjs")

staging = os.environ.get("TRUNK_STAGING_DIR")
if not staging:
    sys.exit("highlight.py: TRUNK_STAGING_DIR is not set; run it as a Trunk hook")
if not os.path.isfile(GLUE):
    sys.exit(f"highlight.py: {GLUE} is missing")

found = subprocess.run(
    ["bash", "scripts/tools.sh", "--venv", "highlight"], capture_output=True, text=True
)
package = found.stdout.strip()
missing = [src for src in FILES if not os.path.isfile(os.path.join(package, src))]
if found.returncode != 0 or not package or missing:
    print(
        "highlight.py: the highlighter is not installed (run scripts/tools.sh); "
        f"this build shows the export panel's code plain (missing under {package or '?'}: "
        f"{', '.join(missing) or 'the package'})"
    )
    sys.exit(0)

target = os.path.join(staging, "highlight")
os.makedirs(target, exist_ok=True)
for src, name in FILES.items():
    shutil.copyfile(os.path.join(package, src), os.path.join(target, name))
shutil.copyfile(GLUE, os.path.join(target, "highlight.mjs"))
size = sum(os.path.getsize(os.path.join(target, n)) for n in os.listdir(target))
print(f"highlight.py: copied the highlighter into highlight/ ({size / 1024:.0f} KiB raw)")
