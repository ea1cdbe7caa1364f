//! Dense ids for vertex labels, in first-appearance order.

use std::collections::HashMap;

use vastgraph_store::MAX_VERTICES;
use xxhash_rust::xxh3::Xxh3Builder;

/// What a label cannot hold: a store keeps its labels one per line, and text outputs (`export`,
/// `run -o FILE.tsv`) write them as tab-separated columns.
pub(crate) const LABEL_BREAKS: [char; 3] = ['\n', '\r', '\t'];
pub(crate) const LABEL_BREAK_REFUSAL: &str =
    "holds a tab or a line break, which a label cannot (labels are kept one per line and written as tab-separated columns)";

/// Maps label bytes to dense ids 0, 1, 2, ... in the order labels are first seen.
/// Only the map holds the label bytes; `into_labels` moves them out without copying.
#[derive(Default)]
pub(crate) struct LabelInterner {
    ids: HashMap<Box<[u8]>, u32, Xxh3Builder>,
}

/// The interner is full: one more label would need an id ≥ `MAX_VERTICES`.
pub(crate) struct TooManyLabels;

impl LabelInterner {
    /// The id of `label`, assigning the next one if it is new.
    #[inline]
    pub(crate) fn id_of(&mut self, label: &[u8]) -> Result<u32, TooManyLabels> {
        if let Some(&id) = self.ids.get(label) {
            return Ok(id);
        }
        let id = self.ids.len() as u64;
        if id >= MAX_VERTICES {
            return Err(TooManyLabels);
        }
        self.ids.insert(label.into(), id as u32);
        Ok(id as u32)
    }

    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// The labels in id order. Labels were checked to be UTF-8 when parsed, so the lossy
    /// conversion never replaces anything; it only avoids a panic path.
    pub(crate) fn into_labels(self) -> Vec<String> {
        let mut labels = vec![String::new(); self.ids.len()];
        for (bytes, id) in self.ids {
            labels[id as usize] = match String::from_utf8(bytes.into_vec()) {
                Ok(s) => s,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            };
        }
        labels
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_first_appearance_and_labels_come_back_in_id_order() {
        let mut interner = LabelInterner::default();
        let seq: Vec<u32> = ["b", "a", "b", "c", "a"]
            .iter()
            .map(|l| interner.id_of(l.as_bytes()).ok().unwrap())
            .collect();
        assert_eq!(seq, [0, 1, 0, 2, 1]);
        assert_eq!(interner.into_labels(), ["b", "a", "c"]);
    }
}
