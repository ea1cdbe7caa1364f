//! The engine's error: what a traversal of a graph on disk can meet. Algorithms wrap it in
//! their own error with their name; nothing here knows of them.

/// A pass over the graph failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// Reading the store failed, or what was read is not a valid list (out of order, out of
    /// range, a checksum that disagrees). The message names the file and the place.
    #[error("{0}")]
    Read(String),
}

impl EngineError {
    /// A read error, with the whole chain of its context in one message.
    pub fn read(e: anyhow::Error) -> EngineError {
        EngineError::Read(format!("{e:#}"))
    }
}
