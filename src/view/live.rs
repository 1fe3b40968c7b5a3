//! The live chat's old path: [`crate::app::live`] holds it now. Kept so that code written
//! against `view::live` (the session library) still builds; new code imports `app::live`.

pub use crate::app::live::*;
