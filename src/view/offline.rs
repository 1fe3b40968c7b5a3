//! The offline notice ([`OfflineScreen::of`]): what it says when the service worker's install
//! could not keep every file of the build: how many files, which (the first three, each with
//! why), and what that means for the user.

/// One file the worker could not keep, and why, as its message names them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingFile {
    pub path: String,
    pub reason: String,
}

/// How many missing files the notice names; the rest are counted.
pub const NAMED: usize = 3;

/// The notice, while files are missing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OfflineScreen {
    pub text: String,
}

impl OfflineScreen {
    /// The notice over the files the worker could not keep; `None` when it kept every one.
    pub fn of(files: &[MissingFile]) -> Option<OfflineScreen> {
        if files.is_empty() {
            return None;
        }
        let shown: Vec<String> = files
            .iter()
            .take(NAMED)
            .map(|f| format!("{} ({})", f.path, f.reason))
            .collect();
        let more = files.len().saturating_sub(shown.len());
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        let count = match files.len() {
            1 => "1 file".to_owned(),
            n => format!("{n} files"),
        };
        Some(OfflineScreen {
            text: format!(
                "Offline use is incomplete: {count} of the app could not be saved in this \
                 browser: {}{more}. The app works while online, and tries again as it loads \
                 them.",
                shown.join(", ")
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missing(n: usize) -> Vec<MissingFile> {
        (1..=n)
            .map(|i| MissingFile {
                path: format!("file{i}.wasm"),
                reason: "HTTP 404".to_owned(),
            })
            .collect()
    }

    #[test]
    fn nothing_missing_shows_no_notice() {
        assert_eq!(OfflineScreen::of(&[]), None);
    }

    #[test]
    fn one_file_is_named_with_its_reason() {
        assert_eq!(
            OfflineScreen::of(&missing(1)).expect("a notice").text,
            "Offline use is incomplete: 1 file of the app could not be saved in this browser: \
             file1.wasm (HTTP 404). The app works while online, and tries again as it loads them."
        );
    }

    #[test]
    fn past_three_files_the_rest_are_counted() {
        let three = OfflineScreen::of(&missing(3)).expect("a notice").text;
        assert!(
            three.starts_with(
                "Offline use is incomplete: 3 files of the app could not be saved in this \
                 browser: file1.wasm (HTTP 404), file2.wasm (HTTP 404), file3.wasm (HTTP 404). "
            ),
            "{three}"
        );
        let five = OfflineScreen::of(&missing(5)).expect("a notice").text;
        assert!(five.contains("5 files"), "{five}");
        assert!(
            five.contains("file3.wasm (HTTP 404) and 2 more. "),
            "{five}"
        );
        assert!(!five.contains("file4"), "{five}");
    }
}
