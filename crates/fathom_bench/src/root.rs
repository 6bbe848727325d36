//! Where the repository is: `cargo run` says so at run time. (A path
//! compiled in could name another clone that built the same sources into
//! the shared cache.) Run by hand, the binary takes the current directory.

use std::path::PathBuf;

pub fn repo_root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from("."), |dir| PathBuf::from(dir).join("../.."))
}
