//! `every`: a timer for the tabs' animations (the Editions tab's rewrite), which calls a
//! closure at a fixed interval until it says to stop. The tab decides what a tick does; the
//! task is spawned here.

/// Calls `tick` every `ms` milliseconds, the first time `ms` from now, until it returns `false`.
pub fn every(ms: u32, mut tick: impl FnMut() -> bool + 'static) {
    leptos::task::spawn_local(async move {
        loop {
            gloo_timers::future::TimeoutFuture::new(ms).await;
            if !tick() {
                break;
            }
        }
    });
}
