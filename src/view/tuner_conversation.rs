//! The Tuner's "Conversation" choice: which conversation a dry run is over (the simulated one,
//! the chat on screen or a library session), where its sizes come from, and the chart's
//! caption, whose simulated turn sizes are read from the simulation's own
//! [`ScheduleInput::uniform`], never written out a second time.

use crate::app::library::Library;
use crate::app::workbench::Workbench;
use crate::engine::memory::MemoryState;
use crate::engine::message::{CountTokens, Role};
use crate::engine::policy::Counter;
use crate::engine::schedule::{ScheduleInput, TurnSize, system_tokens};
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
    pub fn input<T>(
        &self,
        on_screen: impl FnOnce() -> Option<T>,
        session: impl FnOnce(&str) -> Option<T>,
    ) -> Option<T> {
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

/// A real conversation sized with each counter a preset can be measured with: what the
/// comparison runs a preset on, so that a preset fires where its own counter says. The default
/// counter (the Tuner's o200k_base count) is the conversation's own sizes, and absent here.
pub type CountedSizes = Vec<(Counter, ScheduleInput)>;

/// `memory`'s conversation as a policy measured with `counter` sees it, `base` being its sizes
/// in the run's own count (Inspect's, [`session_input`]): each message sized with the counter
/// ([`Counter::sized`]: its content, its tool calls and, in the chat format, its framing), the
/// system prompt with the counter's per-request tokens, and the summary as the counter counts
/// the latest edition's text (the assumed size while there is none). The default counter is
/// `base` itself.
pub fn counted_input(
    memory: &MemoryState,
    base: &ScheduleInput,
    counter: Counter,
    run: &dyn CountTokens,
) -> ScheduleInput {
    if counter.is_default() {
        return base.clone();
    }
    let empty = TurnSize {
        user: 0,
        assistant: 0,
    };
    let mut sizes = vec![empty; base.sizes.len()];
    for (i, m) in memory.archive().iter().enumerate() {
        if m.role == Role::System {
            continue;
        }
        // The same sums as Inspect's (src/view/inspect.rs, `turn_sizes`).
        let turn = memory.turn_of(i).saturating_sub(1) as usize;
        if sizes.len() <= turn {
            sizes.resize(turn + 1, empty);
        }
        let tokens = counter.sized(m, run);
        match m.role {
            Role::User => sizes[turn].user += tokens,
            Role::Assistant | Role::Tool => sizes[turn].assistant += tokens,
            Role::System => {}
        }
    }
    let summary = memory
        .editions()
        .last()
        .filter(|e| e.tokens_out > 0 && !e.summary.is_empty())
        .map_or(base.summary_tokens, |e| {
            counter.sized_text(Role::System, &e.summary, run)
        });
    ScheduleInput {
        turns: base.turns,
        sizes,
        system_tokens: system_tokens(memory.system_prompt(), counter, run),
        summary_tokens: summary,
        summary_sizes: Vec::new(),
    }
}

/// [`counted_input`] for every counter but the default, in [`Counter::ALL`]'s order.
pub fn counted_sizes(
    memory: &MemoryState,
    base: &ScheduleInput,
    run: &dyn CountTokens,
) -> CountedSizes {
    Counter::ALL
        .into_iter()
        .filter(|c| !c.is_default())
        .map(|c| (c, counted_input(memory, base, c, run)))
        .collect()
}

/// Library session `id` sized with every counter ([`counted_sizes`]), `base` being its sizes
/// ([`session_input`]); `None` when the library holds no such session.
pub fn session_counted(
    library: &Library,
    id: &str,
    base: &ScheduleInput,
    run: &dyn CountTokens,
) -> Option<CountedSizes> {
    library
        .get(id)
        .map(|entry| counted_sizes(&entry.session.memory, base, run))
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
            counted_in: None,
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
            counted_in: None,
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

    /// Counts a text as its characters: a vocabulary that differs from the words the session
    /// was read with, so that two counters size the same messages differently.
    struct Chars;
    impl CountTokens for Chars {
        fn count(&self, text: &str) -> u32 {
            text.chars().count() as u32
        }
    }

    #[test]
    fn each_preset_runs_on_a_session_sized_with_its_own_counter_and_the_switch_moves_it() {
        use crate::app::tuner::Counting;
        use crate::engine::message::Message;
        use crate::engine::peers::{Prices, preset};
        use crate::view::tuner::{compare_policies_counted, counted_with, counting_note};
        // Chinese: a word count sees a sentence as one word, LangChain's estimate a quarter
        // token per character, and the run's vocabulary (characters here) one per character.
        let sentence = "我们明天上午十点在会议室讨论季度预算和招聘计划，请提前准备好数据。";
        let trigger = crate::engine::policy::Trigger::Turns {
            max_turns: 1000,
            keep: 2,
        };
        let policy = crate::engine::policy::Policy::new(trigger).unwrap();
        let mut memory = MemoryState::new("你是一位细心的项目助理。", policy).unwrap();
        let mut messages = Vec::new();
        for t in 0..100 {
            for (role, text) in [
                (Role::User, format!("{t}{sentence}")),
                (Role::Assistant, sentence.repeat(4)),
            ] {
                let message = Message::new(role, text, &Chars, t);
                messages.push(message.clone());
                memory.add_message(message).unwrap();
            }
        }
        let session = crate::engine::library_session::Session::new(
            "zh",
            crate::engine::library_session::SessionSettings::default(),
            memory,
        );
        let base = InspectView::new(&session, &Chars).sizes;
        assert_eq!(base.turns, 100);
        let counted = counted_sizes(&session.memory, &base, &Chars);
        assert_eq!(
            counted.len(),
            Counter::ALL.len() - 1,
            "every counter but the default"
        );
        let of = |c: Counter| &counted.iter().find(|(k, _)| *k == c).unwrap().1;
        let langchain = of(Counter::LangChainApprox);
        let words = of(Counter::Words);
        // Each message is its counter's count of it, to the token.
        use crate::engine::policy::{langchain_message, words_message};
        assert_eq!(langchain.size(2).user, langchain_message(&messages[2]));
        assert_eq!(langchain.size(2).assistant, langchain_message(&messages[3]));
        assert_eq!(words.size(2).user, words_message(&messages[2]));
        assert_ne!(
            words.size(2).user,
            langchain.size(2).user,
            "two counters differ"
        );
        let chars = sentence.chars().count() as u32;
        assert_eq!(base.size(2).user, chars + 1);
        assert!(langchain.size(2).user < base.size(2).user / 2);
        let chat = of(Counter::Tiktoken {
            vocabulary: crate::engine::message::Vocabulary::O200k,
            chat: true,
        });
        assert_eq!(
            chat.size(2).user,
            base.size(2).user + 3 + "user".len() as u32
        );
        assert_eq!(
            chat.system_tokens,
            base.system_tokens + 3 + "system".len() as u32 + 3
        );
        // The comparison runs LangChain's middleware on its own counter's sizes: they differ
        // from o200k_base's, so does its schedule, and switching to exact counts moves it.
        let route = Route::parse("?tab=tuner&trigger=turns&max_turns=6&keep=2&context=8192");
        let slug = "langchain-v1-middleware";
        let p = preset(slug).expect("the preset");
        assert_eq!(p.policy(8192).exact.counter, Counter::LangChainApprox);
        let prices = Prices::flat(1.0, 1.0);
        let run = |counting: &Counting| {
            compare_policies_counted(
                &route,
                Some(&base),
                &counted,
                &[slug],
                prices,
                None,
                counting,
            )
            .pop()
            .unwrap()
        };
        let own = run(&Counting::default());
        let exact = run(&Counting {
            exact: true,
            ..Counting::default()
        });
        let tokens = |c: &crate::view::tuner::Compared| -> Vec<u64> {
            c.outcome.schedule.rows.iter().map(|r| r.tokens).collect()
        };
        assert_ne!(tokens(&own), tokens(&exact));
        assert!(
            own.outcome.first_fold.unwrap() > exact.outcome.first_fold.unwrap(),
            "LangChain's estimate sees a quarter of the characters, so it fires later: {:?} {:?}",
            own.outcome.first_fold,
            exact.outcome.first_fold
        );
        // Its first request is the system prompt and the first question in its own counter.
        assert_eq!(
            own.outcome.schedule.rows[0].tokens,
            u64::from(langchain.system_tokens) + u64::from(langchain.size(1).user)
        );
        // Switched, it is o200k_base, the conversation's own sizes.
        assert_eq!(
            exact.counted_with,
            counted_with(Counter::LangChainApprox, Counter::O200K)
        );
        assert_eq!(
            exact.outcome.schedule.rows[0].tokens,
            u64::from(base.system_tokens) + u64::from(base.size(1).user)
        );
        assert!(own.outcome.parameters.contains(
            "sized with LangChain's count_tokens_approximately over this conversation's messages"
        ));
        assert!(!own.outcome.parameters.contains("Tuner's o200k_base counts"));
        assert!(counting_note(false, &Counting::default()).contains("counted with that counter"));
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
