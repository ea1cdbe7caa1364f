mod more_support;
use vastgraph_algos::pagerank_variants::*;
use vastgraph_algos::pagerank::*;
#[test]
fn probe() {
    let g = more_support::real_symmetric("road-luxembourg-osm").unwrap();
    for threads in [1, 2] {
        more_support::with_threads(threads, || {
            for _ in 0..3 {
                let t = std::time::Instant::now();
                let r = pagerank(&g.view(), &PageRankParams::default()).unwrap();
                let t1 = t.elapsed();
                let t = std::time::Instant::now();
                let r2 = delta_pagerank(&g.view(), &DeltaPageRankParams::default()).unwrap();
                println!("threads {threads} pr {t1:?} {} dpr {:?} {}", r.stats.iterations, t.elapsed(), r2.stats.iterations);
            }
        });
    }
}
