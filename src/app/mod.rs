//! The application layer: the state machines of the app, pure and tested natively like the
//! core. The shell keeps these values in signals and calls their methods; every decision the
//! app takes (what a Send, a Retry or a reply's end leads to, which error is shown, what counts
//! as a change of the live chat, which save op becomes which record, what another tab's write
//! means here) is a method here with a test. Each returns what it wants done as data; the shell
//! (`src/ui`, `src/store`) performs it.
//!
//! Architecture invariant: nothing under `src/app/` names a web crate (`tests/purity.rs`), and
//! nothing here (outside tests) imports `crate::view` or `crate::ui`: the views are computed
//! from app values, never the other way round.

pub mod ab;
pub mod chat_actions;
pub mod continue_chat;
pub mod corpus;
pub mod exact_form;
pub mod export;
pub mod import;
pub mod lesson;
pub mod library;
pub mod live;
pub mod live_replay;
pub mod on_screen;
pub mod policy_form;
pub mod probe_draft;
pub mod probes;
pub mod replay;
pub mod resume;
pub mod rows;
pub mod settings_check;
pub mod settings_form;
pub mod storage;
pub mod theme;
pub mod tuner;
pub mod workbench;
