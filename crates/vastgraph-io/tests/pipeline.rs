//! The pipeline returns exactly the requested bytes, for unaligned ranges, at the end of the
//! file, in order when asked, through both backends; bad requests are errors naming the file.

use std::io::Write;

use vastgraph_io::{BackendChoice, DataFile, Extent, IoConfig, IoEngine};

fn file_with(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new_in(std::env::temp_dir()).unwrap();
    f.write_all(bytes).unwrap();
    f.flush().unwrap();
    f
}

#[test]
fn both_backends_return_the_requested_bytes() {
    let data: Vec<u8> = (0..300_001u32).map(|i| (i * 7 + i / 251) as u8).collect();
    let f = file_with(&data);
    let file = DataFile::open(f.path(), true).unwrap();
    let extents: Vec<Extent> = (0..200u64)
        .map(|i| {
            let offset = (i * 1499) % 290_000;
            Extent {
                offset,
                len: (1 + i as usize * 37) % 9000 + 1,
            }
        })
        .chain([Extent {
            offset: 300_001 - 5000,
            len: 5000,
        }])
        .collect();
    for backend in [BackendChoice::Auto, BackendChoice::Pread] {
        for ordered in [false, true] {
            let mut engine = IoEngine::new(
                IoConfig {
                    buffer_bytes: 16 << 10,
                    depth: 6,
                    backend,
                },
                1,
            )
            .unwrap();
            let mut seen = Vec::new();
            let totals = engine
                .run(
                    &[&file],
                    extents.iter().enumerate().map(|(i, e)| (*e, i)),
                    ordered,
                    |batch| {
                        for l in batch {
                            let e = extents[l.payload];
                            let want = &data[e.offset as usize..e.offset as usize + e.len];
                            assert!(
                                l.parts[0] == want,
                                "request {} via {}",
                                l.payload,
                                backend_name(backend)
                            );
                            seen.push(l.payload);
                        }
                        Ok(())
                    },
                )
                .unwrap();
            if ordered {
                assert_eq!(seen, (0..extents.len()).collect::<Vec<_>>());
            } else {
                seen.sort_unstable();
                assert_eq!(seen.len(), extents.len());
            }
            assert_eq!(totals.requests, extents.len() as u64);
            assert!(totals.bytes_read >= extents.iter().map(|e| e.len as u64).sum::<u64>());
        }
    }
}

fn backend_name(b: BackendChoice) -> &'static str {
    match b {
        BackendChoice::Pread => "pread",
        _ => "auto",
    }
}

#[test]
fn a_range_past_the_end_or_wider_than_a_buffer_is_an_error() {
    let f = file_with(&[1u8; 10_000]);
    let file = DataFile::open(f.path(), true).unwrap();
    let mut engine = IoEngine::new(
        IoConfig {
            buffer_bytes: 16 << 10,
            depth: 2,
            backend: BackendChoice::Auto,
        },
        1,
    )
    .unwrap();
    let err = engine
        .run(
            &[&file],
            [(
                Extent {
                    offset: 9000,
                    len: 2000,
                },
                (),
            )],
            false,
            |_| Ok(()),
        )
        .unwrap_err();
    assert!(
        err.to_string().contains(&f.path().display().to_string()),
        "{err}"
    );
    let err = engine
        .run(
            &[&file],
            [(
                Extent {
                    offset: 100,
                    len: 16 << 10,
                },
                (),
            )],
            false,
            |_| Ok(()),
        )
        .unwrap_err();
    assert!(err.to_string().contains("buffer"), "{err}");
}
