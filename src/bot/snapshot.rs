//! The daemon's picture of pending/: the briefs of the last look's plans, the files it could not read, the
//! button references, each member's queue and the plans the clock must watch. A look changes it by what changed:
//! the plans gone and new are taken out and put in, and what was drawn from the old picture is carried over.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::actions::Actor;
use crate::plan::{Brief, Outline, Priority};
use crate::queue::{Delta, Listed, Problem};
use crate::sync::lock;
use crate::telegram::callback::{PlanRef, plan_ref_bits};
use crate::telegram::views;

/// Pending plans from the last look, with their button references.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// Shared with the store's cache: a snapshot holds no copy of a plan. In path order. Briefs: enough for the
    /// queue, announcements, access checks and the clock, never for a plan's own screens (drawn from the plan the
    /// action layer reads, or read from its file).
    pub plans: Vec<Arc<Listed>>,
    /// The files of pending/ that are no plan here (malformed, or naming people the bot can't reach), by path.
    problems: BTreeMap<PathBuf, Problem>,
    /// Position by [`plan_ref_bits`] (no string per plan), drawn on first use: a look that announces a dropped
    /// plan does not wait for a map of every plan (the look warms it afterwards, off the async threads).
    by_ref: OnceLock<Refs>,
    /// Each actor's queue (the plans they may see, in queue order), drawn once per snapshot: a `/queue` then
    /// touches only the plans on its page, not every plan of a large queue.
    orders: Mutex<HashMap<Actor, Arc<QueueOrder>>>,
    /// Positions of the plans with a deadline, reminders or an escalation, in path order: the clock's tick looks
    /// at these only.
    timed: Vec<usize>,
}

/// The button references of a snapshot's plans.
#[derive(Debug)]
struct Refs {
    positions: HashMap<u64, usize>,
    /// No two plans share a reference (ids are unique in a sane queue): then a plan taken out takes only its own
    /// reference with it, and the map can be carried over.
    unique: bool,
}

/// One actor's queue in a snapshot.
#[derive(Debug)]
pub struct QueueOrder {
    /// Positions in [`Snapshot::plans`], in queue order.
    pub order: Vec<usize>,
    /// The priority counts line.
    pub counts: String,
    /// How many plans of each priority, in [`Priority::ALL`]'s order.
    pub per_priority: [usize; 4],
}

impl Snapshot {
    #[must_use]
    pub fn new(plans: Vec<Arc<Listed>>) -> Snapshot {
        let timed = (0..plans.len())
            .filter(|&i| plans[i].brief.may_be_due())
            .collect();
        Snapshot {
            plans,
            problems: BTreeMap::new(),
            by_ref: OnceLock::new(),
            orders: Mutex::default(),
            timed,
        }
    }

    /// This snapshot with `problems` as its files that are no plan.
    #[must_use]
    pub fn with_problems(mut self, problems: Vec<Problem>) -> Snapshot {
        self.problems = problems.into_iter().map(|p| (p.path.clone(), p)).collect();
        self
    }

    /// The files of pending/ that are no plan here, in path order.
    pub fn problems(&self) -> impl Iterator<Item = &Problem> {
        self.problems.values()
    }

    #[must_use]
    pub fn by_ref(&self, r: &PlanRef) -> Option<&Listed> {
        let i = *self.refs().get(&r.bits()?)?;
        Some(&*self.plans[i])
    }

    /// The position of every plan by its button reference.
    pub fn refs(&self) -> &HashMap<u64, usize> {
        &self
            .by_ref
            .get_or_init(|| {
                let positions: HashMap<u64, usize> = self
                    .plans
                    .iter()
                    .enumerate()
                    .map(|(i, l)| (plan_ref_bits(l.brief.id()), i))
                    .collect();
                Refs {
                    unique: positions.len() == self.plans.len(),
                    positions,
                }
            })
            .positions
    }

    /// The plans with a deadline, reminders or an escalation (the only ones the clock can find due).
    pub fn timed(&self) -> impl Iterator<Item = &Listed> {
        self.timed.iter().map(|&i| &*self.plans[i])
    }

    /// The snapshot after a look that changed `change.changed` (`sees`: may this actor see this plan): the plans
    /// and problems at those files are taken out and `change`'s put in; the button references, every queue drawn
    /// and the clock's plans are carried over rather than drawn again. Nothing here reads every plan: a look at one
    /// file among thousands costs moves of pointers and positions and a few comparisons, not a pass over each
    /// plan's memory.
    #[must_use]
    pub fn after(mut self, change: Delta, sees: impl Fn(Actor, &Brief) -> bool) -> Snapshot {
        let old = std::mem::take(&mut self.plans);
        // Positions in `old` of the plans taken out (with their priority, for the counts), and where each new
        // plan goes (the first old plan after it).
        let out: Vec<(usize, Priority)> = change
            .changed
            .iter()
            .filter_map(|path| {
                let i = old.binary_search_by(|l| l.path.cmp(path)).ok()?;
                Some((i, old[i].brief.priority()))
            })
            .collect();
        let at: Vec<usize> = change
            .plans
            .iter()
            .map(|l| old.partition_point(|o| o.path < l.path))
            .collect();
        let mut plans = Vec::with_capacity(old.len() + change.plans.len());
        let mut kept = vec![None; old.len()];
        let mut fresh = Vec::with_capacity(change.plans.len());
        let mut new = change.plans.into_iter().zip(at).peekable();
        let mut gone = out.iter().map(|&(i, _)| i).peekable();
        for (i, plan) in old.into_iter().enumerate() {
            while let Some((l, _)) = new.next_if(|&(_, a)| a == i) {
                fresh.push(plans.len());
                plans.push(l);
            }
            if gone.next_if_eq(&i).is_none() {
                kept[i] = Some(plans.len());
                plans.push(plan);
            }
        }
        for (l, _) in new {
            fresh.push(plans.len());
            plans.push(l);
        }

        let mut problems = std::mem::take(&mut self.problems);
        for path in &change.changed {
            problems.remove(path);
        }
        problems.extend(change.problems.into_iter().map(|p| (p.path.clone(), p)));

        let mut timed: Vec<usize> = self.timed.iter().filter_map(|&i| kept[i]).collect();
        timed.extend(
            fresh
                .iter()
                .copied()
                .filter(|&j| plans[j].brief.may_be_due()),
        );
        timed.sort_unstable();

        let next = Snapshot {
            plans,
            problems,
            by_ref: OnceLock::new(),
            orders: Mutex::default(),
            timed,
        };
        if let Some(refs) = self.by_ref.take().filter(|r| r.unique) {
            let _ = next.by_ref.set(refs.carried(&kept, &fresh, &next.plans));
        }
        let drawn = std::mem::take(
            self.orders
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner),
        );
        let out: HashMap<usize, Priority> = out.into_iter().collect();
        let orders = drawn
            .into_iter()
            .map(|(actor, old)| {
                let order = old.carried(&kept, &out, &fresh, &next.plans, |p| sees(actor, p));
                (actor, Arc::new(order))
            })
            .collect();
        *lock(&next.orders) = orders;
        next
    }

    /// `actor`'s queue in this snapshot: the plans `visible` keeps (positions in increasing order), in queue order
    /// (computed on first use).
    pub fn queue_order(
        &self,
        actor: Actor,
        visible: impl FnOnce(&[&Brief]) -> Vec<usize>,
    ) -> Arc<QueueOrder> {
        if let Some(done) = lock(&self.orders).get(&actor) {
            return Arc::clone(done);
        }
        let all: Vec<&Brief> = self.plans.iter().map(|l| &l.brief).collect();
        let seen: Vec<usize> = visible(&all);
        let theirs: Vec<&Brief> = seen.iter().map(|&i| all[i]).collect();
        let sorted: Vec<usize> = views::queue_order(&theirs);
        let ordered: Vec<&Brief> = sorted.iter().map(|&j| theirs[j]).collect();
        let made = Arc::new(QueueOrder {
            counts: views::queue_counts(&ordered),
            per_priority: Priority::ALL
                .map(|p| ordered.iter().filter(|o| o.priority() == p).count()),
            order: sorted.into_iter().map(|j| seen[j]).collect(),
        });
        lock(&self.orders).insert(actor, Arc::clone(&made));
        made
    }
}

impl Refs {
    /// These references after the plans moved to `kept` (`None`: taken out) and the plans at `fresh` came in. A
    /// reference two plans share goes to the later one, as when drawn afresh.
    fn carried(mut self, kept: &[Option<usize>], fresh: &[usize], plans: &[Arc<Listed>]) -> Refs {
        self.positions.retain(|_, i| match kept[*i] {
            Some(j) => {
                *i = j;
                true
            }
            None => false,
        });
        for &j in fresh {
            match self.positions.entry(plan_ref_bits(plans[j].brief.id())) {
                Entry::Occupied(mut shared) => {
                    self.unique = false;
                    if *shared.get() < j {
                        shared.insert(j);
                    }
                }
                Entry::Vacant(free) => {
                    free.insert(j);
                }
            }
        }
        self
    }
}

impl QueueOrder {
    /// This queue after the plans moved to `kept` (`None`: taken out; `out`: their priorities) and the plans at
    /// `fresh` came in, those `sees` keeps placed in queue order.
    fn carried(
        &self,
        kept: &[Option<usize>],
        out: &HashMap<usize, Priority>,
        fresh: &[usize],
        plans: &[Arc<Listed>],
        sees: impl Fn(&Brief) -> bool,
    ) -> QueueOrder {
        let mut per_priority = self.per_priority;
        let mut order = Vec::with_capacity(self.order.len() + fresh.len());
        for &i in &self.order {
            match kept[i] {
                Some(j) => order.push(j),
                None => {
                    if let Some(&p) = out.get(&i) {
                        per_priority[rank(p)] -= 1;
                    }
                }
            }
        }
        for &j in fresh {
            let plan = &plans[j].brief;
            if sees(plan) {
                let at =
                    order.partition_point(|&o| views::goes_before(&plans[o].brief, o, plan, j));
                order.insert(at, j);
                per_priority[rank(plan.priority())] += 1;
            }
        }
        let counts = if per_priority == self.per_priority {
            self.counts.clone()
        } else {
            views::queue_counts_of(per_priority)
        };
        QueueOrder {
            order,
            counts,
            per_priority,
        }
    }
}

/// The position of `p` in [`Priority::ALL`].
fn rank(p: Priority) -> usize {
    Priority::ALL.iter().position(|&q| q == p).unwrap_or(0)
}

#[cfg(test)]
mod tests;
