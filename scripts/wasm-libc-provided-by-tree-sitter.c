/* Intentionally empty: see scripts/wasm-cc. */
