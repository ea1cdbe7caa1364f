//! The pipeline returns exactly the requested bytes, for unaligned ranges, at the end of the
//! file, from two files at different ranges, for requests with nothing to read, in order when
//! asked, through both backends, called from outside the rayon pool or from one of its workers;
//! unordered, it keeps reading while a request is being consumed; bad requests are errors
//! naming the file.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use vastgraph_io::{calibrate, BackendChoice, DataFile, Extent, IoConfig, IoEngine};

/// Unordered runs consume on the global pool: give it several threads whatever the machine
/// (the first test of this binary to call it sets it up; later calls find it set).
fn several_threads() {
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build_global();
}

/// An engine of 16 KiB buffers.
fn engine(backend: BackendChoice, depth: usize, parts: usize) -> IoEngine {
    let config = IoConfig {
        buffer_bytes: 16 << 10,
        depth,
        backend,
    };
    IoEngine::new(config, parts).unwrap()
}

fn file_with(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new_in(std::env::temp_dir()).unwrap();
    f.write_all(bytes).unwrap();
    f.flush().unwrap();
    f
}

#[test]
fn both_backends_return_the_requested_bytes() {
    let data: Vec<u8> = (0..300_001u32).map(|i| (i * 7 + i / 251) as u8).collect();
    let other: Vec<u8> = (0..100_003u32).map(|i| (i * 13 + i / 97) as u8).collect();
    let (f, g) = (file_with(&data), file_with(&other));
    let file = DataFile::open(f.path(), true).unwrap();
    let second = DataFile::open(g.path(), true).unwrap();
    // Each request: a range of the first file, a different one of the second; every tenth
    // reads nothing from either, every seventh nothing from the second.
    let requests: Vec<[Extent; 2]> = (0..200u64)
        .map(|i| {
            if i % 10 == 3 {
                return [Extent { offset: 0, len: 0 }; 2];
            }
            let first = Extent {
                offset: (i * 1499) % 290_000,
                len: (1 + i as usize * 37) % 9000 + 1,
            };
            let len = if i % 7 == 0 {
                0
            } else {
                (i as usize * 53) % 12_000 + 1
            };
            [
                first,
                Extent {
                    offset: (i * 331) % 88_000,
                    len,
                },
            ]
        })
        .chain([[
            Extent {
                offset: 300_001 - 5000,
                len: 5000,
            },
            Extent {
                offset: 100_003 - 3,
                len: 3,
            },
        ]])
        .collect();
    let slice =
        |bytes: &[u8], e: Extent| bytes[e.offset as usize..e.offset as usize + e.len].to_vec();
    several_threads();
    // A caller inside a pool of its own (as Python's `threads=` runs): its worker reads, and
    // with one thread also consumes every request.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    for (backend, ordered, in_pool) in [BackendChoice::Auto, BackendChoice::Pread]
        .into_iter()
        .flat_map(|b| [(b, false), (b, true)])
        .flat_map(|(b, o)| [(b, o, false), (b, o, true)])
    {
        let mut engine = engine(backend, 6, 2);
        let seen = Mutex::new(Vec::new());
        let mut run = || {
            engine.run(
                &[&file, &second],
                requests.iter().enumerate().map(|(i, e)| (*e, i)),
                ordered,
                |l| {
                    let [a, b] = requests[l.payload];
                    assert!(
                        l.parts[0] == slice(&data, a) && l.parts[1] == slice(&other, b),
                        "request {} via {}",
                        l.payload,
                        backend_name(backend)
                    );
                    seen.lock().unwrap().push(l.payload);
                    Ok(())
                },
            )
        };
        let totals = match in_pool {
            true => pool.install(run),
            false => run(),
        }
        .unwrap();
        let mut seen = seen.into_inner().unwrap();
        if ordered {
            assert_eq!(seen, (0..requests.len()).collect::<Vec<_>>());
        } else {
            seen.sort_unstable();
            assert_eq!(seen, (0..requests.len()).collect::<Vec<_>>());
        }
        let reads = requests.iter().flatten().filter(|e| e.len > 0).count();
        assert_eq!(totals.requests, reads as u64);
        let wanted: u64 = requests.iter().flatten().map(|e| e.len as u64).sum();
        assert!(totals.bytes_read >= wanted);
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
    let mut engine = engine(BackendChoice::Auto, 2, 1);
    let err = engine
        .run(
            &[&file],
            [(
                [Extent {
                    offset: 9000,
                    len: 2000,
                }; 2],
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
                [Extent {
                    offset: 100,
                    len: 16 << 10,
                }; 2],
                (),
            )],
            false,
            |_| Ok(()),
        )
        .unwrap_err();
    assert!(err.to_string().contains("buffer"), "{err}");
}

#[test]
fn read_span_returns_a_long_unaligned_range_and_refuses_one_past_the_end() {
    let data: Vec<u8> = (0..70_001u32).map(|i| (i * 11 + i / 253) as u8).collect();
    let f = file_with(&data);
    let file = DataFile::open(f.path(), true).unwrap();
    let mut buf = vastgraph_io::AlignedBuf::new(80 << 10);
    for (offset, len) in [(5u64, 40_000usize), (70_001 - 33_333, 33_333), (4096, 4096)] {
        let (got, delivered) = file.read_span(offset, len, &mut buf).unwrap();
        assert_eq!(got, &data[offset as usize..offset as usize + len]);
        assert!(delivered >= len as u64);
    }
    let err = file.read_span(70_000, 2, &mut buf).unwrap_err();
    assert!(
        err.to_string().contains(&f.path().display().to_string()),
        "{err}"
    );
}

/// A run that stops on an error leaves reads in flight; the next run on the same engine must
/// not see their completions (it would hand over unread or overwritten buffers), and dropping
/// the engine must wait for them (the kernel writes into its buffers).
#[test]
fn a_run_stopped_by_an_error_leaves_nothing_behind() {
    several_threads();
    let data: Vec<u8> = (0..400_000u32).map(|i| (i * 5 + i / 211) as u8).collect();
    let f = file_with(&data);
    let file = DataFile::open(f.path(), true).unwrap();
    let requests: Vec<[Extent; 2]> = (0..300u64)
        .map(|i| {
            [Extent {
                offset: (i * 1237) % 380_000,
                len: 8000,
            }; 2]
        })
        .collect();
    for backend in [BackendChoice::Auto, BackendChoice::Pread] {
        let mut engine = engine(backend, 16, 1);
        for round in 0..20 {
            let err = engine
                .run(
                    &[&file],
                    requests.iter().enumerate().map(|(i, e)| (*e, i)),
                    false,
                    |_| Err(std::io::Error::other("stop")),
                )
                .unwrap_err();
            assert_eq!(err.to_string(), "stop");
            let seen = AtomicUsize::new(0);
            engine
                .run(
                    &[&file],
                    requests.iter().enumerate().map(|(i, e)| (*e, i)),
                    round % 2 == 0,
                    |l| {
                        let e = requests[l.payload][0];
                        let want = &data[e.offset as usize..e.offset as usize + e.len];
                        assert!(l.parts[0] == want, "request {}", l.payload);
                        seen.fetch_add(1, SeqCst);
                        Ok(())
                    },
                )
                .unwrap();
            assert_eq!(seen.into_inner(), requests.len());
        }
        // Stopped again, then dropped with reads in flight.
        let _ = engine.run(
            &[&file],
            requests.iter().enumerate().map(|(i, e)| (*e, i)),
            false,
            |_| Err(std::io::Error::other("stop")),
        );
        drop(engine);
    }
}

/// Unordered, a request still being consumed holds only its own buffer: the others go on being
/// read and consumed. Consuming in batches held every buffer of the batch until its slowest
/// request ended (and a batch stalled the reads behind it), so here request 0, which waits
/// until every other request was consumed, would wait for ever.
#[test]
fn a_slow_request_does_not_hold_up_the_others() {
    several_threads();
    let data: Vec<u8> = (0..200_000u32).map(|i| (i * 3 + i / 101) as u8).collect();
    let f = file_with(&data);
    let file = DataFile::open(f.path(), true).unwrap();
    let requests: Vec<[Extent; 2]> = (0..60u64)
        .map(|i| {
            [Extent {
                offset: i * 3000,
                len: 3000,
            }; 2]
        })
        .collect();
    for backend in [BackendChoice::Auto, BackendChoice::Pread] {
        let mut engine = engine(backend, 4, 1);
        let others = AtomicUsize::new(0);
        let totals = engine
            .run(
                &[&file],
                requests.iter().enumerate().map(|(i, e)| (*e, i)),
                false,
                |l| {
                    if l.payload != 0 {
                        others.fetch_add(1, SeqCst);
                        return Ok(());
                    }
                    let started = Instant::now();
                    while others.load(SeqCst) < requests.len() - 1 {
                        if started.elapsed() > Duration::from_secs(20) {
                            return Err(std::io::Error::other(format!(
                                "{} of the other {} requests were consumed while request 0 was",
                                others.load(SeqCst),
                                requests.len() - 1
                            )));
                        }
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    Ok(())
                },
            )
            .unwrap();
        assert_eq!(totals.requests, requests.len() as u64);
    }
}

/// The device is measured with the engine a run set up, which for a weighted store reads two
/// files per request: the measurement reads its one file through the first part (it asserted
/// one file per part and panicked, on every weighted out-of-core run with no cached profile).
#[test]
fn the_device_is_measured_through_an_engine_of_one_or_two_files() {
    let data: Vec<u8> = (0..64 << 10).map(|i| (i % 251) as u8).collect();
    let f = file_with(&data);
    let file = DataFile::open(f.path(), false).unwrap();
    for parts in [1, 2] {
        for backend in [BackendChoice::Pread, BackendChoice::Auto] {
            let profile = calibrate(&file, &mut engine(backend, 4, parts)).unwrap();
            assert!(
                profile.sequential_bytes_per_second > 0.0 && profile.random_reads_per_second > 0.0,
                "{parts} part(s), {}: {profile:?}",
                backend_name(backend)
            );
        }
    }
}
