use super::*;
use crate::engine::pattern::Pattern;

/// Every char's ranges where `regex`'s `class` matches, as regex-lite class text.
fn ranges_of(class: &str) -> String {
    let re = regex::Regex::new(&format!("^{class}$")).unwrap();
    let mut out = String::new();
    let mut run: Option<(u32, u32)> = None;
    let flush = |run: (u32, u32), out: &mut String| {
        out.push_str(&format!("\\x{{{:X}}}-\\x{{{:X}}}", run.0, run.1));
    };
    for c in (0..=0x10FFFF_u32).filter_map(char::from_u32) {
        let code = c as u32;
        if re.is_match(c.encode_utf8(&mut [0; 4])) {
            run = match run {
                Some((a, b)) if b + 1 == code => Some((a, code)),
                Some(done) => {
                    flush(done, &mut out);
                    Some((code, code))
                }
                None => Some((code, code)),
            };
        }
    }
    if let Some(done) = run {
        flush(done, &mut out);
    }
    out
}

/// `ours` (regex-lite class text, compiled with `Pattern`) matches a char iff `regex`'s `theirs`
/// does, over every char but the surrogates.
fn same_class(ours: &str, theirs: &str) {
    let ours_re = Pattern::new(&format!("^{ours}$")).unwrap();
    let theirs_re = regex::Regex::new(&format!("^{theirs}$")).unwrap();
    let mut buf = [0; 4];
    let differ: Vec<u32> = (0..=0x10FFFF_u32)
        .filter_map(char::from_u32)
        .filter(|c| {
            let text = c.encode_utf8(&mut buf);
            ours_re.is_match(text) != theirs_re.is_match(text)
        })
        .map(|c| c as u32)
        .take(20)
        .collect();
    assert!(
        differ.is_empty(),
        "{ours} and {theirs} differ on {differ:X?}; regex's {theirs} is {}",
        ranges_of(theirs)
    );
}

#[test]
fn space_is_regexs_unicode_white_space() {
    same_class(SPACE, r"\s");
}

#[test]
fn digit_is_regexs_unicode_nd() {
    same_class(DIGIT, r"\d");
}

#[test]
fn space_items_extend_a_class() {
    same_class(&format!("[{SPACE_ITEMS}\\-]"), r"[\s\-]");
}

#[test]
fn spell_writes_out_every_class() {
    assert_eq!(
        spell(r"aSPACE?DIGIT+[SPACE_ITEMS,]"),
        format!("a{SPACE}?{DIGIT}+[{SPACE_ITEMS},]")
    );
}

/// Why the fixed patterns spell `(?i)`'s `k` and `s` as `[kK]` and `[sſ]` and no other letter:
/// those two are the only ASCII letters regex's Unicode case folding matches with a non-ASCII
/// char (KELVIN SIGN, LONG S).
#[test]
fn regexs_unicode_folding_adds_only_kelvin_and_long_s_to_ascii_letters() {
    let re = regex::Regex::new("(?i)^[a-z]$").unwrap();
    let mut buf = [0; 4];
    let beyond: Vec<char> = (0x80..=0x10FFFF_u32)
        .filter_map(char::from_u32)
        .filter(|c| re.is_match(c.encode_utf8(&mut buf)))
        .collect();
    assert_eq!(beyond, ['\u{17F}', '\u{212A}']);
}
