//! Runs the embedding example (examples/embed.rs) through its own function.

#[path = "../examples/embed.rs"]
mod embed;

#[test]
fn the_embedding_example_runs() {
    let text = embed::run_example().unwrap();
    assert!(text.contains("long: 4 long flows"), "{text}");
    assert!(text.contains("packets conserved: true"), "{text}");
    assert!(text.contains("short: "), "{text}");
}
