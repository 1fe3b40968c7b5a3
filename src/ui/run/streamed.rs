//! The live reply arriving, as a signal of its own. Each streamed piece is written into the
//! [`Workbench`] without notifying the workbench's readers (the conversation's rows, the policy
//! panel, the composer), and then bumps this signal, which only the streaming row, the list that
//! follows it to the bottom and the live chat's saver read. So a piece costs the same at turn 10
//! and at turn 2,000: nothing that depends on every row is recomputed for it. Every other change
//! (the reply starting or ending) goes through the workbench as usual.

use leptos::prelude::*;

use crate::app::workbench::Workbench;
use crate::engine::CountTokens;

/// Bumped once per streamed piece of the live reply.
#[derive(Clone, Copy)]
pub struct Streamed(RwSignal<u64>);

impl Streamed {
    /// Creates it and shares it through context; once, at the App root.
    pub fn provide() -> Streamed {
        let streamed = Streamed(RwSignal::new(0));
        provide_context(streamed);
        streamed
    }

    pub fn from_context() -> Option<Streamed> {
        use_context::<Streamed>()
    }

    /// Subscribes the running effect or view to the pieces.
    pub fn track(self) {
        self.0.track();
    }

    /// The number of pieces so far, read reactively.
    pub fn pieces(self) -> u64 {
        self.0.get()
    }

    /// Feeds a piece of the reply to the live chat (appended and counted there, see
    /// [`crate::app::live::LiveSession::arrived`]) and tells this signal's readers only.
    pub fn arrived(self, workbench: RwSignal<Workbench>, piece: &str, counter: &dyn CountTokens) {
        workbench.update_untracked(|w| w.live.arrived(piece, counter));
        self.0.update(|n| *n = n.wrapping_add(1));
    }
}
