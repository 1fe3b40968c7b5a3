// The offline service worker. After the first visit the app loads and runs with no network:
// every same-origin GET is answered from the network when it can be (so a new build shows up at
// once) and from the cache when the network fails.
//
// At install it caches the page and the hashed files index.html names (the loader, the wasm,
// the CSS, the token vocabularies), so a reload works offline even though the page fetched them
// before this worker existed. It takes them from the browser's HTTP cache ("only-if-cached"),
// which the page has just filled: the app registers this worker only after its vocabulary has
// loaded, so the multi-megabyte wasm and vocabulary are not downloaded a second time. Only a
// file the HTTP cache lacks (a server that forbids caching) is fetched again, and a vocabulary
// the page never loaded (the other encoding) is not fetched at all: it is cached here when the
// page first fetches it through this worker.
const CACHE = "summary-memory-v2";

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      const response = await fetch("./index.html", { cache: "no-store" });
      const html = await response.clone().text();
      await cache.put("./", response.clone());
      await cache.put("./index.html", response);
      const assets = new Set();
      for (const match of html.matchAll(/(?:href|src|content)=["']([^"']+\.(?:js|wasm|css|smv|json|png|svg|ico))["']/g)) {
        const url = new URL(match[1], self.location.href);
        if (url.origin === self.location.origin) assets.add(url.href);
      }
      // Trunk's loader imports the js and wasm by path inside an inline script.
      for (const match of html.matchAll(/["'](\/[^"']+\.(?:js|wasm|css))["']/g)) {
        assets.add(new URL(match[1], self.location.href).href);
      }
      await Promise.all([...assets].map((url) => cacheFromHttpCache(cache, url).catch(() => undefined)));
      await self.skipWaiting();
    })()
  );
});

async function cacheFromHttpCache(cache, url) {
  let response;
  try {
    response = await fetch(url, { cache: "only-if-cached", mode: "same-origin" });
  } catch (error) {
    response = undefined;
  }
  if (!response || !response.ok) {
    if (url.endsWith(".smv")) return;
    response = await fetch(url);
  }
  if (response.ok) await cache.put(url, response);
}

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        if (key !== CACHE) await caches.delete(key);
      }
      await self.clients.claim();
    })()
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      try {
        const response = await fetch(request);
        if (response.ok) await cache.put(request, response.clone());
        return response;
      } catch (error) {
        // Any page of the app (whatever its query string) is index.html.
        const cached =
          (await cache.match(request, { ignoreSearch: request.mode === "navigate" })) ||
          (request.mode === "navigate" ? await cache.match("./index.html") : undefined);
        if (cached) return cached;
        throw error;
      }
    })()
  );
});
