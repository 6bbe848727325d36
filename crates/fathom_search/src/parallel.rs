//! Maps over a slice on every core with rayon (feature `parallel`, native
//! builds), or in order on one thread (the browser, whose threads are Web
//! Workers: there the page splits the work instead). Results keep the
//! input's order either way, so an index never depends on scheduling.

/// `f` over `items`, with one `init()` state per piece of work rayon makes
/// (a few per thread, more when threads steal work), or one on one thread.
pub fn map_init<T, S, R>(
    items: &[T],
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, &T) -> R + Sync + Send,
) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items.par_iter().map_init(init, f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        let mut state = init();
        items.iter().map(|item| f(&mut state, item)).collect()
    }
}

/// `f` over `items`.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    map_init(items, || (), |(), item| f(item))
}

/// How many threads [`map_init`] uses.
pub fn threads() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}
