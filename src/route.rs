//! The view state carried in the query string (see `shared/e2e-hooks.md`): the tab (`?tab=`),
//! the session open in Inspect and its view (`?session=`, `?view=`), the Tuner's trigger parameters, the demo (`?demo=`) and the lesson step (`?lesson=`), parsed,
//! edited and printed back, with the presets the Tuner compares (`?compare=`). The trigger kinds a link can name are
//! [`TriggerKind::LINKED`](crate::engine::policy::TriggerKind::LINKED).
//!
//! Parsing is pure so it can be tested natively. Unknown parameters are ignored; a known
//! parameter with a bad value is reported in [`Route::errors`] and left at its default, so a
//! mistyped link still opens the app.

use std::fmt;

use crate::engine::peers::preset;

/// The tabs of the app, in the order the header shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Tab {
    #[default]
    Chat,
    Editions,
    Tuner,
    Tokens,
    Inspect,
    Settings,
}

impl Tab {
    pub const ALL: [Tab; 6] = [
        Tab::Chat,
        Tab::Editions,
        Tab::Tuner,
        Tab::Tokens,
        Tab::Inspect,
        Tab::Settings,
    ];

    /// The tab a key pressed on the tab bar moves to, as the ARIA tabs pattern has it: the
    /// arrow keys step to the next or previous tab (wrapping), Home and End go to the first and
    /// the last; any other key moves nowhere.
    pub fn after_key(self, key: &str) -> Option<Tab> {
        let at = Tab::ALL.iter().position(|t| *t == self)?;
        let last = Tab::ALL.len() - 1;
        let to = match key {
            "ArrowRight" => (at + 1) % Tab::ALL.len(),
            "ArrowLeft" => at.checked_sub(1).unwrap_or(last),
            "Home" => 0,
            "End" => last,
            _ => return None,
        };
        Some(Tab::ALL[to])
    }

    /// The value used in `?tab=`.
    pub fn slug(self) -> &'static str {
        match self {
            Tab::Chat => "chat",
            Tab::Editions => "editions",
            Tab::Tuner => "tuner",
            Tab::Tokens => "tokens",
            Tab::Inspect => "inspect",
            Tab::Settings => "settings",
        }
    }

    /// The label shown on the tab button.
    pub fn label(self) -> &'static str {
        match self {
            Tab::Chat => "Chat",
            Tab::Editions => "Editions",
            Tab::Tuner => "Tuner",
            Tab::Tokens => "Tokens",
            Tab::Inspect => "Inspect",
            Tab::Settings => "Settings",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Tab> {
        Tab::ALL.into_iter().find(|t| t.slug() == slug)
    }
}

/// The trigger kinds, one type for the link, the policy panel, the Tuner and the replay; a link
/// names one of [`TriggerKind::LINKED`].
pub use crate::engine::policy::TriggerKind;

/// The bundled demos a link can load at start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DemoKind {
    FinCoach,
    Drift,
    /// The drift conversation as a real 135M model answered and summarised it (recorded).
    Real135m,
    /// The FinCoach six turns as the same model answered and summarised them (recorded).
    Real135mFinCoach,
}

impl DemoKind {
    /// Every bundled demo, in the order the picker lists them.
    pub const ALL: [DemoKind; 4] = [
        DemoKind::FinCoach,
        DemoKind::Drift,
        DemoKind::Real135m,
        DemoKind::Real135mFinCoach,
    ];

    pub fn slug(self) -> &'static str {
        match self {
            DemoKind::FinCoach => "fincoach",
            DemoKind::Drift => "drift",
            DemoKind::Real135m => "real135m",
            DemoKind::Real135mFinCoach => "real135m_fincoach",
        }
    }

    pub fn from_slug(slug: &str) -> Option<DemoKind> {
        DemoKind::ALL.into_iter().find(|d| d.slug() == slug)
    }

    /// Played from the recorded real-model run rather than written for the app.
    pub fn is_recorded(self) -> bool {
        matches!(self, DemoKind::Real135m | DemoKind::Real135mFinCoach)
    }
}

/// The views of one session in Inspect (`?view=`), in the order its view bar shows them. Each
/// is one task: read the conversation, read and check its summaries, probe them, replay the
/// conversation under another policy, compare two summarisers, export.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SessionView {
    #[default]
    Archive,
    Editions,
    Probes,
    Replay,
    Ab,
    Export,
}

impl SessionView {
    pub const ALL: [SessionView; 6] = [
        SessionView::Archive,
        SessionView::Editions,
        SessionView::Probes,
        SessionView::Replay,
        SessionView::Ab,
        SessionView::Export,
    ];

    /// The value used in `?view=`, and the view's hooks (`session-view-{slug}`).
    pub fn slug(self) -> &'static str {
        match self {
            SessionView::Archive => "archive",
            SessionView::Editions => "editions",
            SessionView::Probes => "probes",
            SessionView::Replay => "replay",
            SessionView::Ab => "ab",
            SessionView::Export => "export",
        }
    }

    /// The label on the view's button.
    pub fn label(self) -> &'static str {
        match self {
            SessionView::Archive => "Archive",
            SessionView::Editions => "Editions and checks",
            SessionView::Probes => "Probes",
            SessionView::Replay => "Replay",
            SessionView::Ab => "Two summarisers",
            SessionView::Export => "Export",
        }
    }

    pub fn from_slug(slug: &str) -> Option<SessionView> {
        SessionView::ALL.into_iter().find(|v| v.slug() == slug)
    }
}

/// The longest session id a link may carry; the app's own ids are about 20 characters.
pub const MAX_SESSION_ID: usize = 128;

/// Whether `id` can be a session id in a link: 1 to [`MAX_SESSION_ID`] characters of letters,
/// digits, `-`, `_`, `.` and `:`.
fn is_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_SESSION_ID
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}

/// Where a route stands, as Back and Forward see it: the tab, and in Inspect the session and
/// its view. A change of place is a new history entry; any other change of the route (a
/// parameter typed) replaces the entry it is in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub tab: Tab,
    pub session: Option<String>,
    pub view: SessionView,
}

/// How the address bar follows a change of the route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Navigation {
    /// Nothing the link says changed.
    None,
    /// The same place with other parameters: the history entry is rewritten.
    Replace,
    /// Another place: a new history entry, so Back returns to the one before.
    Push,
}

/// How the address bar moves from the query `from` (as last written) to `to`.
pub fn navigation(from: &str, to: &Route) -> Navigation {
    let from_query = from.strip_prefix('?').unwrap_or(from);
    if from_query == to.to_query() {
        Navigation::None
    } else if Route::parse(from_query).place() == to.place() {
        Navigation::Replace
    } else {
        Navigation::Push
    }
}

/// Everything the query string can say. Numeric parameters stay `None` when absent, so the
/// page can fall back to the session's own policy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Route {
    pub tab: Tab,
    /// The session open in Inspect, by its library id (`?session=`).
    pub session: Option<String>,
    /// The open session's view (`?view=`); `None` is its first view, the archive.
    pub view: Option<SessionView>,
    pub trigger: Option<TriggerKind>,
    pub max_turns: Option<u32>,
    pub keep: Option<u32>,
    pub budget: Option<u32>,
    pub keep_tokens: Option<u32>,
    pub every: Option<u32>,
    pub context: Option<u32>,
    pub fire_pct: Option<u32>,
    pub keep_pct: Option<u32>,
    pub keep_turns: Option<u32>,
    pub turns: Option<u32>,
    pub demo: Option<DemoKind>,
    /// The step of the guided lesson on screen, counted from 1 (`?lesson=`); `None` outside it.
    pub lesson: Option<u32>,
    /// The other systems' presets the Tuner compares, by slug, in the order they were ticked
    /// (`?compare=gemini-cli,codex-cli`), so a reload or a shared link compares the same ones.
    pub compare: Vec<&'static str>,
    /// One entry per known parameter whose value could not be used.
    pub errors: Vec<ParamError>,
}

/// A known query parameter with a value the app cannot use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub param: String,
    pub value: String,
    pub expected: &'static str,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "?{}={} is not valid: expected {}.",
            self.param, self.value, self.expected
        )
    }
}

/// The largest number a numeric parameter accepts; beyond it a link is almost certainly a typo,
/// and the tuner would simulate for a needlessly long time.
pub const MAX_PARAM: u32 = 100_000;

/// The largest context window a link accepts (two million tokens: the largest windows offered
/// today are about one million).
pub const MAX_CONTEXT: u32 = 2_000_000;

/// How many steps the guided lesson has (`app::lesson::STEPS`, which a test holds to this), so
/// a link to a step beyond them is named as invalid like any other bad value.
pub const LESSON_STEPS: u32 = 9;

/// The parameters that hold whole numbers.
pub const NUMERIC_PARAMS: [&str; 10] = [
    "max_turns",
    "keep",
    "budget",
    "keep_tokens",
    "every",
    "context",
    "fire_pct",
    "keep_pct",
    "keep_turns",
    "turns",
];

/// The largest value numeric parameter `param` accepts, and how an error says so.
fn range_of(param: &str) -> (u32, &'static str) {
    match param {
        "context" => (MAX_CONTEXT, "a whole number from 0 to 2000000"),
        "fire_pct" | "keep_pct" => (100, "a whole number from 0 to 100 (percent)"),
        _ => (MAX_PARAM, "a whole number from 0 to 100000"),
    }
}

impl Route {
    /// Parses a query string, with or without its leading `?`.
    pub fn parse(query: &str) -> Route {
        let query = query.strip_prefix('?').unwrap_or(query);
        let mut route = Route::default();
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            let value = value.trim();
            match key.as_ref() {
                "tab" => match Tab::from_slug(value) {
                    Some(tab) => route.tab = tab,
                    None => route.reject(
                        &key,
                        value,
                        "one of chat, editions, tuner, tokens, inspect, settings",
                    ),
                },
                "session" => {
                    if is_session_id(value) {
                        route.session = Some(value.to_owned());
                    } else {
                        route.reject(
                            &key,
                            value,
                            "a session id: letters, digits, - _ . or :, at most 128",
                        );
                    }
                }
                "view" => match SessionView::from_slug(value) {
                    Some(view) => route.view = Some(view),
                    None => route.reject(
                        &key,
                        value,
                        "one of archive, editions, probes, replay, ab, export",
                    ),
                },
                "trigger" => match TriggerKind::from_slug(value)
                    .filter(|k| TriggerKind::LINKED.contains(k))
                {
                    Some(kind) => route.trigger = Some(kind),
                    None => {
                        route.reject(&key, value, "one of turns, tokens, window, every, manual")
                    }
                },
                "demo" => match DemoKind::from_slug(value) {
                    Some(demo) => route.demo = Some(demo),
                    None => route.reject(
                        &key,
                        value,
                        "fincoach, drift, real135m or real135m_fincoach",
                    ),
                },
                "lesson" => match value
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (1..=LESSON_STEPS).contains(n))
                {
                    Some(step) => route.lesson = Some(step),
                    None => route.reject(&key, value, "a lesson step from 1 to 9"),
                },
                "compare" => {
                    for slug in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                        match preset(slug) {
                            Some(p) if !route.compare.contains(&p.slug) => route.compare.push(p.slug),
                            Some(_) => {}
                            None => route.reject(
                                &key,
                                slug,
                                "the Tuner's preset names, separated by commas (gemini-cli, codex-cli, …)",
                            ),
                        }
                    }
                }
                name if NUMERIC_PARAMS.contains(&name) => {
                    let (max, expected) = range_of(name);
                    let parsed = value.parse::<u32>().ok().filter(|n| *n <= max);
                    match parsed {
                        Some(n) => *route.number_mut(&key) = Some(n),
                        None => route.reject(&key, value, expected),
                    }
                }
                _ => {}
            }
        }
        route
    }

    /// The query string for this route, without the leading `?`. Defaults are left out so that
    /// links stay short.
    pub fn to_query(&self) -> String {
        let mut out = form_urlencoded::Serializer::new(String::new());
        if self.tab != Tab::Chat {
            out.append_pair("tab", self.tab.slug());
        }
        if let Some(session) = &self.session {
            out.append_pair("session", session);
        }
        // The first view is the one a session opens at, so a link leaves it out.
        if let Some(view) = self
            .view
            .filter(|v| self.session.is_some() && *v != SessionView::default())
        {
            out.append_pair("view", view.slug());
        }
        if let Some(trigger) = self.trigger {
            out.append_pair("trigger", trigger.slug());
        }
        for (name, value) in [
            ("max_turns", self.max_turns),
            ("keep", self.keep),
            ("budget", self.budget),
            ("keep_tokens", self.keep_tokens),
            ("every", self.every),
            ("context", self.context),
            ("fire_pct", self.fire_pct),
            ("keep_pct", self.keep_pct),
            ("keep_turns", self.keep_turns),
            ("turns", self.turns),
        ] {
            if let Some(n) = value {
                out.append_pair(name, &n.to_string());
            }
        }
        if let Some(demo) = self.demo {
            out.append_pair("demo", demo.slug());
        }
        if let Some(step) = self.lesson {
            out.append_pair("lesson", &step.to_string());
        }
        if !self.compare.is_empty() {
            out.append_pair("compare", &self.compare.join(","));
        }
        out.finish()
    }

    /// Where this route stands, for Back and Forward ([`navigation`]).
    pub fn place(&self) -> Place {
        Place {
            tab: self.tab,
            session: self.session.clone(),
            view: self.session_view(),
        }
    }

    /// The open session's view: the one the link names, else the first.
    pub fn session_view(&self) -> SessionView {
        self.view.unwrap_or_default()
    }

    /// Opens session `id` in Inspect at its first view (the Inspect tab is shown).
    pub fn open_session(&mut self, id: &str) {
        self.tab = Tab::Inspect;
        if self.session.as_deref() != Some(id) {
            self.session = Some(id.to_owned());
            self.view = None;
        }
    }

    /// Back to the library: no session open.
    pub fn close_session(&mut self) {
        self.session = None;
        self.view = None;
    }

    /// The open session shows `view`; its first view is left out of the link.
    pub fn show_view(&mut self, view: SessionView) {
        self.view = (view != SessionView::default()).then_some(view);
    }

    /// Sets a numeric parameter from what the user typed. A value that is not a whole number in
    /// range is recorded as an error for that parameter (and the old value kept), so the page can
    /// say what is wrong instead of silently ignoring the keystroke.
    pub fn set_number(&mut self, param: &str, raw: &str) {
        if !NUMERIC_PARAMS.contains(&param) {
            return;
        }
        self.errors.retain(|e| e.param != param);
        let raw = raw.trim();
        if raw.is_empty() {
            *self.number_mut(param) = None;
            return;
        }
        let (max, expected) = range_of(param);
        match raw.parse::<u32>().ok().filter(|n| *n <= max) {
            Some(n) => *self.number_mut(param) = Some(n),
            None => self.reject(param, raw, expected),
        }
    }

    /// Ticks or unticks the preset `slug` in the Tuner's comparison (a slug no preset has is
    /// left out).
    pub fn set_compared(&mut self, slug: &str, on: bool) {
        self.compare.retain(|s| *s != slug);
        if on && let Some(p) = preset(slug) {
            self.compare.push(p.slug);
        }
    }

    /// The value of numeric parameter `param`, if the link sets it.
    pub fn number(&self, param: &str) -> Option<u32> {
        match param {
            "max_turns" => self.max_turns,
            "keep" => self.keep,
            "budget" => self.budget,
            "keep_tokens" => self.keep_tokens,
            "every" => self.every,
            "context" => self.context,
            "fire_pct" => self.fire_pct,
            "keep_pct" => self.keep_pct,
            "keep_turns" => self.keep_turns,
            "turns" => self.turns,
            _ => None,
        }
    }

    fn reject(&mut self, param: &str, value: &str, expected: &'static str) {
        self.errors.push(ParamError {
            param: param.to_owned(),
            value: value.to_owned(),
            expected,
        });
    }

    fn number_mut(&mut self, key: &str) -> &mut Option<u32> {
        match key {
            "max_turns" => &mut self.max_turns,
            "keep" => &mut self.keep,
            "budget" => &mut self.budget,
            "keep_tokens" => &mut self.keep_tokens,
            "every" => &mut self.every,
            "context" => &mut self.context,
            "fire_pct" => &mut self.fire_pct,
            "keep_pct" => &mut self.keep_pct,
            "keep_turns" => &mut self.keep_turns,
            _ => &mut self.turns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(query: &str, expect: Route) {
        assert_eq!(Route::parse(query), expect, "parsing {query:?}");
    }

    #[test]
    fn empty_query_opens_chat() {
        check("", Route::default());
        check("?", Route::default());
    }

    #[test]
    fn every_tab_round_trips() {
        for tab in Tab::ALL {
            let route = Route {
                tab,
                ..Route::default()
            };
            assert_eq!(Route::parse(&route.to_query()), route);
        }
    }

    #[test]
    fn tuner_link_parses_all_parameters() {
        check(
            "?tab=tuner&trigger=turns&max_turns=4&keep=2&turns=10&demo=drift",
            Route {
                tab: Tab::Tuner,
                trigger: Some(TriggerKind::Turns),
                max_turns: Some(4),
                keep: Some(2),
                turns: Some(10),
                demo: Some(DemoKind::Drift),
                ..Route::default()
            },
        );
    }

    #[test]
    fn unknown_parameters_are_ignored() {
        check(
            "?utm_source=mail&tab=tokens",
            Route {
                tab: Tab::Tokens,
                ..Route::default()
            },
        );
    }

    #[test]
    fn bad_values_are_reported_and_fall_back() {
        let route = Route::parse("?tab=nope&max_turns=-3&keep=abc&every=999999999&trigger=x");
        assert_eq!(route.tab, Tab::Chat);
        assert_eq!(route.max_turns, None);
        let params: Vec<_> = route.errors.iter().map(|e| e.param.as_str()).collect();
        assert_eq!(params, ["tab", "max_turns", "keep", "every", "trigger"]);
        assert_eq!(
            route.errors[0].to_string(),
            "?tab=nope is not valid: expected one of chat, editions, tuner, tokens, inspect, settings."
        );
    }

    #[test]
    fn typed_numbers_set_or_report_and_recover() {
        let mut route = Route::parse("?max_turns=4");
        route.set_number("max_turns", "x");
        assert_eq!(route.max_turns, Some(4));
        assert_eq!(route.errors.len(), 1);
        route.set_number("max_turns", "6");
        assert_eq!(route.max_turns, Some(6));
        assert!(route.errors.is_empty());
        route.set_number("max_turns", "");
        assert_eq!(route.max_turns, None);
    }

    #[test]
    fn percent_encoding_is_decoded() {
        check(
            "?tab=%74uner",
            Route {
                tab: Tab::Tuner,
                ..Route::default()
            },
        );
    }

    #[test]
    fn query_round_trips_with_numbers() {
        let route = Route::parse("tab=tuner&trigger=tokens&budget=3000&keep_tokens=1200");
        assert_eq!(
            route.to_query(),
            "tab=tuner&trigger=tokens&budget=3000&keep_tokens=1200"
        );
    }

    #[test]
    fn a_lesson_step_round_trips_and_a_step_beyond_the_lesson_is_named() {
        let route = Route::parse("?tab=editions&demo=drift&lesson=6");
        assert_eq!(route.lesson, Some(6));
        assert_eq!(route.to_query(), "tab=editions&demo=drift&lesson=6");
        assert_eq!(Route::parse(&route.to_query()), route);
        for bad in ["0", "10", "two", "-1"] {
            let route = Route::parse(&format!("?lesson={bad}"));
            assert_eq!(route.lesson, None, "{bad}");
            assert_eq!(
                route.errors[0].to_string(),
                format!("?lesson={bad} is not valid: expected a lesson step from 1 to 9.")
            );
        }
    }

    #[test]
    fn a_link_names_only_the_kinds_the_tuner_offers() {
        for kind in TriggerKind::LINKED {
            let route = Route::parse(&format!("?trigger={}", kind.slug()));
            assert_eq!(route.trigger, Some(kind));
            assert_eq!(Route::parse(&route.to_query()), route);
        }
        let route = Route::parse("?trigger=window&context=128000&fire_pct=90&keep_pct=20");
        assert_eq!(route.context, Some(128_000));
        assert_eq!(
            route.to_query(),
            "trigger=window&context=128000&fire_pct=90&keep_pct=20"
        );
        // Percentages stop at 100; a window may be far larger than other numbers.
        let route = Route::parse("?fire_pct=101&context=1047576");
        assert_eq!(route.fire_pct, None);
        assert_eq!(route.context, Some(1_047_576));
        assert!(route.errors[0].to_string().contains("percent"));
        // A link has no max_messages parameter, so it cannot name a message-count trigger.
        let route = Route::parse("?trigger=messages");
        assert_eq!(route.trigger, None);
        assert_eq!(route.errors[0].param, "trigger");
    }

    #[test]
    fn the_compared_presets_round_trip_and_an_unknown_one_is_named() {
        let route = Route::parse("?tab=tuner&compare=gemini-cli,codex-cli");
        assert_eq!(route.compare, ["gemini-cli", "codex-cli"]);
        assert_eq!(Route::parse(&route.to_query()), route);
        assert!(route.to_query().contains("compare=gemini-cli%2Ccodex-cli"));
        let mut route = Route::parse("?compare=codex-cli,nope,codex-cli");
        assert_eq!(route.compare, ["codex-cli"]);
        assert_eq!(route.errors[0].param, "compare");
        assert!(
            route.errors[0]
                .to_string()
                .starts_with("?compare=nope is not valid")
        );
        route.set_compared("gemini-cli", true);
        route.set_compared("codex-cli", false);
        route.set_compared("nope", true);
        assert_eq!(route.compare, ["gemini-cli"]);
        assert_eq!(Route::parse("").compare, Vec::<&str>::new());
    }

    #[test]
    fn a_session_and_its_view_round_trip_and_bad_ones_are_named() {
        let route = Route::parse("?tab=inspect&session=18c2f-00a1b2c3&view=probes");
        assert_eq!(route.session.as_deref(), Some("18c2f-00a1b2c3"));
        assert_eq!(route.view, Some(SessionView::Probes));
        assert_eq!(
            route.to_query(),
            "tab=inspect&session=18c2f-00a1b2c3&view=probes"
        );
        for view in SessionView::ALL {
            let mut route = Route::parse("?tab=inspect&session=s1");
            route.show_view(view);
            assert_eq!(Route::parse(&route.to_query()), route, "{view:?}");
            assert_eq!(route.session_view(), view);
        }
        // The first view is left out of the link; a view with no session says nothing.
        let route = Route::parse("?tab=inspect&session=s1&view=archive");
        assert_eq!(route.to_query(), "tab=inspect&session=s1");
        assert_eq!(
            Route::parse("?tab=inspect&view=ab").to_query(),
            "tab=inspect"
        );

        let route = Route::parse("?session=a%20b&view=matrix");
        assert_eq!((route.session.clone(), route.view), (None, None));
        assert_eq!(
            route.errors[0].to_string(),
            "?session=a b is not valid: expected a session id: letters, digits, - _ . or :, at most 128."
        );
        assert_eq!(
            route.errors[1].to_string(),
            "?view=matrix is not valid: expected one of archive, editions, probes, replay, ab, export."
        );
        assert!(
            Route::parse(&format!("?session={}", "x".repeat(129)))
                .session
                .is_none()
        );
    }

    #[test]
    fn opening_a_session_shows_inspect_at_its_first_view_and_closing_returns_to_the_library() {
        let mut route = Route::parse("?tab=chat&trigger=turns&max_turns=4");
        route.open_session("s1");
        assert_eq!(
            route.to_query(),
            "tab=inspect&session=s1&trigger=turns&max_turns=4"
        );
        route.show_view(SessionView::Ab);
        // Opening the session already open keeps its view; another starts at the first.
        route.open_session("s1");
        assert_eq!(route.view, Some(SessionView::Ab));
        route.open_session("s2");
        assert_eq!(route.view, None);
        route.show_view(SessionView::Replay);
        route.close_session();
        assert_eq!(route.to_query(), "tab=inspect&trigger=turns&max_turns=4");
    }

    #[test]
    fn a_new_place_is_a_new_history_entry_and_a_parameter_rewrites_the_one_it_is_in() {
        let at = |q: &str| Route::parse(q);
        assert_eq!(
            navigation("?tab=inspect", &at("tab=inspect")),
            Navigation::None
        );
        assert_eq!(navigation("", &at("")), Navigation::None);
        // Another tab, another session, another view: Back returns to the one before.
        assert_eq!(navigation("", &at("tab=inspect")), Navigation::Push);
        assert_eq!(
            navigation("?tab=inspect", &at("tab=inspect&session=s1")),
            Navigation::Push
        );
        assert_eq!(
            navigation(
                "tab=inspect&session=s1",
                &at("tab=inspect&session=s1&view=probes")
            ),
            Navigation::Push
        );
        assert_eq!(
            navigation(
                "tab=inspect&session=s1&view=probes",
                &at("tab=inspect&session=s2&view=probes")
            ),
            Navigation::Push
        );
        // The first view named or left out is the same place.
        assert_eq!(
            navigation(
                "tab=inspect&session=s1&view=archive",
                &at("tab=inspect&session=s1")
            ),
            Navigation::Replace
        );
        // A parameter typed in the Tuner rewrites the entry it is in.
        assert_eq!(
            navigation("tab=tuner&max_turns=4", &at("tab=tuner&max_turns=5")),
            Navigation::Replace
        );
    }

    #[test]
    fn the_tab_bar_s_keys_follow_the_aria_tabs_pattern() {
        assert_eq!(Tab::Chat.after_key("ArrowRight"), Some(Tab::Editions));
        assert_eq!(Tab::Settings.after_key("ArrowRight"), Some(Tab::Chat));
        assert_eq!(Tab::Chat.after_key("ArrowLeft"), Some(Tab::Settings));
        assert_eq!(Tab::Tuner.after_key("ArrowLeft"), Some(Tab::Editions));
        assert_eq!(Tab::Tuner.after_key("Home"), Some(Tab::Chat));
        assert_eq!(Tab::Tuner.after_key("End"), Some(Tab::Settings));
        assert_eq!(Tab::Tuner.after_key("Enter"), None);
    }
}
