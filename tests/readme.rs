//! The README stays a front page: under 600 words, counted as `wc -w` counts them. What grows
//! past it (a benchmark's figures, a tool's options) belongs in `docs/`, linked from it.

use std::fs;
use std::path::Path;

/// The README's limit, in words: it must stay under it.
const README_WORDS: usize = 600;

#[test]
fn the_readme_is_under_600_words() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let words = words(&fs::read_to_string(root.join("README.md")).unwrap());
    assert!(
        words < README_WORDS,
        "README.md has {words} words (wc -w README.md); keep it under {README_WORDS}: move the \
         detail into docs/ and link it"
    );
}

#[test]
fn words_are_counted_as_wc_counts_them() {
    assert_eq!(words(""), 0);
    assert_eq!(
        words("# Summary Memory\n\n`cargo build -p x`; then, *for example*:\n"),
        10
    );
    // A planted README one word too long.
    let long = "word ".repeat(README_WORDS);
    assert!(words(&long) >= README_WORDS);
}

/// The words of `text`: its runs of characters between whitespace, as `wc -w` counts them.
fn words(text: &str) -> usize {
    text.split_whitespace().count()
}
