//! What the Chat tab's demo bar and the hints around it show, as plain booleans and strings:
//! which buttons appear, which are disabled, the progress line, and the way out of a request
//! too long. Computed from plain values ([`ChatState`]) or read off the [`Workbench`], so every
//! visibility rule is tested natively.

use crate::app::workbench::Workbench;
use crate::engine::openai::Purpose;
use crate::route::DemoKind;
use crate::view::chat::Progress;

/// What the demo bar's rules read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChatState {
    /// The demo loaded, `None` for the live chat.
    pub demo: Option<DemoKind>,
    /// Whether the live chat is on screen.
    pub live: bool,
    /// Whether the endpoint set in Settings is valid.
    pub endpoint_valid: bool,
    /// Whether the first visit's welcome is shown.
    pub welcome: bool,
    /// Whether the demo on screen is played to its end (true without a demo).
    pub done: bool,
}

/// The demo bar and the hints around it, as the Chat tab renders them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatBar {
    /// Step, Play all, Reset and the summariser picker: a demo's controls appear with the demo,
    /// since before one is picked they could not act.
    pub show_demo_controls: bool,
    /// Step and Play all are disabled once the demo is over.
    pub steps_disabled: bool,
    /// The summariser picker's first option, named for what answers the demo's jobs.
    pub scripted_label: &'static str,
    /// "Your endpoint" is offered only with a valid endpoint.
    pub model_option_disabled: bool,
    /// "Run live" needs a demo to send and an endpoint to send it to.
    pub show_run_live: bool,
    /// "Summarise now" folds a demo offline; the live chat's needs the endpoint.
    pub show_summarise_now: bool,
    /// The welcome offers the lesson itself; after it, the demo bar does.
    pub show_lesson_open: bool,
    /// With a demo and no endpoint: why "Your endpoint" and Run live are not offered.
    pub show_no_endpoint: bool,
    /// Without a demo, after the welcome: what the picker does.
    pub show_pick_hint: bool,
    /// The raw-replies toggle above the conversation, not over the welcome.
    pub show_raw_toggle: bool,
}

impl ChatBar {
    pub fn of(state: ChatState) -> ChatBar {
        let demo = state.demo.is_some();
        ChatBar {
            show_demo_controls: demo,
            steps_disabled: state.done,
            scripted_label: if state.demo.is_some_and(DemoKind::is_recorded) {
                "Recorded (the real model's own editions)"
            } else {
                "Scripted (abstractive, drifts like a model)"
            },
            model_option_disabled: !state.endpoint_valid,
            show_run_live: demo && state.endpoint_valid,
            show_summarise_now: !state.live || state.endpoint_valid,
            show_lesson_open: !state.welcome,
            show_no_endpoint: demo && !state.endpoint_valid,
            show_pick_hint: !demo && !state.welcome,
            show_raw_toggle: !state.welcome,
        }
    }
}

/// The way out of a chat request too long for the model's context window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WayOut {
    /// "Fold now": there are turns the trigger could fold.
    pub fold_now: bool,
    /// "Leave out the longest message": its label, when a message is still sent.
    pub exclude_longest: Option<String>,
}

/// The way out, while the live chat's last chat request was too long; `None` otherwise.
pub fn way_out(workbench: &Workbench) -> Option<WayOut> {
    (workbench.is_live() && workbench.live.too_long() == Some(Purpose::Chat)).then(|| WayOut {
        fold_now: workbench.live.memory().can_fold_now(),
        exclude_longest: workbench.live.longest_sent().map(|(_, turn, tokens)| {
            format!("Leave out the longest message (turn {turn}, {tokens} tokens)")
        }),
    })
}

/// Whether the live chat waits before a retry (its countdown and "Cancel retries" are shown).
pub fn retry_pending(workbench: &Workbench) -> bool {
    workbench.is_live() && workbench.live.retry_wait().is_some()
}

/// The progress line's bold part, e.g. "Turn 3 of 6 · finished".
pub fn progress_text(progress: &Progress) -> String {
    format!(
        "Turn {} of {}{}",
        progress.asked,
        progress.total,
        if progress.done { " · finished" } else { "" },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::live::{LiveAction, ReplyEnd, RetryWait};
    use crate::engine::message::WordCounter;
    use crate::engine::openai::ApiError;

    /// The live chat after `text` was sent and its reply failed with `error`.
    fn failed_live(texts: &[&str], error: &ApiError) -> Workbench {
        let mut workbench = Workbench::default();
        for (at, text) in (1..).zip(texts) {
            let Some(LiveAction::Reply(request)) = workbench.send(text, at, &WordCounter) else {
                panic!("the live chat sends {text:?}");
            };
            let end = if at as usize == texts.len() {
                ReplyEnd::of_error(String::new(), error)
            } else {
                ReplyEnd::Complete(format!("Reply {at}."))
            };
            workbench
                .live
                .reply_ended(&request, None, end, at + 1, &WordCounter);
        }
        workbench
    }

    fn bar(demo: Option<DemoKind>, endpoint_valid: bool, welcome: bool) -> ChatBar {
        ChatBar::of(ChatState {
            demo,
            live: demo.is_none(),
            endpoint_valid,
            welcome,
            done: false,
        })
    }

    #[test]
    fn a_demos_controls_appear_with_the_demo_and_run_live_with_an_endpoint() {
        let offline = bar(Some(DemoKind::FinCoach), false, false);
        assert!(offline.show_demo_controls);
        assert!(!offline.show_run_live);
        assert!(offline.model_option_disabled);
        assert!(offline.show_no_endpoint);
        assert!(offline.show_summarise_now, "a demo folds offline");
        assert!(!offline.show_pick_hint);

        let connected = bar(Some(DemoKind::FinCoach), true, false);
        assert!(connected.show_run_live);
        assert!(!connected.model_option_disabled);
        assert!(!connected.show_no_endpoint);

        let none = bar(None, true, false);
        assert!(!none.show_demo_controls);
        assert!(!none.show_run_live);
        assert!(!none.show_no_endpoint);
        assert!(none.show_pick_hint);
    }

    #[test]
    fn the_live_chat_offers_summarise_now_only_with_an_endpoint() {
        assert!(!bar(None, false, false).show_summarise_now);
        assert!(bar(None, true, false).show_summarise_now);
    }

    #[test]
    fn the_welcome_hides_the_lesson_button_the_raw_toggle_and_the_pick_hint() {
        let welcome = bar(None, false, true);
        assert!(!welcome.show_lesson_open);
        assert!(!welcome.show_raw_toggle);
        assert!(!welcome.show_pick_hint);
        let after = bar(None, false, false);
        assert!(after.show_lesson_open);
        assert!(after.show_raw_toggle);
    }

    #[test]
    fn steps_stop_at_the_end_and_a_recorded_demo_names_its_editions_recorded() {
        let mut state = ChatState {
            demo: Some(DemoKind::Real135m),
            done: true,
            ..ChatState::default()
        };
        let over = ChatBar::of(state);
        assert!(over.steps_disabled);
        assert!(over.scripted_label.starts_with("Recorded"));
        state.demo = Some(DemoKind::Drift);
        state.done = false;
        let drift = ChatBar::of(state);
        assert!(!drift.steps_disabled);
        assert!(drift.scripted_label.starts_with("Scripted"));
    }

    #[test]
    fn the_progress_line_says_when_the_demo_is_finished() {
        let mut progress = Progress {
            asked: 3,
            total: 6,
            done: false,
            last_step: None,
        };
        assert_eq!(progress_text(&progress), "Turn 3 of 6");
        progress.asked = 6;
        progress.done = true;
        assert_eq!(progress_text(&progress), "Turn 6 of 6 · finished");
    }

    #[test]
    fn a_chat_request_too_long_offers_folding_and_leaving_the_longest_message_out() {
        let too_long = ApiError::ContextTooLong {
            purpose: Some(Purpose::Chat),
            requested: Some(9000),
            limit: Some(8192),
            message: "maximum context length is 8192 tokens".into(),
        };
        let texts = [
            "one",
            "two",
            "three",
            "a very long pasted text of many many words",
        ];
        let workbench = failed_live(&texts, &too_long);
        assert_eq!(workbench.live.too_long(), Some(Purpose::Chat));
        let (_, turn, tokens) = workbench.live.longest_sent().expect("a message is sent");
        assert_eq!(
            way_out(&workbench),
            Some(WayOut {
                fold_now: workbench.live.memory().can_fold_now(),
                exclude_longest: Some(format!(
                    "Leave out the longest message (turn {turn}, {tokens} tokens)"
                )),
            })
        );
        assert_eq!(turn, 4);
        // Another failure is no request too long, and a demo on screen offers no way out.
        let timeout = ApiError::Timeout { after_ms: None };
        assert_eq!(way_out(&failed_live(&texts, &timeout)), None);
        let mut demo = workbench.clone();
        demo.load(DemoKind::FinCoach);
        assert_eq!(way_out(&demo), None);
    }

    #[test]
    fn the_retry_countdown_shows_only_while_the_live_chat_waits_to_retry() {
        let mut workbench = Workbench::default();
        assert!(!retry_pending(&workbench));
        workbench.live.retrying(RetryWait {
            purpose: Purpose::Chat,
            attempt: 2,
            attempts: 3,
            until_ms: 5_000,
            reason: "The server is busy.".to_owned(),
        });
        assert!(retry_pending(&workbench));
        workbench.load(DemoKind::Drift);
        assert!(!retry_pending(&workbench), "a demo is on screen");
    }
}
