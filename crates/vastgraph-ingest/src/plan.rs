//! Looking at the inputs before any edge is read: formats, sizes, and what the store
//! builder must know up front (weighted? symmetric? declared vertex count? labels?).

use std::path::{Path, PathBuf};

use vastgraph_store::InputRecord;

use crate::binary::{length_error, BinFormat};
use crate::format::{detect_format, webgraph_file, Compression, InputFormat};
use crate::source::open_text_input_uncounted;
use crate::table::{self, TableColumns, TableLayout};
use crate::{dimacs, edge_list, matrix_market, webgraph_input, IngestError};

/// User choices for reading inputs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IngestOptions {
    /// Format of all inputs; `None` detects each from its name.
    pub format: Option<InputFormat>,
    /// Remap ids to dense ones in first-appearance order even when they are integers
    /// (sparse or 64-bit ids); the original ids are kept as labels. Edge lists only.
    pub relabel: bool,
    /// The first data line of each edge list is a header to skip (without it, a header is
    /// detected: a first line with a non-integer id above lines of integer ids).
    pub header: bool,
    /// The source, target and weight columns of Parquet and Arrow tables.
    pub columns: TableColumns,
}

/// One input, as it will be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedInput {
    /// As given by the user (for WebGraph: any of `X`, `X.graph`, `X.properties`).
    pub path: PathBuf,
    pub format: InputFormat,
    /// On-disk size (for WebGraph, `.graph` + `.properties`); the unit of progress.
    pub bytes: u64,
    /// An edge list's header line, skipped: its 1-based number and text.
    pub header: Option<(u64, String)>,
    /// An edge list's first data line when it was read as an edge but names columns (`src
    /// dst`): its 1-based number.
    pub header_like: Option<u64>,
    /// A table's columns, resolved against its schema.
    pub table: Option<TableLayout>,
}

/// What `ingest` will do, and what the store builder must be told before it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IngestPlan {
    pub inputs: Vec<PlannedInput>,
    /// Edges carry weights (edge lists with a third column, non-pattern Matrix Market,
    /// DIMACS). All inputs agree, or planning fails.
    pub weighted: bool,
    /// Some input is a `symmetric` Matrix Market file, which stores one triangle only, or a
    /// vastgraph export of a symmetric store: the store must be symmetrised
    /// (`BuildOptions.symmetrize`).
    pub symmetric: bool,
    /// Every input is a vastgraph export of a store that kept its self-loops: the store keeps
    /// them too (`BuildOptions.keep_self_loops`).
    pub self_loops_kept: bool,
    /// The largest vertex count declared by a header (Matrix Market, DIMACS, WebGraph);
    /// `ingest` passes it to `EdgeSink::ensure_vertices`.
    pub declared_vertices: Option<u64>,
    /// Ids are remapped to dense ids and the labels handed to `EdgeSink::set_labels`:
    /// because of `relabel`, or because the first input's first data lines hold
    /// non-integer ids.
    pub labels: bool,
    /// The files of a vastgraph export's vertex table when it holds labels (the export is the
    /// only input): `ingest` reads them and hands them to `EdgeSink::set_labels`, so the
    /// store names its vertices as the exported one did. Empty otherwise.
    pub vertex_labels: Vec<PathBuf>,
}

impl IngestPlan {
    /// Sum of the inputs' on-disk sizes, the total for a progress bar, when every input is a
    /// regular file: a pipe or a device (`/dev/stdin`) has no length to go by.
    pub fn total_bytes(&self) -> Option<u64> {
        self.inputs
            .iter()
            .map(|i| is_regular(&i.path).then_some(i.bytes))
            .sum()
    }

    /// The edges and vertices of the inputs when their sizes say so before any is read:
    /// uncompressed binary edge lists in regular files only. Other inputs leave the disk
    /// check to the build.
    pub fn expected_size(&self) -> Option<vastgraph_store::ExpectedSize> {
        let edges_of = |input: &PlannedInput| match (
            input.format,
            Compression::of(&input.path),
            is_regular(&input.path),
        ) {
            (InputFormat::Bin32, Compression::None, true) => Some(input.bytes / 8),
            (InputFormat::Bin64, Compression::None, true) => Some(input.bytes / 16),
            _ => None,
        };
        let edges = self.inputs.iter().map(edges_of).sum::<Option<u64>>()?;
        Some(vastgraph_store::ExpectedSize {
            edges,
            vertices: self.declared_vertices.unwrap_or(0),
        })
    }

    /// The inputs as recorded in the store manifest.
    pub fn input_records(&self) -> Vec<InputRecord> {
        self.inputs
            .iter()
            .map(|i| InputRecord {
                path: i.path.display().to_string(),
                format: i.format.name().to_string(),
                bytes: i.bytes,
                skipped_header_line: i.header.as_ref().map(|(line, _)| *line),
                header_like_line: i.header_like,
            })
            .collect()
    }
}

/// Whether `path` is a regular file, whose length says how much there is to read (a pipe or a
/// device has none).
fn is_regular(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// What one input's header or first lines say.
#[derive(Default)]
struct Probe {
    /// `None` when the input cannot tell (an empty edge list).
    weighted: Option<bool>,
    symmetric: bool,
    self_loops_kept: bool,
    declared_vertices: Option<u64>,
    non_integer_ids: bool,
    header: Option<(u64, String)>,
    header_like: Option<u64>,
    table: Option<TableLayout>,
}

/// Reads headers only (and the first lines of edge lists) and decides how to ingest.
pub fn plan(inputs: &[PathBuf], opts: &IngestOptions) -> Result<IngestPlan, IngestError> {
    if inputs.is_empty() {
        return Err(IngestError::Incompatible("no input files given".into()));
    }
    let given = inputs;
    let (inputs, exports) = expand_table_directories(inputs, opts.format)?;
    let formats = inputs
        .iter()
        .map(|path| match opts.format {
            Some(format) => Ok(format),
            None => detect_format(path).and_then(|format| by_banner(path, format)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if opts.columns != TableColumns::default() {
        if let Some((path, format)) = inputs.iter().zip(&formats).find(|(_, f)| !f.is_table()) {
            return Err(IngestError::OptionNotForInput(format!(
                "--src, --dst and --weight name the columns of Parquet and Arrow tables, but {} is {format}",
                path.display()
            )));
        }
    }
    let mut planned = Vec::with_capacity(inputs.len());
    let mut probes = Vec::with_capacity(inputs.len());
    for (path, &format) in inputs.iter().zip(&formats) {
        let bytes = input_bytes(path, format)?;
        let probe = probe(path, format, bytes, opts)?;
        if let Some((line, text)) = &probe.header {
            let how = if opts.header { "given" } else { "detected" };
            log::warn!(
                "{}: line {line} is a header ({how}), skipped: {}",
                path.display(),
                text.chars().take(120).collect::<String>()
            );
        }
        planned.push(PlannedInput {
            path: path.clone(),
            format,
            bytes,
            header: probe.header.clone(),
            header_like: probe.header_like,
            table: probe.table.clone(),
        });
        probes.push(probe);
    }

    let weighted = agreed_weightedness(&planned, &probes)?;
    let takes_labels = |format: InputFormat| format == InputFormat::EdgeList || format.is_table();
    let labels = opts.relabel || (takes_labels(planned[0].format) && probes[0].non_integer_ids);
    if labels {
        if let Some(other) = planned.iter().find(|i| !takes_labels(i.format)) {
            let (why, error): (_, fn(String) -> IngestError) = if opts.relabel {
                ("--relabel", IngestError::OptionNotForInput)
            } else {
                (
                    "label ids (the first input has non-integer ids)",
                    IngestError::Incompatible,
                )
            };
            return Err(error(format!(
                "{why} applies to edge lists and tables only, but {} is {}",
                other.path.display(),
                other.format
            )));
        }
    }
    if !labels {
        if let Some((input, probe)) = planned
            .iter()
            .zip(&probes)
            .find(|(i, p)| i.format.is_table() && p.non_integer_ids)
        {
            let layout = probe
                .table
                .as_ref()
                .expect("a table's probe has its layout");
            return Err(IngestError::invalid(
                &input.path,
                format!(
                    "columns '{}' and '{}' hold strings, but the store's ids are integers (decided by the first input); give --relabel to treat every id as a label",
                    layout.src, layout.dst
                ),
            ));
        }
    }
    let vertex_labels = match exports.as_slice() {
        [] => Vec::new(),
        [export] if given.len() == 1 && !labels => export.vertex_labels.clone(),
        // Labelled ids (--relabel, or string ids) or other inputs would be numbered afresh,
        // apart from the vertex table's labels: each case names the edge tables to give.
        [export, ..] => {
            let edges = export.dir.join(EXPORT_EDGES);
            let edges = edges.display();
            let reason = if given.len() > 1 {
                format!("is an export whose vertex table holds labels, which converts back alone; to combine its arcs with other inputs by their dense ids, give {edges} instead")
            } else if opts.relabel {
                format!("--relabel numbers the ids afresh, but this export's vertex table holds their labels: leave --relabel out to restore them, or give {edges} to number the ids afresh")
            } else {
                format!("is an export whose vertex table holds labels, but its edge tables hold string ids; an export's edge tables hold the integer ids its vertex table names (give {edges} to read the strings as labels)")
            };
            return Err(IngestError::invalid(&export.dir, reason));
        }
    };
    let symmetric = probes.iter().any(|p| p.symmetric);
    if symmetric && probes.iter().any(|p| !p.symmetric) {
        log::warn!(
            "a symmetric input (a symmetric Matrix Market file or a symmetric store's export) \
             is combined with other inputs: the whole store will be symmetrised"
        );
    }
    Ok(IngestPlan {
        inputs: planned,
        weighted,
        symmetric,
        self_loops_kept: probes.iter().all(|p| p.self_loops_kept),
        // Labelled ids are numbered afresh: a declared count of the original ids means nothing.
        declared_vertices: if labels {
            None
        } else {
            probes.iter().filter_map(|p| p.declared_vertices).max()
        },
        labels,
        vertex_labels,
    })
}

/// A directory written by `vastgraph export --format parquet` whose vertex table holds labels.
struct LabelledExport {
    dir: PathBuf,
    /// The table files of `dir/vertices`, in name order.
    vertex_labels: Vec<PathBuf>,
}

/// The edge and vertex tables of a directory written by `vastgraph export --format parquet`.
const EXPORT_EDGES: &str = "edges";
const EXPORT_VERTICES: &str = "vertices";

/// Replaces each directory among `inputs` by the table files in it, in name order: a table
/// written by Spark, DuckDB or `vastgraph export` is a directory of `part-*.parquet` files.
/// Other files in it (`_SUCCESS`, checksums) are passed over. A directory with no table of
/// its own but an `edges/` directory of them is a vastgraph export: its edge tables are the
/// input, and its `vertices/` tables, when they hold labels, are returned to name the
/// vertices. A directory without a table file is an error, and so is one with tables of its
/// own beside an export's `edges/` (which to read would be a guess).
fn expand_table_directories(
    inputs: &[PathBuf],
    format: Option<InputFormat>,
) -> Result<(Vec<PathBuf>, Vec<LabelledExport>), IngestError> {
    let mut expanded = Vec::with_capacity(inputs.len());
    let mut exports = Vec::new();
    for path in inputs {
        if !path.is_dir() {
            expanded.push(path.clone());
            continue;
        }
        let mut tables = table_files(path, format)?;
        let edges = path.join(EXPORT_EDGES);
        let edge_tables = if edges.is_dir() {
            table_files(&edges, format)?
        } else {
            Vec::new()
        };
        if let (Some(own), false) = (tables.first(), edge_tables.is_empty()) {
            return Err(IngestError::invalid(
                path,
                format!(
                    "holds tables of its own ({}) beside an export's {EXPORT_EDGES}/ directory; give {} for the export, or the table files themselves",
                    own.file_name().unwrap_or_default().to_string_lossy(),
                    edges.display()
                ),
            ));
        }
        if tables.is_empty() && !edge_tables.is_empty() {
            tables = edge_tables;
            let vertices = path.join(EXPORT_VERTICES);
            let vertex_tables = if vertices.is_dir() {
                // Listed by their names (an export writes `.parquet` files) whatever --format says.
                table_files(&vertices, None)?
            } else {
                Vec::new()
            };
            same_export(path, tables.iter().chain(&vertex_tables))?;
            // Labels in any of the files make it a labelled table, and every file must hold
            // them.
            let mut labelled = Vec::with_capacity(vertex_tables.len());
            for file in &vertex_tables {
                labelled.push(table::has_vertex_labels(file, detect_format(file)?)?);
            }
            if labelled.contains(&true) {
                if let Some(bare) = labelled.iter().position(|&l| !l) {
                    return Err(IngestError::invalid(
                        &vertex_tables[bare],
                        "has no 'label' column, as the other vertex tables do",
                    ));
                }
                exports.push(LabelledExport {
                    dir: path.clone(),
                    vertex_labels: vertex_tables,
                });
            }
        }
        if tables.is_empty() {
            return Err(IngestError::invalid(
                path,
                "is a directory holding no Parquet or Arrow table (.parquet, .arrow, .feather), \
                 nor an export's edges/ directory of them; give the input files themselves",
            ));
        }
        expanded.extend(tables);
    }
    Ok((expanded, exports))
}

/// An export's tables must all come from one export: an export interrupted while it replaced
/// an older one's tables (one swapped, the other not yet) would otherwise pair new arcs with
/// old labels. Tables of an export that recorded no id pass.
fn same_export<'a>(
    dir: &Path,
    files: impl Iterator<Item = &'a PathBuf>,
) -> Result<(), IngestError> {
    let mut first: Option<(Option<String>, &Path)> = None;
    for file in files {
        let id = table::export_id(file, detect_format(file)?)?;
        match &first {
            None => first = Some((id, file)),
            Some((seen, seen_file)) if *seen != id => {
                return Err(IngestError::invalid(
                    dir,
                    format!(
                        "its tables come from two exports ({} and {}): an export was \
                         interrupted while it replaced another; export the store again",
                        seen_file.strip_prefix(dir).unwrap_or(seen_file).display(),
                        file.strip_prefix(dir).unwrap_or(file).display()
                    ),
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// The table files directly in `dir`, in name order with numbers by value (`part-99999` before
/// `part-100000`); hidden ones (`.x`, `_x`) are passed over.
fn table_files(dir: &Path, format: Option<InputFormat>) -> Result<Vec<PathBuf>, IngestError> {
    let entries = std::fs::read_dir(dir).map_err(|e| IngestError::io(dir, e))?;
    let mut tables = Vec::new();
    for entry in entries {
        let file = entry.map_err(|e| IngestError::io(dir, e))?.path();
        let is_table = match format {
            Some(f) => f.is_table(),
            None => detect_format(&file).is_ok_and(InputFormat::is_table),
        };
        let hidden = file
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(['.', '_']));
        if is_table && file.is_file() && !hidden {
            tables.push(file);
        }
    }
    tables.sort_by_cached_key(|file| natural_key(&file.to_string_lossy()));
    Ok(tables)
}

/// A sort key that orders runs of digits by their value, and everything else as text; the
/// name itself breaks ties (`part-1` and `part-01`).
fn natural_key(name: &str) -> (Vec<(String, Option<u128>)>, String) {
    let mut key = Vec::new();
    let mut rest = name;
    while !rest.is_empty() {
        let text_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let (text, tail) = rest.split_at(text_len);
        let digits_len = tail
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(tail.len());
        let (digits, tail) = tail.split_at(digits_len);
        // A run too long for a u128 sorts after every shorter number.
        let value = (!digits.is_empty()).then(|| digits.parse::<u128>().unwrap_or(u128::MAX));
        key.push((text.to_string(), value));
        rest = tail;
    }
    (key, name.to_string())
}

fn input_bytes(path: &Path, format: InputFormat) -> Result<u64, IngestError> {
    let size = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.len())
            .map_err(|e| IngestError::io(p, e))
    };
    if format == InputFormat::WebGraph {
        let graph = webgraph_file(path, "graph");
        let properties = webgraph_file(path, "properties");
        return Ok(size(&graph)? + size(&properties)?);
    }
    let meta = std::fs::metadata(path).map_err(|e| IngestError::io(path, e))?;
    if meta.is_dir() {
        return Err(IngestError::invalid(
            path,
            "is a directory, not an input file",
        ));
    }
    Ok(meta.len())
}

/// A Matrix Market file by its banner, whatever its name: read as an edge list (its `%` lines
/// are comments there), its size line became an edge and its ids stayed 1-based.
fn by_banner(path: &Path, format: InputFormat) -> Result<InputFormat, IngestError> {
    const BANNER: &[u8] = b"%%matrixmarket";
    // Only a regular file can be read twice (a pipe's first bytes would be gone).
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if format != InputFormat::EdgeList || !regular {
        return Ok(format);
    }
    let mut head = [0u8; BANNER.len()];
    let read = crate::source::read_full(&mut open_text_input_uncounted(path)?, &mut head)
        .map_err(|e| IngestError::io(path, e))?;
    if read == BANNER.len() && head.eq_ignore_ascii_case(BANNER) {
        log::info!(
            "{}: starts with a Matrix Market banner, read as Matrix Market",
            path.display()
        );
        return Ok(InputFormat::MatrixMarket);
    }
    Ok(format)
}

fn probe(
    path: &Path,
    format: InputFormat,
    bytes: u64,
    opts: &IngestOptions,
) -> Result<Probe, IngestError> {
    Ok(match format {
        InputFormat::EdgeList => {
            let sniff = edge_list::sniff(path, open_text_input_uncounted(path)?, opts.header)?;
            if let Some((line, text)) = &sniff.header_like {
                log::warn!(
                    "{}: line {line} is read as an edge, but its ids look like column names: {}; \
                     if it is a header, --header skips it",
                    path.display(),
                    text.chars().take(120).collect::<String>()
                );
            }
            Probe {
                weighted: sniff.weighted(),
                non_integer_ids: sniff.has_non_integer_ids,
                header: sniff.header,
                header_like: sniff.header_like.map(|(line, _)| line),
                ..Probe::default()
            }
        }
        InputFormat::MatrixMarket => {
            let (header, _) = matrix_market::read_header(path, open_text_input_uncounted(path)?)?;
            Probe {
                weighted: Some(header.weighted()),
                symmetric: header.symmetric,
                declared_vertices: Some(header.vertices()),
                ..Probe::default()
            }
        }
        InputFormat::Dimacs => {
            let (header, _) = dimacs::read_header(path, open_text_input_uncounted(path)?)?;
            Probe {
                weighted: Some(true),
                declared_vertices: Some(header.vertices),
                ..Probe::default()
            }
        }
        InputFormat::Bin32 | InputFormat::Bin64 => {
            let bin = if format == InputFormat::Bin32 {
                BinFormat::Bin32
            } else {
                BinFormat::Bin64
            };
            // Only an uncompressed file's length is known before reading it.
            if Compression::of(path) == Compression::None
                && !bytes.is_multiple_of(bin.pair_bytes() as u64)
            {
                return Err(length_error(path, bytes, bin));
            }
            Probe {
                weighted: Some(false),
                ..Probe::default()
            }
        }
        InputFormat::WebGraph => {
            let info = webgraph_input::read_info(path)?;
            Probe {
                weighted: Some(false),
                declared_vertices: Some(info.nodes),
                ..Probe::default()
            }
        }
        InputFormat::Parquet | InputFormat::ArrowIpc => {
            let layout = table::layout(path, format, &opts.columns)?;
            Probe {
                weighted: Some(layout.weighted()),
                non_integer_ids: layout.string_ids,
                declared_vertices: layout.declared_vertices,
                symmetric: layout.symmetric,
                self_loops_kept: layout.self_loops_kept,
                table: Some(layout),
                ..Probe::default()
            }
        }
    })
}

fn agreed_weightedness(inputs: &[PlannedInput], probes: &[Probe]) -> Result<bool, IngestError> {
    let mut first: Option<(bool, &Path)> = None;
    for (input, probe) in inputs.iter().zip(probes) {
        let Some(weighted) = probe.weighted else {
            continue;
        };
        match first {
            None => first = Some((weighted, &input.path)),
            Some((w, other)) if w != weighted => {
                let (yes, no) = if weighted {
                    (input.path.as_path(), other)
                } else {
                    (other, input.path.as_path())
                };
                return Err(IngestError::Incompatible(format!(
                    "{} is weighted but {} is not; the inputs of one store must agree",
                    yes.display(),
                    no.display()
                )));
            }
            Some(_) => {}
        }
    }
    Ok(first.is_some_and(|(w, _)| w))
}

#[cfg(test)]
mod tests {
    use super::natural_key;

    #[test]
    fn numbers_in_names_sort_by_value() {
        let mut names = vec![
            "part-100000.parquet",
            "part-10001.parquet",
            "part-09999.parquet",
            "part-10000.parquet",
            "b",
            "a10",
            "a9",
            "a",
        ];
        names.sort_by_key(|n| natural_key(n));
        assert_eq!(
            names,
            [
                "a",
                "a9",
                "a10",
                "b",
                "part-09999.parquet",
                "part-10000.parquet",
                "part-10001.parquet",
                "part-100000.parquet"
            ]
        );
    }
}
