//! Poison-tolerant locking: a panic in one task must not make every later tap fail on a poisoned mutex (the
//! data behind these locks stays valid whatever the panicking holder was doing); and long-lived tasks started
//! again after a panic (`supervise`).

pub mod supervise;

use std::sync::{Mutex, MutexGuard, PoisonError};

pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
