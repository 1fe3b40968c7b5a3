//! Page object: settings.
