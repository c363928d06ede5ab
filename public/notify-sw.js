/* global self */
// Agentbar's service worker does one thing: the Answer and Reject buttons of the desktop
// notification for a ringing call. A click is posted to the app's tabs; the tab that showed the
// notification (data.page) acts on it and is brought forward. Tabs introduce themselves so that
// the right one can be focused; the worker may have been restarted since, then the first tab is.
const tabOfPage = new Map();
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("message", (event) => {
  if (event.data && event.data.type === "agentbar-page" && event.source)
    tabOfPage.set(event.data.page, event.source.id);
});
self.addEventListener("notificationclick", (event) => {
  const n = event.notification;
  const data = n.data || {};
  n.close();
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((tabs) => {
      for (const tab of tabs)
        tab.postMessage({
          type: "agentbar-call-action",
          page: data.page,
          callId: data.callId,
          action: event.action || "",
        });
      // Answering needs the tab (its microphone, its audio); rejecting does not.
      const tab = tabs.find((t) => t.id === tabOfPage.get(data.page)) || tabs[0];
      if (event.action !== "reject" && tab && "focus" in tab) return tab.focus().catch(() => {});
    }),
  );
});
