//! Work spread over every core with results kept in input order, for loading large skill
//! trees (listing directories, reading SKILL.md files).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// Maps `f` over `items` on every core, in input order; with one core or fewer than
/// `min_items` it runs inline. Should a worker die, `on_panic` stands in for each item it had
/// taken, so nothing is silently lost.
///
/// The workers take the items in small blocks as they go rather than a fixed share each: a
/// worker the system preempts (the harness, another port, a busy host) leaves its blocks to
/// the others instead of holding every one of them up at the end.
pub(super) fn map_in_order<T, R>(
    items: &[T],
    min_items: usize,
    f: impl Fn(&T) -> R + Sync,
    on_panic: impl Fn(&T) -> R,
) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    if workers < 2 || items.len() < min_items {
        return items.iter().map(&f).collect();
    }
    // About eight blocks a worker, at most 64 items each: enough to even out, few enough that
    // taking one costs nothing beside listing a directory.
    let block = items.len().div_ceil(workers * 8).clamp(1, 64);
    let blocks: Vec<&[T]> = items.chunks(block).collect();
    let next = AtomicUsize::new(0);
    // Each block's results, stored as it is done: a worker that dies loses only the block it
    // was in.
    let done: Vec<Mutex<Option<Vec<R>>>> = blocks.iter().map(|_| Mutex::new(None)).collect();
    let (f, blocks_ref, next, done_ref) = (&f, &blocks, &next, &done);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..workers.min(blocks.len()))
            .map(|_| {
                scope.spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let (Some(part), Some(slot)) = (blocks_ref.get(i), done_ref.get(i)) else {
                        return;
                    };
                    let made = part.iter().map(f).collect::<Vec<_>>();
                    *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(made);
                })
            })
            .collect();
        // Joined here, so a worker's panic is not the scope's: its block is filled in below.
        for worker in workers {
            let _ = worker.join();
        }
    });
    blocks
        .iter()
        .zip(done)
        .flat_map(|(part, slot)| {
            let made = slot.into_inner().unwrap_or_else(PoisonError::into_inner);
            made.unwrap_or_else(|| part.iter().map(&on_panic).collect())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_replaces_a_dead_worker() {
        let items: Vec<u32> = (0..1000).collect();
        assert_eq!(
            map_in_order(&items, 1, |n| n * 2, |_| 0),
            items.iter().map(|n| n * 2).collect::<Vec<_>>()
        );
        let out = map_in_order(
            &items,
            1,
            |n| if *n == 999 { panic!("boom") } else { *n },
            |_| u32::MAX,
        );
        // Only the block the worker died in is stood in for; every other keeps its result.
        assert_eq!(out[0], 0);
        assert_eq!(out[500], 500);
        assert_eq!(*out.last().unwrap_or(&0), u32::MAX);
    }
}
