//! Pure view models: what each tab shows, computed from app and core values. Components render
//! these and hold no logic of their own, so everything a tab decides is tested natively. The
//! state machines behind the tabs live in [`crate::app`].

pub mod ab;
pub mod chart;
pub mod chat;
pub mod context_window;
pub mod corpus;
pub mod edition_card;
pub mod edition_span;
pub mod editions;
pub mod editions_tab;
pub mod exact_policy;
pub mod export;
pub mod import;
pub mod inspect;
pub mod labels;
pub mod lesson;
pub mod live_replay;
pub mod markdown;
pub mod modules;
pub mod offline;
pub mod policy_summary;
pub mod probes;
pub mod run;
pub mod settings_form;
pub mod summary_settings;
pub mod timeline;
pub mod tokens;
pub mod tuner;
pub mod tuner_conversation;
pub mod tuner_fidelity;
pub mod tuner_form;
pub mod window;
pub mod workspace;
