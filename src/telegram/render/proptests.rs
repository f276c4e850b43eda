//! Property tests: for arbitrary and hostile Markdown every block and every cut point is valid
//! MarkdownV2 that shows exactly the block's plain text (or its beginning), the owner can read every
//! word in order, and an excerpt fits its budget and begins the whole context.

use proptest::prelude::*;

use super::arbitrary::markdown;
use super::tests::check_blocks;
use super::*;
use crate::telegram::markdown_check::{parse_markdown_v2, telegram_length};

/// Checks an excerpt of `blocks` within `budget`: valid, within the budget, and either the whole
/// context or a beginning of it followed by the Full context line.
fn check_excerpt(blocks: &[Block], budget: usize) -> Result<(), TestCaseError> {
    let whole: Vec<&str> = blocks.iter().map(|b| b.plain.as_str()).collect();
    let whole = whole.join("\n\n");
    let ex = excerpt(blocks, budget);
    let plain = parse_markdown_v2(&ex.text)
        .map_err(|e| TestCaseError::fail(format!("{e}\n{}", ex.text)))?;
    prop_assert!(telegram_length(&plain) <= budget, "{} > {budget}", plain);
    if !ex.cut {
        prop_assert_eq!(plain, whole);
        return Ok(());
    }
    if budget > telegram_length(FULL_CONTEXT) {
        prop_assert!(plain.ends_with(FULL_CONTEXT), "{}", plain);
    }
    let shown = plain
        .strip_suffix(FULL_CONTEXT)
        .unwrap_or_default()
        .trim_end_matches('\n');
    // Shown whole up to a cut point, or (first block without one) as text cut with `…`.
    let begins = whole.starts_with(shown)
        || shown
            .strip_suffix('…')
            .is_some_and(|s| whole.starts_with(s));
    prop_assert!(begins, "{:?} does not begin {:?}", shown, whole);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn blocks_are_valid_and_keep_every_word(md in markdown(80)) {
        check_blocks(&md, &render(&md));
    }

    #[test]
    fn excerpts_fit_and_begin_the_context(md in markdown(80), budget in 0..400usize) {
        let blocks = render(&md);
        check_excerpt(&blocks, budget)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// 10,000-character contexts of hostile pieces, cut to view-sized budgets.
    #[test]
    fn long_hostile_contexts(md in markdown(3000), budget in 0..4200usize) {
        let md: String = md.chars().take(10_000).collect();
        let blocks = render(&md);
        check_blocks(&md, &blocks);
        check_excerpt(&blocks, budget)?;
        check_excerpt(&blocks, 300)?;
    }
}
