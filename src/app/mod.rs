//! The application layer: the state machines behind the tabs, pure and tested natively like the
//! core. Each returns what it wants done as data; the shell (`src/ui`, `src/store`) performs it.

pub mod library;
pub mod replay;
pub mod storage;
