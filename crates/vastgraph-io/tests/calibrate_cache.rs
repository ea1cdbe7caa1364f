//! The device profile is measured once and cached per device; a cached profile is used as it is
//! until a run asks to measure again, which replaces it.

use std::collections::BTreeMap;

use vastgraph_io::{
    cache_path, device_key, load_or_calibrate, BackendChoice, DataFile, IoConfig, IoEngine,
};

/// An engine of 8 buffers of 1 MiB reading one file.
fn engine() -> IoEngine {
    IoEngine::new(
        IoConfig {
            buffer_bytes: 1 << 20,
            depth: 8,
            backend: BackendChoice::Auto,
        },
        1,
    )
    .unwrap()
}

/// The only test in this binary that reads the cache: it sets XDG_CACHE_HOME for the whole
/// process.
#[test]
fn a_cached_profile_is_used_until_a_run_asks_to_measure_again() {
    let cache_home = tempfile::tempdir().unwrap();
    std::env::set_var("XDG_CACHE_HOME", cache_home.path());
    let path = cache_path().unwrap();
    assert!(path.starts_with(cache_home.path()));

    // Only a file of 1 GiB or more measures the device (a smaller one may sit in a cache below
    // the file system). A sparse file costs no disk space; its holes read back as zeros.
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let data = dir.path().join("data");
    std::fs::File::create(&data)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let file = DataFile::open(&data, true).unwrap();
    if !file.is_direct() {
        eprintln!("skipped: the temporary directory does not allow O_DIRECT, so nothing is cached");
        return;
    }
    let mut engine = engine();
    let key = device_key(&file).unwrap();
    let cached = || -> BTreeMap<String, serde_json::Value> {
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
    };

    let measured = load_or_calibrate(&file, &mut engine, false).unwrap();
    assert!(measured.sequential_bytes_per_second > 0.0 && measured.random_reads_per_second > 0.0);
    assert_eq!(cached()[&key]["file"], data.display().to_string());

    // A profile measured at a bad moment: used as it is by the next runs...
    let mut entries = cached();
    entries.get_mut(&key).unwrap()["profile"] = serde_json::json!({
        "sequential_bytes_per_second": 1.0e6,
        "random_reads_per_second": 10.0,
    });
    std::fs::write(&path, serde_json::to_vec(&entries).unwrap()).unwrap();
    let stale = load_or_calibrate(&file, &mut engine, false).unwrap();
    assert_eq!(
        (
            stale.sequential_bytes_per_second,
            stale.random_reads_per_second
        ),
        (1.0e6, 10.0)
    );

    // ...until one measures again, which replaces it in the cache. (Equal up to the last
    // digit: the cache is JSON, whose parser may round a float's last bit.)
    let fresh = load_or_calibrate(&file, &mut engine, true).unwrap();
    assert_ne!(fresh, stale);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
    let profile = &cached()[&key]["profile"];
    assert!(close(
        profile["sequential_bytes_per_second"].as_f64().unwrap(),
        fresh.sequential_bytes_per_second
    ));
    let again = load_or_calibrate(&file, &mut engine, false).unwrap();
    assert!(close(
        again.sequential_bytes_per_second,
        fresh.sequential_bytes_per_second
    ));
    assert!(close(
        again.random_reads_per_second,
        fresh.random_reads_per_second
    ));
}

/// A small file's measurement, which is not cached and so is taken by every run on it, takes a
/// share of the full second in proportion to the file (a tenth at least), not the whole.
#[test]
fn a_small_file_is_measured_in_a_fraction_of_the_time() {
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let data = dir.path().join("small");
    std::fs::write(&data, vec![7u8; 4 << 20]).unwrap();
    let file = DataFile::open(&data, true).unwrap();
    let mut engine = engine();
    let started = std::time::Instant::now();
    let profile = vastgraph_io::calibrate(&file, &mut engine).unwrap();
    let seconds = started.elapsed().as_secs_f64();
    assert!(profile.sequential_bytes_per_second > 0.0 && profile.random_reads_per_second > 0.0);
    // Two measurements of 0.05 s each; a full-length pair takes 1 s.
    assert!(seconds < 0.6, "4 MiB measured in {seconds:.2} s");
}
