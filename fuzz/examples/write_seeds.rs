//! Writes the seed corpora made from the repo's recordings into `<dir>/<target>/` (default
//! `fuzz/corpus`), for `cargo fuzz run`. Run by `scripts/fuzz`:
//! `cargo run --manifest-path fuzz/Cargo.toml --example write_seeds -- fuzz/corpus`.

use std::path::{Path, PathBuf};

fn main() -> std::io::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::args_os()
        .nth(1)
        .map_or_else(|| root.join("corpus"), PathBuf::from);
    let seeds = claude_agent_fuzz::seeds::seeds(&root.join(".."))?;
    for seed in &seeds {
        let dir = out.join(seed.target);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(format!("seed-{}", seed.name)), &seed.data)?;
    }
    println!("{} seeds written under {}", seeds.len(), out.display());
    Ok(())
}
