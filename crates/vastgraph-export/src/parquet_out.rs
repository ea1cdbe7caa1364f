//! Parquet tables of a graph: `DIR/edges/part-NNNNN.parquet` (src, dst[, weight]) and
//! `DIR/vertices/part-NNNNN.parquet` (id[, label]).
//!
//! Ids are INT64: Spark has no unsigned types, and GraphFrames wants columns named `id`, `src`
//! and `dst`. A symmetric store holds both directions of every edge, and so does the export.
//! Each edge file's metadata records the vertex count and, for a symmetric store, that it is
//! symmetric, and for a store that kept its self-loops, that it did: with the labels in
//! `vertices/`, `vastgraph convert DIR` builds the same store.
//! Weights keep the store's type (INT32 or FLOAT). Each chunk of rows is one row group, cut in
//! two where a file reaches `rows_per_file` rows (the most a file holds), so memory stays at one
//! chunk whatever the graph's size.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context};
use parquet::basic::{Compression, ZstdLevel};
use parquet::data_type::{ByteArray, ByteArrayType, FloatType, Int32Type, Int64Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::Type;
use vastgraph_engine::Adjacency;
use vastgraph_store::WeightType;

use crate::arcs::for_each_arc;
use crate::atomic::{explain_disk_full, temporary_sibling};
use crate::{ExportGraph, ProgressFn};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParquetCompression {
    Zstd,
    Snappy,
    None,
}

impl std::str::FromStr for ParquetCompression {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "zstd" => Ok(Self::Zstd),
            "snappy" => Ok(Self::Snappy),
            "none" | "uncompressed" => Ok(Self::None),
            _ => Err(format!(
                "unknown Parquet compression '{s}': use zstd, snappy or none"
            )),
        }
    }
}

#[derive(Clone, Debug)]
pub struct ParquetOptions {
    /// Rows per row group (and per chunk held in memory).
    pub chunk_rows: usize,
    /// Rows per file before the next part starts.
    pub rows_per_file: u64,
    pub compression: ParquetCompression,
    /// Replace the Parquet parts of an existing non-empty output directory.
    pub overwrite: bool,
    /// Also write `vertices/` (id[, label]). The Python package writes its own vertex table when
    /// its nodes are not the store's labels (graphs converted from NetworkX).
    pub vertices: bool,
}

impl Default for ParquetOptions {
    fn default() -> Self {
        ParquetOptions {
            chunk_rows: 1 << 22,
            rows_per_file: 1 << 26,
            compression: ParquetCompression::Zstd,
            overwrite: false,
            vertices: true,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParquetSummary {
    pub edge_files: usize,
    pub vertex_files: usize,
    pub arcs: u64,
    /// The value of every file's `vastgraph.export` entry ([`vastgraph_store::TABLE_EXPORT_KEY`]):
    /// a vertex table written beside the edges by another writer carries it too.
    pub export_id: String,
}

/// Writes `g` under `dir`. The tables are written into a temporary sibling directory and
/// renamed into `dir` only when complete.
pub fn write_parquet<A: Adjacency>(
    g: &ExportGraph<A>,
    dir: &Path,
    options: &ParquetOptions,
    progress: ProgressFn,
) -> anyhow::Result<ParquetSummary> {
    if options.chunk_rows == 0 || options.rows_per_file == 0 {
        bail!("chunk_rows and rows_per_file must be at least 1");
    }
    let _lock = vastgraph_store::TargetLock::acquire(dir)?;
    check_target(dir, options.overwrite)?;
    let staging = temporary_sibling(dir);
    let free_at_start = vastgraph_store::available_bytes(vastgraph_store::parent_dir(dir)).ok();
    let mut summary = ParquetSummary {
        export_id: vastgraph_store::unique_suffix(),
        ..Default::default()
    };
    let export = KeyValue::new(
        vastgraph_store::TABLE_EXPORT_KEY.to_string(),
        summary.export_id.clone(),
    );
    let written = (|| {
        std::fs::create_dir(&staging)
            .with_context(|| format!("cannot create {}", staging.display()))?;
        summary.edge_files =
            write_edges(g, &staging.join(EDGES), options, export.clone(), progress)?;
        if options.vertices {
            summary.vertex_files = write_vertices(g, &staging.join(VERTICES), options, export)?;
        }
        summary.arcs = g.out.num_arcs();
        move_into_place(&staging, dir, options)
    })()
    .map_err(|e| explain_disk_full(e, &staging, free_at_start));
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    written.map(|()| summary)
}

const EDGES: &str = "edges";
const VERTICES: &str = "vertices";

/// An existing output directory must be empty unless `overwrite`.
fn check_target(dir: &Path, overwrite: bool) -> anyhow::Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    if !dir.is_dir() {
        bail!("{} exists and is not a directory", dir.display());
    }
    let non_empty = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .next()
        .is_some();
    if non_empty && !overwrite {
        // An io::Error of kind AlreadyExists, so that callers (Python) can tell this case apart.
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!(
                "{} is not empty (--force, or overwrite=True in Python, replaces its Parquet tables)",
                dir.display()
            ),
        )
        .into());
    }
    // Overwriting replaces the table directories whole: only when they hold nothing else.
    for table in [EDGES, VERTICES] {
        let sub = dir.join(table);
        if !sub.exists() {
            continue;
        }
        if !sub.is_dir() {
            bail!("{} exists and is not a directory", sub.display());
        }
        let mut others = Vec::new();
        for entry in
            std::fs::read_dir(&sub).with_context(|| format!("cannot read {}", sub.display()))?
        {
            let entry = entry.with_context(|| format!("cannot read {}", sub.display()))?;
            let path = entry.path();
            if !(path.is_file() && path.extension().is_some_and(|e| e == "parquet")) {
                others.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        if !others.is_empty() {
            others.sort();
            let more = if others.len() > 5 { ", ..." } else { "" };
            others.truncate(5);
            return Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!(
                    "{} holds more than Parquet files ({}{more}), which replacing it would delete: \
                     write to another directory, or move them first",
                    sub.display(),
                    others.join(", ")
                ),
            )
            .into());
        }
    }
    Ok(())
}

/// Renames the staged tables into `dir`: the whole staging directory when `dir` does not exist,
/// else each table directory, each swapped with the old one in one step when overwriting. An
/// old vertex table the export does not replace is removed: it belongs to another export.
/// Between the two swaps `dir` holds one new table and one old; `convert` refuses that mix by
/// the tables' export ids.
fn move_into_place(staging: &Path, dir: &Path, options: &ParquetOptions) -> anyhow::Result<()> {
    if !dir.exists() {
        std::fs::rename(staging, dir)
            .with_context(|| format!("renaming {} to {}", staging.display(), dir.display()))?;
        vastgraph_store::fsync_dir(vastgraph_store::parent_dir(dir))?;
        return Ok(());
    }
    if !options.vertices && dir.join(VERTICES).exists() {
        std::fs::remove_dir_all(dir.join(VERTICES))
            .with_context(|| format!("removing the old {}", dir.join(VERTICES).display()))?;
    }
    let tables: &[&str] = if options.vertices {
        &[EDGES, VERTICES]
    } else {
        &[EDGES]
    };
    for table in tables {
        let target = dir.join(table);
        let old = vastgraph_store::rename_into_place(
            &staging.join(table),
            &target,
            vastgraph_store::Existing::Replace,
        )
        .with_context(|| format!("moving {} into place", target.display()))?;
        if let Some(old) = old {
            std::fs::remove_dir_all(&old)
                .with_context(|| format!("removing the old {}", target.display()))?;
        }
    }
    vastgraph_store::fsync_dir(dir)?;
    std::fs::remove_dir(staging).with_context(|| format!("removing {}", staging.display()))
}

fn write_edges<A: Adjacency>(
    g: &ExportGraph<A>,
    dir: &Path,
    options: &ParquetOptions,
    export: KeyValue,
    progress: ProgressFn,
) -> anyhow::Result<usize> {
    let weight = match g.weight_type {
        None => "",
        Some(WeightType::I32) => "REQUIRED INT32 weight;",
        Some(WeightType::F32) => "REQUIRED FLOAT weight;",
    };
    let schema = format!("message edges {{ REQUIRED INT64 src; REQUIRED INT64 dst; {weight} }}");
    let vertices = KeyValue::new(
        vastgraph_store::TABLE_VERTICES_KEY.to_string(),
        g.out.num_vertices().to_string(),
    );
    let mut metadata = vec![export, vertices];
    for (key, set) in [
        (vastgraph_store::TABLE_SYMMETRIC_KEY, g.symmetric),
        (vastgraph_store::TABLE_SELF_LOOPS_KEY, g.self_loops_kept),
    ] {
        if set {
            metadata.push(KeyValue::new(key.to_string(), "true".to_string()));
        }
    }
    let mut parts = PartWriter::new(dir, &schema, options, metadata)?;
    let capacity = options.chunk_rows.min(g.out.num_arcs() as usize);
    let mut chunk = EdgeChunk {
        src: Vec::with_capacity(capacity),
        dst: Vec::with_capacity(capacity),
        weight: Vec::with_capacity(if g.weight_type.is_some() { capacity } else { 0 }),
    };
    for_each_arc(g.out, progress, |u, v, w| {
        chunk.src.push(u as i64);
        chunk.dst.push(v as i64);
        if g.weight_type.is_some() {
            chunk.weight.push(w);
        }
        if chunk.src.len() == options.chunk_rows {
            chunk.flush(&mut parts, g.weight_type)?;
        }
        Ok(())
    })?;
    chunk.flush(&mut parts, g.weight_type)?;
    parts.finish()
}

struct EdgeChunk {
    src: Vec<i64>,
    dst: Vec<i64>,
    weight: Vec<f64>,
}

impl EdgeChunk {
    fn flush(&mut self, parts: &mut PartWriter, weight: Option<WeightType>) -> anyhow::Result<()> {
        if self.src.is_empty() {
            return Ok(());
        }
        let mut columns = vec![Column::I64(&self.src), Column::I64(&self.dst)];
        let (ints, floats): (Vec<i32>, Vec<f32>);
        match weight {
            Some(WeightType::I32) => {
                ints = self.weight.iter().map(|&w| w as i32).collect();
                columns.push(Column::I32(&ints));
            }
            Some(WeightType::F32) => {
                floats = self.weight.iter().map(|&w| w as f32).collect();
                columns.push(Column::F32(&floats));
            }
            None => {}
        }
        parts.write_row_group(&columns)?;
        self.src.clear();
        self.dst.clear();
        self.weight.clear();
        Ok(())
    }
}

fn write_vertices<A: Adjacency>(
    g: &ExportGraph<A>,
    dir: &Path,
    options: &ParquetOptions,
    export: KeyValue,
) -> anyhow::Result<usize> {
    let label = if g.labels.is_some() {
        "REQUIRED BYTE_ARRAY label (UTF8);"
    } else {
        ""
    };
    let schema = format!("message vertices {{ REQUIRED INT64 id; {label} }}");
    let mut parts = PartWriter::new(dir, &schema, options, vec![export])?;
    let n = g.out.num_vertices();
    for lo in (0..n).step_by(options.chunk_rows) {
        let hi = (lo + options.chunk_rows).min(n);
        let ids: Vec<i64> = (lo as i64..hi as i64).collect();
        let labels: Vec<ByteArray>;
        let mut columns = vec![Column::I64(&ids)];
        if let Some(all) = g.labels {
            labels = all[lo..hi]
                .iter()
                .map(|l| ByteArray::from(l.as_bytes().to_vec()))
                .collect();
            columns.push(Column::Text(&labels));
        }
        parts.write_row_group(&columns)?;
    }
    parts.finish()
}

/// One column's values for one row group.
enum Column<'a> {
    I64(&'a [i64]),
    I32(&'a [i32]),
    F32(&'a [f32]),
    Text(&'a [ByteArray]),
}

impl<'a> Column<'a> {
    fn len(&self) -> usize {
        match self {
            Column::I64(v) => v.len(),
            Column::I32(v) => v.len(),
            Column::F32(v) => v.len(),
            Column::Text(v) => v.len(),
        }
    }

    /// Rows `start..start + len`.
    fn slice(&self, start: usize, len: usize) -> Column<'a> {
        let range = start..start + len;
        match self {
            Column::I64(v) => Column::I64(&v[range]),
            Column::I32(v) => Column::I32(&v[range]),
            Column::F32(v) => Column::F32(&v[range]),
            Column::Text(v) => Column::Text(&v[range]),
        }
    }
}

/// Writes row groups into `part-NNNNN.parquet` files of at most `rows_per_file` rows.
struct PartWriter {
    dir: PathBuf,
    schema: Arc<Type>,
    properties: Arc<WriterProperties>,
    rows_per_file: u64,
    current: Option<(SerializedFileWriter<File>, PathBuf)>,
    rows_in_file: u64,
    parts: usize,
}

impl PartWriter {
    fn new(
        dir: &Path,
        schema: &str,
        options: &ParquetOptions,
        metadata: Vec<KeyValue>,
    ) -> anyhow::Result<PartWriter> {
        std::fs::create_dir(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let compression = match options.compression {
            ParquetCompression::Zstd => Compression::ZSTD(ZstdLevel::try_new(3)?),
            ParquetCompression::Snappy => Compression::SNAPPY,
            ParquetCompression::None => Compression::UNCOMPRESSED,
        };
        Ok(PartWriter {
            dir: dir.to_owned(),
            schema: Arc::new(parse_message_type(schema)?),
            properties: Arc::new(
                WriterProperties::builder()
                    .set_compression(compression)
                    .set_created_by(format!("vastgraph {}", env!("CARGO_PKG_VERSION")))
                    .set_key_value_metadata((!metadata.is_empty()).then_some(metadata))
                    .build(),
            ),
            rows_per_file: options.rows_per_file,
            current: None,
            rows_in_file: 0,
            parts: 0,
        })
    }

    /// Writes `columns` (of equal length) as one row group, or as two or more where the
    /// current file's `rows_per_file` ends inside them, so that no file holds more.
    fn write_row_group(&mut self, columns: &[Column]) -> anyhow::Result<()> {
        let rows = columns.first().map_or(0, Column::len);
        let mut done = 0;
        loop {
            if self.current.is_none() || self.rows_in_file >= self.rows_per_file {
                self.open_next()?;
            }
            let take = (rows - done).min((self.rows_per_file - self.rows_in_file) as usize);
            let part: Vec<Column> = columns.iter().map(|c| c.slice(done, take)).collect();
            self.write_group(&part)?;
            done += take;
            if done == rows {
                return Ok(());
            }
        }
    }

    fn write_group(&mut self, columns: &[Column]) -> anyhow::Result<()> {
        let (writer, path) = self.current.as_mut().expect("a part is open");
        let context = || format!("writing {}", path.display());
        let mut group = writer.next_row_group().with_context(context)?;
        let mut rows = 0;
        for column in columns {
            let mut out = group
                .next_column()
                .with_context(context)?
                .context("the schema has fewer columns than the data")?;
            rows = match column {
                Column::I64(v) => out.typed::<Int64Type>().write_batch(v, None, None),
                Column::I32(v) => out.typed::<Int32Type>().write_batch(v, None, None),
                Column::F32(v) => out.typed::<FloatType>().write_batch(v, None, None),
                Column::Text(v) => out.typed::<ByteArrayType>().write_batch(v, None, None),
            }
            .with_context(context)?;
            out.close().with_context(context)?;
        }
        group.close().with_context(context)?;
        self.rows_in_file += rows as u64;
        Ok(())
    }

    fn open_next(&mut self) -> anyhow::Result<()> {
        self.close()?;
        let path = self.dir.join(format!("part-{:05}.parquet", self.parts));
        let file =
            File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
        let writer = SerializedFileWriter::new(file, self.schema.clone(), self.properties.clone())
            .with_context(|| format!("writing {}", path.display()))?;
        self.current = Some((writer, path));
        self.parts += 1;
        self.rows_in_file = 0;
        Ok(())
    }

    /// Finishes the open part (footer written, data on disk).
    fn close(&mut self) -> anyhow::Result<()> {
        if let Some((writer, path)) = self.current.take() {
            let file = writer
                .into_inner()
                .with_context(|| format!("finishing {}", path.display()))?;
            file.sync_all()
                .with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(())
    }

    /// Closes the last part; an empty table still gets one (schema-only) file. Returns the
    /// number of files.
    fn finish(mut self) -> anyhow::Result<usize> {
        if self.parts == 0 {
            self.open_next()?;
        }
        self.close()?;
        Ok(self.parts)
    }
}
