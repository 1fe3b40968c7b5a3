//! How exact each peer preset of the Tuner's comparison is: the facts of the engine's
//! [`FIDELITY`](crate::engine::peers::FIDELITY) table in the words the page shows.

use crate::engine::peers::{Exactness, PEER_PRESETS, fidelity};

/// One preset's fidelity, as the comparison shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PresetFidelity {
    /// The preset's slug (`data-preset`).
    pub slug: &'static str,
    /// The system's name, as the comparison table labels its row.
    pub system: &'static str,
    /// `identical` or `approximate` (`data-exactness`).
    pub exactness: &'static str,
    /// The library, version and file checked, e.g. "langchain 1.5.2,
    /// langchain/agents/middleware/summarization.py".
    pub source: String,
    /// One sentence: "request-identical to langchain 1.5.2 on the fidelity conversations; …"
    /// or "differs: …".
    pub verdict: String,
}

/// The fidelity of the preset named `slug`, or `None` for a name that is not a preset.
pub fn preset_fidelity(slug: &str) -> Option<PresetFidelity> {
    let preset = PEER_PRESETS.iter().find(|p| p.slug == slug)?;
    let row = fidelity(slug)?;
    let source = match row.version {
        Some(version) => format!("{} {version}, {}", row.library, row.source_file),
        None => format!("{}, {} (not run)", row.library, row.source_file),
    };
    let verdict = match (row.exactness, row.version) {
        (Exactness::Identical, Some(version)) => format!(
            "request-identical to {} {version} on the fidelity conversations; not compared: {}",
            row.library, row.differs
        ),
        _ => format!("differs: {}", row.differs),
    };
    Some(PresetFidelity {
        slug: preset.slug,
        system: preset.system,
        exactness: row.exactness.slug(),
        source,
        verdict,
    })
}

/// The fidelity of the presets whose system names label `rows` of the comparison (the Tuner's
/// own policy and unknown labels have none), in the rows' order.
pub fn fidelity_of_rows<'a>(labels: impl IntoIterator<Item = &'a str>) -> Vec<PresetFidelity> {
    labels
        .into_iter()
        .filter_map(|label| PEER_PRESETS.iter().find(|p| p.system == label))
        .filter_map(|p| preset_fidelity(p.slug))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::peers::FIDELITY;

    #[test]
    fn every_preset_names_its_library_version_and_file() {
        for preset in PEER_PRESETS {
            let shown = preset_fidelity(preset.slug).unwrap();
            let row = fidelity(preset.slug).unwrap();
            assert_eq!(shown.system, preset.system);
            assert!(shown.source.starts_with(row.library), "{}", shown.source);
            assert!(shown.source.contains(row.source_file), "{}", shown.source);
            match row.version {
                Some(version) => assert!(shown.source.contains(version), "{}", shown.source),
                None => assert!(shown.source.ends_with("(not run)"), "{}", shown.source),
            }
            assert!(shown.verdict.contains(row.differs), "{}", shown.verdict);
        }
        assert_eq!(preset_fidelity("not-a-preset"), None);
    }

    #[test]
    fn the_verdict_says_identical_only_for_an_identical_row() {
        for row in FIDELITY {
            let shown = preset_fidelity(row.slug).unwrap();
            assert_eq!(shown.exactness, row.exactness.slug());
            let identical = shown.verdict.starts_with("request-identical to ");
            assert_eq!(
                identical,
                row.exactness == Exactness::Identical,
                "{}",
                shown.verdict
            );
            if identical {
                let library = format!("{} {}", row.library, row.version.unwrap());
                assert!(shown.verdict.contains(&library), "{}", shown.verdict);
            } else {
                assert!(shown.verdict.starts_with("differs: "), "{}", shown.verdict);
            }
        }
    }

    #[test]
    fn rows_get_the_fidelity_of_their_preset_and_the_own_policy_none() {
        let labels = [
            "this policy",
            "Gemini CLI",
            "LangChain v1 SummarizationMiddleware",
        ];
        let shown: Vec<_> = fidelity_of_rows(labels)
            .into_iter()
            .map(|f| f.slug)
            .collect();
        assert_eq!(shown, ["gemini-cli", "langchain-v1-middleware"]);
    }
}
