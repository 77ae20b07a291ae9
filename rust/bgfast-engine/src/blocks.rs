//! Game ranges cut into blocks for the thread pool: runs split their games into blocks so
//! that the sums do not depend on how threads take them.

use core::ops::Range;

use rayon::prelude::*;

/// `range` in blocks of `size` games (the last may be shorter), in parallel; none for an
/// empty or reversed range. Safe up to `u64::MAX`: no bound is computed past `range.end`.
pub(crate) fn blocks(range: Range<u64>, size: u64) -> impl ParallelIterator<Item = Range<u64>> {
    let len = range.end.saturating_sub(range.start);
    (0..len.div_ceil(size)).into_par_iter().map(move |k| {
        let lo = range.start + k * size;
        lo..lo + (range.end - lo).min(size)
    })
}

/// How many games `range` holds (0 when reversed).
pub(crate) fn len(range: &Range<u64>) -> u64 {
    range.end.saturating_sub(range.start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collected(range: Range<u64>, size: u64) -> Vec<Range<u64>> {
        blocks(range, size).collect()
    }

    #[test]
    fn blocks_cover_the_range_once_up_to_the_largest_game_number() {
        assert_eq!(collected(0..40, 16), vec![0..16, 16..32, 32..40]);
        let top = u64::MAX - 20..u64::MAX;
        let cut = collected(top.clone(), 16);
        assert_eq!(
            cut,
            vec![top.start..top.start + 16, top.start + 16..u64::MAX]
        );
        assert_eq!(cut.iter().map(|r| r.end - r.start).sum::<u64>(), 20);
    }

    #[test]
    #[allow(clippy::reversed_empty_ranges)]
    fn empty_and_reversed_ranges_have_no_blocks() {
        assert!(collected(7..7, 16).is_empty());
        assert!(collected(100..5, 16).is_empty());
        assert_eq!(len(&(100..5)), 0);
    }
}
