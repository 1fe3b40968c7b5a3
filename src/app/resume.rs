//! Where a visit starts: a link's own query string, or else the view the user last had.
//!
//! The shell mirrors the route's query string into storage whenever it changes; at start it
//! hands this module what the address bar holds and what storage held, and parses the answer.
//! A link that says anything wins over what was stored, so a shared link always opens what it
//! names. A stored view that no longer parses cleanly (a step the lesson no longer has, a demo
//! that was removed) is dropped whole, never shown as an error the user did not cause: the
//! visit then starts as a first one does.

use crate::route::Route;

/// The query string the app starts from (with or without its leading `?`, as given).
pub fn start_query(current: &str, stored: Option<&str>) -> String {
    let own = current.strip_prefix('?').unwrap_or(current);
    if !own.is_empty() {
        return current.to_owned();
    }
    match stored.map(Route::parse) {
        Some(route) if route.errors.is_empty() => route.to_query(),
        _ => current.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::{DemoKind, Tab, TriggerKind};

    #[test]
    fn a_bare_url_reopens_the_stored_view() {
        let query = start_query("", Some("tab=tuner&trigger=tokens&budget=3000"));
        let route = Route::parse(&query);
        assert_eq!(route.tab, Tab::Tuner);
        assert_eq!(route.trigger, Some(TriggerKind::Tokens));
        assert_eq!(route.budget, Some(3000));
        assert!(route.errors.is_empty());
        // A lone `?` says nothing either.
        assert_eq!(
            start_query("?", Some("tab=editions&demo=drift&lesson=6")),
            "tab=editions&demo=drift&lesson=6"
        );
    }

    #[test]
    fn a_link_with_its_own_query_wins() {
        assert_eq!(
            start_query("?tab=tokens", Some("tab=tuner&budget=3000")),
            "?tab=tokens"
        );
        // Even a link whose values are wrong: its errors are the link's to report.
        let query = start_query("?tab=nope", Some("tab=tuner"));
        assert_eq!(Route::parse(&query).errors[0].param, "tab");
    }

    #[test]
    fn nothing_stored_is_a_first_visit() {
        assert_eq!(start_query("", None), "");
        assert_eq!(Route::parse(&start_query("", Some(""))), Route::default());
    }

    #[test]
    fn a_stored_view_that_no_longer_parses_is_ignored() {
        for stored in [
            "lesson=12",
            "tab=tuner&demo=gone",
            "tab=%ZZ&budget=-1",
            "budget=99999999999999999999",
            "\u{0}\u{fffd}&&==&tab",
        ] {
            let route = Route::parse(&start_query("", Some(stored)));
            assert_eq!(route, Route::default(), "{stored:?}");
        }
        // Unknown parameters were never errors, so the rest of the view still opens.
        let route = Route::parse(&start_query("", Some("tab=tokens&old=1")));
        assert_eq!(route.tab, Tab::Tokens);
        let route = Route::parse(&start_query("", Some("demo=fincoach")));
        assert_eq!(route.demo, Some(DemoKind::FinCoach));
    }
}
