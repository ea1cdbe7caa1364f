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
        EngineError::Read(chain_text(&e))
    }
}

/// An error and its causes in one line, "outer: inner: …", as anyhow's `{:#}` writes it, but
/// without a cause whose text the line already holds: an error whose message includes its
/// source (`"{path}: {source}"`) and also hands it on as its source would otherwise say it
/// twice ("…: Permission denied (os error 13): Permission denied (os error 13)").
pub fn chain_text(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("{path}: {source}")]
    struct AtPath {
        path: String,
        source: std::io::Error,
    }

    #[test]
    fn a_cause_already_in_the_message_is_said_once() {
        let io = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let said = io.to_string();
        let e = anyhow::Error::new(AtPath {
            path: "/a/.b.lock".into(),
            source: io,
        })
        .context("cannot create store /a/b");
        assert_eq!(format!("{e:#}").matches(&said).count(), 2);
        assert_eq!(
            chain_text(&e),
            format!("cannot create store /a/b: /a/.b.lock: {said}")
        );
        let plain = anyhow::anyhow!("inner").context("outer");
        assert_eq!(chain_text(&plain), "outer: inner");
    }
}
