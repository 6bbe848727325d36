// Fathom's service worker: the app, the wasm engine and the model are cached
// on install (from precache.json, written by the build), so everything works
// with the network off after the first load. It only ever answers requests
// to this origin; it never contacts another.
const VERSION = 'fathom-v1';

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(VERSION);
      const response = await fetch('./precache.json', { cache: 'no-store' });
      if (response.ok) {
        const files = await response.json();
        // One by one: a missing optional file (the demo, say) must not stop the rest.
        await Promise.all(files.map((file) => cache.add(new Request(file, { cache: 'reload' })).catch(() => undefined)));
      }
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) if (key !== VERSION) await caches.delete(key);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  // A Range request (a split bundle's packed item) goes to the host as it is: the cache holds whole files, and no partial answer.
  if (request.method !== 'GET' || url.origin !== self.location.origin || request.headers.has('range')) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(VERSION);
      // Pages, and what a request asks to check with the host (a split
      // bundle's root, which a new build replaces): the network first, the
      // cache offline.
      if (request.mode === 'navigate' || ['no-cache', 'reload', 'no-store'].includes(request.cache)) {
        const key = request.mode === 'navigate' ? './' : request;
        try {
          const fresh = await fetch(request);
          if (fresh.ok) await cache.put(key, fresh.clone());
          return fresh;
        } catch {
          return (await cache.match(key, { ignoreVary: true })) ?? Response.error();
        }
      }
      // Everything else is content-hashed or pinned (the model): the cache first.
      // Vary is ignored: a dev server's `Vary: Origin` must not hide a cached module script.
      const hit = await cache.match(request, { ignoreSearch: true, ignoreVary: true });
      if (hit) return hit;
      const fresh = await fetch(request);
      if (fresh.ok) await cache.put(request, fresh.clone());
      return fresh;
    })(),
  );
});
