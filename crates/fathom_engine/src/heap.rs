//! The system allocator, counted: the bytes held live now and the most held
//! at once. A binary that installs [`Counted`] as its global allocator (the
//! CLI, `fathom-bench`, the wasm module) lets indexing measure what it
//! holds, not only estimate it: parsing stops admitting files once the heap
//! nears its budget ([`crate::pipeline`]), and `make bench` and the page
//! report the peak beside the plan's estimate.
//!
//! Natively the counters are relaxed atomics, read on each allocation; a
//! peak is written only when it grows. In wasm there is one thread per instance,
//! so they cost what plain additions do.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// The most live at once since [`mark`]: a second peak, so that indexing can
/// measure the stages after parsing while a caller measures the whole run,
/// or each stage with [`reset_peak`], undisturbed.
static PEAK_SINCE_MARK: AtomicUsize = AtomicUsize::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// This thread's own allocations less its frees, and the most that sum
    /// has reached since [`measure`] last started it: what one piece of work
    /// on one thread holds, while other threads work beside it.
    static MINE: Cell<(isize, isize)> = const { Cell::new((0, 0)) };
}

/// What a piece of work measured by [`measure`] held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Measured {
    /// Bytes it allocated and had not freed when it ended: what it leaves live.
    pub retained: u64,
    /// The most it held at once.
    pub peak: u64,
}

/// Runs `work` on this thread, measuring what it allocates there: zero
/// where [`Counted`] is not the allocator. Memory freed on another thread
/// than the one that allocated it is not seen; measure work that hands
/// nothing across threads while it runs.
pub fn measure<T>(work: impl FnOnce() -> T) -> (T, Measured) {
    let (start, outer_peak) = MINE.get();
    MINE.set((start, start));
    let value = work();
    let (end, peak) = MINE.get();
    // A measurement around this one goes on seeing its own peak.
    MINE.set((end, outer_peak.max(peak)));
    let measured = Measured { retained: (end - start).max(0) as u64, peak: (peak - start).max(0) as u64 };
    (value, measured)
}

fn mine(bytes: isize) {
    // No destructor and a constant start: reachable while a thread ends.
    let _ = MINE.try_with(|cell| {
        let (net, peak) = cell.get();
        let net = net + bytes;
        cell.set((net, peak.max(net)));
    });
}

/// `System`, counted. Install it with
/// `#[global_allocator] static ALLOCATOR: Counted = Counted;`.
pub struct Counted;

/// Makes tree-sitter's C allocate through Rust's global allocator, so that
/// [`Counted`] sees its trees too ([`fathom_parse::alloc`]). A binary that
/// installs [`Counted`] calls it first thing, before anything is parsed.
pub fn count_tree_sitter() {
    fathom_parse::alloc::route_to_rust();
}

/// Bytes live now, and the most live at once since the process started (or
/// since [`reset_peak`]); `None` where [`Counted`] is not the allocator.
pub fn counts() -> Option<(u64, u64)> {
    COUNTING.load(Relaxed).then(|| (LIVE.load(Relaxed) as u64, PEAK.load(Relaxed) as u64))
}

/// Bytes live now, where [`Counted`] is the allocator.
pub fn live() -> Option<u64> {
    counts().map(|(live, _)| live)
}

/// Starts the peak again from what is live now.
pub fn reset_peak() {
    PEAK.store(LIVE.load(Relaxed), Relaxed);
}

/// Starts the second peak ([`peak_since_mark`]) from what is live now; the
/// peak of [`counts`] is left as it is.
pub fn mark() {
    PEAK_SINCE_MARK.store(LIVE.load(Relaxed), Relaxed);
}

/// The most live at once since [`mark`] was last called; `None` where
/// [`Counted`] is not the allocator.
pub fn peak_since_mark() -> Option<u64> {
    COUNTING.load(Relaxed).then(|| PEAK_SINCE_MARK.load(Relaxed) as u64)
}

fn grew(bytes: usize) {
    mine(bytes as isize);
    let now = LIVE.fetch_add(bytes, Relaxed) + bytes;
    if now > PEAK.load(Relaxed) {
        PEAK.fetch_max(now, Relaxed);
    }
    if now > PEAK_SINCE_MARK.load(Relaxed) {
        PEAK_SINCE_MARK.fetch_max(now, Relaxed);
    }
}

/// Counts a new allocation of `bytes` where it succeeded, and passes it on.
fn allocated(ptr: *mut u8, bytes: usize) -> *mut u8 {
    if !ptr.is_null() {
        grew(bytes);
        if !COUNTING.load(Relaxed) {
            COUNTING.store(true, Relaxed);
        }
    }
    ptr
}

// SAFETY: every call is forwarded to `System` unchanged; the counters only
// observe sizes.
unsafe impl GlobalAlloc for Counted {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        allocated(unsafe { System.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        allocated(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
        mine(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        if !moved.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Relaxed);
                mine(-((layout.size() - new_size) as isize));
            }
        }
        moved
    }
}
