//! Runs the builder example (examples/builder.rs) through its own function, into a temporary
//! directory.

#[path = "../examples/builder.rs"]
mod builder;

#[test]
fn the_builder_example_runs() {
    let dir = tempfile::tempdir().unwrap();
    let text = builder::run_example(dir.path()).unwrap();
    assert!(text.contains("seed 1, long: 4 flows"), "{text}");
    assert!(text.contains("seed 1, short: "), "{text}");
    assert!(
        text.contains("sweep: 2 point(s), 4 run(s) finished, 0 skipped"),
        "{text}"
    );
    for point in ["transports.long.subflows=1", "transports.long.subflows=8"] {
        assert!(
            text.contains(&format!("{point}: long-flow goodput ")),
            "{point} in:\n{text}"
        );
    }
    assert!(dir.path().join("summary.json").is_file());
    assert!(dir
        .path()
        .join("runs/transports.long.subflows=8/seed-2/flows.csv")
        .is_file());
}
