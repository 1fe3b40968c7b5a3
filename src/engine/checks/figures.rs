//! Figures: the numbers, amounts, percentages and dates a text states, each with its byte span
//! and a normalised value, and the index of values an archive holds.
//!
//! Two spellings of one figure get one value, so that a summary that rewrites "₹1,20,000" as
//! "Rs 1.2 lakh" is not taken for inventing it:
//! - digit grouping is dropped (Indian 1,20,000, Western 120,000 and plain 120000 are the same);
//! - multipliers are applied: "k" and "thousand" (10³), "L", "lakh" and "lac" (10⁵), "cr" and
//!   "crore" (10⁷), "million" and "mn" (10⁶), "billion" and "bn" (10⁹);
//! - decimals are exact (1.20 lakh = 120000, never a float);
//! - ₹, Rs, INR and "rupees" are one currency, as are $, USD and "dollars", €, EUR and "euros",
//!   £ and GBP;
//! - "%", "percent" and "per cent" mark a percentage;
//! - a range shares its unit: "₹15‑20 k" is ₹15,000 and ₹20,000, "10-20 %" two percentages;
//! - dates are read in the forms "12 March 2025", "12th of March", "March 12, 2025",
//!   "March 2025", "2025-03-12" and "12/03/2025" (day first, as in India and Britain, unless the
//!   first number cannot be a month).
//!
//! Which values count as the same is decided by [`Sources::holds`]: an amount is sourced by the same number written bare or in the same
//! currency; a bare number by the same number in any currency, or by the year of a date; a
//! percentage only by the same percentage; a date by a date that agrees on every part it states
//! (a summary may drop the year, not change it). Spelled-out numbers ("three months",
//! "twenty-three") are never reported as figures but do count as holding a value, so "three
//! months" in a summary keeps the "3 months" of a message.

use std::collections::HashSet;
use std::fmt;
use std::ops::Range;
use std::sync::LazyLock;

use crate::engine::pattern::{Captures, Pattern, classes};

/// One figure found in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figure {
    /// Byte range in the text it was found in; always on character boundaries.
    pub span: Range<usize>,
    /// The figure as written (`&text[span]`).
    pub text: String,
    /// Its normalised value.
    pub value: Value,
}

/// What kind of figure a [`Value`] is, for grouping and display.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FigureKind {
    /// A number with a currency.
    Amount,
    /// A percentage.
    Percent,
    /// A number with no currency or percent sign (ages, counts, years, durations).
    Number,
    /// A calendar date, or a month with its year.
    Date,
}

/// A figure's normalised value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// A number in a named currency.
    Amount {
        quantity: Quantity,
        currency: Currency,
    },
    /// A percentage: `Percent(30)` is 30 %.
    Percent(Quantity),
    /// A bare number.
    Number(Quantity),
    /// A date; at least the month is known.
    Date(Date),
}

/// An exact non-negative decimal in canonical form: no grouping, no leading zeros, no trailing
/// fractional zeros ("120000", "1.5", "0.25").
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Quantity(String);

/// The currencies the checks recognise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Currency {
    /// ₹, Rs, INR, rupees.
    Inr,
    /// $, USD, dollars.
    Usd,
    /// €, EUR, euros.
    Eur,
    /// £, GBP.
    Gbp,
}

/// A calendar date. Parts the text did not state are `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Date {
    pub year: Option<u32>,
    /// 1 to 12.
    pub month: u8,
    /// 1 to 31.
    pub day: Option<u8>,
}

/// The values a set of texts holds, to ask whether a figure is sourced (or, for a summary, still
/// held).
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// (quantity, currency) for every number; `None` when written bare.
    amounts: HashSet<(Quantity, Option<Currency>)>,
    /// Every quantity written as a number, in any currency or none.
    numbers: HashSet<Quantity>,
    percents: HashSet<Quantity>,
    dates: Vec<Date>,
}

/// Every figure in `text`, in reading order.
pub fn figures(text: &str) -> Vec<Figure> {
    let dates = find_dates(text);
    let mut raw: Vec<RawNumber> = find_numbers(text)
        .into_iter()
        .filter(|n| !dates.iter().any(|(span, _)| overlaps(span, &n.span)))
        .collect();
    share_range_units(text, &mut raw);
    let mut found: Vec<Figure> = raw
        .into_iter()
        .map(|n| Figure {
            text: text[n.span.clone()].to_owned(),
            value: n.value(),
            span: n.span,
        })
        .chain(dates.into_iter().map(|(span, date)| Figure {
            text: text[span.clone()].to_owned(),
            value: Value::Date(date),
            span,
        }))
        .collect();
    found.sort_by_key(|f| (f.span.start, f.span.end));
    found
}

/// The figures of `text` that `sources` does not hold.
pub fn unsourced(text: &str, sources: &Sources) -> Vec<Figure> {
    figures(text)
        .into_iter()
        .filter(|f| !sources.holds(&f.value))
        .collect()
}

impl Sources {
    /// The values `texts` hold.
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> Sources {
        let mut sources = Sources::default();
        for text in texts {
            sources.add(text);
        }
        sources
    }

    /// Adds the values of one more text.
    pub fn add(&mut self, text: &str) {
        for figure in figures(text) {
            match figure.value {
                Value::Amount { quantity, currency } => {
                    self.numbers.insert(quantity.clone());
                    self.amounts.insert((quantity, Some(currency)));
                }
                Value::Number(quantity) => {
                    self.numbers.insert(quantity.clone());
                    self.amounts.insert((quantity, None));
                }
                Value::Percent(quantity) => {
                    self.percents.insert(quantity);
                }
                Value::Date(date) => {
                    if let Some(year) = date.year {
                        let year = Quantity(year.to_string());
                        self.numbers.insert(year.clone());
                        self.amounts.insert((year, None));
                    }
                    if !self.dates.contains(&date) {
                        self.dates.push(date);
                    }
                }
            }
        }
        for quantity in spelled_numbers(text) {
            self.numbers.insert(quantity.clone());
            self.amounts.insert((quantity, None));
        }
    }

    /// Whether these texts hold `value` in any of its equivalent forms.
    pub fn holds(&self, value: &Value) -> bool {
        match value {
            Value::Amount { quantity, currency } => {
                self.amounts.contains(&(quantity.clone(), None))
                    || self.amounts.contains(&(quantity.clone(), Some(*currency)))
            }
            Value::Number(quantity) => self.numbers.contains(quantity),
            Value::Percent(quantity) => self.percents.contains(quantity),
            Value::Date(date) => self.dates.iter().any(|held| date.agrees_with(held)),
        }
    }
}

impl Value {
    pub fn kind(&self) -> FigureKind {
        match self {
            Value::Amount { .. } => FigureKind::Amount,
            Value::Percent(_) => FigureKind::Percent,
            Value::Number(_) => FigureKind::Number,
            Value::Date(_) => FigureKind::Date,
        }
    }
}

impl Figure {
    pub fn kind(&self) -> FigureKind {
        self.value.kind()
    }
}

impl Quantity {
    /// The canonical digits, e.g. "120000" or "1.5".
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Parses digits with optional grouping commas and one decimal point, scaled by
    /// `10^exponent`. `None` for anything else.
    pub fn parse(digits: &str, exponent: u32) -> Option<Quantity> {
        let plain: String = digits.chars().filter(|&c| c != ',').collect();
        let (int, frac) = plain.split_once('.').unwrap_or((&plain, ""));
        let all_digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
        if int.is_empty() || !all_digits(int) || !all_digits(frac) {
            return None;
        }
        let shift = (exponent as usize).min(frac.len());
        let mut int = format!("{int}{}", &frac[..shift]);
        int.extend(std::iter::repeat_n('0', exponent as usize - shift));
        let frac = frac[shift..].trim_end_matches('0');
        let int = int.trim_start_matches('0');
        let int = if int.is_empty() { "0" } else { int };
        Some(Quantity(if frac.is_empty() {
            int.to_owned()
        } else {
            format!("{int}.{frac}")
        }))
    }
}

impl Date {
    /// Each part this date states is the same in `other` (which may state more).
    pub fn agrees_with(&self, other: &Date) -> bool {
        let part = |mine: Option<u32>, theirs: Option<u32>| mine.is_none() || mine == theirs;
        self.month == other.month
            && part(self.year, other.year)
            && part(self.day.map(u32::from), other.day.map(u32::from))
    }
}

impl Currency {
    pub fn symbol(self) -> &'static str {
        match self {
            Currency::Inr => "₹",
            Currency::Usd => "$",
            Currency::Eur => "€",
            Currency::Gbp => "£",
        }
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let month = MONTHS[usize::from(self.month) - 1];
        match (self.day, self.year) {
            (Some(day), Some(year)) => write!(f, "{day} {month} {year}"),
            (Some(day), None) => write!(f, "{day} {month}"),
            (None, Some(year)) => write!(f, "{month} {year}"),
            (None, None) => f.write_str(month),
        }
    }
}

/// Values as the UI can show them beside a figure: "₹120000", "30%", "12 March 2025".
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Amount { quantity, currency } => write!(f, "{}{quantity}", currency.symbol()),
            Value::Percent(quantity) => write!(f, "{quantity}%"),
            Value::Number(quantity) => write!(f, "{quantity}"),
            Value::Date(date) => write!(f, "{date}"),
        }
    }
}

/// Month names for display, January first.
pub(super) const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// A number as found, before a range has shared its unit.
#[derive(Clone, Debug)]
struct RawNumber {
    span: Range<usize>,
    digits: String,
    exponent: Option<u32>,
    currency: Option<Currency>,
    percent: bool,
}

impl RawNumber {
    fn value(&self) -> Value {
        let quantity = Quantity::parse(&self.digits, self.exponent.unwrap_or(0))
            .expect("the number pattern only matches digits, commas and one point");
        match (self.percent, self.currency) {
            (true, _) => Value::Percent(quantity),
            (false, Some(currency)) => Value::Amount { quantity, currency },
            (false, None) => Value::Number(quantity),
        }
    }

    /// No currency and no percent sign (a multiplier may have been shared).
    fn is_bare_but_scaled(&self) -> bool {
        self.currency.is_none() && !self.percent
    }
}

/// NUMBER's source: the old regex with `\s` spelled as Unicode White_Space ([`classes::SPACE`])
/// and `(?i)`'s `k` and `s` as `[k\x{212A}]` and `[s\x{17F}]` (regex's Unicode folding matched
/// KELVIN SIGN and LONG S there; [`folded`] reads them), so "₹\u{A0}500" and "5\u{202F}%" are
/// one figure as they were. The digits stay ASCII, as they were (`Quantity::parse` reads them).
/// The one deviation from regex (`classes::fixed_tests`): `\b` (after a multiplier, an ordinal,
/// "percent", a currency word) is ASCII, so a non-ASCII word char just after one is a boundary
/// ("5ké": the match is "5k" where regex's was "5") and a LONG S or KELVIN SIGN ending the word
/// is not ("3 lakhſ": "3 lakh"). `raw_number` drops a match glued to an alphanumeric char, so
/// the figures differ only at "3 lakhſ" (none; regex read 3 lakh) and at a non-alphanumeric word
/// char after the word, a combining mark or a joiner ("5k\u{301}": 5k; regex read none).
pub fn number_source() -> String {
    classes::spell(
        r"(?x)
        (?: (?P<cur> ₹ | Rs\.? | INR | US\$ | USD | \$ | € | EUR | £ | GBP ) SPACE? )?
        (?P<num> [0-9]{1,3} (?: (?:,[0-9]{3})+ | (?:,[0-9]{2})+ ,[0-9]{3} ) (?:\.[0-9]+)? | [0-9]+ (?:\.[0-9]+)? )
        (?: SPACE? (?P<mult> (?i: thou[s\x{17F}]and | la[k\x{212A}]h[s\x{17F}]? | lac[s\x{17F}]? | crore[s\x{17F}]? | million | billion | mn | bn | cr ) | [kK] | L ) \b )?
        (?: (?: st | nd | rd | th ) \b )?
        (?: SPACE? (?P<pct> % | (?i: percent | per SPACE? cent ) \b ) )?
        (?: SPACE (?P<curw> (?i: rupee[s\x{17F}]? | dollar[s\x{17F}]? | euro[s\x{17F}]? ) ) \b )?
        ",
    )
}

static NUMBER: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(&number_source()).expect("the number pattern is a valid regex"));

/// Month names (full first, so "March" is not read as "Mar"), capitalised as a date writes them.
const MONTH: &str = r"(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)";

/// DATE's source: the old regex with `\s` spelled as [`classes::SPACE`]; no `(?i)`, ASCII
/// digits as before. The one deviation from regex (`classes::fixed_tests`): `\b` is ASCII, so a
/// date glued to a non-ASCII word char after it ("5 Maré", "2024-01-05é") is read where regex's
/// read none, or keeps an optional year regex's dropped ("5 March 2024é"); `find_dates` checks
/// only the char before a date.
pub(crate) fn date_source() -> String {
    classes::spell(
        &r"(?x)
        (?P<iy> [0-9]{4} ) - (?P<im> [0-9]{1,2} ) - (?P<id> [0-9]{1,2} ) \b
        | (?P<n1> [0-9]{1,2} ) [/.\-] (?P<n2> [0-9]{1,2} ) [/.\-] (?P<n3> [0-9]{4} ) \b
        | (?P<dd> [0-9]{1,2} ) (?: st | nd | rd | th )? SPACE+ (?: of SPACE+ )? (?P<dm> MONTH ) \b \.?
          (?: ,? SPACE+ (?P<dy> [0-9]{4} ) \b )?
        | (?P<mm> MONTH ) \b \.? SPACE+ (?P<md> [0-9]{1,2} ) (?: st | nd | rd | th )? \b
          (?: ,? SPACE+ (?P<my> [0-9]{4} ) \b )?
        | (?P<ym> MONTH ) \b \.? ,? SPACE+ (?P<yy> [0-9]{4} ) \b
        "
        .replace("MONTH", MONTH),
    )
}

static DATE: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(&date_source()).expect("the date pattern is a valid regex"));

/// SPELLED's source: the old regex with `\s` spelled as [`classes::SPACE_ITEMS`] and `(?i)`'s `s`
/// as `[s\x{17F}]` (no `k` in it). The one deviation from regex (`classes::fixed_tests`): `\b`
/// is ASCII, so a number word glued to a non-ASCII word char ("éten", "sixé") is read where
/// regex's read none, and one starting or ending with LONG S ("ſix") is not read where regex's
/// read it.
pub(crate) fn spelled_source() -> String {
    classes::spell(
        r"(?ix)
        \b (?P<tens> twenty | thirty | forty | fifty | [s\x{17F}]ixty | [s\x{17F}]eventy | eighty | ninety )
           (?: [SPACE_ITEMS\-\u{2010}\u{2011}] (?P<unit> one | two | three | four | five | [s\x{17F}]ix | [s\x{17F}]even | eight | nine ) )? \b
        | \b (?P<word> zero | one | two | three | four | five | [s\x{17F}]ix | [s\x{17F}]even | eight | nine | ten | eleven
              | twelve | thirteen | fourteen | fifteen | [s\x{17F}]ixteen | [s\x{17F}]eventeen | eighteen | nineteen
              | hundred | thou[s\x{17F}]and ) \b
        ",
    )
}

static SPELLED: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(&spelled_source()).expect("the spelled-number pattern is a valid regex")
});

fn find_numbers(text: &str) -> Vec<RawNumber> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(caps) = NUMBER.captures_at(text, at) {
        let whole = caps.get(0).expect("group 0 always matches");
        match raw_number(text, &caps) {
            Some(number) => {
                at = whole.end();
                found.push(number);
            }
            // A currency word glued to the word before ("MRs 5"): the number itself may
            // still be a figure.
            None if caps.name("cur").is_some() && !free_before(text, whole.start()) => {
                at = caps.name("num").map_or(whole.end(), |m| m.start());
            }
            // A number glued to a word ("gpt4o", "x1111"): nothing inside it is a figure, so
            // the search goes on after it (never back into it, which would be quadratic).
            None => at = whole.end(),
        }
        if at >= text.len() {
            break;
        }
    }
    found
}

fn raw_number(text: &str, caps: &Captures<'_>) -> Option<RawNumber> {
    let whole = caps.get(0)?;
    let num = caps.name("num")?;
    if !free_before(text, whole.start()) || glued_after(text, whole.end()) {
        return None;
    }
    let exponent = caps.name("mult").map(|m| multiplier(m.as_str()));
    let currency = caps
        .name("cur")
        .or_else(|| caps.name("curw"))
        .and_then(|m| currency(m.as_str()));
    Some(RawNumber {
        span: whole.range(),
        digits: num.as_str().to_owned(),
        exponent,
        currency,
        percent: caps.name("pct").is_some(),
    })
}

fn find_dates(text: &str) -> Vec<(Range<usize>, Date)> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(caps) = DATE.captures_at(text, at) {
        let whole = caps.get(0).expect("group 0 always matches");
        match date(&caps).filter(|_| free_before(text, whole.start())) {
            Some(date) => {
                found.push((whole.range(), date));
                at = whole.end();
            }
            None => at = next_char(text, whole.start()),
        }
        if at >= text.len() {
            break;
        }
    }
    found
}

fn date(caps: &Captures<'_>) -> Option<Date> {
    let num = |name: &str| caps.name(name).and_then(|m| m.as_str().parse::<u32>().ok());
    let month_name = |name: &str| caps.name(name).map(|m| month_number(m.as_str()));
    let (year, month, day) = if let Some(year) = num("iy") {
        (Some(year), num("im")?, num("id"))
    } else if let (Some(a), Some(b), Some(year)) = (num("n1"), num("n2"), num("n3")) {
        // Day first, as India and Britain write dates, unless the second number cannot be
        // a month and the first can.
        if b > 12 && a <= 12 {
            (Some(year), a, Some(b))
        } else {
            (Some(year), b, Some(a))
        }
    } else if let Some(month) = month_name("dm") {
        (num("dy"), month, num("dd"))
    } else if let Some(month) = month_name("mm") {
        (num("my"), month, num("md"))
    } else {
        (num("yy"), month_name("ym")?, None)
    };
    if !(1..=12).contains(&month) {
        return None;
    }
    if let Some(day) = day
        && !(1..=days_in(month)).contains(&day)
    {
        return None;
    }
    Some(Date {
        year,
        month: month as u8,
        day: day.map(|d| d as u8),
    })
}

/// Shares a range's unit between its ends: in "₹15‑20 k" the first end takes the second's
/// multiplier and the second the first's currency.
fn share_range_units(text: &str, numbers: &mut [RawNumber]) {
    for i in 1..numbers.len() {
        let (before, after) = numbers.split_at_mut(i);
        let (first, second) = (&mut before[i - 1], &mut after[0]);
        let between = text[first.span.end..second.span.start].trim();
        let mut chars = between.chars();
        if !(chars.next().is_some_and(is_dash) && chars.next().is_none()) {
            continue;
        }
        if first.exponent.is_none() && !first.percent {
            first.exponent = second.exponent;
        }
        if first.is_bare_but_scaled() && second.percent {
            first.percent = true;
        }
        if second.currency.is_none() && !second.percent {
            second.currency = first.currency;
        }
    }
}

/// Spelled-out numbers ("three", "twenty-three"), which count as holding a value.
fn spelled_numbers(text: &str) -> Vec<Quantity> {
    SPELLED
        .captures_all(text)
        .iter()
        .filter_map(|caps| {
            let value = if let Some(tens) = caps.name("tens") {
                let tens = spelled_value(tens.as_str())?;
                tens + caps
                    .name("unit")
                    .and_then(|u| spelled_value(u.as_str()))
                    .unwrap_or(0)
            } else {
                spelled_value(caps.name("word")?.as_str())?
            };
            Some(Quantity(value.to_string()))
        })
        .collect()
}

fn spelled_value(word: &str) -> Option<u32> {
    const WORDS: [&str; 20] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 8] = [
        "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    let word = folded(word);
    if let Some(i) = WORDS.iter().position(|w| *w == word) {
        return Some(i as u32);
    }
    if let Some(i) = TENS.iter().position(|w| *w == word) {
        return Some(20 + 10 * i as u32);
    }
    match word.as_str() {
        "hundred" => Some(100),
        "thousand" => Some(1000),
        _ => None,
    }
}

/// A matched word in ASCII lower case, KELVIN SIGN and LONG S read as "k" and "s": the
/// patterns' `(?i)` matches them as regex's Unicode folding did.
fn folded(word: &str) -> String {
    word.chars()
        .map(|c| match c {
            '\u{212A}' => 'k',
            '\u{17F}' => 's',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

fn multiplier(word: &str) -> u32 {
    match folded(word).as_str() {
        "k" | "thousand" => 3,
        "l" | "lakh" | "lakhs" | "lac" | "lacs" => 5,
        "million" | "mn" => 6,
        "cr" | "crore" | "crores" => 7,
        "billion" | "bn" => 9,
        other => unreachable!("the number pattern has no multiplier {other:?}"),
    }
}

fn currency(word: &str) -> Option<Currency> {
    match folded(word.trim_end_matches('.')).as_str() {
        "₹" | "rs" | "inr" | "rupee" | "rupees" => Some(Currency::Inr),
        "$" | "us$" | "usd" | "dollar" | "dollars" => Some(Currency::Usd),
        "€" | "eur" | "euro" | "euros" => Some(Currency::Eur),
        "£" | "gbp" => Some(Currency::Gbp),
        _ => None,
    }
}

fn month_number(name: &str) -> u32 {
    let prefix: String = name.chars().take(3).collect();
    MONTHS
        .iter()
        .position(|m| m.starts_with(&prefix))
        .map_or(0, |i| i as u32 + 1)
}

fn days_in(month: u32) -> u32 {
    match month {
        2 => 29,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A figure may start here: the character before is not part of a word or of a number
/// ("gpt4", "v1.2.3" hold no figure).
fn free_before(text: &str, start: usize) -> bool {
    let mut before = text[..start].chars().rev();
    match before.next() {
        None => true,
        Some(c) if c.is_alphanumeric() || c == '_' => false,
        Some('.' | ',') => !before.next().is_some_and(|c| c.is_ascii_digit()),
        Some(_) => true,
    }
}

/// The match runs on into a word ("4o", "200k_base"), so it is not a figure.
fn glued_after(text: &str, end: usize) -> bool {
    text[end..]
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

fn next_char(text: &str, at: usize) -> usize {
    text[at..]
        .chars()
        .next()
        .map_or(text.len(), |c| at + c.len_utf8())
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

fn is_dash(c: char) -> bool {
    matches!(c, '-' | '\u{2010}'..='\u{2015}' | '\u{2212}')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks the figures of `text` as (text, value as displayed).
    fn check(text: &str, expect: &[(&str, &str)]) {
        let found: Vec<(String, String)> = figures(text)
            .into_iter()
            .map(|f| {
                assert_eq!(&text[f.span.clone()], f.text);
                (f.text, f.value.to_string())
            })
            .collect();
        let expect: Vec<(String, String)> = expect
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect();
        assert_eq!(found, expect, "{text}");
    }

    /// The ASCII `\b` (see `number_source`): a multiplier glued to a letter is no figure, as with
    /// regex ("5ké"); glued to a combining mark it is one now (regex read none).
    #[test]
    fn a_multiplier_glued_to_a_non_ascii_word_char() {
        check("5ké", &[]);
        check("5k\u{301}", &[("5k", "5000")]);
    }

    /// The number pattern matches a multiplier with KELVIN SIGN or LONG S in it, as regex's
    /// Unicode `(?i)` did before (where "5 thou\u{17F}and" reached `multiplier`'s
    /// `unreachable!`): they read as "k" and "s".
    #[test]
    fn kelvin_sign_and_long_s_read_as_k_and_s() {
        check(
            "5 thou\u{17F}and, 2 la\u{212A}h",
            &[("5 thou\u{17F}and", "5000"), ("2 la\u{212A}h", "200000")],
        );
        // The one deviation from regex: a LONG S after "lakh" is on the far side of the ASCII
        // `\b`, so the match stops at "lakh" and is glued to the "ſ" (regex read 3 lakh).
        check("3 lakh\u{17F}", &[]);
    }

    #[test]
    fn grouping_currency_and_multipliers_normalise() {
        check("₹1,20,000", &[("₹1,20,000", "₹120000")]);
        check("Rs. 120,000", &[("Rs. 120,000", "₹120000")]);
        check("INR 120000", &[("INR 120000", "₹120000")]);
        check("1.2 lakh", &[("1.2 lakh", "120000")]);
        check("₹1.2L a month", &[("₹1.2L", "₹120000")]);
        check("120k", &[("120k", "120000")]);
        check("0.12 crore", &[("0.12 crore", "1200000")]);
        check("12,34,56,789", &[("12,34,56,789", "123456789")]);
        check("1,234,567.50", &[("1,234,567.50", "1234567.5")]);
        check("$5k and €3", &[("$5k", "$5000"), ("€3", "€3")]);
        check("500 rupees", &[("500 rupees", "₹500")]);
        check("2.5 million", &[("2.5 million", "2500000")]);
    }

    #[test]
    fn percentages_ordinals_and_ranges() {
        check("30 % equity", &[("30 %", "30%")]);
        check(
            "30% or 12.5 percent",
            &[("30%", "30%"), ("12.5 percent", "12.5%")],
        );
        check("on the 5th", &[("5th", "5")]);
        check(
            "save ₹15‑20 k each month",
            &[("₹15", "₹15000"), ("20 k", "₹20000")],
        );
        check("(₹1.8‑3.6 L)", &[("₹1.8", "₹180000"), ("3.6 L", "₹360000")]);
        check("3‑6 months", &[("3", "3"), ("6", "6")]);
        check("10–20 %", &[("10", "10%"), ("20 %", "20%")]);
    }

    #[test]
    fn dates_in_common_forms() {
        check("on 12 March 2025.", &[("12 March 2025", "12 March 2025")]);
        check("the 12th of March", &[("12th of March", "12 March")]);
        check("March 12, 2025", &[("March 12, 2025", "12 March 2025")]);
        check("by March 2025", &[("March 2025", "March 2025")]);
        check("2025-03-12", &[("2025-03-12", "12 March 2025")]);
        check("12/03/2025", &[("12/03/2025", "12 March 2025")]);
        check("03/25/2025", &[("03/25/2025", "25 March 2025")]);
        // Not dates: an impossible day, "may" the verb, a month with no number.
        check("31/02/2025", &[("31", "31"), ("02", "2"), ("2025", "2025")]);
        check("you may 5 times", &[("5", "5")]);
        check("in March", &[]);
    }

    #[test]
    fn numbers_glued_to_words_are_not_figures() {
        check("gpt-4o and o200k_base", &[]);
        check("H2O", &[]);
        check("v1.2.3", &[]);
        check("Rs", &[]);
        check("20 kg", &[("20", "20")]);
        check("COVID-19", &[("19", "19")]);
        check("Age 55.", &[("55", "55")]);
        // Digits of other scripts are not read as numbers (the engine's figures are ASCII).
        check("೦೧ and ٣", &[]);
    }

    #[test]
    fn sources_hold_equivalent_forms() {
        let sources = Sources::new([
            "My salary is ₹1,20,000 and my FD matures in three months.",
            "I retire in 2050; the SIP goes in on 5 March 2026, 30% in debt.",
        ]);
        let holds = |text: &str| {
            let found = figures(text);
            assert_eq!(found.len(), 1, "{text}");
            sources.holds(&found[0].value)
        };
        for text in ["Rs 1.2 lakh", "120,000", "INR 120000", "1.2L", "120k", "3"] {
            assert!(holds(text), "{text}");
        }
        for text in ["2050", "2026", "5 March", "March 2026", "30 percent"] {
            assert!(holds(text), "{text}");
        }
        // Another currency, a number that is only a percentage elsewhere, another year.
        for text in ["$120,000", "30", "5 March 2027", "₹30,000", "6 March"] {
            assert!(!holds(text), "{text}");
        }
    }

    #[test]
    fn quantities_are_exact() {
        let q = |digits: &str, exp: u32| Quantity::parse(digits, exp).unwrap().0;
        assert_eq!(q("1.20", 5), "120000");
        assert_eq!(q("0.125", 2), "12.5");
        assert_eq!(q("007", 0), "7");
        assert_eq!(q("0.0", 0), "0");
        assert_eq!(q("1,20,000.00", 0), "120000");
        assert!(Quantity::parse("1.2.3", 0).is_none());
    }
}
