//! The app-wide chat state: the demo being played, if any, the live chat with the user's
//! endpoint, the last error and the policy panel's form. The shell keeps one [`Workbench`] in a
//! signal at the root; Chat, Editions and Inspect change it only through its methods.
//!
//! The error on screen is a [`ChatError`] ([`Workbench::error_shown`], [`Workbench::can_retry`]).
//! Picking a demo ([`Workbench::pick`]) and running one live ([`Workbench::run_live`]) are
//! refused while the live chat waits for its endpoint, so its request cannot end in another
//! conversation. [`Workbench::exclude_longest`] is the way out of a request too long.

use crate::app::live::{LiveAction, LiveError, LiveSession};
use crate::app::on_screen::{ChatError, EditionsShape, OnScreen};
use crate::app::policy_form::{PolicyEdit, PolicyForm};
use crate::engine::demo::{DemoPlayer, DemoScript, DemoSummariser};
use crate::engine::message::CountTokens;
use crate::engine::policy::Policy;
use crate::route::{DemoKind, Route};

/// The app-wide chat state.
#[derive(Clone, Debug)]
pub struct Workbench {
    /// The demo on screen; with none, the live chat is.
    demo: Option<DemoPlayer>,
    /// The live conversation with the user's endpoint, shown when no demo is loaded. It stays
    /// while a demo is played, and is on screen again once the demo is unloaded.
    pub live: LiveSession,
    /// What went wrong in the last action, in words the user can act on.
    pub error: Option<ChatError>,
    /// The side panel's policy form, showing the policy of the conversation on screen.
    pub policy: PolicyForm,
    /// Which offline summariser answers the demos' summary jobs: the scripted editions by
    /// default, which drift as a model's do; the extractive baseline on request.
    demo_summariser: DemoSummariser,
}

impl Default for Workbench {
    fn default() -> Self {
        let live = LiveSession::default();
        let policy = PolicyForm::from_policy(live.memory().policy(), live.pinned());
        Workbench {
            demo: None,
            live,
            error: None,
            policy,
            demo_summariser: DemoSummariser::Scripted,
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

    /// The conversation on screen: the demo's when one is loaded, else the live chat. The one
    /// place that chooses between them.
    pub fn on_screen(&self) -> &dyn OnScreen {
        match &self.demo {
            Some(player) => player,
            None => &self.live,
        }
    }

    fn on_screen_mut(&mut self) -> &mut dyn OnScreen {
        match &mut self.demo {
            Some(player) => player,
            None => &mut self.live,
        }
    }

    /// The demo being played, if any.
    pub fn demo(&self) -> Option<&DemoPlayer> {
        self.demo.as_ref()
    }

    /// Whether the live chat is on screen (no demo is loaded).
    pub fn is_live(&self) -> bool {
        self.demo.is_none()
    }

    /// The error the Chat tab shows: the last action's, else the conversation's own (the live
    /// chat's failed request waiting for Retry).
    pub fn error_shown(&self) -> Option<String> {
        self.error
            .as_ref()
            .filter(|error| !self.outlived(error))
            .map(ToString::to_string)
            .or_else(|| self.on_screen().own_error())
    }

    /// A refusal that only held while the live chat was busy, shown no longer once it is not.
    fn outlived(&self, error: &ChatError) -> bool {
        matches!(
            error,
            ChatError::Live(LiveError::SummaryRunning | LiveError::StillRunning | LiveError::Busy)
        ) && !self.live.is_busy()
    }

    /// Whether the composer's Retry is offered: the live chat is on screen, its reply failed,
    /// no summary waits (the summary's own Retry, beside its status, goes first) and nothing
    /// is being written.
    pub fn can_retry(&self) -> bool {
        self.is_live()
            && self.live.retries_reply()
            && !self.live.summaries().waits()
            && !self.live.is_busy()
    }

    /// Loads a demo at its start, replacing whatever was loaded.
    pub fn load(&mut self, kind: DemoKind) {
        match DemoPlayer::with_summariser(script_for(kind), self.demo_summariser) {
            Ok(player) => {
                self.demo = Some(player);
                self.error = None;
            }
            Err(err) => {
                self.demo = None;
                self.error = Some(err.into());
            }
        }
        self.sync_policy();
    }

    /// The demo picker: loads `kind` (or, with `None`, goes back to the live chat). Refused
    /// while the live chat waits for a reply or a summary, so that its request cannot end in
    /// whatever conversation comes next; returns whether the pick was taken, and keeps the
    /// refusal in `error`.
    pub fn pick(&mut self, kind: Option<DemoKind>) -> bool {
        match kind {
            Some(_) if self.live.is_busy() => {
                self.error = Some(LiveError::StillRunning.into());
                false
            }
            Some(kind) => {
                self.load(kind);
                true
            }
            None => {
                self.unload();
                true
            }
        }
    }

    /// The message box's Send (and Enter): archives the user's message and returns the chat
    /// request to perform. Refused while a demo is on screen, a reply is arriving or a summary
    /// is being written; the refusal is kept in `error` and the draft stays in the box.
    pub fn send(
        &mut self,
        text: &str,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Option<LiveAction> {
        if !self.is_live() {
            return None;
        }
        match self.live.send_action(text, at_ms, counter) {
            Ok(action) => {
                self.error = None;
                Some(action)
            }
            Err(error) => {
                self.error = Some(error.into());
                None
            }
        }
    }

    /// Leaves archive message `index` of the live chat out of the requests, or sends it
    /// again. A refusal is kept in `error`.
    pub fn set_excluded(&mut self, index: usize, excluded: bool) {
        self.error = self
            .live
            .set_excluded(index, excluded)
            .err()
            .map(Into::into);
    }

    /// The way out of a chat request too long for the context window: leaves the longest
    /// message still sent out of the requests (the archive keeps it; the row says so and can
    /// send it again).
    pub fn exclude_longest(&mut self) {
        if let Some((index, _, _)) = self.live.longest_sent() {
            self.set_excluded(index, true);
        }
    }

    /// Unloads the demo, back to the live chat.
    pub fn unload(&mut self) {
        self.demo = None;
        self.error = None;
        self.sync_policy();
    }

    /// Replaces the live conversation, e.g. with a demo run live or a chat resumed from the
    /// library.
    pub fn set_live(&mut self, live: LiveSession) {
        self.live = live;
        self.sync_policy();
    }

    /// Leaves the loaded demo and runs its user messages live: a new live chat with the demo's
    /// system prompt, policy and pinned facts, its first message sent. Returns the request to
    /// perform; `None` without a demo, or when the demo cannot run (the reason is in `error`).
    pub fn run_live(&mut self, at_ms: u64, counter: &dyn CountTokens) -> Option<LiveAction> {
        let script = self.demo.as_ref()?.script().clone();
        // The live chat's request in flight would feed its reply into the new conversation.
        if self.live.is_busy() {
            self.error = Some(LiveError::StillRunning.into());
            return None;
        }
        match LiveSession::from_script(&script) {
            Ok(session) => {
                self.unload();
                self.set_live(session);
                self.live.next_action(at_ms, counter)
            }
            Err(error) => {
                self.error = Some(error.into());
                None
            }
        }
    }

    /// The policy of the conversation on screen: the demo's, or the live chat's.
    pub fn current_policy(&self) -> &Policy {
        self.on_screen().memory().policy()
    }

    /// Records a change made in the policy panel, and applies it to the conversation on screen
    /// when the panel's values are valid. An invalid value changes nothing but the form.
    pub fn edit_policy(&mut self, edit: PolicyEdit) {
        let Some((policy, facts)) = self.policy.edit(edit) else {
            return;
        };
        let shown = self.on_screen();
        if *shown.memory().policy() == policy && shown.pinned() == facts.as_slice() {
            return;
        }
        self.error = self.on_screen_mut().set_policy(policy, facts).err();
    }

    /// Puts a whole policy (one read back from the export panel's JSON) into the policy panel,
    /// keeping the pinned facts, and applies it to the conversation on screen as a valid edit
    /// would be.
    pub fn import_policy(&mut self, policy: Policy) {
        let facts = self.policy.facts.clone();
        self.policy = PolicyForm::from_policy(&policy, &facts);
        if *self.on_screen().memory().policy() == policy {
            return;
        }
        self.error = self.on_screen_mut().set_policy(policy, facts).err();
    }

    /// Edition `cycle`'s text becomes the current summary again, as a new edition, in the
    /// conversation on screen.
    pub fn restore(&mut self, cycle: u32, at_ms: u64, counter: &dyn CountTokens) {
        self.error = self.on_screen_mut().restore(cycle, at_ms, counter).err();
    }

    /// The user's own text becomes the current summary of the conversation on screen, as a new
    /// edition marked as edited by hand. Returns why it was refused (an empty text is), which
    /// is also kept in `error`.
    pub fn edit_summary(
        &mut self,
        text: &str,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<(), ChatError> {
        let result = self.on_screen_mut().edit_summary(text, at_ms, counter);
        self.error = result.as_ref().err().cloned();
        result
    }

    /// What the Editions cards of the conversation on screen depend on, and which demo it is.
    pub fn editions_shape(&self) -> (Option<DemoKind>, EditionsShape) {
        (self.demo_kind(), self.on_screen().editions_shape())
    }

    fn sync_policy(&mut self) {
        let shown = self.on_screen();
        self.policy = PolicyForm::from_policy(shown.memory().policy(), shown.pinned());
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
        self.error = result.err().map(ChatError::from);
    }

    /// Plays the loaded demo to its end.
    pub fn play_all(&mut self, counter: &dyn CountTokens) {
        let result = match self.demo.as_mut() {
            Some(player) => player.play_all(counter),
            None => Ok(()),
        };
        self.error = result.err().map(ChatError::from);
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

    /// The summariser the demos use.
    pub fn demo_summariser(&self) -> DemoSummariser {
        self.demo_summariser
    }

    /// Chooses the demos' summariser. A demo already played is played again to the step it
    /// had reached, with the user's changes in their places, so its editions are the new
    /// summariser's; when that replay cannot be done the demo stays as it was, with the reason
    /// shown.
    pub fn set_demo_summariser(&mut self, summariser: DemoSummariser, counter: &dyn CountTokens) {
        self.demo_summariser = summariser;
        let Some(player) = &self.demo else {
            return;
        };
        match player.replayed(summariser, counter) {
            Ok(replayed) => {
                self.demo = Some(replayed);
                self.error = None;
            }
            Err(error) => self.error = Some(error.into()),
        }
    }

    /// Summarise now: folds what the trigger would fold if it fired, whatever it says. A demo
    /// prints the edition at once; the live chat returns the summariser request to perform.
    /// A refusal (nothing to fold, a reply still due) is kept in `error`.
    pub fn summarise_now(&mut self, counter: &dyn CountTokens) -> Option<LiveAction> {
        self.error = None;
        match self.demo.as_mut() {
            Some(player) => {
                let result = player
                    .summarise_now()
                    .and_then(|()| player.next(counter).map(|_| ()));
                self.error = result.err().map(ChatError::from);
                None
            }
            None => match self.live.summarise_now() {
                Ok(job) => Some(LiveAction::Summary(job)),
                Err(error) => {
                    self.error = Some(error.into());
                    None
                }
            },
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
        DemoKind::Real135m => DemoScript::real_135m(),
        DemoKind::Real135mFinCoach => DemoScript::real_135m_fincoach(),
    }
}

/// The link name of a demo script, if it is one of the bundled ones.
pub fn kind_of(script: &DemoScript) -> Option<DemoKind> {
    DemoKind::from_slug(script.slug)
}

#[cfg(test)]
mod tests;
