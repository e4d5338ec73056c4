//! Cache prefetch hints for the per-hop path (see [`World::step`](crate::world::World::step)).

/// Starts loading the cache line holding `addr` into the cache. Any address will do: a prefetch
/// reads nothing, never faults and has no effect but on timing. A no-op off x86_64.
#[inline(always)]
pub(crate) fn prefetch(addr: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the cache; it reads nothing and never faults, whatever the
    // address.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(addr as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = addr;
}
