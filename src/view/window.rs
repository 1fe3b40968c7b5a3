//! The arithmetic of a virtualised list: which rows a scrolled viewport needs, and how tall the
//! spacers above and below them are, so a list of thousands of rows keeps only a few dozen in the
//! page while its scrollbar still spans the whole list.
//!
//! Rows may differ in height. Each starts at an estimate and takes its measured height once it
//! has been shown. The heights live in a Fenwick tree, so the offset of a row, the row at a
//! scroll offset and a height update each cost O(log n), and scrolling a 10,000-row list never
//! walks it. Heights are whole CSS pixels (`offsetHeight`), so sums are exact integers. The
//! tree is property-tested against a linear walk over the same heights.

/// The rows a viewport needs and the spacers around them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Window {
    /// First row to render.
    pub start: usize,
    /// One past the last row to render.
    pub end: usize,
    /// Height of the spacer before `start`: the rows above, in pixels.
    pub top: u64,
    /// Height of the spacer after `end`: the rows below, in pixels.
    pub bottom: u64,
}

impl Window {
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// The top spacer's CSS height, e.g. `1200px`.
    pub fn top_px(&self) -> String {
        format!("{}px", self.top)
    }

    /// The bottom spacer's CSS height, e.g. `0px`.
    pub fn bottom_px(&self) -> String {
        format!("{}px", self.bottom)
    }
}

/// The scroll box's class: `vlist` and the caller's own, e.g. `vlist archive`.
pub fn list_class(class: &str) -> String {
    format!("vlist {class}")
}

/// The row a drawn row's `data-index` names; `None` for an element that is not a row.
pub fn row_index(data_index: Option<&str>) -> Option<usize> {
    data_index?.parse().ok()
}

/// Row heights: an estimate until measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowHeights {
    heights: Vec<u32>,
    /// Fenwick tree over `heights`, 1-based: `tree[i]` sums the `i & -i` rows ending at row `i - 1`.
    tree: Vec<u64>,
    estimate: u32,
}

impl RowHeights {
    /// `count` rows of `estimate` pixels each.
    pub fn new(count: usize, estimate: u32) -> RowHeights {
        let mut rows = RowHeights {
            heights: vec![estimate; count],
            tree: Vec::new(),
            estimate,
        };
        rows.rebuild();
        rows
    }

    pub fn len(&self) -> usize {
        self.heights.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heights.is_empty()
    }

    pub fn height(&self, row: usize) -> u32 {
        self.heights[row]
    }

    /// Grows or shrinks the list to `count` rows. Rows kept keep their heights; new rows take the
    /// estimate (a chat that grows by one message keeps everything measured so far).
    pub fn resize(&mut self, count: usize) {
        if count != self.heights.len() {
            self.heights.resize(count, self.estimate);
            self.rebuild();
        }
    }

    /// Records the measured height of `row`. Returns whether anything changed, so a caller can
    /// skip a redraw when a measurement confirms what was known. Rows out of range are ignored.
    pub fn set(&mut self, row: usize, height: u32) -> bool {
        let Some(old) = self.heights.get(row).copied() else {
            return false;
        };
        if old == height {
            return false;
        }
        self.heights[row] = height;
        let (add, delta) = if height > old {
            (true, u64::from(height - old))
        } else {
            (false, u64::from(old - height))
        };
        let mut i = row + 1;
        while i < self.tree.len() {
            if add {
                self.tree[i] += delta;
            } else {
                self.tree[i] -= delta;
            }
            i += i & i.wrapping_neg();
        }
        true
    }

    /// Pixels above row `row`: the sum of the heights of rows `0..row`. `row` may be `len()`.
    pub fn offset(&self, row: usize) -> u64 {
        let mut i = row.min(self.len());
        let mut sum = 0;
        while i > 0 {
            sum += self.tree[i];
            i -= i & i.wrapping_neg();
        }
        sum
    }

    /// The whole list's height.
    pub fn total(&self) -> u64 {
        self.offset(self.len())
    }

    /// The row at pixel `y`: the first row whose bottom edge lies below `y`, or the last row when
    /// `y` is past the end. 0 for an empty list.
    pub fn index_at(&self, y: u64) -> usize {
        // Binary lifting: the largest k with offset(k) <= y is the number of rows ending at or
        // above y, and row k is the one that reaches below it.
        let n = self.len();
        let mut k = 0;
        let mut remaining = y;
        let mut step = if n == 0 { 0 } else { 1 << n.ilog2() };
        while step > 0 {
            let next = k + step;
            if next <= n && self.tree[next] <= remaining {
                k = next;
                remaining -= self.tree[next];
            }
            step >>= 1;
        }
        k.min(n.saturating_sub(1))
    }

    /// The rows a viewport of `viewport` pixels scrolled to `scroll_top` shows, plus `overscan`
    /// rows either side (so a fast scroll or a keypress finds the next rows already there).
    pub fn window(&self, scroll_top: u64, viewport: u64, overscan: usize) -> Window {
        let n = self.len();
        if n == 0 {
            return Window::default();
        }
        let first = self.index_at(scroll_top);
        let last = self.index_at(scroll_top + viewport.saturating_sub(1));
        let start = first.saturating_sub(overscan);
        let end = (last + 1 + overscan).min(n);
        let top = self.offset(start);
        Window {
            start,
            end,
            top,
            bottom: self.total() - self.offset(end),
        }
    }

    fn rebuild(&mut self) {
        // Linear construction: each node passes its sum to its parent once.
        let n = self.heights.len();
        self.tree = vec![0; n + 1];
        for (i, &h) in self.heights.iter().enumerate() {
            self.tree[i + 1] += u64::from(h);
            let parent = (i + 1) + ((i + 1) & (i + 1).wrapping_neg());
            if parent <= n {
                self.tree[parent] += self.tree[i + 1];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The same answers by walking every row, to check the tree against.
    struct Naive(Vec<u32>);

    impl Naive {
        fn offset(&self, row: usize) -> u64 {
            self.0[..row].iter().map(|&h| u64::from(h)).sum()
        }

        fn index_at(&self, y: u64) -> usize {
            let mut bottom = 0u64;
            for (i, &h) in self.0.iter().enumerate() {
                bottom += u64::from(h);
                if bottom > y {
                    return i;
                }
            }
            self.0.len().saturating_sub(1)
        }
    }

    fn measured(heights: &[u32], estimate: u32) -> RowHeights {
        let mut rows = RowHeights::new(heights.len(), estimate);
        for (i, &h) in heights.iter().enumerate() {
            rows.set(i, h);
        }
        rows
    }

    #[test]
    fn a_uniform_list_shows_the_rows_in_view_and_the_overscan() {
        let rows = RowHeights::new(5_000, 20);
        assert_eq!(rows.total(), 100_000);
        // 200 px down, 100 px tall: rows 10..15 are visible, two more either side.
        assert_eq!(
            rows.window(200, 100, 2),
            Window {
                start: 8,
                end: 17,
                top: 160,
                bottom: (5_000 - 17) * 20
            }
        );
        // At the top nothing is above; at the very end the last row is in and nothing is below.
        assert_eq!(rows.window(0, 100, 2).start, 0);
        let end = rows.window(rows.total() - 100, 100, 2);
        assert_eq!((end.end, end.bottom), (5_000, 0));
        // Scrolled past the end (a stale offset after the list shrank) still shows the last rows.
        assert_eq!(rows.window(10_000_000, 100, 0).end, 5_000);
    }

    #[test]
    fn a_measurement_moves_the_rows_below_it() {
        let mut rows = RowHeights::new(4, 10);
        assert!(rows.set(1, 50));
        assert!(!rows.set(1, 50), "the same height again changes nothing");
        assert!(!rows.set(9, 50), "a row out of range is ignored");
        assert_eq!(
            (0..=4).map(|i| rows.offset(i)).collect::<Vec<_>>(),
            [0, 10, 60, 70, 80]
        );
        assert_eq!(rows.index_at(59), 1);
        assert_eq!(rows.index_at(60), 2);
        rows.set(1, 5);
        assert_eq!(rows.total(), 35);
    }

    #[test]
    fn resizing_keeps_what_was_measured() {
        let mut rows = measured(&[7, 8, 9], 10);
        rows.resize(5);
        assert_eq!(rows.total(), 7 + 8 + 9 + 10 + 10);
        rows.resize(2);
        assert_eq!(rows.total(), 15);
        assert_eq!(RowHeights::new(0, 10).window(0, 500, 3), Window::default());
    }

    proptest! {
        #[test]
        fn offsets_and_lookups_match_a_linear_walk(
            heights in prop::collection::vec(0u32..200, 0..300),
            updates in prop::collection::vec((0usize..300, 0u32..200), 0..30),
            ys in prop::collection::vec(0u64..70_000, 1..20),
        ) {
            let mut rows = measured(&heights, 37);
            let mut naive = Naive(heights.clone());
            for (row, h) in updates {
                rows.set(row, h);
                if let Some(slot) = naive.0.get_mut(row) {
                    *slot = h;
                }
            }
            for i in 0..=naive.0.len() {
                prop_assert_eq!(rows.offset(i), naive.offset(i));
            }
            for y in ys {
                prop_assert_eq!(rows.index_at(y), naive.index_at(y));
            }
        }

        #[test]
        fn the_window_covers_the_viewport_and_the_spacers_fill_the_rest(
            heights in prop::collection::vec(0u32..120, 1..400),
            scroll in 0u64..50_000,
            viewport in 0u64..2_000,
            overscan in 0usize..10,
        ) {
            let rows = measured(&heights, 20);
            let naive = Naive(heights.clone());
            let total = rows.total();
            let w = rows.window(scroll, viewport, overscan);
            prop_assert!(w.start <= w.end && w.end <= heights.len());
            prop_assert!(!w.is_empty());
            prop_assert_eq!(w.top, naive.offset(w.start));
            prop_assert_eq!(w.top + (naive.offset(w.end) - naive.offset(w.start)) + w.bottom, total);
            // Every row with pixels inside the viewport is rendered.
            let (from, to) = (scroll, scroll + viewport);
            for (i, &h) in heights.iter().enumerate() {
                let (a, b) = (naive.offset(i), naive.offset(i) + u64::from(h));
                if h > 0 && a < to && b > from {
                    prop_assert!((w.start..w.end).contains(&i), "row {} of {:?} is missing", i, w);
                }
            }
            // And no more than the overscan beyond the rows at the viewport's two edges.
            let first = naive.index_at(scroll);
            let last = naive.index_at(scroll + viewport.saturating_sub(1));
            prop_assert_eq!(w.start, first.saturating_sub(overscan));
            prop_assert_eq!(w.end, (last + 1 + overscan).min(heights.len()));
        }

        #[test]
        fn scrolled_to_the_bottom_the_last_row_is_rendered(
            heights in prop::collection::vec(1u32..120, 1..400),
            viewport in 1u64..2_000,
        ) {
            let rows = measured(&heights, 20);
            let top = rows.total().saturating_sub(viewport);
            let w = rows.window(top, viewport, 0);
            prop_assert_eq!(w.end, heights.len());
            prop_assert_eq!(w.bottom, 0);
        }
    }

    #[test]
    fn the_spacers_and_the_box_are_styled_and_rows_found_by_their_index() {
        assert_eq!(Window::default().top_px(), "0px");
        let mid = Window {
            start: 3,
            end: 9,
            top: 1200,
            bottom: 48,
        };
        assert_eq!(
            (mid.top_px().as_str(), mid.bottom_px().as_str()),
            ("1200px", "48px")
        );
        assert_eq!(list_class("archive"), "vlist archive");
        assert_eq!(row_index(Some("17")), Some(17));
        assert_eq!(row_index(Some("")), None);
        assert_eq!(row_index(Some("-1")), None);
        assert_eq!(row_index(None), None);
    }
}
