//! Edge tables: Parquet files and Arrow IPC files or streams (Feather v2), one row per edge,
//! read one record batch at a time so that a table larger than memory streams through.
//!
//! The source and target columns are named with `--src`/`--dst`; without them, `src` or
//! `source` and `dst` or `target` are taken (the layouts of `vastgraph export --format
//! parquet`, GraphFrames and NetworkX's `to_pandas_edgelist`). A `weight` column, or the
//! one named with `--weight`, makes the edges weighted.
//!
//! A vertex count in the file's metadata (`vastgraph.vertices`, written by `vastgraph export
//! --format parquet`) is a declared count, as a Matrix Market header's is: it restores the
//! isolated vertices past the largest id.
//!
//! Id columns hold integers (any width, signed or not) or strings (UTF-8, large, view or
//! dictionary-encoded). Strings are labels and get dense ids in first-appearance order,
//! as in a labelled edge list; so do integers under `--relabel`. A null, a negative id, an
//! id past the vertex limit or a weight that is not a finite number is an error naming the
//! file, the 1-based row and the column.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Schema, SchemaRef};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;
use vastgraph_store::{
    MAX_VERTICES, TABLE_EXPORT_KEY, TABLE_SELF_LOOPS_KEY, TABLE_SYMMETRIC_KEY, TABLE_VERTICES_KEY,
};

use crate::format::detect_format;
use crate::labels::{LabelInterner, LABEL_BREAKS, LABEL_BREAK_REFUSAL};
use crate::quiet_panic::decode_quietly;
use crate::sink::EdgeSink;
use crate::tokens::{storable_weight, NOT_A_STORABLE_WEIGHT};
use crate::{check_cancelled, IngestError, InputFormat};

/// Rows per record batch asked of the Parquet reader (an IPC file's batches are as written).
const BATCH_ROWS: usize = 1 << 20;

/// The columns of an edge table, as named by the user; `None` takes the usual names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableColumns {
    pub src: Option<String>,
    pub dst: Option<String>,
    pub weight: Option<String>,
}

/// An edge table's columns, resolved against its schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableLayout {
    pub(crate) src: String,
    pub(crate) dst: String,
    weight: Option<String>,
    /// The id columns hold strings.
    pub(crate) string_ids: bool,
    /// The vertex count a vastgraph export recorded in the file's metadata.
    pub(crate) declared_vertices: Option<u64>,
    /// A vastgraph export of a symmetric store: both arcs of every edge, to be stored as one
    /// undirected edge.
    pub(crate) symmetric: bool,
    /// A vastgraph export of a store that kept its self-loops.
    pub(crate) self_loops_kept: bool,
}

impl TableLayout {
    pub(crate) fn weighted(&self) -> bool {
        self.weight.is_some()
    }
}

/// Reads the schema (a Parquet footer or an IPC header, no rows) and resolves the columns.
pub(crate) fn layout(
    path: &Path,
    format: InputFormat,
    columns: &TableColumns,
) -> Result<TableLayout, IngestError> {
    let (schema, metadata) = schema_and_metadata(path, format)?;
    let mut layout = resolve(path, &schema, columns)?;
    if let Some((_, value)) = metadata.iter().find(|(k, _)| k == TABLE_VERTICES_KEY) {
        let count = value.as_deref().and_then(|v| v.parse::<u64>().ok());
        match count {
            Some(n) if n <= MAX_VERTICES => layout.declared_vertices = Some(n),
            _ => {
                return Err(IngestError::invalid(
                    path,
                    format!(
                        "its metadata entry {TABLE_VERTICES_KEY} = {value:?} is not a vertex count (at most {MAX_VERTICES})"
                    ),
                ))
            }
        }
    }
    let flag = |key: &str| match metadata.iter().find(|(k, _)| k == key) {
        None => Ok(false),
        Some((_, value)) => match value.as_deref() {
            Some("true") => Ok(true),
            Some("false") => Ok(false),
            _ => Err(IngestError::invalid(
                path,
                format!("its metadata entry {key} = {value:?} is neither true nor false"),
            )),
        },
    };
    layout.symmetric = flag(TABLE_SYMMETRIC_KEY)?;
    layout.self_loops_kept = flag(TABLE_SELF_LOOPS_KEY)?;
    Ok(layout)
}

/// A table's schema and its key-value metadata (Parquet only), read without any row.
fn schema_and_metadata(
    path: &Path,
    format: InputFormat,
) -> Result<(SchemaRef, Metadata), IngestError> {
    Ok(match format {
        InputFormat::Parquet => guarded(path, format, || {
            let builder = ParquetRecordBatchReaderBuilder::try_new(EndChecked::open(path)?)
                .map_err(|e| unreadable(path, format, e))?;
            let metadata: Metadata = builder
                .metadata()
                .file_metadata()
                .key_value_metadata()
                .map(|kv| {
                    kv.iter()
                        .map(|e| (e.key.clone(), e.value.clone()))
                        .collect()
                })
                .unwrap_or_default();
            Ok((builder.schema().clone(), metadata))
        })?,
        _ => guarded(path, format, || {
            Ok((IpcBatches::open(path)?.schema(), Vec::new()))
        })?,
    })
}

type Metadata = Vec<(String, Option<String>)>;

fn resolve(
    path: &Path,
    schema: &Schema,
    columns: &TableColumns,
) -> Result<TableLayout, IngestError> {
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    let pick = |given: &Option<String>, usual: &[&str], flag: &str| match given {
        Some(name) if names.contains(&name.as_str()) => Ok(Some(name.clone())),
        Some(name) => Err(IngestError::invalid(
            path,
            format!(
                "has no column '{name}' ({flag}); its columns are {}",
                names.join(", ")
            ),
        )),
        None => Ok(usual
            .iter()
            .find(|u| names.contains(u))
            .map(|u| u.to_string())),
    };
    let required = |given: &Option<String>, usual: &[&str], role: &str, flag: &str| {
        pick(given, usual, flag)?.ok_or_else(|| {
            let usual: Vec<String> = usual.iter().map(|u| format!("'{u}'")).collect();
            IngestError::invalid(
                path,
                format!(
                    "has no {role} column named {}; its columns are {}: name it with {flag} COL",
                    usual.join(" or "),
                    names.join(", ")
                ),
            )
        })
    };
    let src = required(&columns.src, &["src", "source"], "source", "--src")?;
    let dst = required(&columns.dst, &["dst", "target"], "target", "--dst")?;
    let weight = pick(&columns.weight, &["weight"], "--weight")?;
    if src == dst {
        return Err(IngestError::invalid(
            path,
            format!("column '{src}' is named as both the source and the target"),
        ));
    }
    let kind = |name: &str| -> Result<IdKind, IngestError> {
        let field = schema.field_with_name(name).expect("resolved above");
        id_kind(field.data_type()).ok_or_else(|| {
            IngestError::invalid(
                path,
                format!(
                    "column '{name}' holds {}, not vertex ids (integers or strings)",
                    field.data_type()
                ),
            )
        })
    };
    let (src_kind, dst_kind) = (kind(&src)?, kind(&dst)?);
    if src_kind != dst_kind {
        return Err(IngestError::invalid(
            path,
            format!(
                "column '{src}' holds {} ids but '{dst}' holds {} ids; both must be integers or both strings",
                src_kind.name(),
                dst_kind.name()
            ),
        ));
    }
    if let Some(name) = &weight {
        let data_type = schema.field_with_name(name).expect("resolved").data_type();
        if !(data_type.is_integer() || data_type.is_floating() || data_type.is_null()) {
            return Err(IngestError::invalid(
                path,
                format!("column '{name}' holds {data_type}, not numeric weights"),
            ));
        }
    }
    Ok(TableLayout {
        src,
        dst,
        weight,
        string_ids: src_kind == IdKind::Strings,
        declared_vertices: None,
        symmetric: false,
        self_loops_kept: false,
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IdKind {
    Integers,
    Strings,
}

impl IdKind {
    fn name(self) -> &'static str {
        match self {
            IdKind::Integers => "integer",
            IdKind::Strings => "string",
        }
    }
}

fn id_kind(data_type: &DataType) -> Option<IdKind> {
    match data_type {
        t if t.is_integer() => Some(IdKind::Integers),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Some(IdKind::Strings),
        DataType::Dictionary(_, value) => id_kind(value),
        _ => None,
    }
}

/// Streams an edge table into `sink`; returns the number of edges. With `interner` every id
/// (string or integer) is a label; without it, ids must be integers below the vertex limit
/// (`plan` refuses string ids without labels).
/// `progress(fraction)` is called after each batch with the share of the table read.
pub(crate) fn ingest_table(
    path: &Path,
    format: InputFormat,
    layout: &TableLayout,
    mut interner: Option<&mut LabelInterner>,
    sink: &mut dyn EdgeSink,
    progress: &mut dyn FnMut(f64),
) -> Result<u64, IngestError> {
    let mut rows: u64 = 0;
    let mut src = Vec::new();
    let mut dst = Vec::new();
    let mut weights = Vec::new();
    let mut rounded_warned = false;
    let mut read_batch = |batch: RecordBatch, share: f64| -> Result<(), IngestError> {
        let column = |name: &str| batch.column_by_name(name).expect("projected").clone();
        let at = Position {
            path,
            first_row: rows + 1,
        };
        ids(
            &at,
            &layout.src,
            &column(&layout.src),
            interner.as_deref_mut(),
            layout.declared_vertices,
            &mut src,
        )?;
        ids(
            &at,
            &layout.dst,
            &column(&layout.dst),
            interner.as_deref_mut(),
            layout.declared_vertices,
            &mut dst,
        )?;
        let weights = match &layout.weight {
            Some(name) => {
                let rounded = numbers(&at, name, &column(name), &mut weights)?;
                if let (Some((index, value)), false) = (rounded, rounded_warned) {
                    rounded_warned = true;
                    log::warn!(
                        "{}: row {}: column '{name}' holds {value}, which the store's float32 \
                         weights hold as {}",
                        path.display(),
                        at.first_row + index as u64,
                        weights[index] as f32 as i128
                    );
                }
                Some(weights.as_slice())
            }
            None => None,
        };
        if !src.is_empty() {
            sink.push_batch(&src, &dst, weights)
                .map_err(|source| IngestError::Sink {
                    path: path.to_path_buf(),
                    source,
                })?;
        }
        rows += batch.num_rows() as u64;
        progress(share);
        check_cancelled()
    };
    let projected: Vec<&str> = [Some(&layout.src), Some(&layout.dst), layout.weight.as_ref()]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect();
    for_each_batch(path, format, &projected, &mut read_batch)?;
    Ok(rows)
}

/// Calls `each(batch, share read)` for every record batch of a table, in order; a Parquet
/// file's batches hold the `projected` columns only.
fn for_each_batch(
    path: &Path,
    format: InputFormat,
    projected: &[&str],
    each: &mut dyn FnMut(RecordBatch, f64) -> Result<(), IngestError>,
) -> Result<(), IngestError> {
    guarded(path, format, || {
        match format {
            InputFormat::Parquet => {
                let builder = ParquetRecordBatchReaderBuilder::try_new(EndChecked::open(path)?)
                    .map_err(|e| unreadable(path, format, e))?;
                let total = builder.metadata().file_metadata().num_rows().max(1) as f64;
                let roots: Vec<usize> = projected
                    .iter()
                    .map(|name| builder.schema().index_of(name).expect("resolved"))
                    .collect();
                let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
                let reader = builder
                    .with_projection(mask)
                    .with_batch_size(BATCH_ROWS)
                    .build()
                    .map_err(|e| unreadable(path, format, e))?;
                let mut done = 0u64;
                for batch in reader {
                    let batch = batch.map_err(|e| unreadable(path, format, e))?;
                    done += batch.num_rows() as u64;
                    each(batch, done as f64 / total)?;
                }
            }
            _ => {
                let mut batches = IpcBatches::open(path)?;
                let total = batches.batches().unwrap_or(0).max(1) as f64;
                let mut done = 0u64;
                while let Some(batch) = batches.next_batch(path)? {
                    done += 1;
                    each(batch, (done as f64 / total).min(1.0))?;
                }
            }
        }
        Ok(())
    })
}

/// Whether a vertex table (a vastgraph export's `vertices/`: `id`[, `label`]) names its
/// vertices: it has a `label` column, which must hold strings beside an integer `id` column
/// (anything else is an error naming the file, not labels silently dropped).
/// The export a table file written by `vastgraph export` belongs to (its metadata's
/// [`TABLE_EXPORT_KEY`]), where it says.
pub(crate) fn export_id(path: &Path, format: InputFormat) -> Result<Option<String>, IngestError> {
    let (_, metadata) = schema_and_metadata(path, format)?;
    Ok(metadata
        .into_iter()
        .find(|(key, _)| key == TABLE_EXPORT_KEY)
        .and_then(|(_, value)| value))
}

pub(crate) fn has_vertex_labels(path: &Path, format: InputFormat) -> Result<bool, IngestError> {
    let (schema, _) = schema_and_metadata(path, format)?;
    let Ok(label) = schema.field_with_name("label") else {
        return Ok(false);
    };
    let id = schema.field_with_name("id").ok();
    let id_type = id.map(|f| f.data_type());
    if id_type.and_then(id_kind) != Some(IdKind::Integers)
        || id_kind(label.data_type()) != Some(IdKind::Strings)
    {
        let id_type = id_type.map_or("no 'id' column".to_string(), |t| {
            format!("an 'id' column of {t}")
        });
        return Err(IngestError::invalid(
            path,
            format!(
                "is a vertex table with a 'label' column of {} and {id_type}; its labels must be strings beside integer ids",
                label.data_type()
            ),
        ));
    }
    Ok(true)
}

/// The labels of a vertex table's files (in order, each with the `label` column `plan` found),
/// one per vertex in id order: the ids must run 0, 1, 2, … across the files, as an export
/// writes them. A null, a gap, a label with a
/// line break (a store keeps one label a line) or one label given to two vertices is an error
/// naming the file and the row.
pub(crate) fn vertex_labels(files: &[PathBuf]) -> Result<Vec<String>, IngestError> {
    let mut labels: Vec<String> = Vec::new();
    // The first vertex of each file, to name the file and row of a repeated label.
    let mut starts: Vec<(usize, &Path)> = Vec::with_capacity(files.len());
    for path in files {
        let format = detect_format(path)?;
        starts.push((labels.len(), path));
        let mut rows = 0u64;
        for_each_batch(path, format, &["id", "label"], &mut |batch, _| {
            let at = Position {
                path,
                first_row: rows + 1,
            };
            let column = |name: &str| batch.column_by_name(name).expect("projected").clone();
            let ids = column("id");
            at.first_null("id", ids.as_ref())?;
            let first = labels.len();
            integers(&at, "id", &ids, |index, id| {
                let expected = (first + index) as i128;
                if id != expected {
                    return Err(at.error(
                        index,
                        "id",
                        format!("holds {id} where vertex {expected} comes: a vertex table lists the ids 0, 1, 2, … in order"),
                    ));
                }
                Ok(())
            })?;
            let names = column("label");
            at.first_null("label", names.as_ref())?;
            let names = cast(&at, "label", &names, &DataType::LargeUtf8)?;
            for (index, label) in names.as_string::<i64>().iter().enumerate() {
                let label = label.unwrap_or_default();
                if label.contains(LABEL_BREAKS) {
                    return Err(at.error(index, "label", LABEL_BREAK_REFUSAL));
                }
                if labels.len() as u64 >= MAX_VERTICES {
                    return Err(at.error(
                        index,
                        "id",
                        format!("is past the limit of {MAX_VERTICES} vertices"),
                    ));
                }
                labels.push(label.to_string());
            }
            rows += batch.num_rows() as u64;
            check_cancelled()
        })?;
    }
    if let Some((a, b)) = repeated_label(&labels) {
        let row_of = |v: usize| {
            let (start, path) = starts
                .iter()
                .rev()
                .find(|(start, _)| *start <= v)
                .expect("vertex 0 starts the first file");
            (*path, v - start + 1)
        };
        let ((file_a, row_a), (file_b, row_b)) = (row_of(a), row_of(b));
        return Err(IngestError::invalid(
            file_b,
            format!(
                "row {row_b}: vertex {b} has the label {:?}, as vertex {a} has ({}, row {row_a}); a label names one vertex",
                labels[b],
                file_a.display()
            ),
        ));
    }
    Ok(labels)
}

/// Two vertices with the same label, the later one second, if any.
fn repeated_label(labels: &[String]) -> Option<(usize, usize)> {
    let mut order: Vec<u32> = (0..labels.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| labels[a as usize].cmp(&labels[b as usize]).then(a.cmp(&b)));
    order
        .windows(2)
        .find(|pair| labels[pair[0] as usize] == labels[pair[1] as usize])
        .map(|pair| (pair[0] as usize, pair[1] as usize))
}

/// Where a batch starts, for errors that name the row.
struct Position<'a> {
    path: &'a Path,
    /// The 1-based row of the batch's first row in the table.
    first_row: u64,
}

impl Position<'_> {
    fn error(&self, index: usize, column: &str, reason: impl std::fmt::Display) -> IngestError {
        IngestError::invalid(
            self.path,
            format!(
                "row {}: column '{column}' {reason}",
                self.first_row + index as u64
            ),
        )
    }

    fn first_null(&self, column: &str, array: &dyn Array) -> Result<(), IngestError> {
        if array.null_count() == 0 {
            return Ok(());
        }
        let index = (0..array.len()).find(|&i| array.is_null(i)).unwrap_or(0);
        Err(self.error(index, column, "is null"))
    }
}

/// Dense vertex ids from an id column: integers as they are, below the count the table's
/// metadata records (`declared`) if any, or labels through `interner`.
fn ids(
    at: &Position,
    column: &str,
    array: &ArrayRef,
    interner: Option<&mut LabelInterner>,
    declared: Option<u64>,
    out: &mut Vec<u32>,
) -> Result<(), IngestError> {
    at.first_null(column, array.as_ref())?;
    out.clear();
    out.reserve(array.len());
    let too_many = |index| {
        at.error(
            index,
            column,
            format!("brings a label past the limit of {MAX_VERTICES} vertices"),
        )
    };
    if let Some(interner) = interner {
        if id_kind(array.data_type()) == Some(IdKind::Strings) {
            let strings = cast(at, column, array, &DataType::LargeUtf8)?;
            for (index, label) in strings.as_string::<i64>().iter().enumerate() {
                let label = label.unwrap_or_default();
                if label.contains(LABEL_BREAKS) {
                    return Err(at.error(index, column, LABEL_BREAK_REFUSAL));
                }
                out.push(
                    interner
                        .id_of(label.as_bytes())
                        .map_err(|_| too_many(index))?,
                );
            }
        } else {
            // Integer ids as labels, in decimal, as a labelled edge list holds them.
            let mut label = String::new();
            integers(at, column, array, |index, id| {
                label.clear();
                write!(label, "{id}").expect("writing to a String");
                out.push(
                    interner
                        .id_of(label.as_bytes())
                        .map_err(|_| too_many(index))?,
                );
                Ok(())
            })?;
        }
        return Ok(());
    }
    integers(at, column, array, |index, id| {
        if id >= MAX_VERTICES as i128 {
            return Err(at.error(
                index,
                column,
                format!(
                    "holds {id}, not below the limit of {MAX_VERTICES} vertices; give --relabel to number the ids densely"
                ),
            ));
        }
        if let Some(n) = declared.filter(|&n| id >= n as i128) {
            return Err(at.error(
                index,
                column,
                format!(
                    "holds {id}, past the {n} vertices the file's metadata records ({TABLE_VERTICES_KEY}): the table was changed since it was written"
                ),
            ));
        }
        out.push(id as u32);
        Ok(())
    })
}

/// Calls `each(index, value)` for every value of an integer column; a negative value is an
/// error.
fn integers(
    at: &Position,
    column: &str,
    array: &ArrayRef,
    mut each: impl FnMut(usize, i128) -> Result<(), IngestError>,
) -> Result<(), IngestError> {
    let unsigned = matches!(array.data_type(), DataType::UInt64)
        || matches!(array.data_type(), DataType::Dictionary(_, v) if **v == DataType::UInt64);
    if unsigned {
        let values = cast(at, column, array, &DataType::UInt64)?;
        for (index, &id) in values
            .as_primitive::<UInt64Type>()
            .values()
            .iter()
            .enumerate()
        {
            each(index, id as i128)?;
        }
    } else {
        let values = cast(at, column, array, &DataType::Int64)?;
        for (index, &id) in values
            .as_primitive::<Int64Type>()
            .values()
            .iter()
            .enumerate()
        {
            if id < 0 {
                return Err(at.error(index, column, format!("holds {id}, a negative vertex id")));
            }
            each(index, id as i128)?;
        }
    }
    Ok(())
}

/// Finite weights from a numeric column, and the first integer of an integer column that the
/// conversion to f64 already rounds (past 2^53), with its index: the store builder warns of
/// integers float32 rounds from the f64 it is given, which no longer shows these.
fn numbers(
    at: &Position,
    column: &str,
    array: &ArrayRef,
    out: &mut Vec<f64>,
) -> Result<Option<(usize, i128)>, IngestError> {
    at.first_null(column, array.as_ref())?;
    // Narrower integers, and floats, are exact in f64.
    let first_rounded = |values: &mut dyn Iterator<Item = i128>| {
        values.enumerate().find(|&(_, v)| v as f64 as i128 != v)
    };
    let rounded = match array.data_type() {
        DataType::Int64 => first_rounded(
            &mut array
                .as_primitive::<Int64Type>()
                .values()
                .iter()
                .map(|&v| i128::from(v)),
        ),
        DataType::UInt64 => first_rounded(
            &mut array
                .as_primitive::<UInt64Type>()
                .values()
                .iter()
                .map(|&v| i128::from(v)),
        ),
        _ => None,
    };
    let values = cast(at, column, array, &DataType::Float64)?;
    out.clear();
    out.extend_from_slice(values.as_primitive::<Float64Type>().values());
    if let Some(index) = out.iter().position(|&w| !storable_weight(w)) {
        return Err(at.error(
            index,
            column,
            format!("holds {}, {NOT_A_STORABLE_WEIGHT}", out[index]),
        ));
    }
    Ok(rounded)
}

fn cast(
    at: &Position,
    column: &str,
    array: &ArrayRef,
    to: &DataType,
) -> Result<ArrayRef, IngestError> {
    if array.data_type() == to {
        return Ok(array.clone());
    }
    arrow_cast::cast(array, to).map_err(|e| {
        IngestError::invalid(
            at.path,
            format!("column '{column}' cannot be read as {to}: {e}"),
        )
    })
}

fn open(path: &Path) -> Result<File, IngestError> {
    File::open(path).map_err(|e| IngestError::io(path, e))
}

/// A Parquet file whose reads at its end are errors rather than empty reads. The parquet
/// crate skips an unknown Thrift field of fixed-size elements without counting the bytes it
/// got, so a forged page header at the end of a file, with a list of 2^31 such elements,
/// made it spin on empty reads for minutes. A valid file is never read past its end: the
/// footer and every page lie inside it.
struct EndChecked(File);

impl EndChecked {
    fn open(path: &Path) -> Result<EndChecked, IngestError> {
        open(path).map(EndChecked)
    }
}

impl parquet::file::reader::Length for EndChecked {
    fn len(&self) -> u64 {
        parquet::file::reader::Length::len(&self.0)
    }
}

impl parquet::file::reader::ChunkReader for EndChecked {
    type T = EndCheckedRead;

    fn get_read(&self, start: u64) -> parquet::errors::Result<EndCheckedRead> {
        parquet::file::reader::ChunkReader::get_read(&self.0, start).map(EndCheckedRead)
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<bytes::Bytes> {
        parquet::file::reader::ChunkReader::get_bytes(&self.0, start, length)
    }
}

/// [`EndChecked`]'s reader: a read that gets nothing is an `UnexpectedEof`.
struct EndCheckedRead(BufReader<File>);

impl Read for EndCheckedRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.0.read(buf)? {
            0 if !buf.is_empty() => Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "a page runs past the end of the file",
            )),
            n => Ok(n),
        }
    }
}

fn unreadable(path: &Path, format: InputFormat, error: impl std::fmt::Display) -> IngestError {
    let error = error.to_string();
    // The Parquet crate's words for a codec it was built without (brotli, lzo).
    if error.contains("Disabled feature at compile time") {
        return IngestError::invalid(
            path,
            format!(
                "is compressed with a codec vastgraph does not read ({error}); rewrite it with \
                 zstd, snappy, gzip or lz4 (pyarrow: pq.write_table(table, path, compression=\"zstd\"))"
            ),
        );
    }
    IngestError::invalid(
        path,
        format!("is not a readable {} table: {error}", format_name(format)),
    )
}

fn format_name(format: InputFormat) -> &'static str {
    match format {
        InputFormat::Parquet => "Parquet",
        _ => "Arrow IPC",
    }
}

/// Runs a table reader, turning a panic inside the Parquet or Arrow crates (which a damaged
/// file can still cause) into an error naming the file.
fn guarded<T>(
    path: &Path,
    format: InputFormat,
    read: impl FnOnce() -> Result<T, IngestError>,
) -> Result<T, IngestError> {
    decode_quietly(read).unwrap_or_else(|panic| {
        Err(unreadable(
            path,
            format,
            format!("the reader failed ({panic}); the file is damaged"),
        ))
    })
}

/// The record batches of an Arrow IPC file (random-access, `ARROW1` magic) or stream.
enum IpcBatches {
    File(arrow_ipc::reader::FileReader<BufReader<File>>),
    Stream(arrow_ipc::reader::StreamReader<BufReader<File>>),
}

impl IpcBatches {
    fn open(path: &Path) -> Result<IpcBatches, IngestError> {
        let mut file = open(path)?;
        let mut magic = [0u8; 6];
        let is_file = file.read_exact(&mut magic).is_ok() && &magic == b"ARROW1";
        if magic.starts_with(b"FEA1") {
            return Err(unreadable(
                path,
                InputFormat::ArrowIpc,
                "a Feather version 1 file, a format Arrow has deprecated and vastgraph does not \
                 read; write it again as Feather version 2 (pyarrow.feather.write_feather's \
                 default) or as Parquet",
            ));
        }
        file.rewind().map_err(|e| IngestError::io(path, e))?;
        check_ipc_framing(path, &mut file, is_file)?;
        file.rewind().map_err(|e| IngestError::io(path, e))?;
        let reader = BufReader::new(file);
        let failed = |e: ArrowError| unreadable(path, InputFormat::ArrowIpc, e);
        Ok(if is_file {
            IpcBatches::File(arrow_ipc::reader::FileReader::try_new(reader, None).map_err(failed)?)
        } else {
            IpcBatches::Stream(
                arrow_ipc::reader::StreamReader::try_new(reader, None).map_err(failed)?,
            )
        })
    }

    fn schema(&self) -> SchemaRef {
        match self {
            IpcBatches::File(r) => r.schema(),
            IpcBatches::Stream(r) => r.schema(),
        }
    }

    /// The number of batches, known for a file only.
    fn batches(&self) -> Option<usize> {
        match self {
            IpcBatches::File(r) => Some(r.num_batches()),
            IpcBatches::Stream(_) => None,
        }
    }

    fn next_batch(&mut self, path: &Path) -> Result<Option<RecordBatch>, IngestError> {
        let next = match self {
            IpcBatches::File(r) => r.next(),
            IpcBatches::Stream(r) => r.next(),
        };
        next.transpose()
            .map_err(|e| unreadable(path, InputFormat::ArrowIpc, e))
    }
}

/// Checks, before the Arrow reader sees the file, that every length its framing declares (a
/// stream message's metadata and body, a file footer's blocks) lies within the file: the
/// reader allocates a declared body length before reading it, so a forged length would ask
/// for exabytes instead of failing.
fn check_ipc_framing(path: &Path, file: &mut File, is_file: bool) -> Result<(), IngestError> {
    let len = file.metadata().map_err(|e| IngestError::io(path, e))?.len();
    let damaged = |what: String| {
        unreadable(
            path,
            InputFormat::ArrowIpc,
            format!("{what}, past the file's {len} bytes; the file is truncated or damaged"),
        )
    };
    let mut read_at = |at: u64, bytes: usize| -> Result<Vec<u8>, IngestError> {
        let mut buf = vec![0u8; bytes];
        file.seek(std::io::SeekFrom::Start(at))
            .and_then(|_| file.read_exact(&mut buf))
            .map_err(|e| IngestError::io(path, e))?;
        Ok(buf)
    };
    let i32_at = |buf: &[u8], i: usize| i32::from_le_bytes(buf[i..i + 4].try_into().unwrap());
    if is_file {
        // "ARROW1" + padding, the stream, the footer, its i32 length and "ARROW1".
        if len < 16 {
            return Err(damaged("a file footer".into()));
        }
        let footer_len = i32_at(&read_at(len - 10, 4)?, 0);
        if footer_len < 0 || footer_len as u64 > len - 10 {
            return Err(damaged(format!("a footer of {footer_len} bytes")));
        }
        let footer_bytes = read_at(len - 10 - footer_len as u64, footer_len as usize)?;
        let footer = arrow_ipc::root_as_footer(&footer_bytes)
            .map_err(|e| unreadable(path, InputFormat::ArrowIpc, format!("its footer: {e}")))?;
        let blocks = footer
            .recordBatches()
            .into_iter()
            .chain(footer.dictionaries());
        for block in blocks.flatten() {
            let (offset, meta, body) = (block.offset(), block.metaDataLength(), block.bodyLength());
            if offset < 0 || meta < 0 || body < 0 {
                return Err(damaged(format!(
                    "a block with a negative offset or length at {offset}"
                )));
            }
            let end = offset as i128 + meta as i128 + body as i128;
            if end > len as i128 {
                return Err(damaged(format!("a block ending at byte {end}")));
            }
        }
        return Ok(());
    }
    let mut at = 0u64;
    while at + 4 <= len {
        let mut meta_len = i32_at(&read_at(at, 4)?, 0);
        at += 4;
        if meta_len == -1 {
            // The continuation marker, then the length.
            if at + 4 > len {
                break;
            }
            meta_len = i32_at(&read_at(at, 4)?, 0);
            at += 4;
        }
        if meta_len == 0 {
            break; // end of stream
        }
        if meta_len < 0 || at + meta_len as u64 > len {
            return Err(damaged(format!(
                "a message of {meta_len} bytes at byte {at}"
            )));
        }
        let meta = read_at(at, meta_len as usize)?;
        at += meta_len as u64;
        // An undecodable message is left for the reader to report.
        let Ok(message) = arrow_ipc::root_as_message(&meta) else {
            return Ok(());
        };
        let body = message.bodyLength();
        if body < 0 || at as i128 + body as i128 > len as i128 {
            return Err(damaged(format!(
                "a message body of {body} bytes at byte {at}"
            )));
        }
        at += body as u64;
    }
    Ok(())
}
