# When to summarise: once the whole request (system prompt, summary and verbatim turns) passes
# __SM_FIRE_PCT__% of a __SM_CONTEXT__-token window. The oldest whole turns are then folded until the
# verbatim turns fit in __SM_KEEP_PCT__% of it, or, when KEEP_TURNS is not 0, until the newest
# KEEP_TURNS turns are left. The newest turn always stays.
CONTEXT = __SM_CONTEXT__
THRESHOLD = CONTEXT * __SM_FIRE_PCT__ // 100
KEEP_TOKENS = CONTEXT * __SM_KEEP_PCT__ // 100
KEEP_TURNS = __SM_KEEP_TURNS__


def turns_to_fold(turn_tokens, verbatim_messages, messages_before, messages_now, fixed_tokens):
    """How many of the oldest verbatim turns to fold after a reply (0: none)."""
    over = fixed_tokens + sum(turn_tokens) > THRESHOLD
    return turns_to_fold_on_request(turn_tokens) if over else 0


def turns_to_fold_on_request(turn_tokens):
    """Keeps KEEP_TURNS turns, or folds the oldest until the rest fits KEEP_TOKENS."""
    if KEEP_TURNS:
        return max(0, len(turn_tokens) - KEEP_TURNS)
    left, folded = sum(turn_tokens), 0
    while left > KEEP_TOKENS and folded + 1 < len(turn_tokens):
        left -= turn_tokens[folded]
        folded += 1
    return folded
