"""Summary memory with LlamaIndex's ChatSummaryMemoryBuffer, exported from Summary Memory.

Each time the history is read (once a turn, as an agent reads its memory), the buffer keeps the
newest messages that fit in TOKEN_LIMIT tokens and summarises the rest into one system message.
Run it with `pip install "llama-index-core==0.14.25" llama-index-llms-openai-like` and
OPENAI_API_KEY set (the key is read from the environment and never written here).
"""

import os

from llama_index.core.memory import ChatSummaryMemoryBuffer

BASE_URL = "https://api.openai.com/v1"
CHAT_MODEL = "gpt-4o-mini"
SUMMARY_MODEL = "gpt-4o-mini"
TOKEN_LIMIT = 250
# The tiktoken vocabulary the buffer counts a message's content in, as your policy is measured:
# None is LlamaIndex's own default, cl100k_base (the one modelled); "o200k_base" passes that
# vocabulary as tokenizer_fn, as if you passed a tiktoken counter.
TOKENIZER = "o200k_base"

# What the summariser is told: your prompt, word limit, must-keep list and pinned facts.
SUMMARY_PROMPT = "Summarise the conversation so far {briefly}, keeping \"every figure\"."
WORD_LIMIT = 150
MUST_KEEP = []
PINNED = []


def summary_instructions():
    """The summariser's instructions (the buffer's summarize_prompt), joined from the parts
    above; the buffer sends it as the system message before the messages to summarise."""
    parts = [SUMMARY_PROMPT]
    if WORD_LIMIT:
        parts.append(f"Keep the summary under {WORD_LIMIT} words.")
    if MUST_KEEP:
        parts.append("Always keep: " + "; ".join(MUST_KEEP) + ".")
    if PINNED:
        parts.append("These facts must survive word for word: " + "; ".join(PINNED) + ".")
    return "\n\n".join(parts)


def openai_model(name):
    from llama_index.llms.openai_like import OpenAILike

    return OpenAILike(model=name, api_base=BASE_URL, api_key=os.environ.get("OPENAI_API_KEY"), is_chat_model=True)


def make_memory(summariser=None, tokenizer_fn=None):
    """The memory, counting a message's content only, with TOKENIZER's vocabulary (LlamaIndex's
    default tokenizer, tiktoken's cl100k_base, when None); pass tokenizer_fn to count otherwise."""
    if tokenizer_fn is None and TOKENIZER is not None:
        import tiktoken

        tokenizer_fn = tiktoken.get_encoding(TOKENIZER).encode
    options = {"tokenizer_fn": tokenizer_fn} if tokenizer_fn is not None else {}
    return ChatSummaryMemoryBuffer.from_defaults(
        llm=summariser if summariser is not None else openai_model(SUMMARY_MODEL),
        token_limit=TOKEN_LIMIT,
        summarize_prompt=summary_instructions(),
        count_initial_tokens=False,
        **options,
    )


if __name__ == "__main__":
    from llama_index.core.base.llms.types import ChatMessage, MessageRole

    chat = openai_model(CHAT_MODEL)
    memory = make_memory()
    system = ChatMessage(role=MessageRole.SYSTEM, content="You are a helpful assistant.")
    while (line := input("you> ").strip()):
        memory.put(ChatMessage(role=MessageRole.USER, content=line))
        reply = chat.chat([system, *memory.get()]).message
        print("assistant>", reply.content)
        memory.put(reply)
