//! tree-sitter's own allocations, made through Rust's global allocator.
//!
//! Natively, tree-sitter's C allocates its trees and parse stacks with libc's
//! `malloc`, out of sight of a counting global allocator
//! (`fathom_engine::heap::Counted`): a megabyte of one-definition lines
//! makes a tree of about 250 MB while it is read, which the memory budget
//! must see. [`route_to_rust`] hands tree-sitter four functions that
//! allocate through `std::alloc` instead, each block led by its size, as C's
//! `free` and `realloc` are not told it. In wasm32 tree-sitter already
//! allocates through Rust.

#![cfg_attr(target_arch = "wasm32", allow(dead_code))]

use std::alloc::{Layout, alloc, alloc_zeroed, dealloc, realloc};
use std::ffi::c_void;

/// What every block is aligned to, as libc's `malloc` aligns: the size
/// takes the first such unit.
const ALIGN: usize = 16;

fn layout(size: usize) -> Option<Layout> {
    Layout::from_size_align(size.checked_add(ALIGN)?, ALIGN).ok()
}

/// The block's start and its caller's size, from the pointer handed out.
unsafe fn header(ptr: *mut c_void) -> (*mut u8, usize) {
    let block = unsafe { (ptr as *mut u8).sub(ALIGN) };
    (block, unsafe { (block as *mut usize).read() })
}

/// Hands out the block after its header, having written the size there.
unsafe fn handed(block: *mut u8, size: usize) -> *mut c_void {
    if block.is_null() {
        return std::ptr::null_mut();
    }
    unsafe {
        (block as *mut usize).write(size);
        block.add(ALIGN) as *mut c_void
    }
}

unsafe extern "C" fn ts_malloc(size: usize) -> *mut c_void {
    match layout(size) {
        Some(l) => unsafe { handed(alloc(l), size) },
        None => std::ptr::null_mut(),
    }
}

unsafe extern "C" fn ts_calloc(count: usize, size: usize) -> *mut c_void {
    match count.checked_mul(size).and_then(|n| Some((n, layout(n)?))) {
        Some((n, l)) => unsafe { handed(alloc_zeroed(l), n) },
        None => std::ptr::null_mut(),
    }
}

unsafe extern "C" fn ts_free(ptr: *mut c_void) {
    if ptr.is_null() {
        return;
    }
    let (block, size) = unsafe { header(ptr) };
    unsafe { dealloc(block, layout(size).expect("a size this allocator handed out")) };
}

unsafe extern "C" fn ts_realloc(ptr: *mut c_void, size: usize) -> *mut c_void {
    if ptr.is_null() {
        return unsafe { ts_malloc(size) };
    }
    let Some(_) = layout(size) else { return std::ptr::null_mut() };
    let (block, old) = unsafe { header(ptr) };
    let moved = unsafe { realloc(block, layout(old).expect("a size this allocator handed out"), size + ALIGN) };
    unsafe { handed(moved, size) }
}

/// Makes tree-sitter allocate through Rust's global allocator, once per
/// process, before anything is parsed. A no-op in wasm32, where it does
/// already.
pub fn route_to_rust() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let allocator =
                tree_sitter::Allocator { malloc: ts_malloc, calloc: ts_calloc, realloc: ts_realloc, free: ts_free };
            // SAFETY: one family of four functions, aligned as malloc aligns,
            // set once, before any tree-sitter object exists (the callers
            // call it first thing in `main`).
            unsafe { tree_sitter::set_allocator(Some(allocator)) };
        });
    }
}
