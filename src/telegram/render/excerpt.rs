//! Fitting rendered blocks into a budget: whole blocks while they fit, then the longest safe beginning
//! of the next one, then the `… 📄 Full context` line.

use crate::telegram::markdown::{escape, truncate};

use super::Block;

/// The line that ends a context that was cut; the view pairs it with a button that sends the file.
pub const FULL_CONTEXT: &str = "… 📄 Full context";
/// Blank line between two blocks.
const BETWEEN_BLOCKS: &str = "\n\n";

/// A context as shown: MarkdownV2, and whether anything of it was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excerpt {
    pub text: String,
    pub cut: bool,
}

/// `blocks` joined by blank lines when they fit in `budget` UTF-16 units of plain text. Otherwise as
/// many whole blocks as fit, then the longest beginning of the next block that ends where no entity
/// is open (the first block, if it has none, is shown as plain text cut to fit), then a line with
/// [`FULL_CONTEXT`], all within `budget`. A budget too small for that line shows nothing.
#[must_use]
pub fn excerpt(blocks: &[Block], budget: usize) -> Excerpt {
    let between = BETWEEN_BLOCKS.len();
    let whole =
        blocks.iter().map(|b| b.units).sum::<usize>() + between * blocks.len().saturating_sub(1);
    if whole <= budget {
        let texts: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
        return Excerpt {
            text: texts.join(BETWEEN_BLOCKS),
            cut: false,
        };
    }
    let more = escape(FULL_CONTEXT);
    let Some(room) = budget.checked_sub(1 + FULL_CONTEXT.encode_utf16().count()) else {
        return Excerpt {
            text: String::new(),
            cut: true,
        };
    };
    let mut parts: Vec<String> = Vec::new();
    let mut used = 0;
    for block in blocks {
        let gap = if parts.is_empty() { 0 } else { between };
        if used + gap + block.units <= room {
            parts.push(block.text.clone());
            used += gap + block.units;
            continue;
        }
        let left = room.saturating_sub(used + gap);
        if let Some(prefix) = block.prefix(left) {
            parts.push(prefix);
        } else if parts.is_empty() {
            let flat = truncate(&block.plain, left);
            if !flat.trim().is_empty() {
                parts.push(escape(&flat));
            }
        }
        break;
    }
    let mut text = parts.join(BETWEEN_BLOCKS);
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(&more);
    Excerpt { text, cut: true }
}
