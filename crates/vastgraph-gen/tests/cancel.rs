//! Cancellation (Ctrl-C) stops generation between windows. In its own test binary because
//! the flag is process-wide.

use vastgraph_gen::{EdgeGenerator, Uniform, UniformParams};
use vastgraph_store::StoreError;

#[test]
fn a_cancel_request_stops_generation_with_store_cancelled() {
    let g = Uniform::new(UniformParams {
        vertices: 100,
        edges: 1000,
        seed: 0,
        weighted: false,
    })
    .unwrap();
    vastgraph_store::request_cancel();
    let mut batches = 0;
    let result = g.for_each_batch(&mut |_, _, _| {
        batches += 1;
        Ok(())
    });
    vastgraph_store::clear_cancel();
    let err = result.unwrap_err();
    assert!(
        matches!(
            err.downcast_ref::<StoreError>(),
            Some(StoreError::Cancelled)
        ),
        "{err}"
    );
    assert_eq!(batches, 0);
    assert!(g.for_each_batch(&mut |_, _, _| Ok(())).is_ok());
}
