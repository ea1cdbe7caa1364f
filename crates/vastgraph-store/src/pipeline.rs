//! Two-stage pipelining: a producer (the merge) runs on the calling thread while the
//! consumer (CSR writing, the transpose's sorter) runs on a helper thread, so that merging
//! and writing overlap on two cores. Chunks travel through a short queue and are recycled.

use std::sync::mpsc::{channel, sync_channel};

use crate::pod::Pod;
use crate::StoreError;

/// Chunks in flight; each is at most one producer chunk (about 1 MiB).
const QUEUE_CHUNKS: usize = 4;

/// Run `produce`, which emits chunks through the callback it is given, with `consume`
/// receiving them, in order, on another thread. The consumer's error wins: when it fails,
/// the producer's next emit fails too and its error is only a consequence.
pub(crate) fn pipelined<R: Pod>(
    produce: impl FnOnce(&mut dyn FnMut(&[R]) -> Result<(), StoreError>) -> Result<(), StoreError>,
    mut consume: impl FnMut(&[R]) -> Result<(), StoreError> + Send,
) -> Result<(), StoreError> {
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = sync_channel::<Vec<R>>(QUEUE_CHUNKS);
        let (empty_tx, empty_rx) = channel::<Vec<R>>();
        let consumer = scope.spawn(move || -> Result<(), StoreError> {
            for chunk in full_rx {
                consume(&chunk)?;
                // The producer may have finished already; then the chunk is simply freed.
                let _ = empty_tx.send(chunk);
            }
            Ok(())
        });
        let produced = {
            let mut emit = |chunk: &[R]| -> Result<(), StoreError> {
                let mut buffer = empty_rx.try_recv().unwrap_or_default();
                buffer.clear();
                buffer.extend_from_slice(chunk);
                full_tx
                    .send(buffer)
                    .map_err(|_| StoreError::invalid_input("the store writer stopped"))
            };
            produce(&mut emit)
        };
        drop(full_tx);
        let consumed = match consumer.join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        consumed.and(produced)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_arrive_in_order() {
        let mut received = Vec::new();
        pipelined(
            |emit| (0..1000u64).try_for_each(|i| emit(&[i, i + 1])),
            |chunk: &[u64]| {
                received.extend_from_slice(chunk);
                Ok(())
            },
        )
        .unwrap();
        let expected: Vec<u64> = (0..1000u64).flat_map(|i| [i, i + 1]).collect();
        assert_eq!(received, expected);
    }

    #[test]
    fn the_consumers_error_is_reported() {
        let result = pipelined(
            |emit| (0..1000u64).try_for_each(|i| emit(&[i])),
            |chunk: &[u64]| {
                if chunk[0] == 10 {
                    Err(StoreError::Cancelled)
                } else {
                    Ok(())
                }
            },
        );
        assert!(matches!(result, Err(StoreError::Cancelled)), "{result:?}");
    }

    #[test]
    fn the_producers_error_is_reported() {
        let result = pipelined(
            |emit| {
                emit(&[1u64])?;
                Err(StoreError::invalid_input("producer failed"))
            },
            |_: &[u64]| Ok(()),
        );
        assert!(
            matches!(result, Err(StoreError::InvalidInput { .. })),
            "{result:?}"
        );
    }
}
