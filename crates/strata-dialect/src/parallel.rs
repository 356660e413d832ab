//! Independent work spread over the machine's cores, results in order.
//!
//! Loading a dialect does the same thing to many independent values
//! (parse each file, compile each tree's expressions, check each
//! blueprint). [`map_ordered`] runs such a step on one scoped thread per
//! core, each taking the next item as it finishes the last, and returns the
//! results in the items' order: the outcome, diagnostics included, is the
//! same bytes whatever the number of threads. [`join`] runs two different
//! independent steps at once.

use std::num::NonZeroUsize;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The stack of the threads that load and render: deep enough that an
/// evaluator's own guarantee (CEL asks for 64 MiB) is met in place, where a
/// thread with the default 2 MiB maps a fresh stack segment for every
/// evaluation, a system call that also serialises the threads. Address
/// space reserved, not memory: pages are committed as they are used.
pub const WORKER_STACK_BYTES: usize = 256 << 20;

/// `work` applied to every item, on up to one thread per core (the
/// caller's, and others with a [`WORKER_STACK_BYTES`] stack), the results
/// in the items' order. A thread that cannot be had leaves its share to
/// the others; a panic in `work` is the caller's panic, as if it had run
/// inline.
pub fn map_ordered<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, NonZeroUsize::get)
        .min(items.len());
    let next = AtomicUsize::new(0);
    let take_items = || {
        let mut done = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(index) else {
                break done;
            };
            done.push((index, work(item)));
        }
    };
    let lists: Vec<Vec<(usize, R)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (1..threads)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .name("strata-load".to_owned())
                    .stack_size(WORKER_STACK_BYTES)
                    .spawn_scoped(scope, take_items)
                    .ok()
            })
            .collect();
        // Whatever no worker took (none could be spawned, say) runs here.
        let mut lists = vec![take_items()];
        for worker in workers {
            lists.push(
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        lists
    });
    merged(lists, items.len())
}

/// The results of `lists` in the order of their indices, `len` in all.
/// Each thread took its items in increasing order, so each list is ordered
/// already: merging them moves every result once, where sorting them all
/// moved each (a result may be a large value) many times.
fn merged<R>(lists: Vec<Vec<(usize, R)>>, len: usize) -> Vec<R> {
    let mut lists: Vec<_> = lists
        .into_iter()
        .map(|list| list.into_iter().peekable())
        .collect();
    let mut results = Vec::with_capacity(len);
    loop {
        let next = lists
            .iter_mut()
            .filter_map(|list| Some((list.peek()?.0, list)))
            .min_by_key(|(index, _)| *index);
        let Some((_, list)) = next else {
            break results;
        };
        results.extend(list.next().map(|(_, result)| result));
    }
}

/// `first` and `second` run at once: `second` on a scoped thread with a
/// [`WORKER_STACK_BYTES`] stack, unless this thread gets to it first (no
/// thread could be had, or it has not started when `first` is done). For
/// two independent steps of one pass.
///
/// # Panics
///
/// When `first` or `second` panics: the panic is the caller's, as if both
/// had run inline.
#[expect(
    clippy::expect_used,
    reason = "the slot holds `second` until exactly one of the two threads takes and runs it"
)]
pub fn join<A, B: Send>(first: impl FnOnce() -> A, second: impl FnOnce() -> B + Send) -> (A, B) {
    let slot = Mutex::new(Some(second));
    let take = || {
        let task = slot.lock().ok()?.take();
        task.map(|task| task())
    };
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("strata-load".to_owned())
            .stack_size(WORKER_STACK_BYTES)
            .spawn_scoped(scope, take)
            .ok();
        let a = first();
        let here = take();
        let there = worker.and_then(|worker| {
            worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        (
            a,
            here.or(there).expect("`second` ran on one of the threads"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_items_order() {
        let items: Vec<u64> = (0..1000).collect();
        let squares = map_ordered(&items, |n| n * n);
        assert_eq!(squares, items.iter().map(|n| n * n).collect::<Vec<_>>());
        assert!(map_ordered(&[] as &[u8], |_| 0).is_empty());
        assert_eq!(map_ordered(&[7], |n| n + 1), vec![8]);
    }

    #[test]
    fn lists_in_order_are_merged_in_order() {
        let lists = vec![
            vec![(0, 'a'), (3, 'd'), (4, 'e')],
            vec![],
            vec![(1, 'b'), (2, 'c'), (5, 'f')],
        ];
        assert_eq!(merged(lists, 6), vec!['a', 'b', 'c', 'd', 'e', 'f']);
        assert!(merged::<char>(vec![vec![], vec![]], 0).is_empty());
    }

    #[test]
    fn join_gives_both_results() {
        let items: Vec<u64> = (0..1000).collect();
        let (sum, squares) = join(
            || items.iter().sum::<u64>(),
            || items.iter().map(|n| n * n).sum::<u64>(),
        );
        assert_eq!((sum, squares), (499_500, 332_833_500));
    }
}
