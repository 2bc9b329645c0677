//! Work spread over every core with results kept in input order, for loading large skill
//! trees (listing directories, reading SKILL.md files).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

/// The cores to spread over, asked once per process: `available_parallelism` reads the
/// cgroup's quota files on every call (about ten system calls), and a load asks per level.
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Folds `items` block by block on every core and returns the blocks' results in input
/// order; with one core or fewer than `min_items` items the whole slice is one block, folded
/// inline. Should a worker die, `on_panic` folds the block it was in, so nothing is silently
/// lost.
///
/// A block's items share one result (one set of buffers for 64 directories, not one per
/// directory), and the workers take the blocks as they go rather than a fixed share each: a
/// worker the system preempts (the harness, another port, a busy host) leaves its blocks to
/// the others instead of holding every one of them up at the end.
pub(super) fn fold_blocks_in_order<T, R>(
    items: &[T],
    min_items: usize,
    fold: impl Fn(&[T]) -> R + Sync,
    on_panic: impl Fn(&[T]) -> R,
) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    let workers = cores();
    if workers < 2 || items.len() < min_items {
        return vec![fold(items)];
    }
    // About eight blocks a worker, at most 64 items each: enough to even out, few enough that
    // taking one costs nothing beside listing a directory.
    let block = items.len().div_ceil(workers * 8).clamp(1, 64);
    let blocks: Vec<&[T]> = items.chunks(block).collect();
    let next = AtomicUsize::new(0);
    // Each block's result, stored as it is done: a worker that dies loses only the block it
    // was in.
    let done: Vec<Mutex<Option<R>>> = blocks.iter().map(|_| Mutex::new(None)).collect();
    let (fold, blocks_ref, next, done_ref) = (&fold, &blocks, &next, &done);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..workers.min(blocks.len()))
            .map(|_| {
                scope.spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let (Some(part), Some(slot)) = (blocks_ref.get(i), done_ref.get(i)) else {
                        return;
                    };
                    let made = fold(part);
                    *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(made);
                })
            })
            .collect();
        // Joined here, so a worker's panic is not the scope's: its block is folded below.
        for worker in workers {
            let _ = worker.join();
        }
    });
    blocks
        .iter()
        .zip(done)
        .map(|(part, slot)| {
            let made = slot.into_inner().unwrap_or_else(PoisonError::into_inner);
            made.unwrap_or_else(|| on_panic(part))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doubled(block: &[u32]) -> Vec<u32> {
        block.iter().map(|n| n * 2).collect()
    }

    #[test]
    fn keeps_order_and_replaces_a_dead_worker() {
        let items: Vec<u32> = (0..1000).collect();
        let blocks = fold_blocks_in_order(&items, 1, doubled, |_| Vec::new());
        if cores() > 1 {
            assert!(blocks.len() > 1, "spread over {} block(s)", blocks.len());
        }
        assert_eq!(blocks.concat(), doubled(&items));
        let out = fold_blocks_in_order(
            &items,
            1,
            |block| {
                if block.contains(&999) {
                    panic!("boom")
                }
                block.to_vec()
            },
            |block| vec![u32::MAX; block.len()],
        )
        .concat();
        // Only the block the worker died in is stood in for; every other keeps its result.
        assert_eq!(out.len(), items.len());
        assert_eq!(out[0], 0);
        assert_eq!(out[500], 500);
        assert_eq!(*out.last().unwrap_or(&0), u32::MAX);
    }

    #[test]
    fn few_items_are_one_block_folded_inline() {
        let items: Vec<u32> = (0..10).collect();
        let blocks = fold_blocks_in_order(&items, 32, doubled, |_| Vec::new());
        assert_eq!(blocks, vec![doubled(&items)]);
    }
}
