//! What each `--policy` names: `yours` (the policy the app starts with), a peer preset's slug,
//! or a JSON file holding a policy as a session file stores it (a bare policy object, or a
//! whole session file, whose policy is taken).

use std::path::Path;

use summary_memory::engine::corpus::{Column, YOURS};
use summary_memory::engine::peers::PEER_PRESETS;
use summary_memory::engine::policy::Policy;
use summary_memory::engine::session::import_policy;

/// The columns `specs` name, in order, for a model window of `window` tokens; or the reason the
/// first that cannot be used is refused, naming it.
pub fn columns(specs: &[String], window: u32) -> Result<Vec<Column>, String> {
    let mut columns: Vec<Column> = Vec::with_capacity(specs.len());
    for spec in specs {
        let column = column(spec, window)?;
        if columns.iter().any(|c| c.id == column.id) {
            return Err(format!(
                "--policy {spec}: the policy {:?} is named twice; each column needs its own id",
                column.id
            ));
        }
        columns.push(column);
    }
    Ok(columns)
}

fn column(spec: &str, window: u32) -> Result<Column, String> {
    if spec == YOURS {
        return Column::new(YOURS, "Yours", Policy::default())
            .map_err(|e| format!("--policy yours: {e}"));
    }
    if let Some(column) = Column::preset(spec, window) {
        return Ok(column);
    }
    let path = Path::new(spec);
    if !path.exists() {
        let slugs: Vec<&str> = PEER_PRESETS.iter().map(|p| p.slug).collect();
        return Err(format!(
            "--policy {spec}: no such file, and not a preset; expected a JSON file, \"yours\", or one of {}",
            slugs.join(", ")
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{spec}: cannot be read: {e}"))?;
    let policy = import_policy(&bytes).map_err(|e| format!("{spec}: {e}"))?;
    let id = path
        .file_stem()
        .map_or_else(|| spec.to_owned(), |s| s.to_string_lossy().into_owned());
    let label = path
        .file_name()
        .map_or_else(|| spec.to_owned(), |s| s.to_string_lossy().into_owned());
    Column::new(id, label, policy).map_err(|e| format!("{spec}: {e}"))
}
