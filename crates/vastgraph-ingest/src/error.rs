//! The one error type of the ingest crate. Every variant that concerns an input names its
//! path; parse errors also name the 1-based line and quote the offending text, so a user can
//! open the file at the right place.

use std::path::{Path, PathBuf};

/// How many characters of an offending line are quoted in an error message.
const QUOTE_CHARS: usize = 80;

#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// The input cannot be opened or read (missing file, permission, truncated compressed stream).
    #[error("{}: cannot read input: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A line of a text input is malformed.
    #[error("{}:{line}: {reason}: '{text}'", path.display())]
    Parse {
        path: PathBuf,
        /// 1-based line number in the (decompressed) text.
        line: u64,
        reason: String,
        /// The offending line, truncated to a readable length.
        text: String,
    },
    /// A whole-file problem: bad header, declared counts not matching, bad binary length, ...
    #[error("{}: {reason}", path.display())]
    Invalid { path: PathBuf, reason: String },
    /// The format name given by the user is not one we know.
    #[error("unknown input format '{0}' (known: edgelist|snap|tsv|csv|txt, mtx|matrixmarket, dimacs|gr, bin32, bin64, webgraph|bv, parquet|pq, arrow|ipc|feather)")]
    UnknownFormat(String),
    /// Inputs that cannot be combined into one store (e.g. weighted and unweighted).
    #[error("{0}")]
    Incompatible(String),
    /// An option the inputs cannot take (a table's column names for a text file, --relabel for
    /// Matrix Market): the command line's error.
    #[error("{0}")]
    OptionNotForInput(String),
    /// The sink (normally the store builder) refused a batch.
    #[error("while storing edges from {}: {source:#}", path.display())]
    Sink {
        path: PathBuf,
        #[source]
        source: anyhow::Error,
    },
    /// The user asked to stop (Ctrl-C).
    #[error("stopped before the input was read; nothing was written")]
    Cancelled,
}

impl IngestError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        IngestError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn invalid(path: &Path, reason: impl Into<String>) -> Self {
        IngestError::Invalid {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }

    pub(crate) fn parse(path: &Path, line: u64, reason: impl Into<String>, text: &[u8]) -> Self {
        IngestError::Parse {
            path: path.to_path_buf(),
            line,
            reason: reason.into(),
            text: quote(text),
        }
    }
}

/// Renders raw bytes of a line for an error message: lossy UTF-8, no line terminator,
/// at most `QUOTE_CHARS` characters.
pub(crate) fn quote(text: &[u8]) -> String {
    let text = String::from_utf8_lossy(text);
    let text = text.trim_end_matches(['\r', '\n']);
    let mut chars = text.chars();
    let mut quoted: String = chars.by_ref().take(QUOTE_CHARS).collect();
    if chars.next().is_some() {
        quoted.push('…');
    }
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_error_display_names_file_line_reason_and_text() {
        let err = IngestError::parse(Path::new("g.tsv"), 7, "bad id", b"1 x\r\n");
        assert_eq!(err.to_string(), "g.tsv:7: bad id: '1 x'");
    }

    #[test]
    fn long_lines_are_truncated_on_a_char_boundary() {
        let line = "é".repeat(200);
        let q = quote(line.as_bytes());
        assert_eq!(q.chars().count(), QUOTE_CHARS + 1);
        assert!(q.ends_with('…'));
    }
}
