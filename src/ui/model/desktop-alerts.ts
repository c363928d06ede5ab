import type { ReadonlySignal } from "@preact/signals";
import type { CallActions } from "../../cc";
import type { Call, CallId } from "../../softphone";
import type { Messages } from "../i18n";
import { whoOf } from "../words/call-words";

interface Deps {
  actions: Pick<CallActions, "answer" | "reject">;
  t: ReadonlySignal<Messages>;
  enabled: () => boolean;
}

/** What the service worker posts back when a notification button is clicked. */
interface ActionMessage {
  type: "agentbar-call-action";
  page: string;
  callId: CallId;
  action: "answer" | "reject" | "";
}

/**
 * A desktop notification for a call ringing while the tab is hidden, with Answer and Reject, and one
 * while calls cannot reach the phone of a hidden tab.
 * Buttons on notifications need a service worker (`showNotification`); where there is none, a
 * plain notification brings the tab forward when clicked. Nothing is shown without permission,
 * which is only asked for from a click in the settings.
 */
export class DesktopAlerts {
  /** This page among the app's tabs: the worker's answer goes to every tab, only ours acts on it. */
  private readonly page = Math.random().toString(36).slice(2);
  private worker: Promise<ServiceWorkerRegistration | undefined> | undefined;
  private readonly shown = new Map<CallId, { close(): void }>();
  /** Numbers each notification shown: closing one (asynchronous) never takes a newer one along. */
  private shows = 0;
  private phoneShown: { text: string; close(): void } | undefined;

  constructor(private readonly deps: Deps) {
    serviceWorkers()?.addEventListener("message", (e: MessageEvent<ActionMessage>) => {
      const m = e.data;
      if (m?.type !== "agentbar-call-action" || m.page !== this.page) return;
      if (m.action === "answer")
        void deps.actions
          .answer(m.callId)
          .catch((x: unknown) => console.warn("agentbar: answering from the notification failed", x));
      else if (m.action === "reject") void deps.actions.reject(m.callId).catch(() => {});
    });
    // Made when a notification may soon be of use (a tab hidden, a call ringing in it): the
    // worker is installed now rather than when the first call rings, which it would keep waiting.
    if (currentPermission() === "granted") void this.registration();
  }

  /** From a click (browsers only ask then). */
  async requestPermission(): Promise<void> {
    if (typeof Notification === "undefined") return;
    if ((await Notification.requestPermission()) === "granted") void this.registration();
  }

  /** Shows a notification for each of these calls, closes those of the others. */
  follow(ringing: readonly Call[]): void {
    const ids = new Set(ringing.map((c) => c.id));
    for (const [id, n] of this.shown) {
      if (!ids.has(id)) {
        n.close();
        this.shown.delete(id);
      }
    }
    if (!this.deps.enabled() || currentPermission() !== "granted") return;
    for (const c of ringing) if (!this.shown.has(c.id)) void this.show(c);
  }

  /**
   * A notification that calls cannot reach this tab's phone (`text` says why and what was done);
   * null closes it. Shown at once, without the service worker: a page being frozen runs nothing
   * after its `freeze` event, so there is no waiting for the worker.
   */
  phone(text: string | null): void {
    if ((text ?? "") === (this.phoneShown?.text ?? "")) return;
    this.phoneShown?.close();
    this.phoneShown = undefined;
    if (!text || !this.deps.enabled() || currentPermission() !== "granted") return;
    try {
      const n = new Notification(this.deps.t.value.agent.phoneWatch.tabTitle, {
        body: text,
        tag: `agentbar-phone-${this.page}`,
        requireInteraction: true,
      });
      n.onclick = () => {
        window.focus();
        n.close();
      };
      this.phoneShown = { text, close: () => n.close() };
    } catch (e) {
      // Some browsers (Android) only show notifications through a service worker; the status line and the tab title still tell.
      console.warn("agentbar: desktop notification failed", e);
    }
  }

  private async show(call: Call): Promise<void> {
    const t = this.deps.t.value;
    const title = t.phone.notification.title;
    const body = t.phone.notification.body(
      whoOf(call, t) + (call.remote.name && call.remote.number ? ` (${call.remote.number})` : ""),
    );
    const tag = `agentbar-call-${this.page}-${call.id}-${++this.shows}`;
    const placeholder = { close: () => {} };
    this.shown.set(call.id, placeholder);
    const reg = await this.registration();
    if (this.shown.get(call.id) !== placeholder) return;
    try {
      if (reg) {
        await reg.showNotification(title, {
          body,
          tag,
          requireInteraction: true,
          data: { page: this.page, callId: call.id },
          actions: [
            { action: "answer", title: t.phone.answer },
            { action: "reject", title: t.phone.reject },
          ],
        } as NotificationOptions);
        this.shown.set(call.id, {
          close: () => void reg.getNotifications({ tag }).then((list) => list.forEach((n) => n.close())),
        });
      } else {
        const n = new Notification(title, { body, tag, requireInteraction: true });
        n.onclick = () => {
          window.focus();
          n.close();
        };
        this.shown.set(call.id, n);
      }
    } catch (e) {
      // Some browsers (Android) throw on `new Notification`; the ringtone and the tab title still tell.
      console.warn("agentbar: desktop notification failed", e);
    }
  }

  private registration(): Promise<ServiceWorkerRegistration | undefined> {
    const sw = serviceWorkers();
    this.worker ??= sw
      ? sw
          .register(new URL("notify-sw.js", document.baseURI))
          .then(() => sw.ready)
          .then((reg) => {
            reg.active?.postMessage({ type: "agentbar-page", page: this.page });
            return reg;
          })
          .catch((e: unknown) => {
            console.warn("agentbar: notifications without buttons (no service worker)", e);
            return undefined;
          })
      : Promise.resolve(undefined);
    return this.worker;
  }
}

function serviceWorkers(): ServiceWorkerContainer | undefined {
  return typeof navigator !== "undefined" ? navigator.serviceWorker : undefined;
}

function currentPermission(): NotificationPermission | "unsupported" {
  return typeof Notification === "undefined" ? "unsupported" : Notification.permission;
}
