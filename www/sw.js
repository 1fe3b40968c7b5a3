// The offline service worker. After the first visit the app loads and runs with no network:
// every same-origin GET is answered from the network when it can be (so a new build shows up at
// once) and from the cache when the network fails. It never turns a good network answer into a
// failure: saving a copy is a side job whose failure is only logged.
//
// Each build has its own cache. scripts/precache.py writes the line below at build time: the
// build's id (a hash of every file in the dist) and the files to keep (`files`, all needed to
// start offline, the default vocabulary among them; `lazy`, the other vocabulary, kept only once
// the page has loaded it). A new build changes this file, so the browser installs its worker,
// which fills a new cache; once it activates it deletes the caches of older builds of this app
// (and only those).
//
// At install it takes the files from the browser's HTTP cache ("only-if-cached"), which the page
// has just filled, so the multi-megabyte wasm is not downloaded a second time. A file the HTTP
// cache lacks is fetched: the modules a first visit did not open, and the default vocabulary,
// which the lesson's path never asks for (the app registers this worker when the page is idle,
// so these come in the background). The other encoding's vocabulary is not fetched: it is kept
// when the page first fetches it through this worker. An install that could not keep every
// file still completes (the app works online, and the files are kept as they are fetched again),
// and tells the open pages, which say so (src/ui/run/offline.rs).
const BUILD = { id: "unbuilt", files: ["index.html"], lazy: [] }; // written by scripts/precache.py

// The scope is part of the name, so two copies of the app on one origin keep their own caches.
const PREFIX = `summary-memory:${self.registration.scope}:`;
const CACHE = PREFIX + BUILD.id;
// The single cache of the workers before caches were named per build.
const LEGACY = /^summary-memory-v\d+$/;
// Every page of the app (whatever its path or query string) is index.html, kept under one key.
const PAGE = new URL("./index.html", self.location.href).href;

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      const missing = [];
      const keep = (path, lazy) =>
        precache(cache, path, lazy).catch((error) => {
          missing.push({ path, reason: String((error && error.message) || error) });
        });
      await Promise.all([
        ...BUILD.files.map((path) => keep(path, false)),
        ...BUILD.lazy.map((path) => keep(path, true)),
      ]);
      if (missing.length > 0) {
        console.warn(`summary-memory: build ${BUILD.id} could not keep these files offline`, missing);
        const pages = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
        for (const page of pages) {
          page.postMessage({ type: "sm-offline-incomplete", build: BUILD.id, missing });
        }
      }
      await self.skipWaiting();
    })()
  );
});

// Keeps one file of the build. A lazy file is kept only if the HTTP cache has it.
async function precache(cache, path, lazy) {
  const url = new URL(path, self.location.href).href;
  let response;
  if (url === PAGE) {
    // The page itself is fetched afresh, so that it names this build's files.
    response = await fetch(url, { cache: "no-cache" });
  } else {
    try {
      response = await fetch(url, { cache: "only-if-cached", mode: "same-origin" });
    } catch (error) {
      response = undefined;
    }
    if (!response || !response.ok) {
      if (lazy) return;
      response = await fetch(url);
    }
  }
  if (!response.ok) throw new Error(`the server answered ${response.status}`);
  await cache.put(url, response);
}

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        if (key !== CACHE && (key.startsWith(PREFIX) || LEGACY.test(key))) {
          await caches.delete(key);
        }
      }
      await self.clients.claim();
    })()
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  event.respondWith(answer(event, request));
});

async function answer(event, request) {
  let response;
  try {
    response = await fetch(request);
  } catch (error) {
    const cache = await caches.open(CACHE);
    const cached =
      request.mode === "navigate"
        ? (await cache.match(PAGE)) || (await cache.match(request, { ignoreSearch: true }))
        : await cache.match(request);
    if (cached) return cached;
    throw error;
  }
  if (response.ok) {
    const key = request.mode === "navigate" && isHtml(response) ? PAGE : request;
    const copy = response.clone();
    // Saving the copy is not part of the answer: the page gets the response whether or not
    // the cache takes it (a `Vary: *` header, a partial response or a full disk make
    // `cache.put` reject).
    event.waitUntil(
      caches
        .open(CACHE)
        .then((cache) => cache.put(key, copy))
        .catch((error) => console.warn(`summary-memory: could not keep ${request.url} offline`, error))
    );
  }
  return response;
}

function isHtml(response) {
  return (response.headers.get("content-type") || "").startsWith("text/html");
}
