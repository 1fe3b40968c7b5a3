//! Page object: tuner.
