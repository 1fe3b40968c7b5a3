//! What a session keeps of its probes ([`ProbeSet`]): the probes, each with its evidence in the
//! archive, the judge's and the writer's prompts as the user left them (starting from
//! [`JUDGE_PROMPT`] and [`WRITER_PROMPT`]), the models used, and one graded [`ProbeResult`] per
//! probe and edition. Making, asking and grading them is [`crate::engine::probes`]'; their file
//! form is `engine::session`'s `probes.rs`.

/// The judge's default system prompt.
pub const JUDGE_PROMPT: &str = "You grade an answer against a conversation's own record. You are given a question about the conversation, the evidence quoted from its archive, and an answer written from a summary of it. Grade the answer: \"correct\" when it states what the evidence says; \"partly\" when it states only part of it, or states it vaguely; \"wrong\" when it contradicts the evidence or states something else; \"unanswerable\" when it says the conversation does not say, or does not answer. Reply with only a JSON object: {\"grade\": \"correct\" | \"partly\" | \"wrong\" | \"unanswerable\", \"evidence\": \"the words of the evidence your grade rests on, quoted exactly\"}.";

/// The default prompt for model-written probes.
pub const WRITER_PROMPT: &str = "You write recall questions about a conversation. Below are its earlier messages, each numbered. Write up to five short questions whose answers one message states plainly (a figure, a decision, a rule, a name), one answer per question. Reply with only a JSON object: {\"probes\": [{\"question\": \"...\", \"message\": the message's number, \"quote\": \"the sentence of that message that answers it, copied exactly\"}]}.";

/// One question whose answer the archive holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// Stable within the session: results name the probe by it, so reordering or removing
    /// others keeps them.
    pub id: u32,
    pub question: String,
    pub evidence: Evidence,
    pub source: ProbeSource,
}

/// Where a probe's answer is in the archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evidence {
    /// The archive index of the message that holds it.
    pub message: usize,
    /// The sentence of that message, quoted.
    pub quote: String,
}

/// Where a probe came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProbeSource {
    /// A pinned fact, by its label.
    Fact(String),
    /// A rule sentence the offline checks found in a folded turn.
    Rule,
    /// Written by the model from the folded turns.
    Model,
    /// Written or edited by the user.
    User,
}

/// The judge's grade of one answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Grade {
    Correct,
    Partly,
    Wrong,
    Unanswerable,
}

/// One probe answered at one edition and graded.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeResult {
    pub probe: u32,
    /// The edition's cycle, counted from 1.
    pub cycle: u32,
    pub answer: String,
    pub grade: Grade,
    /// What the judge quoted from the archive.
    pub evidence: String,
}

/// What a session keeps of its probes.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeSet {
    pub probes: Vec<Probe>,
    /// The judge's system prompt, as the user left it.
    pub judge_prompt: String,
    /// The model-written probes' prompt, as the user left it.
    pub writer_prompt: String,
    /// The models the results were written with (empty before any run).
    pub answer_model: String,
    pub judge_model: String,
    /// At most one per probe and cycle.
    pub results: Vec<ProbeResult>,
}

impl Default for ProbeSet {
    fn default() -> Self {
        ProbeSet {
            probes: Vec::new(),
            judge_prompt: JUDGE_PROMPT.to_owned(),
            writer_prompt: WRITER_PROMPT.to_owned(),
            answer_model: String::new(),
            judge_model: String::new(),
            results: Vec::new(),
        }
    }
}

impl Grade {
    pub const ALL: [Grade; 4] = [
        Grade::Correct,
        Grade::Partly,
        Grade::Wrong,
        Grade::Unanswerable,
    ];

    pub fn slug(self) -> &'static str {
        match self {
            Grade::Correct => "correct",
            Grade::Partly => "partly",
            Grade::Wrong => "wrong",
            Grade::Unanswerable => "unanswerable",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Grade> {
        Grade::ALL.into_iter().find(|g| g.slug() == slug)
    }

    /// What the grade adds to an edition's score: 1 for correct, a half for partly.
    pub fn points(self) -> f64 {
        match self {
            Grade::Correct => 1.0,
            Grade::Partly => 0.5,
            Grade::Wrong | Grade::Unanswerable => 0.0,
        }
    }
}

impl ProbeSource {
    pub fn slug(&self) -> &'static str {
        match self {
            ProbeSource::Fact(_) => "fact",
            ProbeSource::Rule => "rule",
            ProbeSource::Model => "model",
            ProbeSource::User => "user",
        }
    }
}

impl ProbeSet {
    /// The id a new probe gets: one more than any probe has had here.
    pub fn next_id(&self) -> u32 {
        self.probes.iter().map(|p| p.id).max().unwrap_or(0) + 1
    }

    /// Adds probes, each with a fresh id, leaving out any whose question the set already asks.
    pub fn add(&mut self, probes: impl IntoIterator<Item = Probe>) -> usize {
        let mut added = 0;
        for mut probe in probes {
            let asked = self
                .probes
                .iter()
                .any(|p| same_question(&p.question, &probe.question));
            if asked || probe.question.trim().is_empty() {
                continue;
            }
            probe.id = self.next_id();
            self.probes.push(probe);
            added += 1;
        }
        added
    }

    /// Changes a probe's question; its results go, since they answer the old one.
    pub fn edit(&mut self, id: u32, question: &str) {
        if let Some(probe) = self.probes.iter_mut().find(|p| p.id == id)
            && probe.question != question
        {
            probe.question = question.to_owned();
            probe.source = ProbeSource::User;
            self.results.retain(|r| r.probe != id);
        }
    }

    /// Removes a probe and its results.
    pub fn remove(&mut self, id: u32) {
        self.probes.retain(|p| p.id != id);
        self.results.retain(|r| r.probe != id);
    }

    /// The result of `probe` at `cycle`, if graded.
    pub fn result(&self, probe: u32, cycle: u32) -> Option<&ProbeResult> {
        self.results
            .iter()
            .find(|r| r.probe == probe && r.cycle == cycle)
    }

    /// Puts a result in, replacing the one of the same probe and cycle.
    pub fn record(&mut self, result: ProbeResult) {
        self.results
            .retain(|r| !(r.probe == result.probe && r.cycle == result.cycle));
        self.results.push(result);
        self.results.sort_unstable_by_key(|r| (r.probe, r.cycle));
    }

    /// The score of `cycle`: points over the probes graded there, from 0 to 1; `None` when none
    /// are graded.
    pub fn score(&self, cycle: u32) -> Option<f64> {
        let graded: Vec<Grade> = self
            .results
            .iter()
            .filter(|r| r.cycle == cycle && self.probes.iter().any(|p| p.id == r.probe))
            .map(|r| r.grade)
            .collect();
        (!graded.is_empty())
            .then(|| graded.iter().map(|g| g.points()).sum::<f64>() / graded.len() as f64)
    }
}

/// Two questions are the same when they differ only in case and spacing.
fn same_question(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        s.split_whitespace()
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
    };
    norm(a) == norm(b)
}
