//! The memory `fathom` may use for an index, planned before anything is
//! read, as the page plans its tab's: `--memory`, or else what the system
//! allows this process (Linux: the address-space limit, the control group's
//! limit, the memory available), with room left for everything else.

use fathom_engine::human_bytes;

/// A budget in bytes, and where it comes from.
pub struct Budget {
    pub bytes: u64,
    pub why: String,
}

/// `--memory MB` when given; otherwise the least of half the address-space
/// limit (what `ulimit -v` sets: code, stacks and the allocator's reserves
/// count against it too), three quarters of the control group's limit, and
/// three quarters of the memory available now. `None` where none is known.
pub fn budget(asked_mb: Option<u64>) -> Option<Budget> {
    if let Some(mb) = asked_mb {
        let bytes = mb << 20;
        return Some(Budget { bytes, why: format!("{} (--memory)", human_bytes(bytes)) });
    }
    let candidates = [
        address_space()
            .map(|limit| (limit / 2, format!("half this process's {} address-space limit", human_bytes(limit)))),
        control_group()
            .map(|limit| (limit / 4 * 3, format!("three quarters of its control group's {}", human_bytes(limit)))),
        available()
            .map(|free| (free / 4 * 3, format!("three quarters of the {} of memory available", human_bytes(free)))),
    ];
    let (bytes, source) = candidates.into_iter().flatten().min_by_key(|(bytes, _)| *bytes)?;
    Some(Budget { bytes, why: format!("{}, {source}; --memory MB sets it", human_bytes(bytes)) })
}

/// The soft limit on this process's address space, from `/proc/self/limits`.
fn address_space() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..].split_whitespace().next()?.parse().ok()
}

/// The memory limit of this process's control group (v2, then v1).
fn control_group() -> Option<u64> {
    ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]
        .iter()
        .find_map(|path| std::fs::read_to_string(path).ok()?.trim().parse::<u64>().ok())
        // v1 says "no limit" with a number near 2^63.
        .filter(|&limit| limit < 1 << 50)
}

/// `MemAvailable` from `/proc/meminfo`.
fn available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line["MemAvailable:".len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb << 10)
}

/// Under `FATHOM_MEMORY_TRACE`, what the heap held after parsing, what the
/// stages after it were bounded by, and what they took.
pub fn report(memory: &fathom_engine::MemoryReport) {
    if std::env::var_os("FATHOM_MEMORY_TRACE").is_none() {
        return;
    }
    let c = &memory.counts;
    eprintln!(
        "fathom: memory: parsing peaked at {}; after it the heap held {}, and the stages after it were bounded by {} more \
         (budget {}); their peak: {}. Kept: {} of source, {} lines, {} definitions ({} chunked, {} bytes of names), \
         {} references, {} imports, {} locals, {} terms",
        human_bytes(memory.parse_peak),
        human_bytes(memory.parsed),
        human_bytes(memory.after),
        human_bytes(memory.budget),
        memory.peak.map_or_else(|| "not measured".to_owned(), human_bytes),
        human_bytes(c.bytes),
        c.lines,
        c.definitions,
        c.chunked,
        c.name_bytes,
        c.references,
        c.imports,
        c.locals,
        c.terms,
    );
}
