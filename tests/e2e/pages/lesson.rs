//! Page object: lesson.
