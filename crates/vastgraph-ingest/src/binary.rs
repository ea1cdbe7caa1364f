//! Binary edge lists: consecutive little-endian `(src, dst)` pairs of u32 (`.bin32`) or
//! u64 (`.bin64`), no header, no weights. Reading and writing.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use vastgraph_store::MAX_VERTICES;

use crate::sink::EdgeSink;
use crate::source::read_full;
use crate::{check_cancelled, IngestError};

/// Edges per batch handed to the sink.
const BATCH_EDGES: usize = 1 << 20;

/// The id width of a binary edge list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinFormat {
    Bin32,
    Bin64,
}

impl BinFormat {
    /// Bytes per edge.
    pub fn pair_bytes(self) -> usize {
        match self {
            BinFormat::Bin32 => 8,
            BinFormat::Bin64 => 16,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            BinFormat::Bin32 => "a pair of little-endian u32 per edge",
            BinFormat::Bin64 => "a pair of little-endian u64 per edge",
        }
    }
}

/// The error for a binary input whose length is not a whole number of edges.
pub(crate) fn length_error(path: &Path, bytes: u64, format: BinFormat) -> IngestError {
    IngestError::invalid(
        path,
        format!(
            "holds {bytes} bytes, not a multiple of {} ({})",
            format.pair_bytes(),
            format.describe()
        ),
    )
}

/// Streams a binary edge list into `sink` in batches of [`BATCH_EDGES`]; returns the number of
/// edges.
pub(crate) fn ingest_binary(
    path: &Path,
    stream: impl Read,
    format: BinFormat,
    sink: &mut dyn EdgeSink,
    after_batch: &mut dyn FnMut(),
) -> Result<u64, IngestError> {
    ingest_binary_in_batches(path, stream, format, BATCH_EDGES, sink, after_batch)
}

/// [`ingest_binary`] with `batch_edges` edges a batch: the outcome does not depend on it.
pub(crate) fn ingest_binary_in_batches(
    path: &Path,
    mut stream: impl Read,
    format: BinFormat,
    batch_edges: usize,
    sink: &mut dyn EdgeSink,
    after_batch: &mut dyn FnMut(),
) -> Result<u64, IngestError> {
    let pair = format.pair_bytes();
    let batch_edges = batch_edges.max(1);
    let mut buf = vec![0u8; batch_edges * pair];
    let mut src = Vec::with_capacity(batch_edges);
    let mut dst = Vec::with_capacity(batch_edges);
    let mut edges: u64 = 0;
    loop {
        let read = read_full(&mut stream, &mut buf).map_err(|e| IngestError::io(path, e))?;
        let whole = read / pair;
        let bytes = &buf[..whole * pair];
        src.clear();
        dst.clear();
        match format {
            BinFormat::Bin32 => decode_u32_pairs(bytes, &mut src, &mut dst),
            BinFormat::Bin64 => decode_u64_pairs(bytes, &mut src, &mut dst),
        }
        .map_err(|(index, id)| {
            IngestError::invalid(
                path,
                format!(
                    "edge {} (0-based): vertex id {id} is not below the limit of {MAX_VERTICES} vertices",
                    edges + index as u64
                ),
            )
        })?;
        if !src.is_empty() {
            sink.push_batch(&src, &dst, None)
                .map_err(|source| IngestError::Sink {
                    path: path.to_path_buf(),
                    source,
                })?;
        }
        edges += whole as u64;
        after_batch();
        check_cancelled()?;
        if read < buf.len() {
            if read % pair != 0 {
                return Err(length_error(
                    path,
                    edges * pair as u64 + (read % pair) as u64,
                    format,
                ));
            }
            return Ok(edges);
        }
    }
}

/// Splits u32 pairs into `src` and `dst`; on an id ≥ `MAX_VERTICES` returns its edge index.
fn decode_u32_pairs(
    bytes: &[u8],
    src: &mut Vec<u32>,
    dst: &mut Vec<u32>,
) -> Result<(), (usize, u64)> {
    let n = bytes.len() / 8;
    src.resize(n, 0);
    dst.resize(n, 0);
    for ((s, d), c) in src
        .iter_mut()
        .zip(dst.iter_mut())
        .zip(bytes.chunks_exact(8))
    {
        *s = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        *d = u32::from_le_bytes([c[4], c[5], c[6], c[7]]);
    }
    // Only u32::MAX itself is out of range: a branch-free max (vectorised) finds out whether
    // it occurs; only then is it located.
    let limit = MAX_VERTICES as u32;
    let max = |ids: &[u32]| ids.iter().fold(0, |m, &v| m.max(v));
    if max(src) >= limit || max(dst) >= limit {
        let index = src
            .iter()
            .zip(dst.iter())
            .position(|(&s, &d)| s >= limit || d >= limit)
            .unwrap_or(0);
        return Err((index, src[index].max(dst[index]) as u64));
    }
    Ok(())
}

fn decode_u64_pairs(
    bytes: &[u8],
    src: &mut Vec<u32>,
    dst: &mut Vec<u32>,
) -> Result<(), (usize, u64)> {
    for (index, c) in bytes.chunks_exact(16).enumerate() {
        let s = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let d = u64::from_le_bytes([c[8], c[9], c[10], c[11], c[12], c[13], c[14], c[15]]);
        if s >= MAX_VERTICES || d >= MAX_VERTICES {
            return Err((index, s.max(d)));
        }
        src.push(s as u32);
        dst.push(d as u32);
    }
    Ok(())
}

/// Writes edges as a binary edge list (e.g. a generated graph for benchmarks, or fixtures).
/// Weights cannot be stored: a weighted batch is an error. Labels are ignored.
pub struct BinEdgeWriter {
    path: PathBuf,
    out: BufWriter<File>,
    format: BinFormat,
    edges: u64,
    bytes: Vec<u8>,
}

impl BinEdgeWriter {
    /// Creates (or truncates) `path`.
    pub fn create(path: &Path, format: BinFormat) -> Result<BinEdgeWriter, IngestError> {
        let file = File::create(path).map_err(|e| IngestError::io(path, e))?;
        Ok(BinEdgeWriter {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, file),
            format,
            edges: 0,
            bytes: Vec::new(),
        })
    }

    /// Edges written so far.
    pub fn edges(&self) -> u64 {
        self.edges
    }

    /// Flushes the file and syncs it to the device; returns the number of edges written.
    pub fn finish(self) -> Result<u64, IngestError> {
        let file = self
            .out
            .into_inner()
            .map_err(|e| IngestError::io(&self.path, e.into_error()))?;
        file.sync_all()
            .map_err(|e| IngestError::io(&self.path, e))?;
        Ok(self.edges)
    }
}

impl EdgeSink for BinEdgeWriter {
    fn push_batch(
        &mut self,
        src: &[u32],
        dst: &[u32],
        weights: Option<&[f64]>,
    ) -> anyhow::Result<()> {
        anyhow::ensure!(
            weights.is_none(),
            "{}: binary edge lists cannot hold weights",
            self.path.display()
        );
        anyhow::ensure!(src.len() == dst.len(), "src and dst lengths differ");
        self.bytes.clear();
        for (&s, &d) in src.iter().zip(dst) {
            match self.format {
                BinFormat::Bin32 => {
                    self.bytes.extend_from_slice(&s.to_le_bytes());
                    self.bytes.extend_from_slice(&d.to_le_bytes());
                }
                BinFormat::Bin64 => {
                    self.bytes.extend_from_slice(&(s as u64).to_le_bytes());
                    self.bytes.extend_from_slice(&(d as u64).to_le_bytes());
                }
            }
        }
        self.out
            .write_all(&self.bytes)
            .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", self.path.display()))?;
        self.edges += src.len() as u64;
        Ok(())
    }

    /// A binary edge list has no header: isolated trailing vertices cannot be recorded.
    fn ensure_vertices(&mut self, _n: u64) {}

    fn set_labels(&mut self, _labels: Vec<String>) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sink::VecSink;

    fn read(bytes: &[u8], format: BinFormat) -> Result<VecSink, IngestError> {
        let mut sink = VecSink::default();
        ingest_binary(Path::new("e.bin"), bytes, format, &mut sink, &mut || {})?;
        Ok(sink)
    }

    #[test]
    fn written_edges_read_back_identically_in_both_widths() {
        let dir = tempfile::tempdir().unwrap();
        let src = [0u32, 7, 4294967294];
        let dst = [1u32, 7, 3];
        for format in [BinFormat::Bin32, BinFormat::Bin64] {
            let path = dir.path().join("e.bin");
            let mut w = BinEdgeWriter::create(&path, format).unwrap();
            w.push_batch(&src, &dst, None).unwrap();
            w.push_batch(&dst, &src, None).unwrap();
            assert_eq!(w.finish().unwrap(), 6);
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(bytes.len(), 6 * format.pair_bytes());
            let sink = read(&bytes, format).unwrap();
            assert_eq!(sink.src, [&src[..], &dst[..]].concat());
            assert_eq!(sink.dst, [&dst[..], &src[..]].concat());
        }
    }

    #[test]
    fn truncated_files_and_out_of_range_ids_are_errors() {
        let err = read(&[0u8; 12], BinFormat::Bin32).unwrap_err().to_string();
        assert!(
            err.contains("12 bytes") && err.contains("multiple of 8"),
            "{err}"
        );

        let mut bytes = vec![0u8; 16 * 3];
        bytes[2 * 16 + 8..2 * 16 + 16].copy_from_slice(&(1u64 << 32).to_le_bytes());
        let err = read(&bytes, BinFormat::Bin64).unwrap_err().to_string();
        assert!(
            err.contains("edge 2 ") && err.contains("4294967296"),
            "{err}"
        );

        let mut bytes = vec![0u8; 8 * 2];
        bytes[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        let err = read(&bytes, BinFormat::Bin32).unwrap_err().to_string();
        assert!(err.contains("edge 1 "), "{err}");
    }

    #[test]
    fn weighted_batches_are_refused_by_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = BinEdgeWriter::create(&dir.path().join("e.bin32"), BinFormat::Bin32).unwrap();
        assert!(w.push_batch(&[0], &[1], Some(&[1.0])).is_err());
    }
}
