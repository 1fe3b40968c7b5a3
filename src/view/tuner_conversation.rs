//! The Tuner's "Conversation" choice: which conversation a dry run is over (the simulated one,
//! the chat on screen or a library session), where its sizes come from, and the chart's
//! caption, whose simulated turn sizes are read from the simulation's own
//! [`ScheduleInput::uniform`], never written out a second time.

use crate::app::library::Library;
use crate::app::workbench::Workbench;
use crate::engine::message::CountTokens;
use crate::engine::schedule::ScheduleInput;
use crate::view::inspect::InspectView;
use crate::view::tuner::{ON_SCREEN, SIMULATED};

/// The conversation chosen under "Conversation".
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TunerConversation {
    /// Turns of assumed sizes, as many as the link says.
    #[default]
    Simulated,
    /// The conversation on the Chat tab: the demo loaded, else the live chat.
    OnScreen,
    /// A library session, by id.
    Session(String),
}

impl TunerConversation {
    /// The choice an option's value stands for.
    pub fn from_value(value: &str) -> TunerConversation {
        match value {
            SIMULATED => TunerConversation::Simulated,
            ON_SCREEN => TunerConversation::OnScreen,
            id => TunerConversation::Session(id.to_owned()),
        }
    }

    /// The value of the option that stands for this choice.
    pub fn value(&self) -> &str {
        match self {
            TunerConversation::Simulated => SIMULATED,
            TunerConversation::OnScreen => ON_SCREEN,
            TunerConversation::Session(id) => id,
        }
    }

    /// The real sizes of the chosen conversation, or `None` for the simulated one (whose sizes
    /// the link describes). Only the source the choice names is read: `on_screen` measures the
    /// chat on screen, `session` a library session by id.
    pub fn input(
        &self,
        on_screen: impl FnOnce() -> Option<ScheduleInput>,
        session: impl FnOnce(&str) -> Option<ScheduleInput>,
    ) -> Option<ScheduleInput> {
        match self {
            TunerConversation::Simulated => None,
            TunerConversation::OnScreen => on_screen(),
            TunerConversation::Session(id) => session(id),
        }
    }
}

/// The real sizes of library session `id`, measured as Inspect measures it; `None` when the
/// library holds no such session (it was deleted meanwhile).
pub fn session_input(
    library: &Library,
    id: &str,
    counter: &dyn CountTokens,
) -> Option<ScheduleInput> {
    library
        .get(id)
        .map(|entry| InspectView::new(&entry.session, counter).sizes)
}

/// The turns of the chat on screen, when it has any: only then is it offered as a conversation
/// to run on.
pub fn on_screen_turns(workbench: &Workbench) -> Option<u32> {
    Some(workbench.on_screen().memory().turn_count()).filter(|&turns| turns > 0)
}

/// The token chart's caption after its key: the simulated conversation's assumed sizes, or the
/// session's own.
pub fn chart_caption(simulated: bool) -> String {
    if simulated {
        let assumed = ScheduleInput::uniform(1);
        let turn = assumed.size(1);
        format!(
            " — tokens per request, assuming {}-token questions, {}-token replies and a {}-token summary.",
            turn.user, turn.assistant, assumed.summary_tokens
        )
    } else {
        " — tokens per request, with the session's own turn sizes and its last summary's size."
            .to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::library::Entry;
    use crate::engine::message::WordCounter;
    use crate::engine::schedule::{TurnSize, schedule};
    use crate::engine::session::synthetic;
    use crate::route::Route;
    use crate::view::tuner::{Tuner, conversation_options, trigger_from_route};

    #[test]
    fn every_option_value_reads_back_as_the_choice_it_stands_for() {
        let library = Library::from_stored(vec![Entry {
            id: "kept".to_owned(),
            session: synthetic(4),
            updated_ms: 0,
            revision: 1,
            origin: None,
        }]);
        let options = conversation_options(&library, Some(3));
        let choices: Vec<TunerConversation> = options
            .iter()
            .map(|o| TunerConversation::from_value(&o.value))
            .collect();
        assert_eq!(
            choices,
            [
                TunerConversation::Simulated,
                TunerConversation::OnScreen,
                TunerConversation::Session("kept".to_owned()),
            ]
        );
        for (option, choice) in options.iter().zip(&choices) {
            assert_eq!(choice.value(), option.value);
        }
        assert_eq!(TunerConversation::default(), TunerConversation::Simulated);
    }

    #[test]
    fn each_choice_reads_only_the_source_it_names() {
        let sizes = |turns| Some(ScheduleInput::uniform(turns));
        let screen = || sizes(2);
        let session = |id: &str| (id == "kept").then(|| ScheduleInput::uniform(9));
        assert_eq!(TunerConversation::Simulated.input(screen, session), None);
        assert_eq!(TunerConversation::OnScreen.input(screen, session), sizes(2));
        assert_eq!(
            TunerConversation::Session("kept".to_owned()).input(screen, session),
            sizes(9)
        );
        assert_eq!(
            TunerConversation::Session("gone".to_owned()).input(screen, session),
            None
        );
        // The simulated conversation never measures the chat on screen.
        let untouched = || -> Option<ScheduleInput> { panic!("the chat on screen was measured") };
        assert_eq!(TunerConversation::Simulated.input(untouched, session), None);
    }

    #[test]
    fn a_library_session_is_measured_as_inspect_measures_it() {
        let library = Library::from_stored(vec![Entry {
            id: "kept".to_owned(),
            session: synthetic(6),
            updated_ms: 0,
            revision: 1,
            origin: None,
        }]);
        let sizes = session_input(&library, "kept", &WordCounter).expect("the session is kept");
        assert_eq!(sizes, InspectView::new(&synthetic(6), &WordCounter).sizes);
        assert_eq!(sizes.turns, 6);
        assert_eq!(session_input(&library, "gone", &WordCounter), None);
    }

    #[test]
    fn the_simulated_caption_names_the_sizes_the_simulation_runs_on() {
        let caption = chart_caption(true);
        let route = Route::parse("?tab=tuner&trigger=turns&max_turns=4&keep=2&turns=1");
        let tuner = Tuner::from_route(&route);
        assert!(tuner.simulated);
        // The first request of the simulated run holds the system prompt and one question:
        // the question's size in the caption is the one the dry run used.
        let run = tuner.outcome.expect("valid parameters");
        let input = ScheduleInput::uniform(1);
        let TurnSize { user, assistant } = input.size(1);
        assert_eq!(
            run.schedule.rows[0].tokens,
            u64::from(input.system_tokens) + u64::from(user)
        );
        let policy = crate::engine::policy::Policy::new(trigger_from_route(&route).unwrap());
        assert_eq!(run.schedule, schedule(&policy.unwrap(), &input));
        assert_eq!(
            caption,
            format!(
                " — tokens per request, assuming {user}-token questions, {assistant}-token replies and a {}-token summary.",
                input.summary_tokens
            )
        );
        assert!(caption.contains("30-token questions, 90-token replies and a 150-token summary"));
        assert_eq!(
            chart_caption(false),
            " — tokens per request, with the session's own turn sizes and its last summary's size."
        );
    }

    #[test]
    fn the_chat_on_screen_is_offered_once_it_has_a_turn() {
        let mut workbench = Workbench::default();
        assert_eq!(on_screen_turns(&workbench), None, "an empty live chat");
        workbench.load(crate::route::DemoKind::FinCoach);
        assert_eq!(on_screen_turns(&workbench), None, "a demo not started");
        workbench.step(&WordCounter);
        assert_eq!(on_screen_turns(&workbench), Some(1));
    }
}
