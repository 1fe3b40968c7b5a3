#!/usr/bin/env python3
"""Writes the fidelity conversations, tests/fidelity/conversations/<shape>.json.

The conversations are the input both sides of the fidelity tier play: the drivers here feed
them to the real libraries, the engine's dry run (tests/fidelity.rs) to the presets. They are
generated, not hand-written, so that every size is deliberate and a change is one edit here;
a fixed seed per shape keeps the files byte-identical from run to run. Words only, plain ASCII:
the deterministic counter of the contract counts whitespace-separated words, so a message's
size is exactly the number of words this script puts in it.

Usage: python3 tests/fidelity/make_conversations.py [out_dir]
"""

import json
import random
import sys
from pathlib import Path

# Plain lowercase words, so no tokeniser-specific punctuation reaches any library.
VOCABULARY = (
    "river stone lamp garden window paper engine market winter harbor copper violet "
    "ladder pencil signal orchard basket thunder mirror candle planet tunnel meadow "
    "anchor bridge castle desert forest island jungle kettle lemon marble needle ocean "
    "pepper quartz rabbit saddle temple umbrella valley wagon yellow zipper almond "
    "beacon cobalt dragon ember falcon glacier hammer ivory jasmine kernel lantern "
    "mosaic nectar oyster prism quiver ribbon summit timber velvet walnut"
).split()

SYSTEM = "You are a careful assistant. Answer briefly and keep track of what the user said."


def words(rng: random.Random, n: int) -> str:
    """`n` words drawn from the vocabulary: exactly `n` tokens under the contract's counter."""
    return " ".join(rng.choice(VOCABULARY) for _ in range(n))


def user(rng, n):
    return {"role": "user", "content": words(rng, n)}


def assistant(rng, n):
    return {"role": "assistant", "content": words(rng, n)}


def short_turns(rng):
    """Forty quick exchanges: a few words each way."""
    out = []
    for _ in range(40):
        out += [user(rng, rng.randint(4, 10)), assistant(rng, rng.randint(8, 20))]
    return out


def long_replies(rng):
    """Short questions, long answers: a single reply can be most of a limit."""
    out = []
    for _ in range(14):
        out += [user(rng, rng.randint(5, 12)), assistant(rng, rng.randint(80, 160))]
    return out


def giant_message(rng):
    """Small exchanges around one user message larger than any limit the drivers use."""
    out = []
    for turn in range(14):
        size = 700 if turn == 6 else rng.randint(6, 14)
        out += [user(rng, size), assistant(rng, rng.randint(10, 24))]
    return out


def tool_calls(rng):
    """Turns where the assistant calls tools, one or several calls at once, before replying."""
    out = []
    call = 0
    for turn in range(16):
        out.append(user(rng, rng.randint(6, 14)))
        calls = (0, 1, 3, 2)[turn % 4]
        if calls:
            batch = []
            for _ in range(calls):
                call += 1
                arguments = json.dumps({"query": words(rng, rng.randint(1, 4))})
                batch.append({"id": f"call_{call}", "name": "lookup", "arguments": arguments})
            out.append({"role": "assistant", "content": words(rng, rng.randint(3, 6)), "tool_calls": batch})
            for item in batch:
                out.append({"role": "tool", "content": words(rng, rng.randint(15, 45)), "tool_call_id": item["id"]})
        out.append(assistant(rng, rng.randint(10, 30)))
    return out


def near_threshold(_rng):
    """Every exchange is exactly 40 words (10 asked, 30 answered), so a running total lands on
    multiples of 40 and a limit of 200, 240 or 300 is met exactly: `>` and `>=` differ here."""
    rng = random.Random(4040)
    out = []
    for _ in range(20):
        out += [user(rng, 10), assistant(rng, 30)]
    return out


def mixed_40(rng):
    """Forty turns of mixed sizes: mostly small, some long replies, a few long questions."""
    out = []
    for _ in range(40):
        roll = rng.random()
        if roll < 0.6:
            pair = (rng.randint(3, 15), rng.randint(5, 40))
        elif roll < 0.85:
            pair = (rng.randint(5, 20), rng.randint(60, 200))
        else:
            pair = (rng.randint(40, 120), rng.randint(10, 60))
        out += [user(rng, pair[0]), assistant(rng, pair[1])]
    return out


SHAPES = {
    "short-turns": (short_turns, 101),
    "long-replies": (long_replies, 202),
    "giant-message": (giant_message, 303),
    "tool-calls": (tool_calls, 404),
    "near-threshold": (near_threshold, 505),
    "mixed-40": (mixed_40, 606),
}


def main() -> None:
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "conversations"
    out_dir.mkdir(parents=True, exist_ok=True)
    for shape, (make, seed) in SHAPES.items():
        conversation = {"shape": shape, "system": SYSTEM, "messages": make(random.Random(seed))}
        text = json.dumps(conversation, indent=1) + "\n"
        (out_dir / f"{shape}.json").write_text(text, encoding="ascii")


if __name__ == "__main__":
    main()
