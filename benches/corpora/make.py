#!/usr/bin/env python3
"""Writes benches/corpora/corpora.json: the five texts the token benchmarks count, natively
(benches/tokens.rs) and in Chromium (benches/browser/run.mjs), so both measure the same bytes.

- english prose: this repository's own README.md and ARCHITECTURE.md, as written when the file
  was made (real prose, our own text);
- code: this repository's own Rust sources under src/engine/;
- cjk, hindi, emoji: made up, deterministically (a fixed-seed generator), from the characters
  and words of the exactness corpus (tests/tokenizer-oracle/corpus.json): words drawn from a
  Zipf-like lexicon, so pieces repeat as in real text but not all of them.

Each text is cut to about 40 KB on a character boundary. Run it from the repository root:
`python3 benches/corpora/make.py`. The output is committed, so the figures stay comparable.
"""
import json
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIZE = 40_000
rng = random.Random(16)


def cut(text: str) -> str:
    data = text.encode()[:SIZE]
    return data.decode(errors="ignore")


def oracle(name: str) -> str:
    corpus = json.loads((ROOT / "tests/tokenizer-oracle/corpus.json").read_text())
    return next(e["text"] for e in corpus if e["name"] == name)


def zipf_pick(words):
    # Rank r is drawn with weight 1 / (r + 1): a few words are very common, most are rare.
    weights = [1.0 / (r + 1) for r in range(len(words))]
    return lambda: rng.choices(words, weights)[0]


def made_up(lexicon, glue, ends, clause):
    pick = zipf_pick(lexicon)
    out = []
    size = 0
    while size < SIZE + 1000:
        n = rng.randint(*clause)
        sentence = glue.join(pick() for _ in range(n)) + rng.choice(ends)
        out.append(sentence)
        size += len(sentence.encode())
    return "".join(out)


def cjk():
    chars = [c for name in ("chinese", "japanese", "korean", "cjk fullwidth space and punctuation")
             for c in oracle(name) if ord(c) > 0x2e80 and c not in "。、，！？「」『』\u3000"]
    chars = sorted(set(chars))
    # Words of two to four characters from the corpus's own characters.
    lexicon = ["".join(rng.choice(chars) for _ in range(rng.randint(2, 4))) for _ in range(1500)]
    return made_up(lexicon, "", ["。", "，", "、", "！", "？", "「", "」"], (2, 7))


def hindi():
    words = set()
    for name in ("hindi devanagari", "hindi with rupees"):
        for w in oracle(name).replace("।", " ").replace("?", " ").replace("!", " ").split():
            if any(0x0900 <= ord(c) <= 0x097F for c in w):
                words.add(w)
    words = sorted(words)
    # Real words, and compounds of two halves of real words, so that not every piece is known.
    lexicon = list(words)
    for _ in range(600):
        a, b = rng.choice(words), rng.choice(words)
        lexicon.append(a[: max(1, len(a) // 2)] + b[len(b) // 2 :])
    rng.shuffle(lexicon)
    text = made_up(lexicon, " ", ["। ", "? ", ", ", " ₹1,20,000 ", " 2026 "], (4, 12))
    return text


def emoji():
    emoji = [e for name in ("emoji simple", "emoji zwj family and skin tones", "emoji flags")
             for e in oracle(name).split() if not e.isascii()]
    emoji += [chr(c) for c in range(0x1F600, 0x1F650)] + [chr(c) for c in range(0x1F300, 0x1F340)]
    prose = (ROOT / "README.md").read_text().split()
    words = [w for w in prose if w.isalpha()][:3000]
    pick = zipf_pick(sorted(set(words), key=words.index))
    out = []
    size = 0
    while size < SIZE + 1000:
        part = rng.choice([pick(), pick(), " ".join(rng.choice(emoji) for _ in range(rng.randint(1, 3))),
                           "".join(rng.choice(emoji) for _ in range(rng.randint(1, 4)))])
        out.append(part)
        size += len(part.encode()) + 1
    return " ".join(out)


def main():
    english = (ROOT / "README.md").read_text() + "\n" + (ROOT / "ARCHITECTURE.md").read_text()
    code = "\n".join(p.read_text() for p in sorted((ROOT / "src/engine").rglob("*.rs")))
    corpora = [
        {"name": "english prose", "text": cut(english)},
        {"name": "code", "text": cut(code)},
        {"name": "cjk", "text": cut(cjk())},
        {"name": "hindi", "text": cut(hindi())},
        {"name": "emoji", "text": cut(emoji())},
    ]
    out = ROOT / "benches/corpora/corpora.json"
    out.write_text(json.dumps(corpora, ensure_ascii=False, indent=0) + "\n")
    for c in corpora:
        print(f"{c['name']}: {len(c['text'].encode())} bytes, {len(c['text'])} characters")


main()
