//! Input formats and their detection from file names.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::IngestError;

/// The input formats `convert` understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputFormat {
    /// Text edge list (SNAP, TSV, CSV, ...): `src dst [weight]` per line.
    EdgeList,
    /// Matrix Market coordinate format (`.mtx`).
    MatrixMarket,
    /// DIMACS shortest-path format (`.gr`).
    Dimacs,
    /// Little-endian pairs of u32.
    Bin32,
    /// Little-endian pairs of u64.
    Bin64,
    /// WebGraph BV (`X.graph` + `X.properties`).
    WebGraph,
    /// An edge table in a Parquet file (`.parquet`, `.pq`).
    Parquet,
    /// An edge table in an Arrow IPC file or stream (`.arrow`, `.arrows`, `.feather`, `.ipc`).
    ArrowIpc,
}

impl InputFormat {
    /// The canonical name, as accepted by `FromStr` and recorded in the store manifest.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::EdgeList => "edgelist",
            InputFormat::MatrixMarket => "mtx",
            InputFormat::Dimacs => "dimacs",
            InputFormat::Bin32 => "bin32",
            InputFormat::Bin64 => "bin64",
            InputFormat::WebGraph => "webgraph",
            InputFormat::Parquet => "parquet",
            InputFormat::ArrowIpc => "arrow",
        }
    }

    /// True for edge tables (Parquet, Arrow IPC), whose columns are named with `--src`,
    /// `--dst` and `--weight`.
    pub fn is_table(self) -> bool {
        matches!(self, InputFormat::Parquet | InputFormat::ArrowIpc)
    }

    /// True for the line-oriented text formats.
    pub fn is_text(self) -> bool {
        matches!(
            self,
            InputFormat::EdgeList | InputFormat::MatrixMarket | InputFormat::Dimacs
        )
    }
}

impl fmt::Display for InputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for InputFormat {
    type Err = IngestError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "edgelist" | "edge-list" | "snap" | "tsv" | "csv" | "txt" => InputFormat::EdgeList,
            "mtx" | "matrixmarket" | "matrix-market" => InputFormat::MatrixMarket,
            "dimacs" | "gr" => InputFormat::Dimacs,
            "bin32" => InputFormat::Bin32,
            "bin64" => InputFormat::Bin64,
            "webgraph" | "bv" => InputFormat::WebGraph,
            "parquet" | "pq" => InputFormat::Parquet,
            "arrow" | "ipc" | "feather" | "arrows" => InputFormat::ArrowIpc,
            _ => return Err(IngestError::UnknownFormat(s.to_string())),
        })
    }
}

/// Stream compression of an input, detected from its last extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
}

impl Compression {
    /// The compression named by the path's last extension.
    pub fn of(path: &Path) -> Compression {
        match extension(path).as_deref() {
            Some("gz") => Compression::Gzip,
            Some("zst") | Some("zstd") => Compression::Zstd,
            _ => Compression::None,
        }
    }
}

fn extension(path: &Path) -> Option<String> {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
}

/// The path's extension once a compression suffix is stripped (`g.mtx.gz` → `mtx`).
fn content_extension(path: &Path) -> Option<String> {
    match Compression::of(path) {
        Compression::None => extension(path),
        _ => path.file_stem().and_then(|stem| extension(Path::new(stem))),
    }
}

/// Guesses the format of `path` from its name: `.mtx` → Matrix Market, `.gr` → DIMACS,
/// `.bin32`/`.bin64` → binary, `.graph`/`.properties` (or a WebGraph basename whose
/// `.graph` exists) → WebGraph, `.parquet`/`.pq` → Parquet, `.arrow`/`.arrows`/`.feather`/
/// `.ipc` → Arrow IPC, anything else → edge list. `.gz`/`.zst` are stripped first.
pub fn detect_format(path: &Path) -> Result<InputFormat, IngestError> {
    let format = match content_extension(path).as_deref() {
        Some("mtx") => InputFormat::MatrixMarket,
        Some("gr") => InputFormat::Dimacs,
        Some("bin32") => InputFormat::Bin32,
        Some("bin64") => InputFormat::Bin64,
        Some("graph") | Some("properties") => InputFormat::WebGraph,
        Some("parquet") | Some("pq") => InputFormat::Parquet,
        Some("arrow") | Some("arrows") | Some("feather") | Some("ipc") => InputFormat::ArrowIpc,
        _ if !path.exists()
            && (webgraph_file(path, "graph").exists()
                || webgraph_file(path, "properties").exists()) =>
        {
            InputFormat::WebGraph
        }
        _ => InputFormat::EdgeList,
    };
    if format == InputFormat::WebGraph && Compression::of(path) != Compression::None {
        return Err(IngestError::invalid(
            path,
            "compressed WebGraph files are not supported; decompress the .graph file first",
        ));
    }
    if format.is_table() && Compression::of(path) != Compression::None {
        return Err(IngestError::invalid(
            path,
            "a compressed table file is not supported; Parquet and Arrow IPC compress their \
             columns inside the file, so decompress it first",
        ));
    }
    Ok(format)
}

/// `X.<ext>` for a WebGraph input named as `X`, `X.graph` or `X.properties`.
pub(crate) fn webgraph_file(path: &Path, ext: &str) -> PathBuf {
    PathBuf::from(format!("{}.{ext}", webgraph_basename(path).display()))
}

/// The basename `X` of a WebGraph input named as `X`, `X.graph` or `X.properties`.
pub(crate) fn webgraph_basename(path: &Path) -> PathBuf {
    match extension(path).as_deref() {
        Some("graph") | Some("properties") => path.with_extension(""),
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_formats_from_names_with_and_without_compression() {
        let cases = [
            ("a.mtx", InputFormat::MatrixMarket),
            ("a.MTX.gz", InputFormat::MatrixMarket),
            ("a.gr.zst", InputFormat::Dimacs),
            ("a.bin32", InputFormat::Bin32),
            ("a.bin64.zst", InputFormat::Bin64),
            ("a.graph", InputFormat::WebGraph),
            ("a.properties", InputFormat::WebGraph),
            ("a.tsv.zst", InputFormat::EdgeList),
            ("a.csv", InputFormat::EdgeList),
            ("noext", InputFormat::EdgeList),
            ("a.gz", InputFormat::EdgeList),
            ("a.parquet", InputFormat::Parquet),
            ("part-0.PQ", InputFormat::Parquet),
            ("a.feather", InputFormat::ArrowIpc),
            ("a.arrows", InputFormat::ArrowIpc),
        ];
        for (name, want) in cases {
            assert_eq!(detect_format(Path::new(name)).unwrap(), want, "{name}");
        }
    }

    #[test]
    fn compressed_webgraph_and_tables_are_refused() {
        assert!(detect_format(Path::new("a.graph.gz")).is_err());
        assert!(detect_format(Path::new("a.parquet.zst")).is_err());
    }

    #[test]
    fn format_names_round_trip_and_aliases_parse() {
        for f in [
            InputFormat::EdgeList,
            InputFormat::MatrixMarket,
            InputFormat::Dimacs,
            InputFormat::Bin32,
            InputFormat::Bin64,
            InputFormat::WebGraph,
            InputFormat::Parquet,
            InputFormat::ArrowIpc,
        ] {
            assert_eq!(f.name().parse::<InputFormat>().unwrap(), f);
        }
        assert_eq!(
            "SNAP".parse::<InputFormat>().unwrap(),
            InputFormat::EdgeList
        );
        assert_eq!("bv".parse::<InputFormat>().unwrap(), InputFormat::WebGraph);
        assert_eq!("gr".parse::<InputFormat>().unwrap(), InputFormat::Dimacs);
        assert_eq!(
            "feather".parse::<InputFormat>().unwrap(),
            InputFormat::ArrowIpc
        );
        assert!("orc".parse::<InputFormat>().is_err());
    }

    #[test]
    fn webgraph_names_map_to_one_basename() {
        for name in ["d/cnr", "d/cnr.graph", "d/cnr.properties"] {
            assert_eq!(
                webgraph_file(Path::new(name), "graph"),
                Path::new("d/cnr.graph")
            );
        }
    }
}
