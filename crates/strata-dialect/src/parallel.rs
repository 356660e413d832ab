//! Independent work spread over the machine's cores, results in order.
//!
//! Loading a dialect does the same thing to many independent values
//! (parse each file, compile each tree's expressions, check each
//! blueprint). [`map_ordered`] runs such a step on one scoped thread per
//! core, each taking the next item as it finishes the last, and returns the
//! results in the items' order: the outcome, diagnostics included, is the
//! same bytes whatever the number of threads. [`join`] runs two different
//! independent steps at once. [`hand_off`] runs work on items while they
//! are still being made (each entry of a file as its parse completes it).

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};

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
    // Whatever no helper took (none could be spawned, say) runs here.
    let ((), lists) = with_helpers(threads.saturating_sub(1), take_items, || ());
    merged(lists, items.len())
}

/// `produce` runs on this thread and hands each item it makes (through the
/// function it is given) to `work`, which runs on the machine's other
/// cores while `produce` goes on, and here on what is left when it is
/// done. Gives what `produce` returned, and every item with its result, in
/// the order made. A thread that cannot be had leaves its share to this
/// one; a panic in `work` is the caller's panic, as if it had run inline.
pub fn hand_off<I: Send, R: Send, P>(
    produce: impl FnOnce(&mut dyn FnMut(I)) -> P,
    work: impl Fn(&I) -> R + Sync,
) -> (P, Vec<(I, R)>) {
    let helpers = std::thread::available_parallelism().map_or(1, NonZeroUsize::get) - 1;
    let (sender, receiver) = mpsc::channel::<(usize, I)>();
    let receiver = Mutex::new(receiver);
    let take_items = || {
        let mut done = Vec::new();
        // The lock is held only while waiting for the next item, which
        // one helper at a time does.
        while let Some((index, item)) = receiver.lock().ok().and_then(|next| next.recv().ok()) {
            let result = work(&item);
            done.push((index, (item, result)));
        }
        done
    };
    let mut made = 0;
    let (produced, lists) = with_helpers(helpers, take_items, || {
        let produced = produce(&mut |item| {
            // The receiver lives until the helpers are joined: sending
            // cannot fail.
            let _ = sender.send((made, item));
            made += 1;
        });
        drop(sender);
        produced
    });
    (produced, merged(lists, made))
}

/// `here` on this thread while `take` runs on up to `helpers` scoped
/// threads with a [`WORKER_STACK_BYTES`] stack, then `take` here too: what
/// `here` gave, and what each `take` gave (this thread's first). A thread
/// that cannot be had is left out; a panic on a helper is the caller's.
fn with_helpers<T: Send, H>(
    helpers: usize,
    take: impl Fn() -> T + Sync,
    here: impl FnOnce() -> H,
) -> (H, Vec<T>) {
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..helpers)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .name("strata-load".to_owned())
                    .stack_size(WORKER_STACK_BYTES)
                    .spawn_scoped(scope, &take)
                    .ok()
            })
            .collect();
        let done_here = here();
        let mut taken = vec![take()];
        for worker in workers {
            taken.push(
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        (done_here, taken)
    })
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
    let (a, taken) = with_helpers(1, take, first);
    let b = taken.into_iter().flatten().next();
    (a, b.expect("`second` ran on one of the threads"))
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
    fn handed_off_items_come_back_in_order_with_their_results() {
        let (produced, done) = hand_off(
            |give| {
                for n in 0..1000_u64 {
                    give(n);
                }
                "made"
            },
            |n| n * n,
        );
        assert_eq!(produced, "made");
        let expected: Vec<_> = (0..1000_u64).map(|n| (n, n * n)).collect();
        assert_eq!(done, expected);
        let ((), none) = hand_off(|_give| (), |n: &u8| *n);
        assert!(none.is_empty());
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
