//! Converting between the person's text formats (Markdown, plain text) and Google Docs structure.
