//! Work spread over every core with results kept in input order, for loading large skill
//! trees (listing directories, reading SKILL.md files).

/// Maps `f` over `items` on every core, in input order; with one core or fewer than
/// `min_items` it runs inline. Should a worker die, `on_panic` stands in for each of its
/// items, so nothing is silently lost.
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
    let chunk = items.len().div_ceil(workers);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| {
                (
                    part,
                    scope.spawn(move || part.iter().map(f).collect::<Vec<_>>()),
                )
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|(part, h)| {
                h.join()
                    .unwrap_or_else(|_| part.iter().map(&on_panic).collect())
            })
            .collect()
    })
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
        assert_eq!(out[0], 0);
        assert_eq!(*out.last().unwrap_or(&0), u32::MAX);
    }
}
