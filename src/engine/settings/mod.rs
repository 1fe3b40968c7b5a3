//! The connection and generation settings, as the form holds them, and their validation.
//!
//! Architecture invariant: [`Settings`] is plain data (no signals, no storage). The shell keeps
//! one in a signal, mirrors it to storage through [`SettingsRecord`] (which never holds the API
//! key), and asks [`Settings::validate`] or [`Settings::endpoint`] for the checked values before
//! a request. Numbers are kept as the text the user typed, so a half-typed value is never lost
//! and the error can quote it.
//!
//! The key belongs to the origin it was typed for ([`Settings::key_origin`]): changing the base
//! URL to another origin, by typing or by a preset, empties the key field
//! ([`Settings::set_base_url`]), and [`Settings::endpoint`] never hands a key to an origin other
//! than its own, so no request can carry it elsewhere.
//!
//! A stored record that does not parse still gives back the key and every field that can be
//! read ([`SettingsRecord::read`]). The summariser's own generation settings (`summary_*`) are
//! empty for "the chat's value", are kept in the record (an older record reads them as empty),
//! and go into every summary request.
//!
//! One concept a file: `form.rs` (the form and its validation), `record.rs` (the stored record)
//! and `request.rs` (the checked endpoint and the requests built from it).

mod form;
mod record;
mod request;

pub use form::{
    DEFAULT_TIMEOUT_SECS, KeyWithdrawn, MAX_TIMEOUT_SECS, MAX_TOKENS_LIMIT, ModelUse,
    REASONING_EFFORTS, SUMMARY_EFFORT_OFF, Settings, SettingsError,
};
pub use record::{ReadSettings, SettingsRecord};
pub use request::{Endpoint, Generation, ValidSettings};

#[cfg(test)]
mod tests;
