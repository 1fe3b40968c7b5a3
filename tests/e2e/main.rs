//! End-to-end tests: the release dist in headless Chromium, driven over WebDriver.
