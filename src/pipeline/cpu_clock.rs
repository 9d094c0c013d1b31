//! The calling thread's CPU time, so `stage_seconds` can tell what the reading, page
//! processing and writing cost apart from the classifier's network, on shared cores.

use std::time::Duration;

/// CPU time (user + system) the calling thread has used so far; zero where the platform
/// cannot say.
#[allow(unsafe_code)]
pub fn thread_cpu_time() -> Duration {
    #[cfg(unix)]
    {
        let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: clock_gettime only writes the one timespec it is given.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0 {
            return Duration::new(u64::try_from(t.tv_sec).unwrap_or(0), u32::try_from(t.tv_nsec).unwrap_or(0));
        }
    }
    Duration::ZERO
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_thread_uses_cpu_time_and_a_sleeping_one_hardly_any() {
        // Work until the clock shows 10 ms of this thread's CPU, giving up after 10 s of wall
        // time: on a loaded machine the thread gets a fraction of a core, so a fixed wall-clock
        // loop could show less than 10 ms (seen while CI shared the machine).
        let start = thread_cpu_time();
        let mut x = 0u64;
        let give_up = std::time::Instant::now() + Duration::from_secs(10);
        while thread_cpu_time() - start < Duration::from_millis(10) && std::time::Instant::now() < give_up {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        let busy = thread_cpu_time() - start;
        assert!(busy >= Duration::from_millis(10), "{busy:?}");
        let before_sleep = thread_cpu_time();
        std::thread::sleep(Duration::from_millis(50));
        assert!(thread_cpu_time() - before_sleep < Duration::from_millis(25));
    }
}
