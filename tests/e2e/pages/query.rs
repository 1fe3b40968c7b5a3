//! Generic page readers (texts, attributes) shared by the page objects.
