# When to summarise: each time the conversation (folded messages included) passes a multiple of
# __SM_EVERY__ messages during the turn just completed; every verbatim turn but the newest is folded.
EVERY = __SM_EVERY__


def turns_to_fold(turn_tokens, verbatim_messages, messages_before, messages_now, fixed_tokens):
    """How many of the oldest verbatim turns to fold after a reply (0: none)."""
    fires = messages_now // EVERY > messages_before // EVERY
    return turns_to_fold_on_request(turn_tokens) if fires else 0


def turns_to_fold_on_request(turn_tokens):
    """Every turn but the newest."""
    return max(0, len(turn_tokens) - 1)
