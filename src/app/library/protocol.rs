//! The library's cross-tab protocol: the writes a [`Library`](super::Library) asks the shell to
//! perform ([`SaveOp`]), what a tab tells the others once a write landed ([`Broadcast`]), and
//! what another tab's write means here ([`Remote`], [`RemoteNotice`]).

use super::Entry;

/// A write the shell must perform, in order, each as one storage transaction.
#[derive(Clone, Debug, PartialEq)]
pub enum SaveOp {
    /// Store `entry`, replacing the record whose revision is `expected` (`None`: no record).
    Put {
        entry: Box<Entry>,
        expected: Option<u64>,
    },
    /// Remove the record `id`, whose stored revision is `expected`.
    Delete { id: String, expected: Option<u64> },
    /// Store `entry` marked deleted at `deleted_ms`: the tombstone that an undo brings back, kept
    /// in storage so the undo survives a reload.
    Bury {
        entry: Box<Entry>,
        deleted_ms: u64,
        expected: Option<u64>,
    },
}

/// What one tab tells the others after its write landed in storage, over a BroadcastChannel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Broadcast {
    /// The record `id` now holds `revision` (a save, a rename, an undo).
    Saved { id: String, revision: u64 },
    /// The record `id` was deleted (kept as a tombstone, or removed).
    Deleted { id: String },
}

impl Broadcast {
    /// The message as sent: `saved <revision> <id>` or `deleted <id>`.
    pub fn encode(&self) -> String {
        match self {
            Broadcast::Saved { id, revision } => format!("saved {revision} {id}"),
            Broadcast::Deleted { id } => format!("deleted {id}"),
        }
    }

    /// Reads a message; anything else (another version of the app) is ignored.
    pub fn decode(text: &str) -> Option<Broadcast> {
        let (kind, rest) = text.split_once(' ')?;
        match kind {
            "saved" => {
                let (revision, id) = rest.split_once(' ')?;
                Some(Broadcast::Saved {
                    id: id.to_owned(),
                    revision: revision.parse().ok()?,
                })
            }
            "deleted" if !rest.is_empty() => Some(Broadcast::Deleted {
                id: rest.to_owned(),
            }),
            _ => None,
        }
    }
}

/// What this tab does about another tab's write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Remote {
    /// Nothing: this tab already holds that state (its own write, or one it has picked up).
    Ignore,
    /// This tab has no unsaved change of the session: read the record again and show it.
    Reload(String),
    /// This tab has a change of the session that is not saved: ask whether to take the other
    /// tab's version or keep this one as a copy.
    Conflict(String),
}

/// The notice a tab shows after another tab changed a session it lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteNotice {
    pub id: String,
    pub name: String,
    /// This tab had a change of its own that is not saved: offer "reload" or "keep mine as a
    /// copy" instead of replacing it silently.
    pub unsaved: bool,
}

impl RemoteNotice {
    pub fn text(&self) -> String {
        if self.unsaved {
            format!(
                "\u{201c}{}\u{201d} was changed in another tab, and this tab's change of it is not saved. Reload the other tab's version, or keep yours as a copy.",
                self.name
            )
        } else {
            format!(
                "\u{201c}{}\u{201d} was changed in another tab; this tab now shows that version.",
                self.name
            )
        }
    }
}
