//! Runs the examples (examples/*.rs that compute something) through their own functions, in one
//! test binary: embed, builder (into a temporary directory) and sweep.

#[path = "../examples/builder.rs"]
mod builder;
#[path = "../examples/embed.rs"]
mod embed;
#[path = "../examples/sweep.rs"]
mod sweep;

#[test]
fn the_embedding_example_runs() {
    let text = embed::run_example().unwrap();
    assert!(text.contains("long: 4 long flows"), "{text}");
    assert!(text.contains("packets conserved: true"), "{text}");
    assert!(text.contains("short: "), "{text}");
}

#[test]
fn the_builder_example_runs() {
    let dir = tempfile::tempdir().unwrap();
    let text = builder::run_example(dir.path()).unwrap();
    assert!(
        text.contains("seed 1, long: 4 flows, 0 completed"),
        "{text}"
    );
    assert!(text.contains("seed 1, short: "), "{text}");
    assert!(
        text.contains("sweep: 2 point(s), 4 run(s) finished, 0 skipped"),
        "{text}"
    );
    for point in ["transports.long.subflows=1", "transports.long.subflows=8"] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{point}: long-flow goodput ")))
            .unwrap_or_else(|| panic!("{point} in:\n{text}"));
        assert!(line.ends_with(" Mbps over 2 seeds"), "{line}");
        // Goodput of four long flows on 1 Gb/s host links: payload at most 957.6 Mb/s each.
        let mean: f64 = line.split(' ').nth(3).unwrap().parse().unwrap();
        assert!((300.0..957.6).contains(&mean), "{line}");
    }
    assert!(dir.path().join("summary.json").is_file());
    assert!(dir
        .path()
        .join("runs/transports.long.subflows=8/seed-2/flows.csv")
        .is_file());
}

#[test]
fn the_sweep_example_fills_its_table_from_the_typed_results() {
    let rows = sweep::sweep().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r.transport).collect();
    assert_eq!(names, ["tcp", "dctcp", "mptcp-4", "mmptcp-4"]);
    for r in &rows {
        // Four long flows from distinct hosts on 1 Gb/s links: each at most the payload rate.
        assert!((300.0..957.6).contains(&r.long_goodput_mbps), "{r:?}");
        assert_eq!(r.short_completed, (12, 12), "{r:?}");
        // 200 KB take at least 1.6 ms on a 1 Gb/s link.
        assert!(r.short_fct_ms > 1.6, "{r:?}");
        assert!((0.0..=100.2).contains(&r.core_utilisation_pct), "{r:?}");
        assert!(r.core_utilisation_pct > 10.0, "{r:?}");
    }
    // DCTCP's ECN marks at K = 20 keep its queues below the 100-packet limit, TCP's do not.
    assert!(rows[1].drops < rows[0].drops, "{rows:?}");
    let table = sweep::table(&rows);
    assert_eq!(table.lines().count(), 1 + rows.len());
    assert!(
        table.lines().nth(2).unwrap().starts_with("dctcp "),
        "{table}"
    );
}
