//! What the Chat tab shows: the conversation on screen laid out as its folded archive, the
//! summary pinned as the front page and the verbatim turns; the policy in use; and where a demo
//! stands; and the first visit's welcome ([`shows_welcome`], [`WELCOME_DEMOS`],
//! [`welcome_hook`]). A message's labels are `message.rs`'s, the policy editor's hooks and
//! pinned facts `policy_editor.rs`'s. The demo bar and the hints around it are `bar.rs`'s. The context window of the last request is
//! [`crate::view::context_window`]'s; the state behind all of it is
//! [`crate::app::workbench::Workbench`].

use crate::app::live::LiveSession;
use crate::app::on_screen::OnScreen;
use crate::app::policy_form::fact_source;
use crate::app::rows::MessageRow;
use crate::app::workbench::Workbench;
use crate::engine::demo::{DemoEvent, DemoPlayer};
use crate::engine::memory::MemoryState;
use crate::route::DemoKind;
use crate::view::labels::{
    describe_trigger, fold_label, placement_label, summary_budget, turns_label,
};

pub mod bar;
mod continued;
pub mod message;
pub mod policy_editor;
pub mod summaries;

pub use continued::{ContinuedNote, chat_window, continued_note};

/// A conversation as the Chat tab lays it out: the folded archive, the front page, then the
/// verbatim turns (and the reply arriving now).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conversation {
    pub folded: Vec<MessageRow>,
    pub front_page: Option<FrontPage>,
    pub verbatim: Vec<MessageRow>,
}

/// The current summary, shown above the verbatim turns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrontPage {
    pub text: String,
    pub tokens: u32,
    /// The edition it is.
    pub cycle: u32,
    /// The last turn it covers.
    pub summarised_to: u32,
}

/// The policy of the conversation on screen, as label and value rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyPanel {
    pub rows: Vec<(&'static str, String)>,
    /// The facts the summariser prompt asks to keep.
    pub must_keep: Vec<String>,
    /// The pinned facts the editions are checked for: (label, phrase or pattern).
    pub pinned: Vec<(String, String)>,
}

/// Where a demo stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    pub asked: u32,
    pub total: u32,
    pub done: bool,
    /// What the last step did, in words.
    pub last_step: Option<String>,
}

impl Conversation {
    /// Any conversation's layout.
    pub fn of_screen(shown: &dyn OnScreen) -> Conversation {
        let (folded, verbatim) = shown.rows().into_iter().partition(MessageRow::is_folded);
        Conversation {
            folded,
            front_page: front_page_of(shown.memory()),
            verbatim,
        }
    }

    /// A demo's conversation.
    pub fn of_demo(player: &DemoPlayer) -> Conversation {
        Conversation::of_screen(player)
    }

    /// The live conversation, with the reply arriving now.
    pub fn of_live(session: &LiveSession) -> Conversation {
        Conversation::of_screen(session)
    }

    /// The conversation on screen: the demo's when one is loaded, else the live chat's.
    pub fn of(workbench: &Workbench) -> Conversation {
        Conversation::of_screen(workbench.on_screen())
    }
}

/// Every archived message of a demo, folded ones included, in order.
pub fn message_rows(player: &DemoPlayer) -> Vec<MessageRow> {
    player.rows()
}

/// The current summary, or `None` before the first cycle.
pub fn front_page(player: &DemoPlayer) -> Option<FrontPage> {
    front_page_of(player.memory())
}

/// The current summary of any memory, or `None` before the first cycle.
pub fn front_page_of(memory: &MemoryState) -> Option<FrontPage> {
    let text = memory.summary()?;
    Some(FrontPage {
        text: text.to_owned(),
        tokens: memory.summary_tokens(),
        cycle: memory.editions().last().map_or(0, |e| e.cycle),
        summarised_to: memory.summarised_to(),
    })
}

/// The policy, preset, pinned facts and placement of the conversation on screen.
pub fn policy_panel(workbench: &Workbench) -> PolicyPanel {
    let shown = workbench.on_screen();
    let policy = shown.memory().policy();
    // An exact policy in one line, in the words the panel's section shows above its fields.
    let exact = policy
        .exact
        .is_exact()
        .then(|| crate::view::policy_summary::summary_line(policy));
    PolicyPanel {
        rows: [
            ("Trigger", describe_trigger(&policy.trigger)),
            ("Summary goes", placement_label(policy.placement).to_owned()),
            ("Each cycle", fold_label(policy.fold).to_owned()),
            ("Prompt preset", policy.prompt.preset.label().to_owned()),
            ("Word limit", format!("{} words", policy.prompt.word_limit)),
            ("Summary budget", summary_budget(policy)),
            ("Summariser", shown.summariser().to_owned()),
        ]
        .into_iter()
        .chain(exact.map(|e| ("Exact policy", e)))
        .collect(),
        must_keep: policy.prompt.must_keep.clone(),
        pinned: shown
            .pinned()
            .iter()
            .map(|f| (f.label.clone(), fact_source(f).to_owned()))
            .collect(),
    }
}

/// What the Chat tab says on a first visit, in two sentences: what summary memory is.
pub const WELCOME: [&str; 2] = [
    "Summary memory keeps a long chat inside its budget: once a trigger fires, the oldest turns are folded into a short summary written by a model, and only the newest turns are sent word for word.",
    "It saves tokens, but every summary is rewritten from the one before, so a fact or a rule can quietly drift; the demos below show both sides, offline, with nothing sent anywhere.",
];

/// The first visit's buttons: one per demo, each loading it and playing its first step.
pub const WELCOME_DEMOS: [(DemoKind, &str); 2] = [
    (DemoKind::FinCoach, "Watch the salary survive six turns"),
    (DemoKind::Drift, "Watch a hard rule drift"),
];

/// The hook of the welcome's button for demo `kind`: `welcome-fincoach`.
pub fn welcome_hook(kind: DemoKind) -> String {
    format!("welcome-{}", kind.slug())
}

/// Whether the Chat tab shows the welcome: nothing has started yet, no demo is loaded and the
/// live chat holds no message (a resumed chat, or one in flight, is where the user was).
pub fn shows_welcome(workbench: &Workbench) -> bool {
    workbench.is_live() && workbench.live.memory().archive().is_empty() && !workbench.live.is_busy()
}

/// Where the demo stands and what its last step did.
pub fn progress(player: &DemoPlayer) -> Progress {
    let (asked, total) = player.progress();
    Progress {
        asked,
        total,
        done: player.is_done(),
        last_step: player.events().last().map(describe_event),
    }
}

/// The step in words, e.g. "Edition 1 printed: turns 1–2 folded into the summary."
pub fn describe_event(event: &DemoEvent) -> String {
    match event {
        DemoEvent::Asked { turn } => format!("Turn {turn}: the user's message was sent."),
        DemoEvent::Replied { turn } => format!("Turn {turn}: the scripted reply arrived."),
        DemoEvent::Summarised {
            cycle,
            folded: Some(range),
        } => format!(
            "Edition {cycle} printed: {} folded into the summary.",
            turns_label(range.first, range.last)
        ),
        DemoEvent::Summarised {
            cycle,
            folded: None,
        } => {
            format!("Edition {cycle} printed: the summary was compressed.")
        }
        DemoEvent::PolicyChanged { turn } => format!(
            "Policy changed after turn {turn}: the new trigger is checked from the next reply on."
        ),
        DemoEvent::SummaryReplaced { cycle } => {
            format!("Edition {cycle} printed: the summary was replaced by hand.")
        }
        DemoEvent::SummaryRequested { turn } => {
            format!("Summarise now after turn {turn}: the next step prints the edition.")
        }
    }
}

#[cfg(test)]
mod tests;
