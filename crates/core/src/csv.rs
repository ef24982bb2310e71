//! CSV (RFC 4180), read and written in one place: `import_csv_to_sheet` reads a person's file, and
//! `export_revision` cuts a range out of the CSV Google exports. Fields may be quoted, a quote inside a
//! quoted field is doubled, quoted fields may hold the delimiter and line breaks, and lines end in LF or
//! CRLF. A byte-order mark at the start is dropped.

/// Why a CSV text could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum CsvError {
    #[error(
        "a quoted field that starts on line {line} is never closed: add the missing \" (quotes inside a quoted field are written twice, \"\")"
    )]
    Unclosed { line: usize },
    #[error(
        "line {line} has text right after a closing quote: a quoted field must end at a {delimiter:?} or the end of the line"
    )]
    AfterQuote { line: usize, delimiter: char },
}

/// The rows of `text`, each a list of fields. A final line break does not start another row.
pub(crate) fn parse(text: &str, delimiter: char) -> Result<Vec<Vec<String>>, CsvError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rows = Vec::new();
    let mut row: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    // Whether the current line has any content yet (an empty last line is no row).
    let mut started = false;
    while let Some(ch) = chars.next() {
        match ch {
            '"' if field.is_empty() => {
                let opened = line;
                loop {
                    match chars.next() {
                        Some('"') if chars.peek() == Some(&'"') => {
                            chars.next();
                            field.push('"');
                        }
                        Some('"') => break,
                        Some(c) => {
                            if c == '\n' {
                                line += 1;
                            }
                            field.push(c);
                        }
                        None => return Err(CsvError::Unclosed { line: opened }),
                    }
                }
                match chars.peek() {
                    None | Some('\n' | '\r') => {}
                    Some(&c) if c == delimiter => {}
                    Some(_) => return Err(CsvError::AfterQuote { line, delimiter }),
                }
                started = true;
            }
            c if c == delimiter => {
                row.push(std::mem::take(&mut field));
                started = true;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
                line += 1;
                started = false;
            }
            c => {
                field.push(c);
                started = true;
            }
        }
    }
    if started {
        row.push(field);
        rows.push(row);
    }
    Ok(rows)
}

/// `rows` as CSV the way Drive writes it: CRLF between rows, a field quoted when it holds a comma, a quote
/// or a line break.
pub(crate) fn write(rows: &[Vec<&str>]) -> String {
    let field = |cell: &&str| {
        if cell.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", cell.replace('"', "\"\""))
        } else {
            (*cell).to_owned()
        }
    };
    rows.iter().map(|row| row.iter().map(field).collect::<Vec<_>>().join(",")).collect::<Vec<_>>().join("\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_fields_keep_delimiters_quotes_and_line_breaks() {
        let text = "\u{feff}name,note\r\n\"Smith, Ada\",\"said \"\"hi\"\"\"\nBob,\"two\nlines\"\n";
        let rows = parse(text, ',').unwrap();
        assert_eq!(rows, vec![vec!["name", "note"], vec!["Smith, Ada", "said \"hi\""], vec!["Bob", "two\nlines"]]);
    }

    #[test]
    fn empty_fields_and_a_missing_final_line_break() {
        assert_eq!(parse("a,,c\n,\nx", ',').unwrap(), vec![vec!["a", "", "c"], vec!["", ""], vec!["x"]]);
        assert_eq!(parse("a\tb", '\t').unwrap(), vec![vec!["a", "b"]]);
        assert!(parse("", ',').unwrap().is_empty());
    }

    #[test]
    fn written_csv_reads_back_the_same() {
        let rows = vec![vec!["x, y", "2"], vec!["say \"hi\"", "two\nlines"], vec!["", "plain"]];
        let text = write(&rows);
        assert_eq!(text, "\"x, y\",2\r\n\"say \"\"hi\"\"\",\"two\nlines\"\r\n,plain");
        assert_eq!(parse(&text, ',').unwrap(), rows);
    }

    #[test]
    fn broken_quotes_name_the_line() {
        assert_eq!(parse("a\n\"open,b\nc", ','), Err(CsvError::Unclosed { line: 2 }));
        assert_eq!(parse("\"a\"b,c", ','), Err(CsvError::AfterQuote { line: 1, delimiter: ',' }));
    }
}
