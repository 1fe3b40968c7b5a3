#!/usr/bin/env python3
"""Cuts the modules loaded on first use out of the page's wasm (the first step of the Trunk
post_build hook; docs/size.md says why and what each module holds).

Trunk builds the page's wasm and runs wasm-bindgen on it whole. The split points in the code
(`#[wasm_split(...)]` in src/ui/on_demand.rs) are imports that only `wasm-split-cli` can resolve,
so this script redoes the last steps on the linked wasm that cargo left in the target folder
(linked with `--emit-relocs`, build.rs):

1. `wasm-split-cli` writes the main module, one wasm per split point (and any chunk two of them
   share) and the `__wasm_split.js` loader that fetches them;
2. wasm-bindgen turns the main module into the glue and wasm Trunk had written, under the same
   names, keeping the exports the loader needs (`--keep-lld-exports`);
3. on a release build, wasm-opt -Oz on every module (index.html turns Trunk's own wasm-opt off
   for the page: it would only optimise the wasm this script replaces);
4. each module and the loader get a content hash in their names, so no browser cache can pair a
   module with a main module of another build, and index.html's integrity hashes are recomputed.

Finally it checks the size guards: the page's first load and each module under its own ceiling
(`GUARDS`), so the release build fails past either.
"""

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PAGE = "summary-memory"
LOADER = "__wasm_split"
# Byte ceilings of the release build's wasm after wasm-opt. The page's first load is the guard
# that matters most: it was 3,212,140 bytes with every tab in it, and issue #37 asked for 2 MiB;
# this ceiling only goes down (tests/split_guard.py checks the rule and the ceilings) (docs/size.md: the sizes and what to move out next). Each module
# loaded on first use has its own; a chunk two modules share, the last one.
FIRST_LOAD_CEILING = 2048 * 1024
MODULE_CEILINGS = {
    "split_inspect": 704 * 1024,
    "split_tokens": 96 * 1024,
    "split_settings": 96 * 1024,
    "split_export": 192 * 1024,
    # The token counter's building code, fetched with the first vocabulary, and since issue #37
    # regex-syntax's parser and every Unicode table (only the splitter parses a pattern now):
    # it grew from 68,548 to 452,663 bytes; it is fetched beside an 828 KB vocabulary anyway.
    "split_counter": 480 * 1024,
}
CHUNK_CEILING = 32 * 1024


def fail(message):
    sys.exit(f"split.py: {message}")


def run(*args):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"{args[0]} failed ({result.returncode}):\n{result.stdout}{result.stderr}")


def content_hash(data):
    return hashlib.sha256(data).hexdigest()[:16]


def integrity(data):
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode()


def cargo_target_dir():
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        fail(f"cargo metadata failed:\n{out.stderr}")
    return Path(json.loads(out.stdout)["target_directory"])


def main():
    staging = os.environ.get("TRUNK_STAGING_DIR")
    if not staging:
        fail("TRUNK_STAGING_DIR is not set; run it as a Trunk hook")
    staging = Path(staging)
    release = os.environ.get("TRUNK_PROFILE") == "release"
    html_path = staging / "index.html"
    html = html_path.read_text()

    found = re.search(rf"({re.escape(PAGE)}-[0-9a-f]+)\.js", html)
    if not found:
        fail(f"index.html names no {PAGE}-<hash>.js; did Trunk's page pipeline change?")
    stem = found.group(1)
    raw = cargo_target_dir() / "wasm32-unknown-unknown" / ("release" if release else "debug") / f"{PAGE}.wasm"
    if not raw.is_file():
        fail(f"{raw} is missing: Trunk should have built it")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        split_dir = tmp / "split"
        bound_dir = tmp / "bound"
        run("wasm-split-cli", raw, split_dir, "--target", "web", "--out-name", stem)
        run(
            "wasm-bindgen", "--target=web", "--keep-lld-exports", "--no-demangle",
            "--no-typescript", f"--out-name={stem}", f"--out-dir={bound_dir}",
            split_dir / f"{stem}.wasm",
        )
        main_wasm = bound_dir / f"{stem}_bg.wasm"
        chunks = sorted(split_dir.glob("*.wasm"))
        chunks = [c for c in chunks if c.name != f"{stem}.wasm"]
        if release:
            for wasm in [main_wasm, *chunks]:
                run("wasm-opt", "-Oz", wasm, "-o", wasm)

        # Each chunk under a name with its content's hash; the loader names them, and the
        # loader itself, renamed the same way, is what the glue imports.
        loader = (split_dir / f"{LOADER}.js").read_text()
        modules = {}
        for chunk in chunks:
            data = chunk.read_bytes()
            hashed = f"{chunk.stem}-{content_hash(data)}.wasm"
            if f'"./{chunk.name}"' not in loader:
                fail(f"the loader does not name {chunk.name}")
            loader = loader.replace(f'"./{chunk.name}"', f'"./{hashed}"')
            (staging / hashed).write_bytes(data)
            modules[chunk.stem] = (hashed, len(data))
        loader_name = f"{LOADER}-{content_hash(loader.encode())}.js"
        (staging / loader_name).write_text(loader)

        glue = (bound_dir / f"{stem}.js").read_text()
        # Only the ES import: the wasm's own import names the loader's first name, and so must
        # the imports object the glue hands it.
        glue, count = re.subn(rf'(from\s*)"\./{LOADER}\.js"', rf'\g<1>"./{loader_name}"', glue)
        if count == 0:
            fail("the glue does not import the split loader; is there a split point left?")
        (staging / f"{stem}.js").write_text(glue)
        shutil.copyfile(main_wasm, staging / f"{stem}_bg.wasm")

    # Trunk's preload links carry the integrity of the files it wrote; these are new.
    for name in (f"{stem}.js", f"{stem}_bg.wasm"):
        data = (staging / name).read_bytes()
        pattern = rf'(href="[^"]*{re.escape(name)}"[^>]*integrity=")[^"]*(")'
        html, count = re.subn(pattern, rf"\g<1>{integrity(data)}\g<2>", html)
        if count != 1:
            fail(f"index.html has {count} integrity attributes for {name}, expected 1")
    html_path.write_text(html)

    first = (staging / f"{stem}_bg.wasm").stat().st_size
    print(f"split.py: {stem}_bg.wasm {first} bytes; " + ", ".join(
        f"{name} {size} bytes" for name, (_, size) in sorted(modules.items())))
    if release:
        over = over_ceilings(first, {name: size for name, (_, size) in modules.items()})
        if over:
            fail("; ".join(over) + " (docs/size.md: what to move out of it)")


def over_ceilings(first, modules):
    """What is over its ceiling: the first load's size, and each module's or chunk's by name."""
    over = []
    if first > FIRST_LOAD_CEILING:
        over.append(f"the page's first-load wasm is {first} bytes, over {FIRST_LOAD_CEILING}")
    for name, size in sorted(modules.items()):
        ceiling = MODULE_CEILINGS.get(name, CHUNK_CEILING)
        if name.startswith("split_") and name not in MODULE_CEILINGS:
            over.append(f"{name} has no ceiling: give it one in MODULE_CEILINGS")
        elif size > ceiling:
            over.append(f"{name} is {size} bytes, over {ceiling}")
    return over

if __name__ == "__main__":
    main()
