"""A generated corpus of the formats the CLI streams, for the tests and py/bench.py (no
pytest here, so that the bench runs without it)."""

import json
import pathlib
import random


def write_corpus(folder: pathlib.Path, conversations: int, seed: int = 38) -> pathlib.Path:
    """A corpus of several formats under `folder`: JSON Lines of OpenAI request bodies (one with
    a blank line between records), a ChatGPT export array, and one conversation alone, each with
    figures and rules for the checks to find, sized at random from `seed`."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)

    def turns(i):
        out = []
        for t in range(rng.randint(1, 24)):
            out.append(
                (
                    f"Turn {t}: I never want crypto. I spent {900 + t * 13 + i} on rent and "
                    f"{200 + t} on food; move {50 + i % 9} to savings?",
                    f"Keep rent at {900 + t * 13 + i} and move {50 + i % 9} into savings. "
                    f"You must keep the emergency fund at {3000 + i}. " + "Noted. " * rng.randint(0, 40),
                )
            )
        return out

    lines = []
    for i in range(conversations):
        messages = [{"role": "system", "content": "You are a careful budgeting coach."}]
        for user, assistant in turns(i):
            messages += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
        lines.append(json.dumps({"messages": messages}))
        if i % 10 == 3:
            lines.append("")
    (folder / "requests.jsonl").write_text("\n".join(lines) + "\n")

    export = []
    for i in range(max(2, conversations // 4)):
        mapping, parent = {}, None
        for t, (user, assistant) in enumerate(turns(i)):
            for role, text in (("user", user), ("assistant", assistant)):
                node = f"n{t}{role}"
                mapping[node] = {
                    "id": node,
                    "parent": parent,
                    "children": [],
                    "message": {"author": {"role": role}, "content": {"content_type": "text", "parts": [text]}},
                }
                if parent:
                    mapping[parent]["children"].append(node)
                parent = node
        title = f"Budget {i}" if i % 3 else None
        export.append({"title": title, "mapping": mapping, "current_node": parent})
    sub = folder / "chatgpt"
    sub.mkdir(exist_ok=True)
    (sub / "conversations.json").write_text(json.dumps(export))

    alone = [{"role": "user", "content": "Plan my week: gym 3 times, budget 400."}]
    alone.append({"role": "assistant", "content": "Gym Monday, Wednesday, Friday; keep spending under 400."})
    (folder / "alone.json").write_text(json.dumps({"messages": alone}))
    return folder
