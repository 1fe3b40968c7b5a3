//! An assistant reply's Markdown as a small tree of plain data, built from `pulldown-cmark`'s
//! events, for `ui::widgets::markdown` to render as elements.
//!
//! Architecture invariants: nothing here produces HTML text, and nothing the reply holds becomes
//! markup. Raw HTML in a reply (a `<script>`, an `<img onerror=…>`) is a [`Node::Text`] like any
//! other words; a link is a [`Node::Link`] only when its target is `http:`, `https:` or
//! `mailto:` ([`safe_href`]), and any other link (`javascript:`, `data:`, a relative path) keeps
//! its words as text and loses its target. An image is never loaded: it becomes a link to its
//! source under the same rule, with its alt text as the words. Only chat replies go through
//! here; summaries, diffs and token views stay plain text, because their words are what they
//! measure.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag};

/// One node of a rendered reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// Words, shown as they are (raw HTML included).
    Text(String),
    /// Inline code.
    Code(String),
    /// A fenced or indented code block, with the language its fence names.
    CodeBlock {
        lang: Option<String>,
        code: String,
    },
    SoftBreak,
    HardBreak,
    Rule,
    /// An element holding other nodes.
    Element {
        kind: Kind,
        children: Vec<Node>,
    },
}

/// What an [`Node::Element`] is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Paragraph,
    /// A heading, level 1 to 6 as the reply wrote it.
    Heading(u8),
    Quote,
    /// A list; `Some(n)` is ordered and starts at `n`.
    List(Option<u64>),
    Item,
    Table,
    TableHead,
    TableRow,
    /// A table cell, its column's alignment, and whether it heads its column.
    TableCell {
        align: Align,
        head: bool,
    },
    Emphasis,
    Strong,
    Strike,
    /// A link whose target passed [`safe_href`].
    Link {
        href: String,
    },
    /// A container the renderer shows as plain inline content (a link with an unsafe target,
    /// or a construct this tree does not distinguish).
    Span,
}

/// A table column's alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    None,
    Left,
    Center,
    Right,
}

impl Align {
    /// The CSS `text-align` value, if any.
    pub fn css(self) -> Option<&'static str> {
        match self {
            Align::None => None,
            Align::Left => Some("left"),
            Align::Center => Some("center"),
            Align::Right => Some("right"),
        }
    }

    /// The cell's `style` attribute, e.g. `text-align: right`; `None` for no alignment.
    pub fn style(self) -> Option<&'static str> {
        match self {
            Align::None => None,
            Align::Left => Some("text-align: left"),
            Align::Center => Some("text-align: center"),
            Align::Right => Some("text-align: right"),
        }
    }
}

/// The reply `text` as a list of block nodes.
pub fn parse(text: &str) -> Vec<Node> {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut builder = Builder::default();
    for event in Parser::new_ext(text, options) {
        builder.event(event);
    }
    builder.finish()
}

/// `href` when it is a target a reply may link to: `http:`, `https:` or `mailto:`, whatever the
/// case, after the surrounding whitespace and the control characters a browser would strip
/// (`java\tscript:` is still `javascript:` to a browser). Anything else is `None`.
pub fn safe_href(href: &str) -> Option<String> {
    let cleaned: String = href.chars().filter(|c| !c.is_control()).collect();
    let cleaned = cleaned.trim();
    let lower = cleaned.to_ascii_lowercase();
    ["http://", "https://", "mailto:"]
        .iter()
        .any(|scheme| lower.starts_with(scheme))
        .then(|| cleaned.to_owned())
}

/// The words of `nodes` without their markup, as a screen reader or a search would read them.
pub fn plain_text(nodes: &[Node]) -> String {
    let mut out = String::new();
    for node in nodes {
        match node {
            Node::Text(t) | Node::Code(t) => out.push_str(t),
            Node::CodeBlock { code, .. } => out.push_str(code),
            Node::SoftBreak | Node::HardBreak => out.push('\n'),
            Node::Rule => {}
            Node::Element { children, .. } => out.push_str(&plain_text(children)),
        }
    }
    out
}

/// Builds the tree from the parser's events with a stack of open elements.
#[derive(Default)]
struct Builder {
    /// The open elements, innermost last; the bottom one is the document.
    open: Vec<(Kind, Vec<Node>)>,
    done: Vec<Node>,
    /// The open code block: its language and the text so far.
    code: Option<(Option<String>, String)>,
    /// The alignments of the table being read, and the column of the next cell.
    columns: Vec<Align>,
    column: usize,
    in_head: bool,
}

impl Builder {
    fn event(&mut self, event: Event<'_>) {
        if let Some((_, code)) = self.code.as_mut() {
            match event {
                Event::Text(text) | Event::Html(text) | Event::InlineHtml(text) => {
                    code.push_str(&text);
                    return;
                }
                Event::End(_) => {
                    let (lang, code) = self.code.take().unwrap_or_default();
                    self.push(Node::CodeBlock { lang, code });
                    return;
                }
                _ => {}
            }
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(_) => self.end(),
            // Raw HTML is words like any other: it never becomes markup.
            Event::Text(text)
            | Event::Html(text)
            | Event::InlineHtml(text)
            | Event::InlineMath(text)
            | Event::DisplayMath(text) => self.text(&text),
            Event::Code(code) => self.push(Node::Code(code.into_string())),
            Event::FootnoteReference(label) => self.text(&format!("[^{label}]")),
            Event::SoftBreak => self.push(Node::SoftBreak),
            Event::HardBreak => self.push(Node::HardBreak),
            Event::Rule => self.push(Node::Rule),
            Event::TaskListMarker(done) => self.text(if done { "[x] " } else { "[ ] " }),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        let kind = match tag {
            Tag::CodeBlock(kind) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info
                        .split_whitespace()
                        .next()
                        .map(str::to_owned)
                        .filter(|l| !l.is_empty()),
                    CodeBlockKind::Indented => None,
                };
                self.code = Some((lang, String::new()));
                return;
            }
            Tag::Paragraph => Kind::Paragraph,
            Tag::Heading { level, .. } => Kind::Heading(heading_level(level)),
            Tag::BlockQuote(_) => Kind::Quote,
            Tag::List(start) => Kind::List(start),
            Tag::Item => Kind::Item,
            Tag::Table(alignments) => {
                self.columns = alignments.into_iter().map(align).collect();
                Kind::Table
            }
            Tag::TableHead => {
                self.column = 0;
                self.in_head = true;
                Kind::TableHead
            }
            Tag::TableRow => {
                self.column = 0;
                self.in_head = false;
                Kind::TableRow
            }
            Tag::TableCell => {
                let align = self
                    .columns
                    .get(self.column)
                    .copied()
                    .unwrap_or(Align::None);
                self.column += 1;
                Kind::TableCell {
                    align,
                    head: self.in_head,
                }
            }
            Tag::Emphasis => Kind::Emphasis,
            Tag::Strong => Kind::Strong,
            Tag::Strikethrough => Kind::Strike,
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                match safe_href(&dest_url) {
                    Some(href) => Kind::Link { href },
                    None => Kind::Span,
                }
            }
            _ => Kind::Span,
        };
        self.open.push((kind, Vec::new()));
    }

    fn end(&mut self) {
        if let Some((kind, children)) = self.open.pop() {
            self.push(Node::Element { kind, children });
        }
    }

    fn text(&mut self, text: &str) {
        // Adjacent text (a word, then an inline tag's raw HTML) reads as one run.
        let siblings = self.siblings();
        if let Some(Node::Text(last)) = siblings.last_mut() {
            last.push_str(text);
        } else {
            siblings.push(Node::Text(text.to_owned()));
        }
    }

    fn push(&mut self, node: Node) {
        self.siblings().push(node);
    }

    fn siblings(&mut self) -> &mut Vec<Node> {
        match self.open.last_mut() {
            Some((_, children)) => children,
            None => &mut self.done,
        }
    }

    fn finish(mut self) -> Vec<Node> {
        // A well-formed event stream closes every tag; this only guards the tree's shape.
        while !self.open.is_empty() {
            self.end();
        }
        if let Some((lang, code)) = self.code.take() {
            self.done.push(Node::CodeBlock { lang, code });
        }
        self.done
    }
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

fn align(alignment: Alignment) -> Align {
    match alignment {
        Alignment::None => Align::None,
        Alignment::Left => Align::Left,
        Alignment::Center => Align::Center,
        Alignment::Right => Align::Right,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str) -> Node {
        Node::Text(t.to_owned())
    }

    fn el(kind: Kind, children: Vec<Node>) -> Node {
        Node::Element { kind, children }
    }

    fn check(markdown: &str, expect: Vec<Node>) {
        assert_eq!(parse(markdown), expect, "parsing {markdown:?}");
    }

    #[test]
    fn the_fincoach_reply_is_a_paragraph_with_strong_words() {
        check(
            "Your take-home salary is **₹1,20,000 per month**.",
            vec![el(
                Kind::Paragraph,
                vec![
                    text("Your take-home salary is "),
                    el(Kind::Strong, vec![text("₹1,20,000 per month")]),
                    text("."),
                ],
            )],
        );
    }

    #[test]
    fn paragraphs_emphasis_and_breaks() {
        check(
            "one *two*\nthree  \nfour\n\n~~five~~",
            vec![
                el(
                    Kind::Paragraph,
                    vec![
                        text("one "),
                        el(Kind::Emphasis, vec![text("two")]),
                        Node::SoftBreak,
                        text("three"),
                        Node::HardBreak,
                        text("four"),
                    ],
                ),
                el(Kind::Paragraph, vec![el(Kind::Strike, vec![text("five")])]),
            ],
        );
    }

    #[test]
    fn lists_ordered_and_not_and_headings() {
        check(
            "## Plan\n\n3. save\n4. invest\n\n- PPF\n- NPS",
            vec![
                el(Kind::Heading(2), vec![text("Plan")]),
                el(
                    Kind::List(Some(3)),
                    vec![
                        el(Kind::Item, vec![text("save")]),
                        el(Kind::Item, vec![text("invest")]),
                    ],
                ),
                el(
                    Kind::List(None),
                    vec![
                        el(Kind::Item, vec![text("PPF")]),
                        el(Kind::Item, vec![text("NPS")]),
                    ],
                ),
            ],
        );
    }

    #[test]
    fn code_inline_and_fenced_keeps_its_text_and_language() {
        check(
            "Call `schedule()`:\n\n```python\nprint(\"<b>\")\n```",
            vec![
                el(
                    Kind::Paragraph,
                    vec![text("Call "), Node::Code("schedule()".into()), text(":")],
                ),
                Node::CodeBlock {
                    lang: Some("python".into()),
                    code: "print(\"<b>\")\n".into(),
                },
            ],
        );
    }

    #[test]
    fn tables_carry_their_alignment_per_cell() {
        let cell = |align, head, t: &str| el(Kind::TableCell { align, head }, vec![text(t)]);
        check(
            "| fund | return |\n| :--- | ---: |\n| PPF | 7.1% |",
            vec![el(
                Kind::Table,
                vec![
                    el(
                        Kind::TableHead,
                        vec![
                            cell(Align::Left, true, "fund"),
                            cell(Align::Right, true, "return"),
                        ],
                    ),
                    el(
                        Kind::TableRow,
                        vec![
                            cell(Align::Left, false, "PPF"),
                            cell(Align::Right, false, "7.1%"),
                        ],
                    ),
                ],
            )],
        );
    }

    #[test]
    fn safe_links_are_links_and_others_keep_only_their_words() {
        check(
            "[docs](https://example.com/a) [mail](MAILTO:x@y.z) [x](javascript:alert(1))",
            vec![el(
                Kind::Paragraph,
                vec![
                    el(
                        Kind::Link {
                            href: "https://example.com/a".into(),
                        },
                        vec![text("docs")],
                    ),
                    text(" "),
                    el(
                        Kind::Link {
                            href: "MAILTO:x@y.z".into(),
                        },
                        vec![text("mail")],
                    ),
                    text(" "),
                    el(Kind::Span, vec![text("x")]),
                ],
            )],
        );
    }

    #[test]
    fn only_http_https_and_mailto_are_safe_however_disguised() {
        for href in ["http://a", "HTTPS://a", " https://a ", "mailto:a@b"] {
            assert!(safe_href(href).is_some(), "{href}");
        }
        for href in [
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            "java\tscript:alert(1)",
            "\u{1}javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "vbscript:msgbox",
            "/relative",
            "#top",
            "",
        ] {
            assert_eq!(safe_href(href), None, "{href:?}");
        }
    }

    #[test]
    fn raw_html_stays_text() {
        let nodes = parse("<script>alert(1)</script>\n\nhi <img src=x onerror=alert(2)> there");
        assert!(nodes.iter().all(|n| !matches!(
            n,
            Node::Element {
                kind: Kind::Link { .. },
                ..
            }
        )),);
        let words = plain_text(&nodes);
        assert!(words.contains("<script>alert(1)</script>"), "{words}");
        assert!(
            words.contains("hi <img src=x onerror=alert(2)> there"),
            "{words}"
        );
    }

    #[test]
    fn an_image_is_never_loaded_only_linked_when_safe() {
        check(
            "![chart](https://example.com/c.png) ![x](javascript:alert(1))",
            vec![el(
                Kind::Paragraph,
                vec![
                    el(
                        Kind::Link {
                            href: "https://example.com/c.png".into(),
                        },
                        vec![text("chart")],
                    ),
                    text(" "),
                    el(Kind::Span, vec![text("x")]),
                ],
            )],
        );
    }

    #[test]
    fn plain_replies_keep_their_words() {
        for reply in [
            "Hello from the test server, ünïcode included.",
            "one two three four five",
            "You said: first",
        ] {
            assert_eq!(plain_text(&parse(reply)), reply);
        }
    }

    #[test]
    fn an_unfinished_stream_still_makes_a_tree() {
        // A reply cut mid-fence or mid-emphasis (Stop) renders what has arrived.
        assert_eq!(
            parse("```rust\nfn main("),
            vec![Node::CodeBlock {
                lang: Some("rust".into()),
                code: "fn main(".into()
            }]
        );
        assert_eq!(plain_text(&parse("**half")), "**half");
    }

    #[test]
    fn a_cells_style_is_its_alignment_in_css() {
        for align in [Align::None, Align::Left, Align::Center, Align::Right] {
            assert_eq!(
                align.style().map(str::to_owned),
                align.css().map(|a| format!("text-align: {a}"))
            );
        }
        assert_eq!(Align::Center.style(), Some("text-align: center"));
        assert_eq!(Align::None.style(), None);
    }
}
