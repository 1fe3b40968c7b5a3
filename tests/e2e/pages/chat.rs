//! Page object: chat.
