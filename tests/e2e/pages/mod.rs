//! Page objects: one per tab, so that a test body reads as the steps a person takes
//! (`ChatPage::send`, `InspectPage::import`, ...) and the WebDriver scripts that read the page
//! live here, once, instead of inline in the tests.

pub mod ab;
pub mod archive;
pub mod chat;
pub mod continued;
pub mod corpus;
pub mod editions;
pub mod export;
pub mod import;
pub mod inspect;
pub mod lesson;
pub mod probes;
pub mod query;
pub mod replay;
pub mod settings;
pub mod tokens;
pub mod tuner;
