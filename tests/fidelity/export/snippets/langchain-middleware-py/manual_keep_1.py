"""Summary memory for a LangChain v1 agent, exported from Summary Memory.

LangChain's SummarizationMiddleware runs before each model call: once the stored messages reach
TRIGGER it replaces the older ones with one summary message and keeps KEEP of the newest.
Run it with `pip install "langchain==1.5.2" langchain-openai tiktoken` and OPENAI_API_KEY set (the key is
read from the environment and never written here): `python summary_memory_langchain.py`.
"""

from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.messages.utils import count_tokens_approximately

BASE_URL = "https://api.openai.com/v1"
CHAT_MODEL = "gpt-4o-mini"
SUMMARY_MODEL = "gpt-4o-mini"
# The window a fraction is taken of: the middleware reads it from the model's profile.
MAX_INPUT_TOKENS = 128000
# When to summarise and what stays verbatim, in the middleware's own terms. Two things the app's
# dry run leaves out: a token trigger also fires when the last reply's reported usage
# (usage_metadata.total_tokens, which counts the system prompt and the reply) reaches it, and a
# cut by tokens keeps the newest message even when it alone is larger.
TRIGGER = None
KEEP = ("messages", 2)
# The counter TRIGGER and KEEP are measured with, as your policy is: None is the library's own
# default, count_tokens_approximately (the one modelled); ("o200k_base", False) is exact tiktoken
# counts of each message's text and tool calls, as if you passed a tiktoken counter (True adds
# the chat format's 3 tokens and role a message, and 3 a request).
COUNTER = ("o200k_base", False)

# What the summariser is told: your prompt, word limit, must-keep list and pinned facts.
SUMMARY_PROMPT = "Summarise the conversation so far {briefly}, keeping \"every figure\"."
WORD_LIMIT = 150
MUST_KEEP = []
PINNED = []


def summary_instructions():
    """The summariser's instructions, joined from the parts above."""
    parts = [SUMMARY_PROMPT]
    if WORD_LIMIT:
        parts.append(f"Keep the summary under {WORD_LIMIT} words.")
    if MUST_KEEP:
        parts.append("Always keep: " + "; ".join(MUST_KEEP) + ".")
    if PINNED:
        parts.append("These facts must survive word for word: " + "; ".join(PINNED) + ".")
    return "\n\n".join(parts)


def summary_prompt():
    """The middleware's summary_prompt: it fills {messages} with str.format, so every other
    brace is doubled."""
    text = summary_instructions().replace("{", "{{").replace("}", "}}")
    return text + "\n\nThe messages to summarise:\n{messages}"


def openai_model(name):
    """An OpenAI-compatible chat model at BASE_URL, with the window in its profile."""
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model=name, base_url=BASE_URL, profile={"max_input_tokens": MAX_INPUT_TOKENS})


def tiktoken_counter(encoding_name, chat):
    """A token_counter of exact tiktoken counts: each message's text, and each tool call's name
    and arguments (as JSON); with chat, 3 tokens and the role's a message and 3 a request."""
    import json

    import tiktoken

    encoding = tiktoken.get_encoding(encoding_name)
    roles = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}

    def tokens(text):
        return len(encoding.encode(text))

    def count(messages):
        total = 3 if chat else 0
        for message in messages:
            text = message.content if isinstance(message.content, str) else message.text
            total += tokens(text)
            for call in getattr(message, "tool_calls", None) or []:
                total += tokens(call["name"]) + tokens(json.dumps(call["args"]))
            if chat:
                total += 3 + tokens(roles.get(message.type, message.type))
        return total

    return count


def default_counter():
    """The counter COUNTER names."""
    return count_tokens_approximately if COUNTER is None else tiktoken_counter(*COUNTER)


def make_middleware(summariser=None, token_counter=None):
    """The middleware, counting with COUNTER's counter; pass any function of a message list to
    count otherwise."""
    return SummarizationMiddleware(
        model=summariser if summariser is not None else openai_model(SUMMARY_MODEL),
        trigger=TRIGGER,
        keep=KEEP,
        summary_prompt=summary_prompt(),
        token_counter=token_counter or default_counter(),
    )


def make_agent(model=None, summariser=None, token_counter=None, tools=(), system_prompt=None, checkpointer=None):
    """An agent with the middleware. The checkpointer keeps each thread's messages, which is
    where the summary lives."""
    from langgraph.checkpoint.memory import InMemorySaver

    return create_agent(
        model=model if model is not None else openai_model(CHAT_MODEL),
        tools=list(tools),
        system_prompt=system_prompt,
        middleware=[make_middleware(summariser, token_counter)],
        checkpointer=checkpointer or InMemorySaver(),
    )


if __name__ == "__main__":
    agent = make_agent(system_prompt="You are a helpful assistant.")
    config = {"configurable": {"thread_id": "summary-memory"}}
    while (line := input("you> ").strip()):
        reply = agent.invoke({"messages": [{"role": "user", "content": line}]}, config)
        print("assistant>", reply["messages"][-1].content)
