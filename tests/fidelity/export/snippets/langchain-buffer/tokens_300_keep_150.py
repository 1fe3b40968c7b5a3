"""Summary memory with LangChain classic's ConversationSummaryBufferMemory, exported from
Summary Memory.

After each exchange the buffer drops its oldest messages into a running summary while the kept
messages are over MAX_TOKEN_LIMIT tokens; the summary comes back as a system message before them.
Run it with `pip install "langchain-classic==1.0.8" langchain-openai` and OPENAI_API_KEY set
(the key is read from the environment and never written here).
"""

import warnings

from langchain_classic.memory import ConversationSummaryBufferMemory
from langchain_core.prompts import PromptTemplate

# The class is deprecated in favour of the v1 middleware; it still runs as documented.
warnings.filterwarnings("ignore", message=".*ConversationSummaryBufferMemory.*")

BASE_URL = "https://api.openai.com/v1"
CHAT_MODEL = "gpt-4o-mini"
SUMMARY_MODEL = "gpt-4o-mini"
# Measured by the library's default counter, left in place: SUMMARY_MODEL's own
# get_num_tokens_from_messages (ChatOpenAI: tiktoken's encoding for the model, with the chat
# format's overhead). Subclass the model and override that method to count otherwise.
MAX_TOKEN_LIMIT = 300

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


def summary_template():
    """The buffer's summary prompt: it fills {summary} and {new_lines}, so every other brace is
    doubled."""
    text = summary_instructions().replace("{", "{{").replace("}", "}}")
    return PromptTemplate.from_template(text + "\n\nThe summary so far:\n{summary}\n\nNew lines of conversation:\n{new_lines}\n\nNew summary:")


def openai_model(name):
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model=name, base_url=BASE_URL)


def make_memory(summariser=None):
    """The memory. It counts with the summariser model's get_num_tokens_from_messages (for
    OpenAI models, tiktoken's encoding of that model); a model class may override it."""
    return ConversationSummaryBufferMemory(
        llm=summariser if summariser is not None else openai_model(SUMMARY_MODEL),
        max_token_limit=MAX_TOKEN_LIMIT,
        prompt=summary_template(),
        return_messages=True,
    )


if __name__ == "__main__":
    from langchain_core.messages import HumanMessage, SystemMessage

    chat = openai_model(CHAT_MODEL)
    memory = make_memory()
    while (line := input("you> ").strip()):
        history = memory.load_memory_variables({})["history"]
        reply = chat.invoke([SystemMessage(content="You are a helpful assistant."), *history, HumanMessage(content=line)])
        print("assistant>", reply.content)
        memory.save_context({"input": line}, {"output": reply.content})
