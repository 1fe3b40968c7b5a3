# When to summarise: once the verbatim part holds __SM_MAX_TURNS__ complete turns, all of them but
# the newest __SM_KEEP__ are folded into the summary.
MAX_TURNS = __SM_MAX_TURNS__
KEEP_TURNS = __SM_KEEP__


def turns_to_fold(turn_tokens, verbatim_messages, messages_before, messages_now, fixed_tokens):
    """How many of the oldest verbatim turns to fold after a reply (0: none)."""
    return turns_to_fold_on_request(turn_tokens) if len(turn_tokens) >= MAX_TURNS else 0


def turns_to_fold_on_request(turn_tokens):
    """How many turns a cycle you ask for folds: all but the newest KEEP_TURNS."""
    return max(0, len(turn_tokens) - KEEP_TURNS)
