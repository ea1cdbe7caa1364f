//! Checkpoints of the iterative kernels (pagerank and its variants, label propagation, sssp,
//! bfs, kcore), so that a long run killed or interrupted continues where it stopped.
//!
//! A kernel that supports them calls [`Checkpoint::begin`] before its first iteration, which
//! hands back the saved state when the run resumes, and [`Checkpoint::after_iteration`] at the
//! end of every iteration, which saves the state when one is due: every N iterations or N
//! seconds ([`Every`]), on Ctrl-C (the process-wide cancellation flag, after which the run ends
//! with [`AlgoError::Interrupted`]), or at `stop_after`. The state saved is what the next
//! iteration reads, so a resumed run does exactly what the uninterrupted one would have done
//! from there, and a deterministic kernel gives the same result bit for bit.
//!
//! One file, `DIR/checkpoint.vgck`, written under a temporary name, fsynced and renamed, so a
//! kill at any moment leaves either the previous checkpoint or the new one:
//!
//! ```text
//! magic "VGCKPT\0\x01" | header length (u64 LE) | header (JSON) | columns | xxh3-64 (u64 LE)
//! ```
//!
//! The header records the store (the xxh3 of its manifest, which names every file's xxh3), the
//! algorithm, its parameters as the kernel resolved them, the iteration, the kernel's scalars
//! and each column's name, element type and length; the columns follow in that order,
//! little-endian, and the trailing checksum covers everything before it. A checkpoint is
//! refused, naming the file and the difference, for another store, algorithm or parameters;
//! the thread count may differ. While a run holds a checkpoint directory, a second run on it
//! fails at once (the lock of `vastgraph_store::TargetLock`).

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use vastgraph_store::{cancel_requested, format_xxh3, stage_path, TargetLock};
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::common::AlgoError;

/// The file in a checkpoint directory.
pub const FILE_NAME: &str = "checkpoint.vgck";
const MAGIC: &[u8; 8] = b"VGCKPT\0\x01";
/// Headers are small (a few parameters and scalars); a larger one is damage.
const MAX_HEADER: u64 = 1 << 20;

/// How often a checkpoint is saved.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Every {
    /// After every k-th iteration.
    Iterations(u64),
    /// After the first iteration that ends this long after the last save (or the start).
    Seconds(f64),
}

impl Default for Every {
    fn default() -> Self {
        Every::Seconds(60.0)
    }
}

impl FromStr for Every {
    type Err = String;

    /// `10` (iterations), or a time: `30s`, `5m`, `1h`.
    fn from_str(s: &str) -> Result<Every, String> {
        let s = s.trim();
        let bad = || format!("'{s}': give iterations (10) or a time (30s, 5m, 1h) above 0");
        let time = |digits: &str, unit: f64| {
            digits
                .parse::<f64>()
                .ok()
                .filter(|t| t.is_finite() && *t > 0.0)
                .map(|t| Every::Seconds(t * unit))
                .ok_or_else(bad)
        };
        if let Some(d) = s.strip_suffix('s') {
            time(d, 1.0)
        } else if let Some(d) = s.strip_suffix('m') {
            time(d, 60.0)
        } else if let Some(d) = s.strip_suffix('h') {
            time(d, 3600.0)
        } else {
            match s.parse::<u64>() {
                Ok(k) if k > 0 => Ok(Every::Iterations(k)),
                _ => Err(bad()),
            }
        }
    }
}

/// How a run uses its checkpoint directory.
#[derive(Clone, Debug, Default)]
pub struct CheckpointOptions {
    pub every: Every,
    /// Continue from the checkpoint in the directory (which must exist); without it the
    /// directory must hold none.
    pub resume: bool,
    /// Save after this iteration and end the run as interrupted: a run in slices, and how the
    /// tests stop a kernel at a chosen point.
    pub stop_after: Option<u64>,
}

/// The checkpoint directory of one run, locked while the run holds it.
#[derive(Debug)]
pub struct Checkpoint {
    file: PathBuf,
    store: String,
    options: CheckpointOptions,
    last_save: Mutex<Instant>,
    /// The iteration the last resumed kernel continued from.
    resumed_from: Mutex<Option<u64>>,
    /// Taken while the run holds the directory; released first when it is dropped.
    lock: Option<TargetLock>,
    /// The directory, when this run made it: removed on drop if nothing was left in it (a run
    /// refused after taking it, or one whose checkpoint served), so it leaves no trace.
    made_dir: Option<PathBuf>,
}

impl Drop for Checkpoint {
    fn drop(&mut self) {
        drop(self.lock.take());
        if let Some(dir) = &self.made_dir {
            // Fails, as it should, when the directory holds anything (a saved checkpoint).
            let _ = fs::remove_dir(dir);
        }
    }
}

/// The identity of the store in `dir` a checkpoint records: the xxh3 of its manifest, which
/// holds every file's length and xxh3, so a rebuilt or altered store has another.
pub fn store_fingerprint(dir: &Path) -> Result<String, AlgoError> {
    let path = dir.join(vastgraph_store::manifest::MANIFEST_FILE);
    let bytes = fs::read(&path).map_err(|e| checkpoint_error(&path, e.to_string()))?;
    Ok(format_xxh3(xxh3_64(&bytes)))
}

fn checkpoint_error(path: &Path, message: impl Into<String>) -> AlgoError {
    AlgoError::Checkpoint {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// The header of a checkpoint file.
#[derive(Serialize, Deserialize)]
struct Header {
    store: String,
    algorithm: String,
    parameters: serde_json::Value,
    iteration: u64,
    scalars: serde_json::Map<String, serde_json::Value>,
    columns: Vec<ColumnHeader>,
}

#[derive(Clone, Serialize, Deserialize)]
struct ColumnHeader {
    name: String,
    dtype: String,
    len: u64,
}

/// A type a column holds, stored little-endian.
pub(crate) trait Element: Copy + Default {
    const DTYPE: &'static str;
    const SIZE: usize;
    fn put(self, out: &mut [u8]);
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! element {
    ($t:ty, $name:literal) => {
        impl Element for $t {
            const DTYPE: &'static str = $name;
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("one element's bytes"))
            }
        }
    };
}
element!(f64, "f64");
element!(i64, "i64");
element!(u64, "u64");
element!(u32, "u32");
element!(u8, "u8");

type WriteColumn<'a> = Box<dyn Fn(&mut dyn Write) -> io::Result<()> + 'a>;

/// One array of a kernel's state, to be saved: its elements are read when the file is written,
/// so state kept in atomics is saved without a copy.
pub(crate) struct Column<'a> {
    header: ColumnHeader,
    write: WriteColumn<'a>,
}

impl<'a> Column<'a> {
    pub(crate) fn of<T: Element>(name: &str, values: &'a [T]) -> Column<'a> {
        Column::from_fn(name, values.len(), move |i| values[i])
    }

    /// `len` elements, the i-th being `get(i)`.
    pub(crate) fn from_fn<T: Element>(
        name: &str,
        len: usize,
        get: impl Fn(usize) -> T + 'a,
    ) -> Column<'a> {
        Column {
            header: ColumnHeader {
                name: name.to_string(),
                dtype: T::DTYPE.to_string(),
                len: len as u64,
            },
            write: Box::new(move |w| {
                // In batches, so that the writer and its hasher see large slices.
                let mut buf = vec![0u8; T::SIZE * 8192];
                for start in (0..len).step_by(8192) {
                    let end = (start + 8192).min(len);
                    let bytes = &mut buf[..(end - start) * T::SIZE];
                    for (i, out) in (start..end).zip(bytes.chunks_exact_mut(T::SIZE)) {
                        get(i).put(out);
                    }
                    w.write_all(bytes)?;
                }
                Ok(())
            }),
        }
    }
}

/// What a kernel's state is saved as after an iteration.
pub(crate) struct State<'a> {
    pub scalars: serde_json::Map<String, serde_json::Value>,
    pub columns: Vec<Column<'a>>,
}

impl<'a> State<'a> {
    pub(crate) fn new(columns: Vec<Column<'a>>) -> State<'a> {
        State {
            scalars: serde_json::Map::new(),
            columns,
        }
    }

    pub(crate) fn with(mut self, key: &str, value: impl Into<serde_json::Value>) -> State<'a> {
        self.scalars.insert(key.to_string(), value.into());
        self
    }
}

/// A saved state, checked whole, whose columns are read on demand.
pub(crate) struct Saved {
    path: PathBuf,
    file: BufReader<File>,
    /// The last iteration done before the save.
    pub iteration: u64,
    scalars: serde_json::Map<String, serde_json::Value>,
    /// Each column with the offset of its first byte.
    columns: Vec<(ColumnHeader, u64)>,
}

impl Saved {
    fn error(&self, message: impl Into<String>) -> AlgoError {
        checkpoint_error(&self.path, message)
    }

    pub(crate) fn u64(&self, key: &str) -> Result<u64, AlgoError> {
        self.scalars
            .get(key)
            .and_then(|v| v.as_u64())
            .ok_or_else(|| self.error(format!("no integer '{key}' in the saved state")))
    }

    pub(crate) fn f64(&self, key: &str) -> Result<f64, AlgoError> {
        self.scalars
            .get(key)
            .and_then(|v| v.as_f64())
            .ok_or_else(|| self.error(format!("no number '{key}' in the saved state")))
    }

    /// Whether the saved state has a column `name`.
    pub(crate) fn has_column(&self, name: &str) -> bool {
        self.columns.iter().any(|(c, _)| c.name == name)
    }

    /// Column `name`, which must hold `len` elements of type T.
    pub(crate) fn column<T: Element>(
        &mut self,
        name: &str,
        len: usize,
    ) -> Result<Vec<T>, AlgoError> {
        let Some((header, offset)) = self.columns.iter().find(|(c, _)| c.name == name).cloned()
        else {
            return Err(self.error(format!("no column '{name}' in the saved state")));
        };
        if header.dtype != T::DTYPE || header.len != len as u64 {
            return Err(self.error(format!(
                "column '{name}' holds {} × {}, expected {len} × {}",
                header.len,
                header.dtype,
                T::DTYPE
            )));
        }
        let path = self.path.clone();
        let io = |e: io::Error| checkpoint_error(&path, e.to_string());
        self.file.seek(SeekFrom::Start(offset)).map_err(io)?;
        let mut values = Vec::with_capacity(len);
        let mut buf = vec![0u8; T::SIZE * 8192];
        let mut left = len;
        while left > 0 {
            let take = left.min(8192);
            let bytes = &mut buf[..take * T::SIZE];
            self.file.read_exact(bytes).map_err(io)?;
            values.extend(bytes.chunks_exact(T::SIZE).map(T::get));
            left -= take;
        }
        Ok(values)
    }
}

impl Checkpoint {
    /// Takes the checkpoint directory `dir` (created if missing) for a run on the store whose
    /// [`store_fingerprint`] is `store`. Fails at once when another run holds it, when it holds a
    /// checkpoint and `resume` is off (it would be overwritten), or when `resume` is on and it
    /// holds none.
    pub fn open(
        dir: &Path,
        store: &str,
        options: CheckpointOptions,
    ) -> Result<Checkpoint, AlgoError> {
        if fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
            return Err(checkpoint_error(
                dir,
                "is not a directory: --checkpoint names the directory that holds the checkpoint",
            ));
        }
        let file = dir.join(FILE_NAME);
        let nothing_to_resume = || {
            checkpoint_error(
                dir,
                "no checkpoint to resume from; run without --resume to start one",
            )
        };
        // Refused before the directory is made, so that a mistyped name leaves nothing behind;
        // and again under the lock, which a run removing its checkpoint held.
        if options.resume && !file.exists() {
            return Err(nothing_to_resume());
        }
        let made_dir = (!dir.exists()).then(|| dir.to_path_buf());
        fs::create_dir_all(dir).map_err(|e| checkpoint_error(dir, e.to_string()))?;
        let lock = TargetLock::acquire(&file).map_err(|e| checkpoint_error(dir, e.to_string()))?;
        let exists = file.exists();
        if options.resume && !exists {
            return Err(nothing_to_resume());
        }
        if !options.resume && exists {
            return Err(checkpoint_error(
                &file,
                "a checkpoint of an earlier run is here; pass --resume to continue it, or \
                 remove it to start over",
            ));
        }
        Ok(Checkpoint {
            file,
            store: store.to_string(),
            options,
            last_save: Mutex::new(Instant::now()),
            resumed_from: Mutex::new(None),
            lock: Some(lock),
            made_dir,
        })
    }

    /// The checkpoint file.
    pub fn path(&self) -> &Path {
        &self.file
    }

    /// The iteration a kernel resumed from (the last one saved), once it has.
    pub fn resumed_from(&self) -> Option<u64> {
        *self.resumed_from.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The saved state to continue from, when the run resumes; checks that it belongs to this
    /// store, `algorithm` and `parameters` (the kernel's resolved parameters).
    pub(crate) fn begin(
        &self,
        algorithm: &str,
        parameters: &impl Serialize,
    ) -> Result<Option<Saved>, AlgoError> {
        *self.last_save.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        if !self.options.resume {
            return Ok(None);
        }
        let (header, file, data_start) = self.read()?;
        let refuse = |m: String| Err(checkpoint_error(&self.file, m));
        if header.store != self.store {
            return refuse(
                "saved by a run on another store, or on this one before it was rebuilt; \
                 remove it or choose another checkpoint directory"
                    .into(),
            );
        }
        if header.algorithm != algorithm {
            return refuse(format!(
                "a checkpoint of {}, not of {algorithm}; remove it or choose another \
                 checkpoint directory",
                header.algorithm
            ));
        }
        let now = serde_json::to_value(parameters).unwrap_or_default();
        if header.parameters != now {
            return refuse(format!(
                "saved with other parameters ({}, now {now}); resume with the same ones, or \
                 remove it to start over",
                header.parameters
            ));
        }
        let mut columns = Vec::with_capacity(header.columns.len());
        let mut offset = data_start;
        for c in header.columns {
            let bytes = element_size(&c.dtype).unwrap_or(0) * c.len;
            columns.push((c, offset));
            offset += bytes;
        }
        *self.resumed_from.lock().unwrap_or_else(|e| e.into_inner()) = Some(header.iteration);
        Ok(Some(Saved {
            path: self.file.clone(),
            file: BufReader::with_capacity(256 << 10, file),
            iteration: header.iteration,
            scalars: header.scalars,
            columns,
        }))
    }

    /// Called by a kernel when `iteration` is done: saves `state()` when a save is due, and ends
    /// the run with [`AlgoError::Interrupted`] after saving when Ctrl-C was pressed or
    /// `stop_after` is reached.
    pub(crate) fn after_iteration<'a>(
        &self,
        algorithm: &'static str,
        parameters: &impl Serialize,
        iteration: u64,
        state: impl FnOnce() -> State<'a>,
    ) -> Result<(), AlgoError> {
        let interrupt =
            cancel_requested() || self.options.stop_after.is_some_and(|s| iteration >= s);
        let mut last = self.last_save.lock().unwrap_or_else(|e| e.into_inner());
        let due = interrupt
            || match self.options.every {
                Every::Iterations(k) => iteration.is_multiple_of(k),
                Every::Seconds(s) => last.elapsed() >= Duration::from_secs_f64(s),
            };
        if !due {
            return Ok(());
        }
        self.save(algorithm, parameters, iteration, state())?;
        *last = Instant::now();
        if interrupt {
            return Err(AlgoError::Interrupted {
                algorithm,
                iteration,
                path: self.file.clone(),
            });
        }
        Ok(())
    }

    /// Removes the checkpoint: the run it served is complete and its output written.
    pub fn finish(&self) -> Result<(), AlgoError> {
        match fs::remove_file(&self.file) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(checkpoint_error(&self.file, e.to_string())),
        }
    }

    fn save(
        &self,
        algorithm: &str,
        parameters: &impl Serialize,
        iteration: u64,
        state: State<'_>,
    ) -> Result<(), AlgoError> {
        let header = Header {
            store: self.store.clone(),
            algorithm: algorithm.to_string(),
            parameters: serde_json::to_value(parameters).unwrap_or_default(),
            iteration,
            scalars: state.scalars,
            columns: state.columns.iter().map(|c| c.header.clone()).collect(),
        };
        let stage = stage_path(&self.file, "tmp");
        let written = (|| -> io::Result<()> {
            let file = File::create(&stage)?;
            let mut w = Hashing {
                inner: BufWriter::with_capacity(256 << 10, file),
                hasher: Xxh3::new(),
            };
            let json = serde_json::to_vec(&header).map_err(io::Error::other)?;
            w.write_all(MAGIC)?;
            w.write_all(&(json.len() as u64).to_le_bytes())?;
            w.write_all(&json)?;
            for column in &state.columns {
                (column.write)(&mut w)?;
            }
            let sum = w.hasher.digest();
            let mut inner = w.inner;
            inner.write_all(&sum.to_le_bytes())?;
            let file = inner.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
            fs::rename(&stage, &self.file)?;
            if let Some(dir) = self.file.parent() {
                File::open(dir)?.sync_all()?;
            }
            Ok(())
        })();
        written.map_err(|e| {
            let _ = fs::remove_file(&stage);
            checkpoint_error(&self.file, format!("cannot save the checkpoint: {e}"))
        })
    }

    /// Reads and checks the whole file: its checksum, magic, header and length.
    fn read(&self) -> Result<(Header, File, u64), AlgoError> {
        let fail = |m: String| checkpoint_error(&self.file, m);
        let io = |e: io::Error| fail(e.to_string());
        let mut file = File::open(&self.file).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        if size < 24 {
            return Err(fail(format!("{size} bytes, too short for a checkpoint")));
        }
        let mut hasher = Xxh3::new();
        let mut reader = BufReader::with_capacity(256 << 10, &mut file);
        let mut left = size - 8;
        let mut buf = vec![0u8; 1 << 16];
        while left > 0 {
            let take = left.min(buf.len() as u64) as usize;
            reader.read_exact(&mut buf[..take]).map_err(io)?;
            hasher.update(&buf[..take]);
            left -= take as u64;
        }
        let mut trailer = [0u8; 8];
        reader.read_exact(&mut trailer).map_err(io)?;
        drop(reader);
        if hasher.digest() != u64::from_le_bytes(trailer) {
            return Err(fail("checksum mismatch: the file is damaged".into()));
        }
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        let mut head = [0u8; 16];
        file.read_exact(&mut head).map_err(io)?;
        if &head[..8] != MAGIC {
            return Err(fail("not a vastgraph checkpoint (wrong magic)".into()));
        }
        let header_len = u64::from_le_bytes(head[8..].try_into().expect("8 bytes"));
        if header_len > MAX_HEADER || 16 + header_len + 8 > size {
            return Err(fail(format!(
                "header of {header_len} bytes in a file of {size}"
            )));
        }
        let mut json = vec![0u8; header_len as usize];
        file.read_exact(&mut json).map_err(io)?;
        let header: Header =
            serde_json::from_slice(&json).map_err(|e| fail(format!("unreadable header: {e}")))?;
        let mut data = 0u64;
        for c in &header.columns {
            let Some(size) = element_size(&c.dtype) else {
                return Err(fail(format!(
                    "column '{}' has unknown type '{}'",
                    c.name, c.dtype
                )));
            };
            data = c
                .len
                .checked_mul(size)
                .and_then(|b| b.checked_add(data))
                .ok_or_else(|| fail(format!("column '{}' is too long", c.name)))?;
        }
        if 16 + header_len + data + 8 != size {
            return Err(fail(format!(
                "{size} bytes, but the header describes {}",
                16 + header_len + data + 8
            )));
        }
        Ok((header, file, 16 + header_len))
    }
}

fn element_size(dtype: &str) -> Option<u64> {
    Some(match dtype {
        "f64" | "i64" | "u64" => 8,
        "u32" => 4,
        "u8" => 1,
        _ => return None,
    })
}

/// A writer that hashes what passes through it.
struct Hashing<W: Write> {
    inner: W,
    hasher: Xxh3,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// For kernels: `checkpoint.begin(...)`, or nothing without a checkpoint.
pub(crate) fn begin(
    checkpoint: Option<&Checkpoint>,
    algorithm: &str,
    parameters: &impl Serialize,
) -> Result<Option<Saved>, AlgoError> {
    match checkpoint {
        Some(c) => c.begin(algorithm, parameters),
        None => Ok(None),
    }
}

/// For kernels: `checkpoint.after_iteration(...)`, or nothing without a checkpoint.
pub(crate) fn after_iteration<'a>(
    checkpoint: Option<&Checkpoint>,
    algorithm: &'static str,
    parameters: &impl Serialize,
    iteration: u64,
    state: impl FnOnce() -> State<'a>,
) -> Result<(), AlgoError> {
    vastgraph_engine::progress::iteration(iteration);
    match checkpoint {
        Some(c) => c.after_iteration(algorithm, parameters, iteration, state),
        // Without a checkpoint there is nothing to save: a run abandoned by its host stops
        // here, between iterations ([`vastgraph_engine::interrupt`]).
        None => {
            vastgraph_engine::interrupt::check();
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(resume: bool) -> CheckpointOptions {
        CheckpointOptions {
            every: Every::Iterations(1),
            resume,
            stop_after: None,
        }
    }

    #[test]
    fn every_parses_iterations_and_times() {
        assert_eq!("10".parse(), Ok(Every::Iterations(10)));
        assert_eq!("30s".parse(), Ok(Every::Seconds(30.0)));
        assert_eq!("2m".parse(), Ok(Every::Seconds(120.0)));
        assert_eq!("1h".parse(), Ok(Every::Seconds(3600.0)));
        for bad in ["0", "-3", "0s", "x", "1.5", "nans"] {
            assert!(bad.parse::<Every>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_saved_state_reads_back_and_a_damaged_or_foreign_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let params = serde_json::json!({"damping": 0.85});
        let scores = [0.25f64, 0.5, f64::INFINITY];
        let flags = [1u8, 0, 3];
        {
            let c = Checkpoint::open(dir.path(), "store-a", options(false)).unwrap();
            assert!(c.begin("pagerank", &params).unwrap().is_none());
            c.after_iteration("pagerank", &params, 7, || {
                State::new(vec![
                    Column::of("scores", &scores),
                    Column::from_fn("flags", 3, |i| flags[i]),
                ])
                .with("delta", 0.125)
            })
            .unwrap();
        }
        // A new run without --resume must not overwrite it.
        let e = Checkpoint::open(dir.path(), "store-a", options(false)).unwrap_err();
        assert!(e.to_string().contains("--resume"), "{e}");

        let c = Checkpoint::open(dir.path(), "store-a", options(true)).unwrap();
        let mut saved = c.begin("pagerank", &params).unwrap().unwrap();
        assert_eq!(saved.iteration, 7);
        assert_eq!(saved.f64("delta").unwrap(), 0.125);
        assert_eq!(saved.column::<u8>("flags", 3).unwrap(), flags);
        assert_eq!(saved.column::<f64>("scores", 3).unwrap(), scores);
        assert!(saved.column::<u32>("scores", 3).is_err());
        assert!(saved.column::<f64>("scores", 4).is_err());
        for (algorithm, p) in [
            ("bfs", params.clone()),
            ("pagerank", serde_json::json!({"damping": 0.5})),
        ] {
            let e = c.begin(algorithm, &p).err().unwrap().to_string();
            assert!(e.contains(FILE_NAME), "{e}");
        }
        drop(c);
        let other = Checkpoint::open(dir.path(), "store-b", options(true)).unwrap();
        let e = other.begin("pagerank", &params).err().unwrap().to_string();
        assert!(e.contains("another store"), "{e}");
        drop(other);

        // Every single flipped byte is caught.
        let file = dir.path().join(FILE_NAME);
        let pristine = fs::read(&file).unwrap();
        for at in (0..pristine.len()).step_by(7) {
            let mut bytes = pristine.clone();
            bytes[at] ^= 0x10;
            fs::write(&file, &bytes).unwrap();
            let c = Checkpoint::open(dir.path(), "store-a", options(true)).unwrap();
            assert!(c.begin("pagerank", &params).is_err(), "byte {at}");
        }
        fs::write(&file, &pristine[..pristine.len() - 9]).unwrap();
        let c = Checkpoint::open(dir.path(), "store-a", options(true)).unwrap();
        assert!(c.begin("pagerank", &params).is_err());
        c.finish().unwrap();
        assert!(!file.exists());
    }

    #[test]
    fn a_directory_is_held_by_one_run_and_resuming_needs_a_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let first = Checkpoint::open(dir.path(), "s", options(false)).unwrap();
        assert!(Checkpoint::open(dir.path(), "s", options(false)).is_err());
        drop(first);
        let e = Checkpoint::open(dir.path(), "s", options(true)).unwrap_err();
        assert!(e.to_string().contains("no checkpoint"), "{e}");
    }

    #[test]
    fn stop_after_saves_then_interrupts() {
        let dir = tempfile::tempdir().unwrap();
        let c = Checkpoint::open(
            dir.path(),
            "s",
            CheckpointOptions {
                every: Every::Seconds(3600.0),
                resume: false,
                stop_after: Some(3),
            },
        )
        .unwrap();
        let state = || State::new(vec![]);
        assert!(c.after_iteration("bfs", &(), 2, state).is_ok());
        assert!(!c.path().exists(), "not due before an hour");
        let e = c.after_iteration("bfs", &(), 3, state).unwrap_err();
        assert!(
            matches!(e, AlgoError::Interrupted { iteration: 3, .. }),
            "{e}"
        );
        assert!(c.path().exists());
    }
}
