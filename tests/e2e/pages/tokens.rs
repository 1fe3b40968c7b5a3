//! Page object: tokens.
