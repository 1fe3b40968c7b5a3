//! The wall clock, read in the shell only: the core and the app layer take timestamps as
//! arguments (ARCHITECTURE.md, invariant 2).

/// Milliseconds since the Unix epoch, from `Date.now()`.
pub fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// The local time's offset, in minutes east of UTC, from `Date.getTimezoneOffset` (which counts
/// minutes west).
pub fn east_minutes() -> i32 {
    -(js_sys::Date::new_0().get_timezone_offset() as i32)
}
