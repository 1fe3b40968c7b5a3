"""The release build's size guards (scripts/split.py's for the page's wasm and its modules,
scripts/worker.py's for the corpus worker): a build past any ceiling fails, naming what is over.

Run by scripts/test.sh beside the release build: `python3 tests/split_guard.py`.
"""

import importlib.util
import unittest
from pathlib import Path


def load(name):
    path = Path(__file__).resolve().parent.parent / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


split = load("split")
worker = load("worker")

MiB = 1024 * 1024


class Guard(unittest.TestCase):
    def test_the_first_load_guard_is_2_mib_and_one_byte_over_fails(self):
        self.assertEqual(split.FIRST_LOAD_CEILING, 2 * MiB)
        self.assertEqual(split.over_ceilings(2 * MiB, {}), [])
        [over] = split.over_ceilings(2 * MiB + 1, {})
        self.assertIn("first-load wasm is 2097153 bytes, over 2097152", over)

    def test_each_module_has_its_own_ceiling(self):
        at = dict(split.MODULE_CEILINGS)
        self.assertEqual(split.over_ceilings(0, at), [])
        for name, ceiling in split.MODULE_CEILINGS.items():
            over = split.over_ceilings(0, {**at, name: ceiling + 1})
            self.assertEqual(over, [f"{name} is {ceiling + 1} bytes, over {ceiling}"])

    def test_a_shared_chunk_has_the_chunk_ceiling(self):
        ceiling = split.CHUNK_CEILING
        self.assertEqual(split.over_ceilings(0, {"chunk_7": ceiling}), [])
        self.assertEqual(
            split.over_ceilings(0, {"chunk_7": ceiling + 1}),
            [f"chunk_7 is {ceiling + 1} bytes, over {ceiling}"],
        )

    def test_a_new_module_without_a_ceiling_fails_at_any_size(self):
        self.assertEqual(
            split.over_ceilings(0, {"split_new": 1}),
            ["split_new has no ceiling: give it one in MODULE_CEILINGS"],
        )

    def test_everything_over_is_named_at_once(self):
        over = split.over_ceilings(3 * MiB, {"split_inspect": 1 * MiB, "split_new": 1})
        self.assertEqual(len(over), 3)

    def test_the_corpus_worker_has_its_own_ceiling(self):
        ceiling = worker.WORKER_CEILING
        self.assertIsNone(worker.over_ceiling("corpus_worker_bg.wasm", ceiling))
        self.assertEqual(
            worker.over_ceiling("corpus_worker_bg.wasm", ceiling + 1),
            f"corpus_worker_bg.wasm is {ceiling + 1} bytes, over the corpus worker's {ceiling}",
        )


if __name__ == "__main__":
    unittest.main()
