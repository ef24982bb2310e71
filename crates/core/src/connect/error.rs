//! What can go wrong while connecting an assistant, said so a person knows which file and what to do.

/// A failure of connect, disconnect or status. Every failure leaves the client's file as it was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConnectError {
    #[error("Gatehouse can't find your home folder because {variable} is not set. Set it, then try again.")]
    NoHome { variable: &'static str },

    #[error(
        "{id:?} is not an assistant Gatehouse can connect. Use one of: {known}. For any other assistant, paste the snippet from `gatehouse connect --snippet` into its settings."
    )]
    UnknownClient { id: String, known: String },

    #[error(
        "The gatehouse program's path ({path}) is not plain text, so it can't be written into a config file. Move Gatehouse to a folder whose name has no unusual characters."
    )]
    BinaryPath { path: String },

    #[error(
        "{path} is not valid {format}{}: {detail}. Gatehouse left it untouched. Fix the file in a text editor (or move it away to start afresh), then connect again.",
        position(.line, .column)
    )]
    Invalid { path: String, format: &'static str, line: Option<usize>, column: Option<usize>, detail: String },

    #[error(
        "In {path}, {what}. Gatehouse left the file untouched: correct it in a text editor (or move the file away to start afresh), then connect again."
    )]
    Unexpected { path: String, what: String },

    #[error("Gatehouse could not {action} {path}: {detail}. Check the folder exists and this user may write to it.")]
    Io { action: &'static str, path: String, detail: String },

    #[error(
        "Gatehouse could not change {path} without risking the rest of it ({reason}), so it left the file untouched. {remedy}"
    )]
    UnsafeEdit { path: String, reason: String, remedy: String },

    #[error(
        "{path} changed while Gatehouse was editing it (the assistant may have saved it just then), so Gatehouse left it as it is now. Try again."
    )]
    ChangedMeanwhile { path: String },
}

fn position(line: &Option<usize>, column: &Option<usize>) -> String {
    match (line, column) {
        (Some(line), Some(column)) => format!(" (line {line}, column {column})"),
        (Some(line), None) => format!(" (line {line})"),
        _ => String::new(),
    }
}
