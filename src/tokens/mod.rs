//! Token counting over tiktoken-rs, with a per-message cache.
