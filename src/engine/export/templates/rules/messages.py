# When to summarise: once the verbatim turns hold more than __SM_MAX_MESSAGES__ messages; every
# verbatim turn but the newest is folded.
MAX_MESSAGES = __SM_MAX_MESSAGES__


def turns_to_fold(turn_tokens, verbatim_messages, messages_before, messages_now, fixed_tokens):
    """How many of the oldest verbatim turns to fold after a reply (0: none)."""
    return turns_to_fold_on_request(turn_tokens) if verbatim_messages > MAX_MESSAGES else 0


def turns_to_fold_on_request(turn_tokens):
    """Every turn but the newest."""
    return max(0, len(turn_tokens) - 1)
