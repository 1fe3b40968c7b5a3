// The offline service worker. After the first visit the app loads and runs with no network:
// every same-origin GET is answered from the network when it can be (so a new build shows up at
// once) and from the cache when the network fails. At install it caches the page and the hashed
// files index.html names, so a reload works offline even before those were fetched through it.
const CACHE = "summary-memory-v1";

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      const response = await fetch("./index.html", { cache: "no-store" });
      const html = await response.clone().text();
      await cache.put("./", response.clone());
      await cache.put("./index.html", response);
      const assets = new Set();
      for (const match of html.matchAll(/(?:href|src)=["']([^"']+)["']/g)) {
        const url = new URL(match[1], self.location.href);
        if (url.origin === self.location.origin) assets.add(url.href);
      }
      // Trunk's loader imports the js and wasm by path inside an inline script.
      for (const match of html.matchAll(/["'](\/[^"']+\.(?:js|wasm|css))["']/g)) {
        assets.add(new URL(match[1], self.location.href).href);
      }
      await Promise.all([...assets].map((url) => cache.add(url).catch(() => undefined)));
      await self.skipWaiting();
    })()
  );
});

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
