//! Streams sorted, duplicate-free arcs into the CSR files of a store: offsets (n+1 u64),
//! neighbours (m u32), when weighted, weights (m i32 or f32) and, for the out-edges, each
//! vertex's first (smallest) neighbour (n u32) and the head of its list (`files::LIST_HEADS`). Offsets are emitted as the source id advances,
//! so nothing of size O(n) or O(m) is held in memory.

use std::path::Path;

use crate::hashed_file::HashedFileWriter;
use crate::manifest::{files, FileEntry, WeightType, LIST_HEAD_IDS, NO_NEIGHBOR};
use crate::record::{source_of, target_of, SortRecord};
use crate::StoreError;

/// Entries gathered before each write to a file.
const FLUSH_ENTRIES: usize = 1 << 18;

/// The names of one direction's files.
pub(crate) struct CsrFileNames {
    pub offsets: &'static str,
    pub neighbors: &'static str,
    pub weights_i32: &'static str,
    pub weights_f32: &'static str,
    /// The side files of first neighbours and list heads, if this direction has them.
    pub first_neighbors: Option<(&'static str, &'static str)>,
}

pub(crate) const OUT_EDGES: CsrFileNames = CsrFileNames {
    offsets: files::OFFSETS,
    neighbors: files::NEIGHBORS,
    weights_i32: files::WEIGHTS_I32,
    weights_f32: files::WEIGHTS_F32,
    first_neighbors: Some((files::FIRST_NEIGHBORS, files::LIST_HEADS)),
};

pub(crate) const IN_EDGES: CsrFileNames = CsrFileNames {
    offsets: files::IN_OFFSETS,
    neighbors: files::IN_NEIGHBORS,
    weights_i32: files::IN_WEIGHTS_I32,
    weights_f32: files::IN_WEIGHTS_F32,
    // Out-of-core BFS and CC pull over the out-lists of symmetric stores; in memory, a consumer
    // that stops early (a bottom-up BFS step) gains from it on the out-lists, which are a
    // symmetric graph's in-lists too. A directed graph's pull over its transpose goes without.
    first_neighbors: None,
};

enum WeightColumn {
    None,
    I32(HashedFileWriter, Vec<i32>),
    F32(HashedFileWriter, Vec<f32>),
}

pub(crate) struct CsrWriter {
    vertices: u64,
    /// Offsets of vertices below this have been emitted.
    next_vertex: u64,
    arcs: u64,
    offsets: HashedFileWriter,
    neighbors: HashedFileWriter,
    weights: WeightColumn,
    /// The files of first neighbours and of list heads.
    first_neighbors: Option<(HashedFileWriter, HashedFileWriter)>,
    /// Where the list of the vertex whose arcs are arriving starts.
    list_start: u64,
    offset_buf: Vec<u64>,
    neighbor_buf: Vec<u32>,
    first_buf: Vec<u32>,
    head_buf: Vec<u32>,
}

impl CsrWriter {
    pub(crate) fn create(
        dir: &Path,
        names: &CsrFileNames,
        vertices: u64,
        weight_type: Option<WeightType>,
    ) -> Result<CsrWriter, StoreError> {
        let weights = match weight_type {
            None => WeightColumn::None,
            Some(WeightType::I32) => WeightColumn::I32(
                HashedFileWriter::create(dir, names.weights_i32)?,
                Vec::with_capacity(FLUSH_ENTRIES),
            ),
            Some(WeightType::F32) => WeightColumn::F32(
                HashedFileWriter::create(dir, names.weights_f32)?,
                Vec::with_capacity(FLUSH_ENTRIES),
            ),
        };
        Ok(CsrWriter {
            vertices,
            next_vertex: 0,
            arcs: 0,
            offsets: HashedFileWriter::create(dir, names.offsets)?,
            neighbors: HashedFileWriter::create(dir, names.neighbors)?,
            weights,
            first_neighbors: names
                .first_neighbors
                .map(|(first, heads)| {
                    Ok::<_, StoreError>((
                        HashedFileWriter::create(dir, first)?,
                        HashedFileWriter::create(dir, heads)?,
                    ))
                })
                .transpose()?,
            list_start: 0,
            offset_buf: Vec::with_capacity(FLUSH_ENTRIES),
            neighbor_buf: Vec::with_capacity(FLUSH_ENTRIES),
            first_buf: Vec::new(),
            head_buf: Vec::new(),
        })
    }

    /// Append arcs that continue the sorted, duplicate-free sequence written so far.
    pub(crate) fn push<R: SortRecord>(&mut self, records: &[R]) -> Result<(), StoreError> {
        let Some(last) = records.last() else {
            return Ok(());
        };
        if source_of(last.arc_key()) as u64 >= self.vertices {
            return Err(StoreError::invalid_input(format!(
                "arc from vertex {} in a graph of {} vertices",
                source_of(last.arc_key()),
                self.vertices
            )));
        }
        for record in records {
            let key = record.arc_key();
            let source = source_of(key) as u64;
            while self.next_vertex <= source {
                // The vertices passed over have no arcs; `source` starts its list here.
                let first = match self.next_vertex == source {
                    true => target_of(key),
                    false => NO_NEIGHBOR,
                };
                self.start_list(first)?;
            }
            self.neighbor_buf.push(target_of(key));
            let position = self.arcs - self.list_start;
            if self.first_neighbors.is_some() && position < LIST_HEAD_IDS {
                self.head_buf.push(target_of(key));
            }
            match &mut self.weights {
                WeightColumn::None => {}
                WeightColumn::I32(_, buf) => buf.push(record.weight() as i32),
                WeightColumn::F32(_, buf) => buf.push(record.weight() as f32),
            }
            self.arcs += 1;
            if self.neighbor_buf.len() == FLUSH_ENTRIES {
                self.flush_arcs()?;
            }
        }
        Ok(())
    }

    /// Emits the offset of vertex `next_vertex` (where its list starts) and its first neighbour.
    fn start_list(&mut self, first: u32) -> Result<(), StoreError> {
        self.offset_buf.push(self.arcs);
        self.list_start = self.arcs;
        if self.first_neighbors.is_some() && self.next_vertex < self.vertices {
            self.first_buf.push(first);
        }
        self.next_vertex += 1;
        if self.offset_buf.len() == FLUSH_ENTRIES {
            self.flush_offsets()?;
        }
        Ok(())
    }

    fn flush_offsets(&mut self) -> Result<(), StoreError> {
        self.offsets.write_offsets(&self.offset_buf)?;
        self.offset_buf.clear();
        if let Some((file, _)) = &mut self.first_neighbors {
            file.write_values(&self.first_buf)?;
            self.first_buf.clear();
        }
        Ok(())
    }

    fn flush_arcs(&mut self) -> Result<(), StoreError> {
        self.neighbors.write_values(&self.neighbor_buf)?;
        self.neighbor_buf.clear();
        if let Some((_, file)) = &mut self.first_neighbors {
            file.write_values(&self.head_buf)?;
            self.head_buf.clear();
        }
        match &mut self.weights {
            WeightColumn::None => {}
            WeightColumn::I32(file, buf) => {
                file.write_values(buf)?;
                buf.clear();
            }
            WeightColumn::F32(file, buf) => {
                file.write_values(buf)?;
                buf.clear();
            }
        }
        Ok(())
    }

    /// Emit the remaining offsets (n+1 in all), fsync, and describe the files.
    pub(crate) fn finish(mut self) -> Result<(Vec<FileEntry>, u64), StoreError> {
        self.flush_arcs()?;
        while self.next_vertex <= self.vertices {
            self.start_list(NO_NEIGHBOR)?;
        }
        self.flush_offsets()?;
        let mut entries = vec![self.offsets.finish()?, self.neighbors.finish()?];
        match self.weights {
            WeightColumn::None => {}
            WeightColumn::I32(file, _) | WeightColumn::F32(file, _) => entries.push(file.finish()?),
        }
        if let Some((first, heads)) = self.first_neighbors {
            entries.push(first.finish()?);
            entries.push(heads.finish()?);
        }
        Ok((entries, self.arcs))
    }
}
