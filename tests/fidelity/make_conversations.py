#!/usr/bin/env python3
"""Writes the fidelity conversations, tests/fidelity/conversations/<shape>.json.

The conversations are the input both sides of the fidelity tier play: the drivers here feed
them to the real libraries, the engine's dry run (tests/fidelity.rs) to the presets. They are
generated, not hand-written, so that every size is deliberate and a change is one edit here;
a fixed seed per shape keeps the files byte-identical from run to run. The deterministic
counter of the contract counts whitespace-separated words, so a message's size is exactly the
number of words this script puts in it. Six shapes are plain lowercase ASCII words; two carry
what the libraries' own default counters measure very differently: Hindi and Chinese
(`hindi-chinese`), and code with punctuation, quotes and newlines in tool calls and results
(`code-tools`). The files are written with JSON escapes for non-ASCII, so they stay ASCII.

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


# Hindi words (Devanagari, with their combining vowel signs), and Chinese words that a sentence
# runs together with no space: a Chinese "word" of the counter is a clause of two to four of
# them, closed by a full-width comma. What the default counters make of them differs most:
# LangChain's characters / 4 and Gemini CLI's estimate against cl100k_base and o200k_base.
HINDI = (
    "नमस्ते यात्रा योजना सप्ताह दिल्ली मुंबई बजट रुपये ट्रेन होटल भोजन शाकाहारी बाज़ार "
    "पुस्तक विद्यालय परिवार मौसम बारिश नदी पहाड़ शहर गाँव किताब पानी समय रास्ता "
    "टिकट स्टेशन मंदिर संग्रहालय दोस्त खाना चाय सुबह शाम रात कल आज"
).split()
CHINESE = (
    "你好 我们 下周 上海 北京 出差 预算 人民币 高铁 酒店 每晚 单程 小时 餐厅 素食 "
    "天气 下雨 博物馆 地铁 机场 朋友 早上 晚上 明天 今天 茶馆 公园 车票 行李 地图 "
    "时间 问题 答案 计划 会议 文件"
).split()


def hindi(rng, n):
    return " ".join(rng.choice(HINDI) for _ in range(n))


def chinese(rng, n):
    """`n` counter words: clauses of two to four Chinese words, each closed by `，`."""
    return " ".join("".join(rng.choice(CHINESE) for _ in range(rng.randint(2, 4))) + "，" for _ in range(n))


def hindi_chinese(rng):
    """Thirty turns, each in Hindi or in Chinese (a user switching language from turn to turn),
    with some long replies: the word count is far from every library's own count here."""
    out = []
    for turn in range(30):
        say = hindi if rng.random() < 0.5 else chinese
        reply = rng.randint(60, 140) if turn % 5 == 2 else rng.randint(8, 30)
        out += [{"role": "user", "content": say(rng, rng.randint(4, 14))}, {"role": "assistant", "content": say(rng, reply)}]
    return out


# Code as an agent reads and runs it: identifiers, paths, operators, quotes, newlines.
CODE_LINES = (
    "def parse_date(text):",
    "    text = text.strip()",
    "    if '/' in text:",
    "        d, m, y = text.split('/')",
    "        return dt.date(int(y), int(m), int(d))",
    "    return dt.date.fromisoformat(text)",
    "import datetime as dt",
    "from pathlib import Path",
    "for row in rows: total += row['amount'] * rate",
    "assert parse_date(' 2026-12-04') == dt.date(2026, 12, 4)",
    "E   ValueError: Invalid isoformat string: ' 2026-12-04'",
    "config = {\"retries\": 3, \"timeout_ms\": 2500, \"paths\": [\"src/\", \"tests/\"]}",
    "fn main() { let x: Vec<u32> = (0..10).map(|i| i * i).collect(); }",
    "SELECT id, name FROM users WHERE created_at > '2026-01-01' ORDER BY id;",
    "$ cargo test --lib -- --nocapture 2>&1 | tail -n 20",
    "1 failed, 41 passed in 0.37s",
    "return {k: v for k, v in items.items() if v is not None}",
    "@@ -12,7 +12,8 @@ class Cache:",
    "-        self.size = 0",
    "+        self.size = len(self.items)",
)
QUERIES = (
    "grep -n 'def parse_date' utils/dates.py",
    "sed -n 1,40p src/cache.py",
    "pytest -q tests/test_dates.py::test_parse_dates",
    "git diff --stat HEAD~1",
    "cat config/settings.json",
    "rg -n \"timeout_ms\" src/",
)


def code(rng, lines):
    """`lines` lines of code, each tagged with a line number so that no two results are alike."""
    start = rng.randint(1, 400)
    return "\n".join(f"{start + i}: {rng.choice(CODE_LINES)}" for i in range(lines))


def code_tools(rng):
    """A coding agent's session: short requests, then one to four tool calls at once whose
    arguments and results are code, and a reply quoting code."""
    out = []
    call = 0
    for turn in range(14):
        out.append({"role": "user", "content": f"Step {turn + 1}: " + words(rng, rng.randint(5, 12)) + f" in `src/{rng.choice(VOCABULARY)}.py`?"})
        for _ in range((1, 2, 1, 0)[turn % 4]):
            batch = []
            for _ in range(rng.randint(1, 4)):
                call += 1
                query = f"{rng.choice(QUERIES)} # {call}"
                batch.append({"id": f"call_{call}", "name": "lookup", "arguments": json.dumps({"query": query})})
            out.append({"role": "assistant", "content": "Checking: " + words(rng, rng.randint(2, 5)), "tool_calls": batch})
            for item in batch:
                out.append({"role": "tool", "content": code(rng, rng.randint(3, 12)), "tool_call_id": item["id"]})
        out.append({"role": "assistant", "content": words(rng, rng.randint(6, 20)) + ":\n```\n" + code(rng, rng.randint(1, 5)) + "\n```"})
    return out


SHAPES = {
    "short-turns": (short_turns, 101),
    "long-replies": (long_replies, 202),
    "giant-message": (giant_message, 303),
    "tool-calls": (tool_calls, 404),
    "near-threshold": (near_threshold, 505),
    "mixed-40": (mixed_40, 606),
    "hindi-chinese": (hindi_chinese, 707),
    "code-tools": (code_tools, 808),
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
