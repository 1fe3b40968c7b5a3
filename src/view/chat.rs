//! What the Chat tab shows for a demo: the messages with their state, the summary pinned as the
//! front page, the policy, and the context window of the last request next to what a sliding
//! window would have sent instead.

use crate::engine::demo::{DemoEvent, DemoPlayer, DemoScript, TurnRequest};
use crate::engine::drift::CompiledFact;
use crate::engine::memory::{MessageState, starts_turn};
use crate::engine::message::CountTokens;
use crate::engine::message::Role;
use crate::engine::policy::{FoldMode, Placement, Policy, Trigger};
use crate::route::{DemoKind, Route};
use crate::view::policy::{PolicyEdit, PolicyForm};
use crate::view::tuner::window_turns;

/// The app-wide chat state: the demo being played, if any, and the last error. The shell keeps
/// one of these in a signal at the root; every change goes through the methods below.
#[derive(Clone, Debug)]
pub struct Workbench {
    pub demo: Option<DemoPlayer>,
    /// The live conversation with the user's endpoint, shown when no demo is loaded.
    pub live: crate::view::live::LiveSession,
    /// What went wrong in the last action, in words the user can act on.
    pub error: Option<String>,
    /// The side panel's policy form, showing the policy of the conversation on screen.
    pub policy: PolicyForm,
}

impl Default for Workbench {
    fn default() -> Self {
        let live = crate::view::live::LiveSession::default();
        let policy = PolicyForm::from_policy(live.memory().policy(), live.pinned());
        Workbench {
            demo: None,
            live,
            error: None,
            policy,
        }
    }
}

/// One message as the conversation shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageRow {
    /// Position in the archive, from 0; stable, so it keys the row.
    pub index: usize,
    pub role: Role,
    pub content: String,
    pub tokens: u32,
    pub state: MessageState,
    pub turn: u32,
}

/// One message as either conversation shows it, a demo's or the live chat's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversationRow {
    /// Position in the archive, from 0 (the reply arriving takes the next one).
    pub index: usize,
    pub role: Role,
    pub content: String,
    /// `None` for a reply still arriving.
    pub tokens: Option<u32>,
    /// The `data-state` value: `verbatim`, `folded`, `streaming` or `incomplete`.
    pub state: &'static str,
    /// The visible marker next to the message.
    pub marker: &'static str,
    pub turn: u32,
}

/// A conversation as the Chat tab lays it out: the folded archive, the front page, then the
/// verbatim turns (and the reply arriving now).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conversation {
    pub folded: Vec<ConversationRow>,
    pub front_page: Option<FrontPage>,
    pub verbatim: Vec<ConversationRow>,
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

/// The policy a demo runs with, as label and value rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyPanel {
    pub rows: Vec<(&'static str, String)>,
    /// The facts the summariser prompt asks to keep.
    pub must_keep: Vec<String>,
    /// The pinned facts the editions are checked for: (label, phrase or pattern).
    pub pinned: Vec<(String, String)>,
}

/// The parts of one request, in order, with their tokens.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextWindow {
    pub turn: u32,
    pub summary_sent: bool,
    pub segments: Vec<Segment>,
    pub total: u32,
    pub window: WindowAlternative,
    /// Per pinned fact: (label, in this request, in the sliding window's request).
    pub facts: Vec<(String, bool, bool)>,
}

/// One stretch of the stacked bar.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    pub kind: SegmentKind,
    pub label: String,
    pub tokens: u32,
    /// Share of the whole request, 0 to 100.
    pub percent: f64,
}

/// What a stretch of the request holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentKind {
    System,
    Summary,
    Turn,
}

/// The request a sliding window of the same policy would have sent at that turn: the system
/// prompt and the last `size` turns, with nothing in place of the older ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowAlternative {
    pub size: u32,
    pub first: u32,
    pub last: u32,
    /// Turns 1 to `dropped_to` are gone from it; 0 when none are.
    pub dropped_to: u32,
    pub tokens: u32,
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

impl SegmentKind {
    /// The class the stacked bar colours by.
    pub fn slug(self) -> &'static str {
        match self {
            SegmentKind::System => "system",
            SegmentKind::Summary => "summary",
            SegmentKind::Turn => "turn",
        }
    }
}

impl MessageRow {
    /// The `data-state` value.
    pub fn state_slug(&self) -> &'static str {
        match self.state {
            MessageState::Verbatim => "verbatim",
            MessageState::Folded => "folded",
        }
    }

    /// The visible marker next to the message.
    pub fn marker(&self) -> &'static str {
        match self.state {
            MessageState::Verbatim => "verbatim",
            MessageState::Folded => "folded into the summary",
        }
    }

    pub fn role_label(&self) -> &'static str {
        role_label(self.role)
    }
}

impl ConversationRow {
    pub fn role_label(&self) -> &'static str {
        role_label(self.role)
    }
}

impl Conversation {
    /// A demo's conversation.
    pub fn of_demo(player: &DemoPlayer) -> Conversation {
        Conversation::split(
            message_rows(player)
                .into_iter()
                .map(|row| ConversationRow {
                    index: row.index,
                    role: row.role,
                    tokens: Some(row.tokens),
                    state: row.state_slug(),
                    marker: row.marker(),
                    turn: row.turn,
                    content: row.content,
                })
                .collect(),
            front_page(player),
        )
    }

    /// The live conversation, with the reply arriving now.
    pub fn of_live(session: &crate::view::live::LiveSession) -> Conversation {
        let archive = session.memory().archive();
        Conversation::split(
            session
                .rows()
                .into_iter()
                .map(|row| ConversationRow {
                    index: row.index,
                    role: row.role,
                    tokens: archive.get(row.index).map(|m| m.tokens),
                    state: row.state.slug(),
                    marker: row.state.marker(),
                    turn: row.turn,
                    content: row.content,
                })
                .collect(),
            front_page_of(session.memory()),
        )
    }

    /// The conversation on screen: the demo's when one is loaded, else the live chat's.
    pub fn of(workbench: &Workbench) -> Conversation {
        match &workbench.demo {
            Some(player) => Conversation::of_demo(player),
            None => Conversation::of_live(&workbench.live),
        }
    }

    fn split(rows: Vec<ConversationRow>, front_page: Option<FrontPage>) -> Conversation {
        let (folded, verbatim) = rows.into_iter().partition(|r| r.state == "folded");
        Conversation {
            folded,
            front_page,
            verbatim,
        }
    }
}

impl Workbench {
    /// The state a link opens with: the demo it names, loaded at its start.
    pub fn from_route(route: &Route) -> Workbench {
        let mut workbench = Workbench::default();
        if let Some(kind) = route.demo {
            workbench.load(kind);
        }
        workbench
    }

    /// Loads a demo at its start, replacing whatever was loaded.
    pub fn load(&mut self, kind: DemoKind) {
        match DemoPlayer::new(script_for(kind)) {
            Ok(player) => {
                self.demo = Some(player);
                self.error = None;
            }
            Err(err) => {
                self.demo = None;
                self.error = Some(err.to_string());
            }
        }
        self.sync_policy();
    }

    /// Unloads the demo, back to an empty conversation.
    pub fn unload(&mut self) {
        self.demo = None;
        self.error = None;
        self.sync_policy();
    }

    /// Replaces the live conversation, e.g. with a demo run live.
    pub fn set_live(&mut self, live: crate::view::live::LiveSession) {
        self.live = live;
        self.sync_policy();
    }

    /// The policy of the conversation on screen: the demo's, or the live chat's.
    pub fn current_policy(&self) -> &Policy {
        match &self.demo {
            Some(player) => player.memory().policy(),
            None => self.live.memory().policy(),
        }
    }

    /// Records a change made in the policy panel, and applies it to the conversation on screen
    /// when the panel's values are valid. An invalid value changes nothing but the form.
    pub fn edit_policy(&mut self, edit: PolicyEdit) {
        let Some((policy, facts)) = self.policy.edit(edit) else {
            return;
        };
        let (current, pinned) = match &self.demo {
            Some(player) => (player.memory().policy(), player.pinned()),
            None => (self.live.memory().policy(), self.live.pinned()),
        };
        if *current == policy && pinned == facts.as_slice() {
            return;
        }
        let applied = match self.demo.as_mut() {
            Some(player) => player.set_policy(policy, facts).map_err(|e| e.to_string()),
            None => self.live.set_policy(policy, facts),
        };
        self.error = applied.err();
    }

    /// Edition `cycle`'s text becomes the current summary again, as a new edition, in the
    /// conversation on screen: the demo's, or the live chat's.
    pub fn restore(&mut self, cycle: u32, at_ms: u64, counter: &dyn CountTokens) {
        self.error = match self.demo.as_mut() {
            Some(player) => player.restore(cycle, counter).err().map(|e| e.to_string()),
            None => self
                .live
                .restore(cycle, at_ms, counter)
                .err()
                .map(|e| e.to_string()),
        };
    }

    /// The user's own text becomes the current summary of the conversation on screen, as a new
    /// edition marked as edited by hand. Returns whether it was accepted (an empty text is not).
    pub fn edit_summary(&mut self, text: &str, at_ms: u64, counter: &dyn CountTokens) -> bool {
        let result = match self.demo.as_mut() {
            Some(player) => player
                .edit_summary(text, counter)
                .map_err(|e| e.to_string()),
            None => self
                .live
                .edit_summary(text, at_ms, counter)
                .map_err(|e| e.to_string()),
        };
        self.error = result.as_ref().err().cloned();
        result.is_ok()
    }

    /// Every edition of the conversation on screen, oldest first, with its pinned-fact badges.
    pub fn edition_cards(&self) -> Vec<crate::view::editions::EditionCard> {
        match &self.demo {
            Some(player) => crate::view::editions::edition_cards(player),
            None => crate::view::editions::cards_of(self.live.memory(), self.live.pinned()),
        }
    }

    fn sync_policy(&mut self) {
        self.policy = match &self.demo {
            Some(player) => PolicyForm::from_policy(player.memory().policy(), player.pinned()),
            None => PolicyForm::from_policy(self.live.memory().policy(), self.live.pinned()),
        };
    }

    /// The loaded demo's link name.
    pub fn demo_kind(&self) -> Option<DemoKind> {
        self.demo.as_ref().and_then(|p| kind_of(p.script()))
    }

    /// Takes one step of the loaded demo; a no-op without one or once it is over.
    pub fn step(&mut self, counter: &dyn CountTokens) {
        let result = match self.demo.as_mut() {
            Some(player) => player.next(counter).map(|_| ()),
            None => Ok(()),
        };
        self.error = result.err().map(|e| e.to_string());
    }

    /// Plays the loaded demo to its end.
    pub fn play_all(&mut self, counter: &dyn CountTokens) {
        let result = match self.demo.as_mut() {
            Some(player) => player.play_all(counter),
            None => Ok(()),
        };
        self.error = result.err().map(|e| e.to_string());
    }

    /// Counts the loaded demo again with `counter`, as when the vocabulary has arrived after the
    /// engine counted with estimates: the demo is replayed from its start to the step it had
    /// reached, with the user's policy changes, restores and edits in their places, so every
    /// cached count, and every decision the token trigger took on them, follows the new
    /// counter. A live conversation keeps its counts: it needs the user to type,
    /// and the vocabulary is loaded well before a first message can be sent.
    pub fn recount(&mut self, counter: &dyn CountTokens) {
        let Some(player) = &self.demo else {
            return;
        };
        if player.events().is_empty() {
            return;
        }
        // A replay that cannot redo one of the user's actions under the new counts keeps the
        // demo as the user left it, counted as it was: nothing the user did is lost.
        if let Ok(replayed) = player.recounted(counter) {
            self.demo = Some(replayed);
        }
    }

    /// Starts the loaded demo again from its first turn.
    pub fn reset(&mut self) {
        if let Some(kind) = self.demo_kind() {
            self.load(kind);
        }
    }
}

/// The demo a link names.
pub fn script_for(kind: DemoKind) -> DemoScript {
    match kind {
        DemoKind::FinCoach => DemoScript::fincoach(),
        DemoKind::Drift => DemoScript::drift(),
    }
}

/// The link name of a demo script, if it is one of the bundled ones.
pub fn kind_of(script: &DemoScript) -> Option<DemoKind> {
    DemoKind::from_slug(script.slug)
}

/// Every archived message, folded ones included, in order.
pub fn message_rows(player: &DemoPlayer) -> Vec<MessageRow> {
    player
        .messages()
        .into_iter()
        .enumerate()
        .map(|(index, (message, state, turn))| MessageRow {
            index,
            role: message.role,
            content: message.content.clone(),
            tokens: message.tokens,
            state,
            turn,
        })
        .collect()
}

/// The current summary, or `None` before the first cycle.
pub fn front_page(player: &DemoPlayer) -> Option<FrontPage> {
    front_page_of(player.memory())
}

/// The current summary of any memory, or `None` before the first cycle.
pub fn front_page_of(memory: &crate::engine::memory::MemoryState) -> Option<FrontPage> {
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
    let policy = workbench.current_policy();
    let (summariser, facts) = match &workbench.demo {
        Some(player) => (
            "built-in extractive (offline, no model call)",
            player.pinned(),
        ),
        None => (
            "the summariser model set in Settings (the chat model when none is set)",
            workbench.live.pinned(),
        ),
    };
    PolicyPanel {
        rows: vec![
            ("Trigger", describe_trigger(&policy.trigger)),
            ("Summary goes", placement_label(policy.placement).to_owned()),
            ("Each cycle", fold_label(policy.fold).to_owned()),
            ("Prompt preset", policy.prompt.preset.label().to_owned()),
            ("Word limit", format!("{} words", policy.prompt.word_limit)),
            ("Summary budget", summary_budget(policy)),
            ("Summariser", summariser.to_owned()),
        ],
        must_keep: policy.prompt.must_keep.clone(),
        pinned: facts
            .iter()
            .map(|f| {
                (
                    f.label.clone(),
                    crate::view::policy::fact_source(f).to_owned(),
                )
            })
            .collect(),
    }
}

/// The context window of the latest request, or `None` before the first message.
pub fn context_window(player: &DemoPlayer) -> Option<ContextWindow> {
    let request = player.last_request()?;
    Some(window_of(player, request))
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
    }
}

/// "turn 3" or "turns 3–4".
pub fn turns_label(first: u32, last: u32) -> String {
    if first == last {
        format!("turn {first}")
    } else {
        format!("turns {first}–{last}")
    }
}

pub fn role_label(role: Role) -> &'static str {
    match role {
        Role::System => "System",
        Role::User => "User",
        Role::Assistant => "Assistant",
    }
}

/// The trigger in words.
pub fn describe_trigger(trigger: &Trigger) -> String {
    match *trigger {
        Trigger::Turns { max_turns, keep } => format!(
            "every {max_turns} turns: summarise once {max_turns} turns are verbatim, keep the last {keep}"
        ),
        Trigger::Tokens {
            budget,
            keep_tokens,
        } => format!(
            "token budget: summarise past {budget} tokens, keep {keep_tokens} tokens verbatim"
        ),
        Trigger::Every { n } => format!("every {n} messages, keeping the latest turn"),
        Trigger::MessageCount { max_messages } => {
            format!("over {max_messages} verbatim messages, keeping the latest turn")
        }
        Trigger::Manual { keep } => format!("manual: summarise on request, keep the last {keep}"),
    }
}

fn placement_label(placement: Placement) -> &'static str {
    match placement {
        Placement::SecondSystem => "as a second system message, after the system prompt",
        Placement::AppendToSystem => "appended to the system prompt",
        Placement::UserAck => "as a user message with an assistant acknowledgement",
    }
}

fn fold_label(fold: FoldMode) -> &'static str {
    match fold {
        FoldMode::Progressive => "progressive: the old summary plus the new turns",
        FoldMode::RebuildFromArchive => "rebuilt from every folded turn in the archive",
    }
}

fn summary_budget(policy: &Policy) -> String {
    match policy.summary_budget {
        Some(budget) => format!("{budget} tokens, then compress a level up"),
        None => "off".to_owned(),
    }
}

fn window_of(player: &DemoPlayer, request: &TurnRequest) -> ContextWindow {
    let messages = &request.messages;
    // How many messages after the system prompt carry the summary depends on the placement.
    let summary_messages = match (request.summary_sent, request.placement) {
        (false, _) | (true, Placement::AppendToSystem) => 0,
        (true, Placement::SecondSystem) => 1,
        (true, Placement::UserAck) => 2,
    };
    let mut segments = Vec::new();
    if let Some(system) = messages.first() {
        let label = if request.summary_sent && summary_messages == 0 {
            "System prompt and summary"
        } else {
            "System prompt"
        };
        segments.push((SegmentKind::System, label.to_owned(), system.tokens));
    }
    let summary_end = (1 + summary_messages).min(messages.len());
    if summary_messages > 0 {
        let tokens = messages[1..summary_end].iter().map(|m| m.tokens).sum();
        segments.push((
            SegmentKind::Summary,
            format!("Summary of turns 1–{}", request.summarised_to),
            tokens,
        ));
    }
    let mut turn = request.summarised_to;
    let mut previous = None;
    for message in &messages[summary_end..] {
        if starts_turn(previous, message.role) {
            turn += 1;
            segments.push((SegmentKind::Turn, format!("Turn {turn}"), 0));
        }
        if let Some(last) = segments.last_mut() {
            last.2 += message.tokens;
        }
        previous = Some(message.role);
    }
    let (segments, total) = stacked(segments);

    let window = sliding_window(player, request);
    let facts = fact_columns(player, request, &window);
    ContextWindow {
        turn: request.turn,
        summary_sent: request.summary_sent,
        segments,
        total,
        window,
        facts,
    }
}

/// The stretches of a stacked bar from `(kind, label, tokens)` parts, each with its share of the
/// whole, and the whole.
pub fn stacked(parts: Vec<(SegmentKind, String, u32)>) -> (Vec<Segment>, u32) {
    let total: u32 = parts.iter().map(|p| p.2).sum();
    let segments = parts
        .into_iter()
        .map(|(kind, label, tokens)| Segment {
            kind,
            label,
            tokens,
            percent: if total == 0 {
                0.0
            } else {
                f64::from(tokens) * 100.0 / f64::from(total)
            },
        })
        .collect();
    (segments, total)
}

fn sliding_window(player: &DemoPlayer, request: &TurnRequest) -> WindowAlternative {
    let size = window_turns(&player.memory().policy().trigger);
    let last = request.turn;
    let first = last.saturating_sub(size - 1).max(1);
    let system = system_prompt_tokens(player);
    let turns: u32 = window_messages(player, first, last).map(|m| m.tokens).sum();
    WindowAlternative {
        size,
        first,
        last,
        dropped_to: first - 1,
        tokens: system + turns,
    }
}

/// Tokens of the bare system prompt, as counted for the first request (which never has a
/// summary, since no cycle can run before the first reply).
fn system_prompt_tokens(player: &DemoPlayer) -> u32 {
    player
        .requests()
        .first()
        .and_then(|r| r.messages.first())
        .map_or(0, |m| m.tokens)
}

/// The archived messages of turns `first..=last` that had been sent by the time turn `last` was
/// asked (its reply not included).
fn window_messages(
    player: &DemoPlayer,
    first: u32,
    last: u32,
) -> impl Iterator<Item = &crate::engine::message::Message> {
    let memory = player.memory();
    memory
        .archive()
        .iter()
        .enumerate()
        .filter(move |(i, m)| {
            let turn = memory.turn_of(*i);
            turn >= first && (turn < last || (turn == last && m.role == Role::User))
        })
        .map(|(_, m)| m)
}

fn fact_columns(
    player: &DemoPlayer,
    request: &TurnRequest,
    window: &WindowAlternative,
) -> Vec<(String, bool, bool)> {
    player
        .facts()
        .iter()
        .map(|fact: &CompiledFact| {
            let in_request = request.messages.iter().any(|m| fact.is_match(&m.content));
            let in_window = window_messages(player, window.first, window.last)
                .any(|m| fact.is_match(&m.content));
            (fact.label.clone(), in_request, in_window)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::message::{CountTokens, WordCounter};

    fn at_turn(script: DemoScript, turn: u32) -> DemoPlayer {
        let mut player = DemoPlayer::new(script).unwrap();
        while player.progress().0 < turn {
            player.next(&WordCounter).unwrap().unwrap();
        }
        player
    }

    /// Two tokens a word: a counter that disagrees with [`WordCounter`] on every text.
    struct Doubling;

    impl CountTokens for Doubling {
        fn count(&self, text: &str) -> u32 {
            2 * WordCounter.count(text)
        }
    }

    #[test]
    fn recounting_replays_the_demo_to_the_same_step_with_the_new_counter() {
        let mut workbench = Workbench::default();
        workbench.load(DemoKind::FinCoach);
        for _ in 0..9 {
            workbench.step(&WordCounter);
        }
        let before = workbench.demo.as_ref().unwrap().events().to_vec();
        workbench.recount(&Doubling);
        let player = workbench.demo.as_ref().unwrap();
        assert_eq!(player.events(), before.as_slice());
        let rows = message_rows(player);
        assert!(!rows.is_empty());
        for row in rows {
            assert_eq!(row.tokens, Doubling.count(&row.content), "{}", row.content);
        }
        // Nothing to recount before the first step, and no demo is no error.
        let mut fresh = Workbench::default();
        fresh.recount(&Doubling);
        fresh.load(DemoKind::Drift);
        fresh.recount(&Doubling);
        assert_eq!(fresh.demo.as_ref().unwrap().events().len(), 0);
        assert_eq!(fresh.error, None);
    }

    #[test]
    fn fincoach_turn_6_sends_system_summary_and_four_turns() {
        let player = at_turn(DemoScript::fincoach(), 6);
        let window = context_window(&player).unwrap();
        assert_eq!(window.turn, 6);
        assert!(window.summary_sent);
        let labels: Vec<&str> = window.segments.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "System prompt",
                "Summary of turns 1–2",
                "Turn 3",
                "Turn 4",
                "Turn 5",
                "Turn 6"
            ]
        );
        let request = player.last_request().unwrap();
        let sum: u32 = request.messages.iter().map(|m| m.tokens).sum();
        assert_eq!(window.total, sum);
        let percent: f64 = window.segments.iter().map(|s| s.percent).sum();
        assert!((percent - 100.0).abs() < 1e-9);
        // Turn 6 holds only the question: its reply has not arrived yet.
        assert_eq!(
            window.segments[5].tokens,
            request.messages.last().unwrap().tokens
        );
    }

    #[test]
    fn a_sliding_window_at_turn_6_has_lost_the_salary_the_summary_kept() {
        let player = at_turn(DemoScript::fincoach(), 6);
        let window = context_window(&player).unwrap();
        // The tuner's comparison window for keep 2: the last two turns.
        assert_eq!(
            (
                window.window.size,
                window.window.first,
                window.window.dropped_to
            ),
            (2, 5, 4)
        );
        assert_eq!(
            window.facts[0],
            ("salary".to_owned(), true, false),
            "summary memory still sends the salary, the window does not"
        );
        assert!(window.window.tokens < window.total);
    }

    #[test]
    fn rows_carry_state_and_turn_and_the_front_page_follows_the_summary() {
        let mut player = DemoPlayer::new(DemoScript::fincoach()).unwrap();
        assert!(front_page(&player).is_none());
        assert!(context_window(&player).is_none());
        player.play_all(&WordCounter).unwrap();
        let rows = message_rows(&player);
        assert_eq!(rows.len(), 12);
        assert_eq!(rows[0].state_slug(), "folded");
        assert_eq!(rows[0].role_label(), "User");
        assert_eq!(rows[11].state_slug(), "verbatim");
        assert_eq!(rows[11].turn, 6);
        assert_eq!(rows[3].tokens, WordCounter.count(&rows[3].content));
        let page = front_page(&player).unwrap();
        assert_eq!((page.cycle, page.summarised_to), (2, 4));
        assert!(page.text.contains("1,20,000"));
        let progress = progress(&player);
        assert!(progress.done);
        assert_eq!(
            progress.last_step.as_deref(),
            Some("Edition 2 printed: turns 3–4 folded into the summary.")
        );
    }

    #[test]
    fn the_policy_panel_names_trigger_preset_facts_and_placement() {
        let panel = policy_panel(&Workbench::from_route(&Route::parse("?demo=fincoach")));
        let value = |label: &str| {
            panel
                .rows
                .iter()
                .find(|r| r.0 == label)
                .map(|r| r.1.clone())
                .unwrap()
        };
        assert_eq!(
            value("Trigger"),
            "every 4 turns: summarise once 4 turns are verbatim, keep the last 2"
        );
        assert_eq!(value("Prompt preset"), "Financial advisor");
        assert!(value("Summary goes").starts_with("as a second system message"));
        assert_eq!(
            panel.pinned,
            [
                ("salary".to_owned(), "1,20,000".to_owned()),
                ("equity".to_owned(), "equit".to_owned())
            ]
        );
        assert_eq!(
            script_for(DemoKind::Drift).slug,
            DemoKind::Drift.slug(),
            "route and script agree on the link name"
        );
        assert_eq!(kind_of(&DemoScript::fincoach()), Some(DemoKind::FinCoach));
    }

    #[test]
    fn the_policy_panel_applies_valid_changes_to_the_conversation_on_screen_only() {
        use crate::view::policy::{FormKind, PolicyEdit};
        let mut workbench = Workbench::from_route(&Route::parse("?demo=fincoach"));
        workbench.edit_policy(PolicyEdit::Number("keep", "9".into()));
        assert!(workbench.policy.error().is_some());
        assert_eq!(
            workbench.current_policy().trigger,
            Trigger::Turns {
                max_turns: 4,
                keep: 2
            },
            "an invalid value is not applied"
        );
        workbench.edit_policy(PolicyEdit::Number("max_turns", "2".into()));
        workbench.edit_policy(PolicyEdit::Number("keep", "1".into()));
        assert_eq!(
            workbench.current_policy().trigger,
            Trigger::Turns {
                max_turns: 2,
                keep: 1
            }
        );
        workbench.play_all(&WordCounter);
        assert_eq!(workbench.demo.as_ref().unwrap().editions().len(), 5);
        // Reset goes back to the script's own policy, and so does the form.
        workbench.reset();
        assert_eq!(workbench.policy.number("max_turns"), "4");
        // Without a demo the panel edits the live chat's policy.
        workbench.unload();
        workbench.edit_policy(PolicyEdit::Kind(FormKind::Every));
        assert_eq!(
            workbench.live.memory().policy().trigger,
            Trigger::Every { n: 6 }
        );
        workbench.edit_policy(PolicyEdit::NewFact("Priya".into()));
        workbench.edit_policy(PolicyEdit::AddFact);
        assert_eq!(workbench.live.pinned().len(), 1);
        assert_eq!(policy_panel(&workbench).pinned[0].1, "Priya");
    }

    #[test]
    fn restore_and_edit_reach_the_front_page() {
        let mut workbench = Workbench::from_route(&Route::parse("?demo=drift"));
        workbench.play_all(&WordCounter);
        let first = workbench.demo.as_ref().unwrap().editions()[0]
            .summary
            .clone();
        workbench.restore(1, 0, &WordCounter);
        assert_eq!(
            front_page(workbench.demo.as_ref().unwrap()).unwrap().text,
            first
        );
        assert!(workbench.edit_summary("Never suggest equities.", 0, &WordCounter));
        let page = front_page(workbench.demo.as_ref().unwrap()).unwrap();
        assert_eq!(
            (page.text.as_str(), page.cycle),
            ("Never suggest equities.", 5)
        );
        assert!(!workbench.edit_summary("  ", 0, &WordCounter));
        assert!(workbench.error.is_some());
    }

    #[test]
    fn without_a_demo_restore_edit_and_the_editions_follow_the_live_memory() {
        use crate::engine::drift::PinnedFact;
        use crate::view::live::ReplyEnd;
        let mut workbench = Workbench::default();
        let policy = workbench.live.memory().policy().clone();
        workbench
            .live
            .set_policy(policy, vec![PinnedFact::phrase("one", "question 1")])
            .unwrap();
        let mut job = None;
        for n in 1..=4 {
            workbench
                .live
                .send(&format!("question {n}"), n, &WordCounter)
                .unwrap();
            job = workbench
                .live
                .finish(ReplyEnd::Complete(format!("answer {n}")), n, &WordCounter);
        }
        let job = job.expect("the 4/2 policy folds after turn 4");
        assert!(workbench.edition_cards().is_empty());
        workbench.live.summary_done(
            job.id,
            Ok("The user asked question 1 and question 2.".into()),
            "m",
            5,
            &WordCounter,
        );
        let cards = workbench.edition_cards();
        assert_eq!(cards.len(), 1);
        assert_eq!((cards[0].cycle, cards[0].folded.len()), (1, 4));
        assert_eq!(
            (cards[0].facts[0].phrase.as_str(), cards[0].facts[0].kept),
            ("question 1", true)
        );
        assert!(workbench.edit_summary("Only bonds.", 6, &WordCounter));
        let live = Conversation::of(&workbench);
        assert_eq!(live.front_page.as_ref().unwrap().text, "Only bonds.");
        let cards = workbench.edition_cards();
        assert_eq!(cards[1].facts[0].status, "lost in edition 2");
        workbench.restore(1, 7, &WordCounter);
        assert_eq!(workbench.error, None);
        let page = Conversation::of(&workbench).front_page.unwrap();
        assert_eq!(
            (page.text.as_str(), page.cycle),
            ("The user asked question 1 and question 2.", 3)
        );
        workbench.restore(9, 8, &WordCounter);
        assert!(workbench.error.is_some());
        assert!(!workbench.edit_summary(" ", 8, &WordCounter));
    }

    #[test]
    fn demo_and_live_conversations_share_one_layout() {
        use crate::view::live::{LiveSession, ReplyEnd};
        let mut player = DemoPlayer::new(DemoScript::fincoach()).unwrap();
        player.play_all(&WordCounter).unwrap();
        let demo = Conversation::of_demo(&player);
        assert_eq!((demo.folded.len(), demo.verbatim.len()), (8, 4));
        assert!(
            demo.folded
                .iter()
                .all(|r| r.marker == "folded into the summary")
        );
        assert_eq!(demo.front_page, front_page(&player));
        assert_eq!(demo.verbatim[3].turn, 6);

        let mut live = LiveSession::default();
        live.send("hello", 1, &WordCounter).unwrap();
        live.delta("Hi th");
        let streaming = Conversation::of_live(&live);
        assert_eq!(streaming.front_page, None);
        let states: Vec<_> = streaming
            .verbatim
            .iter()
            .map(|r| (r.state, r.tokens))
            .collect();
        assert_eq!(states, [("verbatim", Some(1)), ("streaming", None)]);
        live.finish(ReplyEnd::Stopped("Hi th".into()), 2, &WordCounter);
        let stopped = Conversation::of_live(&live);
        assert_eq!(stopped.verbatim[1].state, "incomplete");
        assert_eq!(stopped.verbatim[1].tokens, Some(2));
    }

    #[test]
    fn the_workbench_loads_from_the_link_steps_plays_and_resets() {
        let mut workbench = Workbench::from_route(&Route::parse("?demo=drift"));
        assert_eq!(workbench.demo_kind(), Some(DemoKind::Drift));
        workbench.step(&WordCounter);
        workbench.step(&WordCounter);
        let player = workbench.demo.as_ref().unwrap();
        assert_eq!(player.memory().archive().len(), 2);
        workbench.play_all(&WordCounter);
        assert_eq!(workbench.demo.as_ref().unwrap().editions().len(), 3);
        // A step after the end changes nothing and is not an error.
        workbench.step(&WordCounter);
        assert!(workbench.error.is_none());
        workbench.reset();
        let player = workbench.demo.as_ref().unwrap();
        assert!(player.memory().archive().is_empty());
        assert_eq!(workbench.demo_kind(), Some(DemoKind::Drift));
        workbench.load(DemoKind::FinCoach);
        assert_eq!(workbench.demo_kind(), Some(DemoKind::FinCoach));
        workbench.unload();
        assert!(workbench.demo.is_none());
        assert!(Workbench::from_route(&Route::parse("")).demo.is_none());
    }
}
