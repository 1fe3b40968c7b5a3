//! The "Export policy" panel (Tuner, the Chat tab's policy panel, Inspect's replay form): the
//! policy on screen as a snippet for one target, with what the snippet carries from Settings and
//! the pinned facts, how exact it is in plain sentences, and, when the target runs a nearest
//! policy instead, what that does to the schedule on the conversation on screen and both dry
//! runs as two lines of one chart. The snippets themselves are written by
//! [`crate::engine::export`]; this only gathers their context and lays out what the panel shows.
//!
//! Architecture invariant: the API key never reaches a snippet. [`context_of`] reads only the
//! base URL and the model names from [`Settings`], and a test holds it to that.

use crate::app::policy_form::fact_source;
use crate::engine::export::{
    AssumedSummary, Export, ExportContext, Target, export, import_policy, schedule_difference,
};
use crate::engine::facts::PinnedFact;
use crate::engine::message::Role;
use crate::engine::models::window_of;
use crate::engine::policy::{Policy, Trigger, TriggerKind};
use crate::engine::schedule::{
    MessageInput, MessageRun, PlayedMessage, ScheduleInput, schedule_messages,
};
use crate::engine::settings::Settings;
use crate::route::Route;
use crate::view::chart::Series;
use crate::view::tuner::trigger_from_route;

/// Everything the panel shows for one target.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportView {
    pub target: Target,
    pub code: String,
    /// The highlighter's name for the snippet's language (`data-language` on the code block).
    pub language: &'static str,
    pub file_name: &'static str,
    pub exact: bool,
    /// One sentence: whether the snippet runs this very policy.
    pub verdict: String,
    /// What differs, one sentence each (empty when exact).
    pub differences: Vec<String>,
    /// What the difference does on the conversation on screen, when there is one to play.
    pub schedule: Option<String>,
    /// Tokens per request under your policy and under the snippet's, when they differ.
    pub chart: Vec<Series>,
}

/// What the panel needs to know besides the policy: the Settings, the pinned facts and the
/// sizes of the conversation on screen (the Tuner's, the chat's or the session's).
pub struct ExportInputs<'a> {
    pub settings: &'a Settings,
    pub facts: &'a [PinnedFact],
    pub conversation: &'a ScheduleInput,
}

/// The note beside Copy once the browser has written the snippet to the clipboard.
pub const COPIED: &str = "Copied to the clipboard.";
/// The note beside Copy when the browser refused (no clipboard, or no permission).
pub const NOT_COPIED: &str = "The browser did not let the page copy: select the code and copy it.";

/// The note beside Copy, whether or not the browser wrote the snippet to the clipboard.
pub fn copy_note(copied: bool) -> &'static str {
    if copied { COPIED } else { NOT_COPIED }
}

/// The choices of the target picker, as (slug, label).
pub fn target_options() -> Vec<(&'static str, &'static str)> {
    Target::ALL.iter().map(|t| (t.slug(), t.label())).collect()
}

/// The panel for `policy` exported to `target`.
pub fn export_view(target: Target, policy: &Policy, inputs: &ExportInputs<'_>) -> ExportView {
    let pinned = pinned_lines(inputs.facts);
    let ctx = context_of(policy, inputs.settings, &pinned);
    let out: Export = export(target, policy, &ctx);
    let (schedule, chart) = if out.exact || inputs.conversation.turns == 0 {
        (None, Vec::new())
    } else {
        let sizer = AssumedSummary {
            words: inputs.conversation.summary_tokens,
        };
        let played = played_turns(inputs.conversation, &sizer);
        let diff = schedule_difference(policy, &out.runs, &played);
        let chart = vec![
            series(
                "your policy",
                "summary",
                &schedule_messages(policy, &played),
            ),
            series(
                "the snippet's policy",
                "window",
                &schedule_messages(&out.runs, &played),
            ),
        ];
        (Some(sentence_case(&diff.sentence)), chart)
    };
    let verdict = if out.exact {
        format!(
            "{} runs this very policy, request for request.",
            target.label()
        )
    } else {
        format!(
            "{} cannot express this policy exactly; the snippet runs the nearest policy it can:",
            target.label()
        )
    };
    ExportView {
        target,
        code: out.code,
        language: target.language().slug(),
        file_name: target.file_name(),
        exact: out.exact,
        verdict,
        differences: out.differences,
        schedule,
        chart,
    }
}

/// The context a snippet carries: the prompt, its word limit and must-keep list from the
/// policy, the pinned facts, and from Settings only the model names and the base URL (a
/// summariser model left empty is the chat model, as the app runs it). Never the key.
pub fn context_of<'a>(
    policy: &'a Policy,
    settings: &'a Settings,
    pinned: &'a [String],
) -> ExportContext<'a> {
    let chat_model = settings.chat_model.trim();
    let summary_model = match settings.summary_model.trim() {
        "" => chat_model,
        named => named,
    };
    ExportContext {
        summary_prompt: &policy.prompt.text,
        word_limit: Some(policy.prompt.word_limit),
        must_keep: &policy.prompt.must_keep,
        pinned,
        chat_model,
        summary_model,
        base_url: settings.base_url.trim(),
        context_window: context_window(policy, chat_model),
    }
}

/// The pinned facts as the policy panel shows them: the label, and the text it is checked by
/// when that differs ("salary: 1,20,000").
pub fn pinned_lines(facts: &[PinnedFact]) -> Vec<String> {
    facts
        .iter()
        .map(|f| {
            let source = fact_source(f);
            if source == f.label {
                f.label.clone()
            } else {
                format!("{}: {source}", f.label)
            }
        })
        .collect()
}

/// The policy the Tuner exports: the Tuner's trigger (from the link) with the rest of the
/// policy on screen (the policy panel's prompt, placement, fold mode and exact fields).
pub fn tuner_policy(route: &Route, on_screen: &Policy) -> Result<Policy, String> {
    let trigger = trigger_from_route(route).map_err(|e| e.to_string())?;
    let policy = Policy {
        trigger,
        ..on_screen.clone()
    };
    policy.validate().map_err(|e| e.to_string())?;
    Ok(policy)
}

/// A policy JSON read back (pasted or from a file named `place`), or why it cannot be, naming
/// the place and the reason.
pub fn read_policy(place: &str, text: &str) -> Result<Policy, String> {
    if text.trim().is_empty() {
        return Err(format!(
            "{place}: it is empty; paste or choose a policy JSON file"
        ));
    }
    import_policy(text).map_err(|reason| format!("{place}: {reason}"))
}

/// A policy JSON read back from the chosen file `name`: its text, or `None` when the browser
/// could not read the file.
pub fn read_policy_file(name: &str, text: Option<&str>) -> Result<Policy, String> {
    match text {
        Some(text) => read_policy(name, text),
        None => Err(format!("{name}: the browser could not read the file")),
    }
}

/// The window the snippet's window-based thresholds are a share of: the window trigger's own,
/// else the chat model's known window, else the window trigger's default.
fn context_window(policy: &Policy, chat_model: &str) -> u32 {
    match policy.trigger {
        Trigger::Window { context, .. } => context,
        _ => window_of(chat_model).unwrap_or_else(|| TriggerKind::default_of("context")),
    }
}

fn series(label: &'static str, class: &'static str, run: &MessageRun) -> Series {
    Series {
        label,
        class,
        values: run.requests.iter().map(|r| r.tokens as f64).collect(),
    }
}

/// The conversation's turns as messages, a user message and a reply each, as the turn-level
/// dry run plays an exact policy (`engine::schedule`): the message-level run needs messages, and
/// the Tuner, the chat and a session all have their turns' sizes.
fn played_turns<'a>(input: &ScheduleInput, sizer: &'a AssumedSummary) -> MessageInput<'a> {
    let mut messages = Vec::with_capacity(2 * input.turns as usize);
    for turn in 1..=input.turns {
        let size = input.size(turn);
        for (role, tokens) in [(Role::User, size.user), (Role::Assistant, size.assistant)] {
            messages.push(PlayedMessage {
                role,
                tokens,
                chars: tokens.saturating_mul(4),
                calls: false,
            });
        }
    }
    MessageInput {
        messages,
        system_prompt: "",
        system_tokens: input.system_tokens,
        sizer,
    }
}

/// `text` with its first letter capitalised, as a sentence of its own.
fn sentence_case(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => format!(
            "{}{}.",
            first.to_uppercase(),
            chars.as_str().trim_end_matches('.')
        ),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::policy::Trigger;

    fn settings() -> Settings {
        Settings {
            base_url: "http://127.0.0.1:11434/v1".to_owned(),
            api_key: "sk-do-not-ship-me".to_owned(),
            chat_model: "chat-model-x".to_owned(),
            summary_model: String::new(),
            ..Settings::default()
        }
    }

    fn tokens_policy() -> Policy {
        let mut policy = Policy::new(Trigger::Tokens {
            budget: 600,
            keep_tokens: 200,
        })
        .unwrap();
        policy.prompt.text = "Summarise and keep every figure.".to_owned();
        policy.prompt.must_keep = vec!["the salary".to_owned()];
        policy
    }

    fn view(target: Target, policy: &Policy) -> ExportView {
        let facts = [PinnedFact::phrase("salary", "1,20,000")];
        let conversation = ScheduleInput::uniform(24);
        let settings = settings();
        let inputs = ExportInputs {
            settings: &settings,
            facts: &facts,
            conversation: &conversation,
        };
        export_view(target, policy, &inputs)
    }

    #[test]
    fn every_snippet_carries_the_prompt_models_and_base_url_and_never_the_key() {
        let policy = tokens_policy();
        for target in Target::ALL {
            let v = view(target, &policy);
            assert!(
                !v.code.contains("sk-do-not-ship-me"),
                "{target:?} ships the key"
            );
            // The summariser model left empty is the chat model, so the chat model's name is there.
            assert!(v.code.contains("chat-model-x"), "{target:?}: {}", v.code);
            assert!(v.code.contains("127.0.0.1:11434"), "{target:?}");
            assert!(v.code.contains("keep every figure"), "{target:?}");
            assert_eq!(v.file_name, target.file_name());
            assert_eq!(v.language, target.language().slug());
        }
    }

    #[test]
    fn a_snippet_that_runs_another_policy_says_what_differs_and_charts_both_runs() {
        let policy = tokens_policy();
        let views: Vec<ExportView> = Target::ALL.iter().map(|&t| view(t, &policy)).collect();
        let json = views.iter().find(|v| v.target == Target::Json).unwrap();
        assert!(json.exact && json.differences.is_empty() && json.schedule.is_none());
        assert!(json.chart.is_empty());
        let inexact: Vec<&ExportView> = views.iter().filter(|v| !v.exact).collect();
        assert!(
            !inexact.is_empty(),
            "some target cannot run a token trigger over turns"
        );
        for v in inexact {
            assert!(!v.differences.is_empty(), "{:?}", v.target);
            assert!(v.verdict.contains("nearest policy"), "{}", v.verdict);
            let sentence = v.schedule.as_deref().unwrap();
            assert!(sentence.starts_with("On this conversation"), "{sentence}");
            assert_eq!(v.chart.len(), 2);
            assert_eq!(v.chart[0].values.len(), 24, "one request a turn");
            assert_eq!(v.chart[0].values.len(), v.chart[1].values.len());
        }
    }

    #[test]
    fn the_json_snippet_reads_back_to_the_same_policy_and_bad_input_names_the_place() {
        let policy = tokens_policy();
        let json = view(Target::Json, &policy);
        assert_eq!(read_policy("the pasted text", &json.code), Ok(policy));
        let empty = read_policy("the pasted text", "  ").unwrap_err();
        assert!(empty.starts_with("the pasted text: it is empty"), "{empty}");
        let broken = read_policy("policy.json", "{\"policy\": ").unwrap_err();
        assert!(broken.starts_with("policy.json: "), "{broken}");
        assert!(broken.contains("line 1"), "{broken}");
    }

    #[test]
    fn pinned_facts_read_as_the_panel_shows_them() {
        let facts = [
            PinnedFact::phrase("salary", "1,20,000"),
            PinnedFact::phrase("no equities", "no equities"),
        ];
        assert_eq!(pinned_lines(&facts), ["salary: 1,20,000", "no equities"]);
    }

    #[test]
    fn the_tuner_exports_its_trigger_with_the_rest_of_the_policy_on_screen() {
        let on_screen = tokens_policy();
        let route = Route::parse("?tab=tuner&trigger=turns&max_turns=6&keep=2");
        let policy = tuner_policy(&route, &on_screen).unwrap();
        assert_eq!(
            policy.trigger,
            Trigger::Turns {
                max_turns: 6,
                keep: 2
            }
        );
        assert_eq!(policy.prompt, on_screen.prompt);
        let bad = Route::parse("?tab=tuner&trigger=turns&max_turns=2&keep=2");
        assert!(tuner_policy(&bad, &on_screen).unwrap_err().contains("keep"));
    }

    #[test]
    fn the_copy_note_says_whether_the_clipboard_took_the_snippet() {
        assert_eq!(copy_note(true), COPIED);
        assert_eq!(copy_note(false), NOT_COPIED);
        assert_ne!(COPIED, NOT_COPIED);
    }

    #[test]
    fn a_chosen_file_is_read_as_pasted_text_is_and_an_unreadable_one_is_named() {
        assert_eq!(
            read_policy_file("policy.json", None),
            Err("policy.json: the browser could not read the file".to_owned())
        );
        assert_eq!(
            read_policy_file("policy.json", Some("  ")),
            read_policy("policy.json", "  ")
        );
        assert!(
            read_policy_file("policy.json", Some("  "))
                .unwrap_err()
                .starts_with("policy.json: it is empty")
        );
    }
}
