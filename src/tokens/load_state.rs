//! [`LoadState`]: where one vocabulary is in its loading, as the shell's token service
//! (`ui/run/token_service.rs`) keeps it and the Tokens tab's view (`view::tokens`) words it.

/// Where one vocabulary is in its loading.
#[derive(Clone, Debug, PartialEq)]
pub enum LoadState {
    /// Nobody asked for it yet.
    Idle,
    /// Scheduled to be fetched once the page has painted, or being fetched.
    Scheduled,
    /// Fetched and parsed: the file's size, the milliseconds of fetching, of parsing
    /// (main-thread time, in slices) and from the fetch's end until counts were exact.
    Loaded {
        bytes: usize,
        fetch_ms: f64,
        parse_ms: f64,
        ready_ms: f64,
    },
    /// Fetching or parsing failed; the text says what to do. Counts are estimates meanwhile.
    Failed(String),
}
