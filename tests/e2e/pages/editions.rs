//! Page object: editions.
