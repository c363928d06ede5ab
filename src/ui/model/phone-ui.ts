import { computed, effect, signal, type ReadonlySignal } from "@preact/signals";
import {
  answeredAutomatically,
  callViewOf,
  isCallCenterCall,
  type AgentActions,
  type AgentSession,
  type CallView,
} from "../../cc";
import type { PhoneOwnerState, PhoneSession, PhoneSessionState, SettingsState } from "../../session";
import type { Call, CallsState, Phone, PhoneState } from "../../softphone";
import { withEnglishPanels, type Language, type Messages } from "../i18n";
import { phoneWatchText } from "../words/agent-words";
import { displayTarget, stateText, whoOf } from "../words/call-words";
import { noticeText, reasonText } from "../words/phone-words";
import type { DesktopAlerts } from "./desktop-alerts";
import { shallowEqual, storeSignal } from "./store-signal";
import { toneFor } from "./tone-choice";
import { TonePlayer } from "./tones";

/** A call's quality in words, and the English they read. */
const qualityWords = () => withEnglishPanels(import("../words/quality-words"));

/** What the phone's components see: the phone's stores as signals, its sounds and alerts. */
export interface PhoneUi {
  phone: Phone;
  session: PhoneSession;
  /** What can be done with calls: the agent session chooses the platform or the phone for each. */
  actions: AgentActions;
  /** A call as the card shows it: its call-center view and the controls it has now. */
  view(call: Call): CallView;
  state: ReadonlySignal<PhoneState>;
  calls: ReadonlySignal<CallsState>;
  sessionState: ReadonlySignal<PhoneSessionState>;
  /** Which tab of this browser has the agent's phone. */
  tabs: ReadonlySignal<PhoneOwnerState>;
  /** Live calls, oldest first. */
  live: ReadonlySignal<readonly Call[]>;
  /** Wall clock, ticking each second: call timers and "next attempt at" read it. */
  now: ReadonlySignal<number>;
  tones: TonePlayer;
  alerts: Alerts;
  /** Text to put in the dial pad (Call back from the history fills it). */
  dialText: ReturnType<typeof signal<string>>;
  /** From a click: lets the browser play sound (ringtone and call audio). */
  enableSound(): void;
  testRinger(): void;
  /** Plays a test sound on the chosen speaker (the calls' output). */
  testSpeaker(): void;
  /** Time of day in the UI language. */
  time(ms: number): string;
}

export interface PhoneUiDeps {
  session: PhoneSession;
  agent: AgentSession;
  settings: ReadonlySignal<SettingsState>;
  t: ReadonlySignal<Messages>;
  language: ReadonlySignal<Language>;
  announce(text: string): void;
  /** The page, for gestures, title and favicon; absent in unit tests. */
  document?: Document;
}

export function createPhoneUi(deps: PhoneUiDeps): PhoneUi {
  const { phone } = deps.session;
  const state = storeSignal(phone.phoneStore);
  const calls = storeSignal(phone.callsStore);
  const sessionState = storeSignal(deps.session.store);
  const tabs = storeSignal(deps.session.owner.store);
  const live = computed(() => calls.value.calls.filter((c) => c.state !== "ended"));
  // What the calls' views read of the agent: a status change elsewhere does not redraw the cards.
  const ccState = storeSignal(
    deps.agent.store,
    (s) => ({ platformCall: s.platformCall, agent: s.agent, supervised: s.supervised }),
    shallowEqual,
  );
  const now = signal(Date.now());
  const tones = new TonePlayer();
  const doc = deps.document;
  const time = (ms: number) => new Intl.DateTimeFormat(deps.language.value, { timeStyle: "medium" }).format(ms);

  // Timers on cards and the chip; a second is the finest they show.
  setInterval(() => (now.value = Date.now()), 1000);

  // Several things can change at once (answering call waiting holds the other call): one
  // announcement says them all.
  let pending: string[] = [];
  const say = (text: string) => {
    if (pending.push(text) === 1)
      queueMicrotask(() => {
        deps.announce(pending.join(" "));
        pending = [];
      });
  };

  const ui: PhoneUi = {
    phone,
    session: deps.session,
    actions: deps.agent.actions,
    view: (call) => callViewOf(call, ccState.value, calls.value.calls),
    state,
    calls,
    sessionState,
    tabs,
    live,
    now,
    tones,
    alerts: lazyAlerts(() =>
      withEnglishPanels(import("./desktop-alerts")).then(
        (m) =>
          new m.DesktopAlerts({
            actions: deps.agent.actions,
            t: deps.t,
            enabled: () => deps.settings.value.desktopAlerts,
          }),
      ),
    ),
    dialText: signal(""),
    enableSound() {
      tones.unlock();
      phone.resumeAudio();
      for (const n of phone.phoneStore.getState().notices) if (n.kind === "audio-blocked") phone.dismissNotice(n.id);
    },
    testRinger() {
      const stop = tones.play("ring", "ringer");
      setTimeout(stop, 3000);
    },
    testSpeaker() {
      const stop = tones.play("ringback", "speaker");
      setTimeout(stop, 2000);
    },
    time,
  };

  // Sound is unlocked by the first gesture anywhere on the page, as browsers require.
  if (doc) {
    const unlock = () => ui.enableSound();
    doc.addEventListener("pointerdown", unlock, { capture: true, once: true });
    doc.addEventListener("keydown", unlock, { capture: true, once: true });
  }

  // Tones follow the device choice: the ringer and the speaker can be different outputs.
  effect(() => {
    const sel = state.value.devices.selected;
    tones.setSink("ringer", sel.ringer);
    tones.setSink("speaker", sel.speaker);
  });
  effect(() => {
    if (sessionState.value.status === "on") tones.probe();
  });

  // The one tone the calls ask for, started and stopped as they change.
  let playing: { key: string; stop: () => void } | undefined;
  effect(() => {
    const want = toneFor(live.value);
    const key = want?.join(":") ?? "";
    if (playing?.key === key) return;
    playing?.stop();
    playing = want ? { key, stop: tones.play(want[0], want[1]) } : undefined;
  });

  phone.on("auto-answer", () => void tones.play("cue", "speaker"));
  phone.on("notice", (n) => say(noticeText(n, deps.t.value)));

  phone.phoneStore.subscribe((s, prev) => {
    const r = s.registration;
    const p = prev.registration;
    if (r.status === p.status) return;
    const a = deps.t.value.phone.announce;
    if (r.status === "registered") say(a.registered);
    // Announced when the connection is lost, not at every attempt after that.
    else if (r.status === "reconnecting" && (p.status === "registered" || p.status === "stopped"))
      say(a.reconnecting(time(r.nextAttemptAt)));
    else if (r.status === "failed") say(a.failed(reasonText(r.error, deps.t.value)));
  });

  phone.callsStore.subscribe((s, prev) => {
    const t = deps.t.value;
    for (const c of s.calls) {
      const before = prev.calls.find((o) => o.id === c.id);
      announceChange(c, before, t, say);
      // A call's quality comes once it is answered (the watchdog's code loads then), and its words with it.
      if (c.quality && c.quality !== before?.quality)
        void qualityWords().then(
          (m) => m.announceQuality(c, before, deps.t.value, say),
          (e: unknown) => console.warn("agentbar: could not load a part of the page", e),
        );
    }
  });

  // Whether calls can reach this tab's phone, as the agent session's watch tells (phone-watch.ts).
  const phoneWatch = storeSignal(
    deps.agent.store,
    (s) => ({ phoneWatch: s.phoneWatch, agent: s.agent, pending: s.pending }),
    shallowEqual,
  );

  // The tab's title and icon show a ringing call; the title, a muted call and a phone calls cannot reach.
  if (doc) {
    const title = doc.title;
    const icon = doc.querySelector<HTMLLinkElement>("link[rel=icon]");
    const iconHref = icon?.href ?? "";
    effect(() => {
      const ringing = live.value.find((c) => c.direction === "inbound" && c.state === "ringing");
      const muted = live.value.some((c) => c.muted && c.state !== "ringing");
      const t = deps.t.value;
      const base = muted ? `${t.phone.tabMuted} · ${title}` : title;
      doc.title = ringing
        ? `${t.phone.tabRinging(whoOf(ringing, t))} · ${base}`
        : phoneWatch.value.phoneWatch.trouble
          ? `${t.agent.phoneWatch.tabTitle} · ${base}`
          : base;
      if (icon) icon.href = ringing ? RINGING_ICON : iconHref;
    });
  }
  // A desktop notification for each call ringing while the tab is hidden, and one while calls
  // cannot reach its phone: decided again when they change and when the tab is hidden or shown
  // (a call may already be ringing then).
  const hidden = signal(doc?.visibilityState === "hidden");
  doc?.addEventListener("visibilitychange", () => (hidden.value = doc.visibilityState === "hidden"));
  effect(() =>
    ui.alerts.follow(
      hidden.value ? live.value.filter((c) => c.direction === "inbound" && c.state === "ringing" && !c.autoAnswer) : [],
    ),
  );
  effect(() => {
    const w = phoneWatch.value;
    // The phone's own tab notifies; a tab that shows another tab's phone does not say it twice.
    ui.alerts.phone(
      hidden.value && w.phoneWatch.trouble && !w.phoneWatch.elsewhere ? phoneWatchText(w, deps.t.value) : null,
      hidden.value,
    );
  });
  return ui;
}

function announceChange(c: Call, o: Call | undefined, t: Messages, say: (text: string) => void): void {
  const a = t.phone.announce;
  const who = whoOf(c, t);
  const platformHeld = isCallCenterCall(c);
  if (!o) {
    if (c.state === "ringing") say(answeredAutomatically(c) ? a.autoAnswer(who) : a.incoming(who));
    else if (c.direction === "outbound") say(a.calling(who));
    return;
  }
  if (c.state !== o.state) {
    const wasAnswered = o.state === "active" || o.state === "held" || o.state === "remote-held";
    if (c.state === "early" && o.state === "dialing") say(a.ringing(who));
    else if (c.state === "ended") say(a.ended(who, stateText(c, t, false)));
    // The platform holds a call-center call by holding the agent's leg: it is the agent's hold.
    else if (c.state === "held" || (c.state === "remote-held" && platformHeld)) say(a.held(who));
    else if (o.state === "held" || (o.state === "remote-held" && platformHeld)) say(a.resumed(who));
    else if (c.state === "remote-held") say(a.remoteHeld(who));
    else if (o.state === "remote-held") say(a.remoteResumed(who));
    else if (c.state === "active" && !wasAnswered) {
      say(answeredAutomatically(c) ? a.autoConnected(who) : a.connected(who));
      // A call given back muted (after a reload) says so at once: the agent may not remember.
      if (c.muted) say(a.muted);
    }
  }
  if (c.muted !== o.muted && c.state !== "ended") say(c.muted ? a.muted : a.unmuted);
  const tr = c.transfer;
  if (tr && tr.state !== o.transfer?.state && tr.state !== "accepted")
    say(t.phone.transferState[tr.state](displayTarget(tr.target)));
  const rr = c.referRequest;
  if (rr?.state === "pending" && o.referRequest?.state !== "pending") say(t.phone.referAsk(displayTarget(rr.target)));
}

export type AlertPermission = NotificationPermission | "unsupported";

/** Desktop notifications, as the rest of the phone sees them. */
export interface Alerts {
  permission: ReadonlySignal<AlertPermission>;
  /** From a click (browsers only ask then). */
  requestPermission(): Promise<void>;
  /** The calls ringing while the tab is hidden: notifications for them, none for the others. */
  follow(ringing: readonly Call[]): void;
  /** Why calls cannot reach the phone of this hidden tab (null: they can, or the tab is shown); `hidden`: the tab is, so the notification must be ready to show at once. */
  phone(text: string | null, hidden: boolean): void;
}

const notificationPermission = (): AlertPermission =>
  typeof Notification === "undefined" ? "unsupported" : Notification.permission;
const navigator = globalThis.navigator as Navigator | undefined;

/**
 * The notification code (and its service worker) is fetched only once it can be of use: when
 * permission is asked for, a call rings in a hidden tab, or a tab is hidden (its phone may become
 * unreachable), with permission granted.
 */
function lazyAlerts(load: () => Promise<DesktopAlerts>): Alerts {
  const permission = signal(notificationPermission());
  // The permission can also change in the browser's site settings.
  void navigator?.permissions
    ?.query({ name: "notifications" })
    .then((status) => status.addEventListener("change", () => (permission.value = notificationPermission())))
    .catch(() => {});
  let alerts: Promise<DesktopAlerts> | undefined;
  let loaded: DesktopAlerts | undefined;
  /** What to show once loaded: the tab may be shown again (or the call answered) meanwhile. */
  let latest: readonly Call[] = [];
  let latestPhone: string | null = null;
  const get = () => (alerts ??= load().then((a) => (loaded = a)));
  return {
    permission,
    async requestPermission() {
      if (permission.value === "unsupported") return;
      await (await get()).requestPermission();
      permission.value = notificationPermission();
    },
    follow(ringing) {
      latest = ringing;
      if (loaded) return loaded.follow(ringing);
      permission.value = notificationPermission();
      if (ringing.length && permission.value === "granted") void get().then((a) => a.follow(latest));
    },
    phone(text, hidden) {
      latestPhone = text;
      if (loaded) return loaded.phone(text);
      permission.value = notificationPermission();
      // Loaded as soon as the tab is hidden: a page the browser freezes has no time to load it then.
      if (hidden && permission.value === "granted") void get().then((a) => a.phone(latestPhone));
    },
  };
}

/** The favicon with a red dot: a ringing call shows in the tab strip. */
const RINGING_ICON =
  "data:image/svg+xml," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#1d5fd1"/><circle cx="16" cy="16" r="7" fill="#fff"/><circle cx="25" cy="7" r="6" fill="#d92d20" stroke="#fff" stroke-width="2"/></svg>',
  );
