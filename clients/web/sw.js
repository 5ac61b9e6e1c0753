// The service worker (registered by lib/notify.js, served at /sw.js so its scope is the
// whole client): shows the notifier's Web Push messages ("Your turn — Orrery", the tables
// in its body) and opens the table when the notification is clicked. The message is the
// JSON the notifier encrypted for this browser (notify/notifier.py push_payload).

const FALLBACK = { title: "Your turn — Orrery", body: "", url: "/#/" };

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let message = FALLBACK;
  try {
    message = { ...FALLBACK, ...(event.data ? event.data.json() : {}) };
  } catch {
    message = FALLBACK;
  }
  event.waitUntil(
    self.registration.showNotification(message.title, {
      body: message.body,
      tag: "orrery-turns", // a newer message replaces the older one
      renotify: true,
      data: { url: message.url },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const path = (event.notification.data && event.notification.data.url) || "/#/";
  const url = new URL(path, self.location.origin);
  if (url.origin !== self.location.origin) return; // only ever this client's pages
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      for (const client of windows) {
        if ("focus" in client) {
          await client.focus();
          if ("navigate" in client) return client.navigate(url.href);
          return undefined;
        }
      }
      return self.clients.openWindow(url.href);
    })(),
  );
});
