//! Line numbers of places in a module's text, for messages. roxmltree's `text_pos_at`
//! counts the newlines from the start of the text on every call, which made loading a
//! module quadratic in its size (every class, member and dimension reference records its
//! line): 16,000 classes took 14 s. The newlines are found once here instead, and each
//! line is a binary search.

use roxmltree::Node;

pub(crate) struct Lines {
    /// The byte offset of every newline of the text, in order.
    newlines: Vec<usize>,
}

impl Lines {
    pub(crate) fn new(text: &str) -> Lines {
        let newlines = (text.bytes().enumerate())
            .filter_map(|(offset, byte)| (byte == b'\n').then_some(offset))
            .collect();
        Lines { newlines }
    }

    /// The line (from 1) of the byte at `offset`: one more than the newlines before it, as
    /// roxmltree counts.
    pub(crate) fn at(&self, offset: usize) -> u32 {
        let before = self.newlines.partition_point(|&newline| newline < offset);
        u32::try_from(before + 1).unwrap_or(u32::MAX)
    }

    /// The line where `node` starts.
    pub(crate) fn of(&self, node: Node<'_, '_>) -> u32 {
        self.at(node.range().start)
    }
}

#[cfg(test)]
mod tests {
    use super::Lines;

    /// The same lines as roxmltree's own count, at every offset of a text with blank lines,
    /// a carriage return and no final newline.
    #[test]
    fn lines_match_roxmltree_everywhere() {
        let text = "<a>\n\n<b/>\r\n  <c>x\ny</c>\n</a>";
        let doc = roxmltree::Document::parse(text).expect("well-formed");
        let lines = Lines::new(text);
        for offset in 0..=text.len() {
            assert_eq!(
                lines.at(offset),
                doc.text_pos_at(offset).row,
                "offset {offset}"
            );
        }
    }
}
