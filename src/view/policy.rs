//! The policy form's old path: [`crate::app::policy_form`] holds it now. Kept so that code
//! written against `view::policy` still builds; new code imports `app::policy_form`.

pub use crate::app::policy_form::*;
