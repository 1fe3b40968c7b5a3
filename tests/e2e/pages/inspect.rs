//! Page object: inspect.
