//! The snowball guard: a progressive summary that folds each cycle's turns into the last one
//! tends to grow every cycle (the lesson's run went 58, 99, 137 tokens), until the summary is the
//! cost it was meant to save. Given the summary's tokens per cycle, this marks each cycle's growth
//! and warns when the summary grew `run` cycles running or passed its budget.

/// The default number of growing cycles in a row that draws a warning.
pub const DEFAULT_GROWTH_RUN: usize = 2;

/// One cycle of the summary's size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnowballPoint {
    /// 1-based, in the order given.
    pub cycle: usize,
    pub tokens: u32,
    /// Tokens gained since the cycle before (negative when it shrank; 0 for the first).
    pub change: i64,
    /// Cycles in a row, ending here, in which the summary grew.
    pub growth_run: usize,
    pub warnings: Vec<SnowballWarning>,
}

/// Why a cycle is flagged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SnowballWarning {
    /// The summary grew in each of the last `cycles` cycles.
    Growing { cycles: usize },
    /// The summary holds more tokens than its budget.
    OverBudget { tokens: u32, budget: u32 },
}

/// Marks each cycle of `tokens`. `run` is how many growing cycles in a row draw a warning (0
/// never warns for growth); `budget`, when given, is the summary's token budget.
pub fn snowball(tokens: &[u32], budget: Option<u32>, run: usize) -> Vec<SnowballPoint> {
    let mut points: Vec<SnowballPoint> = Vec::with_capacity(tokens.len());
    for (i, &count) in tokens.iter().enumerate() {
        let previous = i.checked_sub(1).map(|p| tokens[p]);
        let change = previous.map_or(0, |p| i64::from(count) - i64::from(p));
        let growth_run = match points.last() {
            Some(last) if change > 0 => last.growth_run + 1,
            _ => 0,
        };
        let mut warnings = Vec::new();
        if run > 0 && growth_run >= run {
            warnings.push(SnowballWarning::Growing { cycles: growth_run });
        }
        if let Some(budget) = budget
            && count > budget
        {
            warnings.push(SnowballWarning::OverBudget {
                tokens: count,
                budget,
            });
        }
        points.push(SnowballPoint {
            cycle: i + 1,
            tokens: count,
            change,
            growth_run,
            warnings,
        });
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lessons_run_snowballs_at_cycle_3() {
        let points = snowball(&[58, 99, 137], Some(120), DEFAULT_GROWTH_RUN);
        let runs: Vec<usize> = points.iter().map(|p| p.growth_run).collect();
        assert_eq!(runs, [0, 1, 2]);
        assert!(points[0].warnings.is_empty() && points[1].warnings.is_empty());
        assert_eq!(
            points[2].warnings,
            [
                SnowballWarning::Growing { cycles: 2 },
                SnowballWarning::OverBudget {
                    tokens: 137,
                    budget: 120
                }
            ]
        );
        assert_eq!(points[2].change, 38);
    }

    #[test]
    fn a_shrinking_cycle_resets_the_run() {
        let points = snowball(&[10, 20, 15, 30, 40], None, 2);
        let runs: Vec<usize> = points.iter().map(|p| p.growth_run).collect();
        assert_eq!(runs, [0, 1, 0, 1, 2]);
        let warned: Vec<bool> = points.iter().map(|p| !p.warnings.is_empty()).collect();
        assert_eq!(warned, [false, false, false, false, true]);
        assert!(
            snowball(&[1, 2, 3, 4], None, 0)
                .iter()
                .all(|p| p.warnings.is_empty())
        );
        assert!(snowball(&[], Some(1), 2).is_empty());
    }
}
