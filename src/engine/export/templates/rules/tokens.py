# When to summarise: once the verbatim turns hold more than __SM_BUDGET__ tokens, the oldest whole
# turns are folded until the rest fits in __SM_KEEP_TOKENS__. The newest turn always stays, even
# when it alone is larger than the budget. The system prompt and the summary come on top.
BUDGET = __SM_BUDGET__
KEEP_TOKENS = __SM_KEEP_TOKENS__


def turns_to_fold(turn_tokens, verbatim_messages, messages_before, messages_now, fixed_tokens):
    """How many of the oldest verbatim turns to fold after a reply (0: none)."""
    return turns_to_fold_on_request(turn_tokens) if sum(turn_tokens) > BUDGET else 0


def turns_to_fold_on_request(turn_tokens):
    """Folds the oldest turns until the rest fits KEEP_TOKENS, never the newest one."""
    left, folded = sum(turn_tokens), 0
    while left > KEEP_TOKENS and folded + 1 < len(turn_tokens):
        left -= turn_tokens[folded]
        folded += 1
    return folded
