//! Text tables aligned by construction: a header over each column, figures right-aligned and
//! words left-aligned, each column as wide as its widest cell or its stated minimum, counted in
//! characters (µ, ± and × are one each), so a header always sits over its figures.

use std::fmt::Write;

/// How a column's cells sit in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Words: against the left edge.
    Left,
    /// Figures: against the right edge, under the end of the header.
    Right,
}

/// One column: its header, alignment and least width.
#[derive(Clone, Debug)]
pub struct Column {
    name: String,
    align: Align,
    min: usize,
}

/// A column of words at least `min` wide.
pub fn words(name: &str, min: usize) -> Column {
    Column {
        name: name.to_string(),
        align: Align::Left,
        min,
    }
}

/// A column of figures at least `min` wide.
pub fn figures(name: &str, min: usize) -> Column {
    Column {
        name: name.to_string(),
        align: Align::Right,
        min,
    }
}

/// A table being filled: columns, then rows, each with an optional note after its last cell.
#[derive(Clone, Debug)]
pub struct Table {
    columns: Vec<Column>,
    rows: Vec<(Vec<String>, String)>,
    indent: usize,
}

impl Table {
    /// A table of `columns`.
    pub fn new(columns: Vec<Column>) -> Self {
        Table {
            columns,
            rows: Vec::new(),
            indent: 0,
        }
    }

    /// Every line starts with `n` spaces.
    pub fn indented(mut self, n: usize) -> Self {
        self.indent = n;
        self
    }

    /// A row of one cell per column (missing cells are empty, extra ones left out).
    pub fn row(&mut self, cells: Vec<String>) {
        self.row_noted(cells, String::new());
    }

    /// A row with `note` after its last cell (a mark such as "blend", outside the columns).
    pub fn row_noted(&mut self, mut cells: Vec<String>, note: String) {
        cells.resize(self.columns.len(), String::new());
        self.rows.push((cells, note));
    }

    /// The header and the rows, a line each, no line ending in spaces.
    pub fn render(&self) -> String {
        let len = |s: &str| s.chars().count();
        let widths: Vec<usize> = (self.columns.iter().enumerate())
            .map(|(i, c)| {
                let cells = self.rows.iter().map(|(r, _)| len(&r[i]));
                cells.fold(len(&c.name).max(c.min), usize::max)
            })
            .collect();
        let line = |cells: Vec<&str>, note: &str| {
            let mut l = " ".repeat(self.indent);
            for ((cell, c), w) in cells.into_iter().zip(&self.columns).zip(&widths) {
                let _ = match c.align {
                    Align::Left => write!(l, "{cell:<w$} "),
                    Align::Right => write!(l, "{cell:>w$} "),
                };
            }
            l.push_str(note);
            l.trim_end().to_string() + "\n"
        };
        let mut out = line(self.columns.iter().map(|c| c.name.as_str()).collect(), "");
        for (cells, note) in &self.rows {
            out.push_str(&line(cells.iter().map(String::as_str).collect(), note));
        }
        out
    }
}

/// For tests of any table halfpower prints: the character column where each word of `header`
/// ends, and where each whitespace-separated figure of `row` ends.
pub fn word_ends(line: &str) -> Vec<usize> {
    let chars: Vec<char> = line.chars().collect();
    (0..chars.len())
        .filter(|&i| {
            !chars[i].is_whitespace() && chars.get(i + 1).is_none_or(|c| c.is_whitespace())
        })
        .map(|i| i + 1)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Figures end under the end of their header, words start under its start, whatever the
    /// widths of the cells (µ and ± counted as one character each).
    #[test]
    fn headers_sit_over_their_figures() {
        let mut t = Table::new(vec![
            words("TEST", 6),
            figures("MB/s", 0),
            figures("p99 µs", 0),
        ])
        .indented(2);
        t.row(vec!["SEQ1M".into(), "3157.96".into(), "±1.2".into()]);
        t.row_noted(
            vec!["RND4K".into(), "8.3".into(), "100222.5".into()],
            "blend".into(),
        );
        let text = t.render();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "  TEST      MB/s   p99 µs",
                "  SEQ1M  3157.96     ±1.2",
                "  RND4K      8.3 100222.5 blend",
            ]
        );
        let head = word_ends(lines[0]);
        for row in &lines[1..] {
            let ends = word_ends(row);
            assert_eq!((ends[1], ends[2]), (head[1], head[3]), "{row}");
        }
    }
}
