# When to summarise: only when you ask (summarise_now); the cycle keeps the newest __SM_KEEP__ turns.
KEEP_TURNS = __SM_KEEP__


def turns_to_fold(turn_tokens, verbatim_messages, messages_before, messages_now, fixed_tokens):
    """A manual policy never folds by itself."""
    return 0


def turns_to_fold_on_request(turn_tokens):
    """All turns but the newest KEEP_TURNS."""
    return max(0, len(turn_tokens) - KEEP_TURNS)
