//! The trigger tuner: a policy from the link's parameters, its dry-run schedule, and the same
//! conversation under sliding-window memory and full history.
//!
//! The conversation is either simulated (`turns` turns of assumed sizes,
//! [`ScheduleInput::uniform`]), the chat on screen ([`on_screen_input`]) or a session of the
//! library, with its real per-turn token
//! counts, system prompt and recorded summary size (what Inspect measures,
//! [`InspectView::sizes`](crate::view::inspect::InspectView)): [`Tuner::on`] and
//! [`compare_policies_on`] take that [`ScheduleInput`], [`conversation_options`] lists the
//! choices. The chosen session stays out of the link (sessions are local to the browser).

use crate::app::library::Library;
use crate::app::tuner::Counting;
use crate::engine::compare::{Comparison, compare, window_turns};
use crate::engine::library_session::{Session, SessionSettings};
use crate::engine::memory::MemoryState;
use crate::engine::message::{CountTokens, Role};
use crate::engine::peers::{PolicyOutcome, Prices, outcome, preset, to_csv};
use crate::engine::policy::{
    Counter, LoopRisk, Policy, PolicyError, Sample, TRIGGER_FIELDS, Trigger,
};
use crate::engine::schedule::{DEFAULT_TURN_SIZE, Schedule, ScheduleInput, TurnSize, schedule};
use crate::route::{Route, TriggerKind};
use crate::view::inspect::InspectView;

/// The values a fresh tuner starts from: the notebook's demo settings (summarise after 4 turns,
/// keep 2) over the notebook's 10 turns.
pub const DEFAULT_MAX_TURNS: u32 = TRIGGER_FIELDS[0].default;
pub const DEFAULT_KEEP: u32 = TRIGGER_FIELDS[1].default;
pub const DEFAULT_BUDGET: u32 = TRIGGER_FIELDS[2].default;
pub const DEFAULT_KEEP_TOKENS: u32 = TRIGGER_FIELDS[3].default;
pub const DEFAULT_EVERY: u32 = TRIGGER_FIELDS[4].default;
pub const DEFAULT_TURNS: u32 = 10;
/// The tuner simulates at most this many turns; the table would be unreadable beyond it anyway,
/// and the dry run stays instant while typing.
pub const MAX_TURNS_SIMULATED: u32 = 10_000;

/// Everything the Tuner tab shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuner {
    pub kind: TriggerKind,
    /// The turns of the conversation run on (simulated or the session's).
    pub turns: u32,
    /// Whether the conversation is the simulated one (not a library session).
    pub simulated: bool,
    pub outcome: Result<TunerRun, PolicyError>,
    /// While `outcome` is an error: the last valid policy's run over the same conversation, so
    /// the chart and the table keep showing something true (marked as the last valid one)
    /// instead of an empty plot. `None` when the parameters are valid, or none ever were.
    pub last_valid: Option<(LastValid, TunerRun)>,
}

/// The last trigger whose parameters worked together, and its fields in the form's words.
#[derive(Clone, Debug, PartialEq)]
pub struct LastValid {
    pub trigger: Trigger,
    /// "Summarise at (turns) 6, Keep verbatim (turns) 2": the fields as the form labels them.
    pub words: String,
}

impl LastValid {
    /// The link's trigger when its parameters are valid.
    pub fn of(route: &Route) -> Option<LastValid> {
        let trigger = trigger_from_route(route).ok()?;
        Some(LastValid {
            words: fields_in_words(route),
            trigger,
        })
    }

    /// The link's trigger when valid, else `previous` (what a memo of it keeps between edits).
    pub fn after(route: &Route, previous: Option<&LastValid>) -> Option<LastValid> {
        LastValid::of(route).or_else(|| previous.cloned())
    }
}

/// Why the trigger's fields do not work together, said at the field it concerns, in the
/// form's own words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldProblem {
    /// The parameter of the field to mark (`keep`, `budget`, …).
    pub param: &'static str,
    pub message: String,
}

/// The field `error` is about and what to say there, naming every field by its label; `None`
/// for an error no trigger field causes.
pub fn field_problem(error: &PolicyError) -> Option<FieldProblem> {
    let label = |param: &str| {
        let label = TRIGGER_FIELDS
            .iter()
            .find(|f| f.param == param)
            .map_or(param, |f| f.label);
        format!("\u{201c}{label}\u{201d}")
    };
    let (param, message) = match *error {
        PolicyError::ZeroMaxTurns => (
            "max_turns",
            format!("{} must be at least 1.", label("max_turns")),
        ),
        PolicyError::KeepNotBelowMax { max_turns, keep } => (
            "keep",
            format!(
                "{} ({keep}) must be smaller than {} ({max_turns}): lower it, or raise {}.",
                label("keep"),
                label("max_turns"),
                label("max_turns")
            ),
        ),
        PolicyError::ZeroBudget => ("budget", format!("{} must be at least 1.", label("budget"))),
        PolicyError::KeepTokensAboveBudget {
            budget,
            keep_tokens,
        } => (
            "keep_tokens",
            format!(
                "{} ({keep_tokens}) must not be more than the token budget ({budget}): lower it, or raise the budget.",
                label("keep_tokens")
            ),
        ),
        PolicyError::ZeroPeriod => ("every", format!("{} must be at least 1.", label("every"))),
        PolicyError::ZeroContext => (
            "context",
            format!("{} must be at least 1.", label("context")),
        ),
        PolicyError::PercentOutOfRange { field, value } => {
            let param = if field == "keep" {
                "keep_pct"
            } else {
                "fire_pct"
            };
            (
                param,
                format!("{} ({value}) must be from 1 to 100.", label(param)),
            )
        }
        PolicyError::KeepPctNotBelowFire { fire_pct, keep_pct } => (
            "keep_pct",
            format!(
                "{} ({keep_pct}) must be below {} ({fire_pct}): lower it, or raise {}.",
                label("keep_pct"),
                label("fire_pct"),
                label("fire_pct")
            ),
        ),
        _ => return None,
    };
    Some(FieldProblem { param, message })
}

/// The link's trigger fields as the form labels them, with their values (defaults filled in):
/// "Summarise at (turns) 4, Keep verbatim (turns) 2".
pub fn fields_in_words(route: &Route) -> String {
    let kind = route.trigger.unwrap_or(TriggerKind::Turns);
    let fields: Vec<String> = kind
        .fields()
        .into_iter()
        .map(|f| {
            let value = route.number(f.param).unwrap_or(f.default);
            format!("{} {value}", f.label)
        })
        .collect();
    if fields.is_empty() {
        kind.label().to_owned()
    } else {
        format!("{}: {}", kind.label(), fields.join(", "))
    }
}

/// A dry run of a valid policy.
#[derive(Clone, Debug, PartialEq)]
pub struct TunerRun {
    pub schedule: Schedule,
    pub comparison: Comparison,
    /// A window policy whose fixed part (the assumed system prompt and summary) plus the turns
    /// it keeps already reaches its threshold: it would fold after every turn.
    pub loop_risk: Option<LoopRisk>,
}

impl Tuner {
    /// Builds the tuner from the query parameters over the simulated conversation, filling
    /// what is missing with the defaults.
    pub fn from_route(route: &Route) -> Tuner {
        Tuner::on(route, None)
    }

    /// Builds the tuner from the query parameters over `conversation` (a session's real sizes),
    /// or over the simulated conversation the link describes when there is none.
    pub fn on(route: &Route, conversation: Option<&ScheduleInput>) -> Tuner {
        Tuner::on_after(route, conversation, None)
    }

    /// [`Tuner::on`], and while the parameters are invalid, `last`'s run over the same
    /// conversation ([`Tuner::last_valid`]).
    pub fn on_after(
        route: &Route,
        conversation: Option<&ScheduleInput>,
        last: Option<&LastValid>,
    ) -> Tuner {
        let kind = route.trigger.unwrap_or(TriggerKind::Turns);
        let simulated = simulated_input(route);
        let input = conversation.unwrap_or(&simulated);
        let outcome = trigger_from_route(route)
            .and_then(Policy::new)
            .map(|policy| run_of(&policy, input));
        let last_valid = match (&outcome, last) {
            (Err(_), Some(last)) => Policy::new(last.trigger.clone())
                .ok()
                .map(|policy| (last.clone(), run_of(&policy, input))),
            _ => None,
        };
        Tuner {
            kind,
            turns: input.turns,
            simulated: conversation.is_none(),
            outcome,
            last_valid,
        }
    }

    /// Why nothing is drawn, when nothing is: the parameters are invalid and no valid policy
    /// came before them.
    pub fn nothing_drawn(&self) -> Option<String> {
        match (&self.outcome, &self.last_valid) {
            (Err(_), None) => Some(
                "Nothing is drawn: the trigger's fields above do not work together yet, and no earlier choice of them did. Fix the field marked above and the schedule and chart appear."
                    .to_owned(),
            ),
            _ => None,
        }
    }
}

/// The run the Tuner shows for `policy` over `input`.
fn run_of(policy: &Policy, input: &ScheduleInput) -> TunerRun {
    let schedule = schedule(policy, input);
    let window = window_turns(&policy.trigger);
    let comparison = compare(input, window, &schedule);
    let fixed = u64::from(input.system_tokens) + u64::from(input.summary_tokens);
    TunerRun {
        schedule,
        comparison,
        loop_risk: policy.trigger.loop_risk(fixed, typical_turn(input)),
    }
}

/// The simulated conversation a link describes: `turns` turns (capped) of assumed sizes.
pub fn simulated_input(route: &Route) -> ScheduleInput {
    let turns = route
        .turns
        .unwrap_or(DEFAULT_TURNS)
        .min(MAX_TURNS_SIMULATED);
    ScheduleInput::uniform(turns)
}

/// The value of the "Conversation" choice that stands for the simulated conversation.
pub const SIMULATED: &str = "simulated";
/// The value of the "Conversation" choice that stands for the conversation on the Chat tab (the
/// demo loaded, else the live chat).
pub const ON_SCREEN: &str = "on-screen";

/// The real sizes of the conversation on screen, measured as Inspect measures a session.
pub fn on_screen_input(memory: &MemoryState, counter: &dyn CountTokens) -> ScheduleInput {
    let session = Session::new("on screen", SessionSettings::default(), memory.clone());
    InspectView::new(&session, counter).sizes
}

/// One choice of conversation for the Tuner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversationOption {
    /// [`SIMULATED`], or the library session's id.
    pub value: String,
    pub label: String,
}

/// The conversations the Tuner can run on: the simulated one, the one on screen (when there is
/// one, with its turn count), then every library session (in the library's order, the live
/// chat among them once it is kept), each with its turn count.
pub fn conversation_options(library: &Library, on_screen: Option<u32>) -> Vec<ConversationOption> {
    let simulated = ConversationOption {
        value: SIMULATED.to_owned(),
        label: "Simulated (assumed turn sizes)".to_owned(),
    };
    let screen = on_screen.map(|turns| ConversationOption {
        value: ON_SCREEN.to_owned(),
        label: format!("The chat on screen ({})", turns_label(turns)),
    });
    std::iter::once(simulated)
        .chain(screen)
        .chain(library.list().iter().map(|entry| ConversationOption {
            value: entry.id.clone(),
            label: format!(
                "{} ({})",
                entry.session.name,
                turns_label(entry.session.memory.turn_count())
            ),
        }))
        .collect()
}

fn turns_label(turns: u32) -> String {
    format!("{turns} turn{}", if turns == 1 { "" } else { "s" })
}

/// The label of the Tuner's own policy in the comparison table.
pub const THIS_POLICY: &str = "this policy";

/// One row of the comparison: a policy's outcome, and what the page must say beside it.
#[derive(Clone, Debug, PartialEq)]
pub struct Compared {
    pub outcome: PolicyOutcome,
    /// A preset whose requests are this policy's, turn for turn: its line lies exactly on this
    /// policy's, so the chart dashes it and the table says so.
    pub same_as_this_policy: bool,
    /// This policy's row drawn from the last valid parameters, while the fields are invalid.
    pub last_valid: bool,
    /// The counter it is measured with, in words ([`counted_with`]).
    pub counted_with: String,
}

/// The comparison of the Tuner's own policy (when its parameters are valid) and the chosen
/// presets of other systems over the Tuner's simulated conversation, at the window the link
/// sets (the window trigger's default otherwise).
pub fn compare_policies(route: &Route, presets: &[&str], prices: Prices) -> Vec<Compared> {
    compare_policies_on(route, None, presets, prices, None, &Counting::default())
}

/// [`compare_policies`] over `conversation` (a session's real sizes), or over the simulated
/// conversation when there is none; while the parameters are invalid, this policy's row is
/// `last`'s, marked.
/// A preset's `parameters` in the comparison's CSV: its source (which names its library's own
/// counter, `own`) at the window, and what it was measured with here (`used`: its own, or
/// o200k_base when switched to exact counts): on the simulated conversation, the counter's count
/// of the language's sample scaled to the turns' sizes; on a real conversation, the counter's
/// count of each of its messages (or, where those counts were not handed in, the Tuner's
/// o200k_base counts, said so).
/// How a preset's conversation was sized.
#[derive(Clone, Copy)]
enum Sizing<'a> {
    /// The simulated conversation, its text taken to be in the sample's language.
    Simulated(&'a Sample),
    /// A real conversation's messages, each counted with the preset's counter.
    Counted,
    /// A real conversation's own (o200k_base) sizes, the counter's being unknown here.
    Session,
}

fn preset_parameters(
    source: &str,
    context: u32,
    own: Counter,
    used: Counter,
    sizing: Sizing,
) -> String {
    let switched = if used == own {
        String::new()
    } else {
        format!("; switched to {} in place of its default", used.label())
    };
    let sized = match sizing {
        _ if used.is_default() => String::new(),
        Sizing::Counted => format!(
            "; sized with {} over this conversation's messages",
            used.label()
        ),
        Sizing::Simulated(sample) if used != Counter::Reported => format!(
            "; sized with {} over a simulated {} conversation (a sample text's count scaled to each turn's o200k_base size)",
            used.label(),
            sample.label
        ),
        _ => format!(
            "; sized here with the Tuner's o200k_base counts, not {}",
            used.label()
        ),
    };
    format!("{source} at a {context}-token window{switched}{sized}")
}

/// What the comparison's "Counted with" column says of a policy measured with `used` whose
/// library's own counter is `own`.
pub fn counted_with(own: Counter, used: Counter) -> String {
    if own == used {
        used.label().to_owned()
    } else {
        format!("{} (switched from {})", used.label(), own.label())
    }
}

/// How the comparison's counters apply to the conversation, said under the table.
pub fn counting_note(simulated: bool, counting: &Counting) -> String {
    let which = if counting.exact {
        "Each preset is measured with exact o200k_base counts, as if a tiktoken counter were passed to its library (a system that fires on the reply's reported usage keeps it)"
    } else {
        "Each preset is measured with its library's own default counter, as the library runs when none is passed"
    };
    if simulated {
        format!(
            "{which}; its tokens are that counter's. The simulated conversation has no text: its turn sizes are o200k_base tokens of {} text, and another counter's count of a message is its count of a {} sample text (measured against the libraries) scaled to that size; the reply's reported usage is the Tuner's own o200k_base count.",
            counting.sample.label, counting.sample.label
        )
    } else {
        format!(
            "{which}. On this conversation each preset's messages, system prompt and latest summary are counted with that counter (the reply's reported usage as o200k_base with the chat format); this policy's are the Tuner's o200k_base counts."
        )
    }
}

/// The simulated conversation of the link as a policy measured with `counter` sees it, its
/// text taken to be in `sample`'s language ([`Counter::simulated`]): the link's own sizes for
/// the default counter, and for the reply's reported usage, which the Tuner's own counts stand
/// in for (the server's count of the text; a dry run has no server).
pub fn simulated_counted(route: &Route, counter: Counter, sample: &Sample) -> ScheduleInput {
    let base = simulated_input(route);
    if counter.is_default() || counter == Counter::Reported {
        return base;
    }
    let size = TurnSize {
        user: counter.simulated(Role::User, DEFAULT_TURN_SIZE.user, sample),
        assistant: counter.simulated(Role::Assistant, DEFAULT_TURN_SIZE.assistant, sample),
    };
    ScheduleInput {
        turns: base.turns,
        sizes: vec![size; base.turns as usize],
        system_tokens: counter.simulated(Role::System, base.system_tokens, sample)
            + counter.per_request(),
        summary_tokens: counter.simulated(Role::System, base.summary_tokens, sample),
        summary_sizes: Vec::new(),
    }
}

pub fn compare_policies_on(
    route: &Route,
    conversation: Option<&ScheduleInput>,
    presets: &[&str],
    prices: Prices,
    last: Option<&LastValid>,
    counting: &Counting,
) -> Vec<Compared> {
    compare_policies_counted(route, conversation, &[], presets, prices, last, counting)
}

/// [`compare_policies_on`], each preset over a real conversation sized with the counter it is
/// measured with (its library's own, or o200k_base when switched to exact counts), taken from
/// `counted` ([`crate::view::tuner_conversation::counted_sizes`]); a counter `counted` lacks
/// sizes it with the conversation's own o200k_base counts, and its row says so.
pub fn compare_policies_counted(
    route: &Route,
    conversation: Option<&ScheduleInput>,
    counted: &[(Counter, ScheduleInput)],
    presets: &[&str],
    prices: Prices,
    last: Option<&LastValid>,
    counting: &Counting,
) -> Vec<Compared> {
    let simulated = simulated_input(route);
    let input = conversation.unwrap_or(&simulated);
    let context = comparison_window(route);
    let valid = LastValid::of(route);
    let (own, last_valid) = match (valid, last) {
        (Some(now), _) => (Some(now), false),
        (None, Some(last)) => (Some(last.clone()), true),
        (None, None) => (None, false),
    };
    let own = own.and_then(|own| {
        let policy = Policy::new(own.trigger).ok()?;
        let mut row = outcome(THIS_POLICY, &policy, input, context, prices);
        row.parameters = format!("{}; counter: {}", own.words, policy.exact.counter.label());
        Some(Compared {
            outcome: row,
            same_as_this_policy: false,
            last_valid,
            counted_with: counted_with(policy.exact.counter, policy.exact.counter),
        })
    });
    let own_requests: Option<Vec<u64>> = own
        .as_ref()
        .map(|o| o.outcome.schedule.rows.iter().map(|r| r.tokens).collect());
    let presets = presets.iter().filter_map(|slug| preset(slug)).map(|p| {
        let mut policy = p.policy(context);
        let own = policy.exact.counter;
        let used = if counting.exact { own.exact() } else { own };
        policy.exact.counter = used;
        let simulated_sizes;
        let sized = counted.iter().find(|(c, _)| *c == used).map(|(_, s)| s);
        let (input, sizing) = match (conversation, sized) {
            (Some(_), Some(sized)) => (sized, Sizing::Counted),
            (Some(input), None) => (input, Sizing::Session),
            (None, _) => {
                simulated_sizes = simulated_counted(route, used, &counting.sample);
                (&simulated_sizes, Sizing::Simulated(&counting.sample))
            }
        };
        let mut row = outcome(p.system, &policy, input, context, prices);
        row.parameters = preset_parameters(p.source, context, own, used, sizing);
        let same = own_requests.as_ref().is_some_and(|own| {
            own.iter()
                .copied()
                .eq(row.schedule.rows.iter().map(|r| r.tokens))
        });
        Compared {
            outcome: row,
            same_as_this_policy: same,
            last_valid: false,
            counted_with: counted_with(own, used),
        }
    });
    own.into_iter().chain(presets).collect()
}

/// The window the comparison measures against.
pub fn comparison_window(route: &Route) -> u32 {
    route
        .number("context")
        .filter(|&c| c > 0)
        .unwrap_or_else(|| TriggerKind::default_of("context"))
}

/// The comparison as a CSV file, for the download link: the table's columns, then each
/// policy's parameters, so a file read later says which policies made it.
pub fn comparison_csv(rows: &[Compared]) -> String {
    let outcomes: Vec<PolicyOutcome> = rows.iter().map(|r| r.outcome.clone()).collect();
    to_csv(&outcomes)
}

/// Tokens of a typical turn of the conversation: the mean turn (every turn's size when they are
/// all alike, as in the simulated one).
fn typical_turn(input: &ScheduleInput) -> u64 {
    let turns = input.turns.max(1);
    let total: u64 = (1..=turns)
        .map(|t| {
            let size = input.size(t);
            u64::from(size.user) + u64::from(size.assistant)
        })
        .sum();
    total / u64::from(turns)
}

/// The trigger a route asks for, with defaults for absent numbers.
pub fn trigger_from_route(route: &Route) -> Result<Trigger, PolicyError> {
    let kind = route.trigger.unwrap_or(TriggerKind::Turns);
    let trigger = kind.build(|param| {
        route
            .number(param)
            .unwrap_or_else(|| TriggerKind::default_of(param))
    });
    trigger.validate()?;
    Ok(trigger)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::library::Entry;
    use crate::engine::message::WordCounter;
    use crate::engine::policy::SAMPLES;
    use crate::engine::session::synthetic;

    #[test]
    fn a_library_session_runs_with_its_own_turns_and_sizes() {
        let session = synthetic(23);
        let sizes = InspectView::new(&session, &WordCounter).sizes;
        assert_eq!(sizes.turns, 23);
        // `turns=5` in the link is the simulated conversation's, not the session's.
        let route = Route::parse("?tab=tuner&trigger=turns&max_turns=6&keep=2&turns=5");
        let tuner = Tuner::on(&route, Some(&sizes));
        assert_eq!(tuner.turns, 23);
        assert!(!tuner.simulated);
        let run = tuner.outcome.expect("valid parameters");
        let policy = Policy::new(trigger_from_route(&route).unwrap()).unwrap();
        assert_eq!(run.schedule, schedule(&policy, &sizes));
        assert_eq!(run.schedule.rows.len(), 23);
        assert_eq!(run.comparison.rows.len(), 23);
        // The real sizes are used: the first request holds the session's system prompt and
        // first question, not the assumed ones.
        assert_eq!(
            run.schedule.rows[0].tokens,
            u64::from(sizes.system_tokens) + u64::from(sizes.size(1).user)
        );
        let simulated = Tuner::from_route(&route);
        assert!(simulated.simulated);
        assert_eq!(simulated.turns, 5);
        assert_ne!(
            simulated.outcome.unwrap().schedule.rows[0].tokens,
            run.schedule.rows[0].tokens
        );
        // A token trigger folds where the session's real sizes say, and the comparison covers
        // every preset over the same 23 turns.
        let tokens = Route::parse("?trigger=tokens&budget=400");
        let run = Tuner::on(&tokens, Some(&sizes)).outcome.unwrap();
        let policy = Policy::new(trigger_from_route(&tokens).unwrap()).unwrap();
        assert_eq!(run.schedule.calls, schedule(&policy, &sizes).calls);
        let prices = Prices::flat(1.0, 1.0);
        let rows = compare_policies_on(
            &tokens,
            Some(&sizes),
            &["codex-cli", "gemini-cli"],
            prices,
            None,
            &Counting::default(),
        );
        assert_eq!(rows.len(), 3);
        assert!(
            rows.iter().all(|r| r.outcome.schedule.rows.len() == 23),
            "{rows:?}"
        );
        assert_eq!(rows[0].outcome.calls, run.schedule.calls);
    }

    #[test]
    fn the_conversation_choices_are_simulated_then_each_session() {
        let mut named = synthetic(1);
        named.name = "Short".into();
        let entry = |id: &str, session: Session| Entry {
            id: id.into(),
            session,
            updated_ms: 1,
            revision: 1,
            origin: None,
            counted_in: None,
        };
        let library = Library::from_stored(vec![entry("a", synthetic(7)), entry("b", named)]);
        let options = conversation_options(&library, None);
        let values: Vec<&str> = options.iter().map(|o| o.value.as_str()).collect();
        assert_eq!(values[0], SIMULATED);
        assert_eq!(values.len(), 3);
        assert!(values.contains(&"a") && values.contains(&"b"));
        let label = |id: &str| {
            options
                .iter()
                .find(|o| o.value == id)
                .map(|o| o.label.clone())
                .unwrap()
        };
        assert!(label("a").ends_with("(7 turns)"), "{}", label("a"));
        assert_eq!(label("b"), "Short (1 turn)");
        assert_eq!(conversation_options(&Library::default(), None).len(), 1);
        let with_screen = conversation_options(&library, Some(6));
        assert_eq!(with_screen[1].value, ON_SCREEN);
        assert_eq!(with_screen[1].label, "The chat on screen (6 turns)");
        assert_eq!(with_screen.len(), 4);
        // The chat on screen is measured as Inspect measures a session.
        let session = synthetic(9);
        assert_eq!(
            on_screen_input(&session.memory, &WordCounter),
            InspectView::new(&session, &WordCounter).sizes
        );
    }

    fn rows(query: &str) -> Vec<(u32, u32, String)> {
        let tuner = Tuner::from_route(&Route::parse(query));
        let run = tuner.outcome.expect("valid parameters");
        run.schedule
            .rows
            .iter()
            .map(|r| (r.turn, r.summarised_to, r.verbatim_list()))
            .collect()
    }

    #[test]
    fn a_window_whose_fixed_part_reaches_the_threshold_warns_of_a_loop_and_does_loop() {
        // 300 system + 150 summary + 30% of 1,000 kept = 750 ≥ 70% of 1,000.
        let tuner = Tuner::from_route(&Route::parse(
            "?trigger=window&context=1000&fire_pct=70&keep_pct=30&turns=12",
        ));
        let run = tuner.outcome.expect("valid parameters");
        let risk = run.loop_risk.expect("a loop is foreseen");
        assert_eq!(risk.threshold, 700);
        // It is real: once a first cycle ran, every later turn fires again.
        let fired: Vec<bool> = run
            .schedule
            .rows
            .iter()
            .map(|r| r.folds.is_some())
            .collect();
        let first = fired
            .iter()
            .position(|&f| f)
            .expect("it folds at some turn");
        assert!(fired[first + 1..].iter().all(|&f| f), "{fired:?}");
        // A roomier window does not warn.
        let calm = Tuner::from_route(&Route::parse(
            "?trigger=window&context=8192&fire_pct=80&keep_pct=30&turns=12",
        ));
        assert_eq!(calm.outcome.unwrap().loop_risk, None);
    }

    #[test]
    fn the_comparison_holds_this_policy_then_each_chosen_preset() {
        let prices = Prices::flat(1.0, 4.0);
        let route = Route::parse("?tab=tuner&turns=30");
        let rows = compare_policies(
            &route,
            &["gemini-cli", "openai-cookbook-session", "nope"],
            prices,
        );
        let labels: Vec<&str> = rows.iter().map(|r| r.outcome.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                THIS_POLICY,
                "Gemini CLI",
                "OpenAI cookbook SummarizingSession"
            ]
        );
        assert!(rows.iter().all(|r| r.outcome.schedule.rows.len() == 30));
        // The CSV names each policy's parameters.
        let decoded = comparison_csv(&rows);
        let outcomes: Vec<PolicyOutcome> = rows.iter().map(|r| r.outcome.clone()).collect();
        assert_eq!(decoded, to_csv(&outcomes));
        let lines: Vec<&str> = decoded.lines().collect();
        assert!(lines[0].ends_with(",parameters"), "{}", lines[0]);
        assert!(
            lines[1].ends_with(
                ",\"Every N turns (keep K): Summarise at (turns) 4, Keep verbatim (turns) 2; counter: o200k_base (exact)\""
            ),
            "{}",
            lines[1]
        );
        let gemini = preset("gemini-cli").unwrap();
        assert!(
            lines[2].contains(gemini.source.split(',').next().unwrap()),
            "{}",
            lines[2]
        );
        assert!(lines[2].contains("at a 8192-token window"), "{}", lines[2]);
        // Each names its counter: Gemini CLI's is the reply's reported usage, which the Tuner's
        // own counts stand in for; the cookbook's counts turns, sized by the Tuner's o200k_base.
        assert!(
            lines[2].contains("counter: the reply's reported usage")
                && lines[2].contains(
                    "sized here with the Tuner's o200k_base counts, not the reply's reported usage"
                ),
            "{}",
            lines[2]
        );
        assert!(
            lines[3].contains("counter: none, it counts turns") && !lines[3].contains("sized here"),
            "{}",
            lines[3]
        );
        // Invalid parameters leave the presets alone.
        let bad = Route::parse("?trigger=turns&max_turns=2&keep=5");
        let rows = compare_policies(&bad, &["gemini-cli"], prices);
        assert_eq!(rows.len(), 1);
    }

    #[test]
    fn a_counter_sizes_the_simulated_conversation_by_its_languages_sample() {
        let route = Route::parse("?tab=tuner&turns=3");
        let english = SAMPLES[0];
        assert_eq!(
            simulated_counted(&route, Counter::O200K, &english),
            simulated_input(&route)
        );
        assert_eq!(
            simulated_counted(&route, Counter::Reported, &english),
            simulated_input(&route),
            "the reply's reported usage is the Tuner's own count"
        );
        // Worked by hand from the English sample (63 o200k_base tokens, 156 characters): a
        // 30-token question is 74 characters, with "user" 78, a quarter rounded up 20, plus 3.
        let langchain = simulated_counted(&route, Counter::LangChainApprox, &english);
        assert_eq!(
            langchain.sizes,
            [TurnSize {
                user: 23,
                assistant: 61
            }; 3]
        );
        // 300 tokens: 743 characters and "system", 188 + 3; the summary's 150: 371 + 6, 95 + 3.
        assert_eq!(
            (langchain.system_tokens, langchain.summary_tokens),
            (191, 98)
        );
        // cl100k_base with the chat format on Hindi: 30 × 152 / 42 = 109, plus 3 and the role.
        let hindi = Sample::from_slug("hindi");
        let cl100k_chat = Counter::Tiktoken {
            vocabulary: crate::engine::message::Vocabulary::Cl100k,
            chat: true,
        };
        let counted = simulated_counted(&route, cl100k_chat, &hindi);
        assert_eq!(counted.sizes[0].user, 113);
        assert_eq!(
            counted.system_tokens,
            1086 + 4 + 3,
            "and the reply's priming once"
        );
    }

    #[test]
    fn switching_the_presets_to_exact_counts_moves_their_schedule() {
        let prices = Prices::flat(1.0, 1.0);
        let route = Route::parse("?tab=tuner&turns=60");
        let presets = [
            "langchain-v1-middleware",
            "llamaindex-summary-buffer",
            "codex-cli",
        ];
        let first = |rows: &[Compared]| -> Vec<Option<u32>> {
            rows.iter().map(|r| r.outcome.first_fold).collect()
        };
        let own = compare_policies_on(&route, None, &presets, prices, None, &Counting::default());
        let exact = Counting {
            exact: true,
            ..Counting::default()
        };
        let switched = compare_policies_on(&route, None, &presets, prices, None, &exact);
        // The middleware counts the messages, not the system prompt. Exact o200k_base: 120 a
        // turn and the 30-token question reach 4,000 in the request of turn 35 (33 × 120 + 30),
        // summarised before it: shown after turn 34. LangChain's own count of English with
        // figures is lower (84 a turn, the question 23): turn 48's request is 47 × 84 + 23 =
        // 3,971, turn 49's 4,055, so shown after turn 48.
        assert_eq!(switched[1].outcome.first_fold, Some(34));
        assert_eq!(own[1].outcome.first_fold, Some(48), "{:?}", first(&own));
        assert_ne!(
            own[1].outcome.schedule, switched[1].outcome.schedule,
            "the plotted schedule moves"
        );
        assert_eq!(
            own[1].counted_with,
            "LangChain's count_tokens_approximately"
        );
        assert_eq!(
            switched[1].counted_with,
            "o200k_base (exact) (switched from LangChain's count_tokens_approximately)"
        );
        assert_eq!(
            switched[2].counted_with,
            "o200k_base (exact) (switched from cl100k_base (exact))"
        );
        // The reply's reported usage is already exact: Codex stays as it was.
        assert_eq!(own[3].counted_with, "the reply's reported usage");
        assert_eq!(own[3].outcome, switched[3].outcome);
        // This policy is o200k_base either way.
        assert_eq!(own[0].outcome, switched[0].outcome);
        assert_eq!(own[0].counted_with, "o200k_base (exact)");
        // The CSV names what each was measured with.
        let csv = comparison_csv(&switched);
        assert!(
            csv.contains("switched to o200k_base (exact) in place of its default"),
            "{csv}"
        );
        let csv = comparison_csv(&own);
        assert!(
            csv.contains("sized with LangChain's count_tokens_approximately over a simulated English conversation"),
            "{csv}"
        );
        // On Chinese, LangChain's own count is far lower still; on Hindi, LlamaIndex's
        // cl100k_base far higher: it folds earlier than exact counts say.
        let chinese = Counting {
            sample: Sample::from_slug("chinese"),
            ..Counting::default()
        };
        let rows = compare_policies_on(&route, None, &presets, prices, None, &chinese);
        assert!(
            rows[1]
                .outcome
                .first_fold
                .is_none_or(|t| t > own[1].outcome.first_fold.unwrap()),
            "{:?}",
            first(&rows)
        );
        let hindi = Counting {
            sample: Sample::from_slug("hindi"),
            ..Counting::default()
        };
        let rows = compare_policies_on(&route, None, &presets, prices, None, &hindi);
        let exact_hindi = compare_policies_on(
            &route,
            None,
            &presets,
            prices,
            None,
            &Counting {
                exact: true,
                ..hindi
            },
        );
        assert!(
            rows[2].outcome.first_fold.unwrap() < exact_hindi[2].outcome.first_fold.unwrap(),
            "{:?} {:?}",
            first(&rows),
            first(&exact_hindi)
        );
        // A session's sizes handed in without its counted ones are the Tuner's own counts, and
        // the CSV says so.
        let sizes = simulated_input(&route);
        let rows = compare_policies_on(
            &route,
            Some(&sizes),
            &presets,
            prices,
            None,
            &Counting::default(),
        );
        assert!(
            comparison_csv(&rows).contains("sized here with the Tuner's o200k_base counts, not LangChain's count_tokens_approximately")
        );
        assert!(counting_note(false, &Counting::default()).contains(
            "each preset's messages, system prompt and latest summary are counted with that counter"
        ));
        let note = counting_note(true, &chinese);
        assert!(
            note.starts_with("Each preset is measured with its library's own default counter")
                && note.contains("o200k_base tokens of Chinese text"),
            "{note}"
        );
        assert!(
            counting_note(true, &exact)
                .starts_with("Each preset is measured with exact o200k_base counts")
        );
    }

    // An invalid pair read "keep (8) must be smaller than max_turns (6)" above the heading, in
    // the parameters' internal names, and the chart became an empty plot.
    #[test]
    fn an_invalid_pair_is_said_at_its_field_and_the_last_valid_policy_stays_drawn() {
        let good = Route::parse("?trigger=turns&max_turns=6&keep=2&turns=12");
        let bad = Route::parse("?trigger=turns&max_turns=6&keep=8&turns=12");
        let error = Tuner::from_route(&bad).outcome.unwrap_err();
        let problem = field_problem(&error).expect("a trigger field causes it");
        assert_eq!(problem.param, "keep");
        assert_eq!(
            problem.message,
            "\u{201c}Keep verbatim (turns)\u{201d} (8) must be smaller than \u{201c}Summarise at (turns)\u{201d} (6): lower it, or raise \u{201c}Summarise at (turns)\u{201d}."
        );
        assert!(!problem.message.contains("max_turns"));
        // The memo keeps the last valid trigger through the invalid edit.
        let last = LastValid::after(&good, None).expect("valid");
        assert_eq!(
            last.words,
            "Every N turns (keep K): Summarise at (turns) 6, Keep verbatim (turns) 2"
        );
        let kept = LastValid::after(&bad, Some(&last)).expect("kept");
        assert_eq!(kept, last);
        let tuner = Tuner::on_after(&bad, None, Some(&kept));
        assert!(tuner.outcome.is_err());
        let (shown, run) = tuner.last_valid.clone().expect("the last valid run");
        assert_eq!(shown, last);
        assert_eq!(Some(run), Tuner::from_route(&good).outcome.ok());
        assert_eq!(tuner.nothing_drawn(), None);
        // With no valid policy before, the page says plainly why nothing is drawn.
        let fresh = Tuner::on_after(&bad, None, None);
        assert!(
            fresh
                .nothing_drawn()
                .unwrap()
                .starts_with("Nothing is drawn")
        );
        // A valid route draws its own run and no last one.
        assert_eq!(Tuner::on_after(&good, None, Some(&last)).last_valid, None);
        // The comparison keeps this policy's row too, marked.
        let prices = Prices::flat(1.0, 1.0);
        let rows = compare_policies_on(&bad, None, &[], prices, Some(&last), &Counting::default());
        assert_eq!(rows.len(), 1);
        assert!(rows[0].last_valid);
        assert_eq!(
            rows[0].outcome.calls,
            Tuner::from_route(&good).outcome.unwrap().schedule.calls
        );
        // Every trigger field's error names fields by their labels only.
        for (query, param) in [
            ("?max_turns=0", "max_turns"),
            ("?trigger=tokens&budget=0", "budget"),
            ("?trigger=tokens&budget=100&keep_tokens=200", "keep_tokens"),
            ("?trigger=every&every=0", "every"),
            ("?trigger=window&context=0", "context"),
            ("?trigger=window&fire_pct=0", "fire_pct"),
            ("?trigger=window&keep_pct=0", "keep_pct"),
            ("?trigger=window&fire_pct=50&keep_pct=60", "keep_pct"),
        ] {
            let error = Tuner::from_route(&Route::parse(query)).outcome.unwrap_err();
            let problem = field_problem(&error).unwrap_or_else(|| panic!("{query}"));
            assert_eq!(problem.param, param, "{query}");
            assert!(
                !problem.message.contains('_'),
                "{query}: {}",
                problem.message
            );
        }
    }

    // A peer preset whose numbers give the same schedule as "this policy" hid its line exactly.
    #[test]
    fn a_preset_with_this_policys_schedule_is_marked_as_such() {
        let prices = Prices::flat(1.0, 1.0);
        // Over ten short turns neither this 80 % window policy nor Codex's 90 % ever folds: the
        // same requests, turn for turn. Gemini CLI's half window does not fold either; the
        // notebook's cookbook instance does.
        let short = Route::parse("?tab=tuner&trigger=window&context=8192&turns=10");
        let rows = compare_policies(
            &short,
            &["codex-cli", "gemini-cli", "openai-cookbook-session"],
            prices,
        );
        let same: Vec<bool> = rows.iter().map(|r| r.same_as_this_policy).collect();
        assert_eq!(same, [false, true, true, false]);
        let own: Vec<u64> = rows[0]
            .outcome
            .schedule
            .rows
            .iter()
            .map(|r| r.tokens)
            .collect();
        let codex: Vec<u64> = rows[1]
            .outcome
            .schedule
            .rows
            .iter()
            .map(|r| r.tokens)
            .collect();
        assert_eq!(own, codex);
        // Over 120 turns they fold at different turns, and are told apart.
        let long = Route::parse("?tab=tuner&trigger=window&context=8192&turns=120");
        let rows = compare_policies(&long, &["codex-cli"], prices);
        assert!(!rows[1].same_as_this_policy);
    }

    #[test]
    fn defaults_are_the_notebooks_four_and_two_over_ten_turns() {
        let tuner = Tuner::from_route(&Route::parse(""));
        assert_eq!(tuner.turns, 10);
        let run = tuner.outcome.unwrap();
        assert_eq!(run.schedule.calls, 4);
        assert_eq!(run.schedule.rows.len(), 10);
        assert_eq!(run.comparison.rows.len(), 10);
    }

    #[test]
    fn the_link_parameters_drive_the_schedule() {
        let six_two = rows("?trigger=turns&max_turns=6&keep=2&turns=10");
        assert_eq!(six_two[9], (10, 4, "5,6,7,8,9,10".to_owned()));
        let four_three = rows("?max_turns=4&keep=3");
        assert_eq!(four_three[4], (5, 1, "2,3,4,5".to_owned()));
    }

    #[test]
    fn an_impossible_combination_is_an_error_not_a_panic() {
        let tuner = Tuner::from_route(&Route::parse("?max_turns=3&keep=3"));
        let error = tuner.outcome.unwrap_err();
        assert_eq!(
            error.to_string(),
            "keep (3) must be smaller than max_turns (3); lower keep or raise max_turns"
        );
        assert!(
            Tuner::from_route(&Route::parse("?trigger=tokens&budget=0"))
                .outcome
                .is_err()
        );
        assert!(
            Tuner::from_route(&Route::parse("?trigger=every&every=0"))
                .outcome
                .is_err()
        );
    }

    #[test]
    fn manual_never_calls_the_summariser() {
        let tuner = Tuner::from_route(&Route::parse("?trigger=manual&turns=30"));
        let run = tuner.outcome.unwrap();
        assert_eq!(run.schedule.calls, 0);
        assert!(run.schedule.rows.iter().all(|r| r.summarised_to == 0));
    }

    #[test]
    fn the_number_of_turns_is_capped() {
        let tuner = Tuner::from_route(&Route::parse("?turns=100000"));
        assert_eq!(tuner.turns, MAX_TURNS_SIMULATED);
    }
}
