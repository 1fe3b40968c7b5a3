//! The channel over which open tabs of the app tell each other that a session was saved or
//! deleted (a `BroadcastChannel`, same origin only). The messages are the core's
//! [`crate::app::library::Broadcast`], encoded as text; what to do about one is the core's
//! decision too. A browser without BroadcastChannel just works alone: the store's revision check
//! still refuses a stale write.

use std::cell::RefCell;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{BroadcastChannel, MessageEvent};

/// The channel's name; every tab of this origin opens the same one.
pub const CHANNEL: &str = "summary-memory-sessions";

thread_local! {
    static OPEN: RefCell<Option<BroadcastChannel>> = const { RefCell::new(None) };
}

/// Opens the channel for this page and calls `on_message` with each text another tab posts.
/// A channel does not hear its own messages.
pub fn listen(on_message: impl Fn(String) + 'static) {
    let Ok(channel) = BroadcastChannel::new(CHANNEL) else {
        return;
    };
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        if let Some(text) = event.data().as_string() {
            on_message(text);
        }
    });
    channel.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    // The channel lives as long as the page, and so does its handler.
    handler.forget();
    OPEN.with(|open| *open.borrow_mut() = Some(channel));
}

/// Posts `text` to the other tabs, if the channel is open.
pub fn post(text: &str) {
    OPEN.with(|open| {
        if let Some(channel) = open.borrow().as_ref() {
            let _ = channel.post_message(&JsValue::from_str(text));
        }
    });
}
