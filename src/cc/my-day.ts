import { readJson, type KeyValueStorage } from "../session";
import { conversationsOf } from "../session/conversations";
import type { Call } from "../softphone";
import type { AgentContext } from "./agent-context";
import type { AgentState, MyDay, StatusTime } from "./agent-state";
import { platformDay, readDayRecords } from "./day-records";

export const MY_DAY_KEY = "agentbar.my-day";
/** The platform writes a call's records as its legs end: the day is read again this long after a call ends. */
export const MY_DAY_REREAD_MS = 1500;

/** Local midnight of the day that holds `at`. */
const midnightOf = (at: number) => {
  const d = new Date(at);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
};

function keptDay(raw: unknown, from: number): Pick<MyDay, "statusFrom" | "statusTimes" | "current"> | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const r = raw as Partial<MyDay>;
  if (r.statusFrom !== from || !Array.isArray(r.statusTimes)) return undefined;
  const times = r.statusTimes.filter(
    (s): s is StatusTime =>
      !!s && typeof s.status === "string" && typeof s.reason === "string" && Number.isFinite(s.ms),
  );
  const c = r.current;
  const current =
    c && typeof c.status === "string" && typeof c.reason === "string" && Number.isFinite(c.since) ? c : null;
  return { statusFrom: from, statusTimes: times, current };
}

/**
 * The agent's own day, since local midnight: the calls handled and their mean handle time, from
 * the platform's call records of the day (`readDayRecords`, as the supervisor's board reads them;
 * read at the start and again after each call), and the time in each status (breaks with their
 * reasons), which the platform keeps no history of: this browser adds up the statuses it sees
 * (kept in localStorage per agent, so a reload goes on counting; the time before the first status
 * seen today is not known, and `statusFrom` says from when it is).
 */
export function createMyDay(o: { ctx: AgentContext; deviceStorage: KeyValueStorage; rereadMs?: number }) {
  const { ctx, deviceStorage } = o;
  const { store, now } = ctx;
  const rereadMs = o.rereadMs ?? MY_DAY_REREAD_MS;
  let key: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let reading = 0;

  const set = (p: Partial<MyDay>) => {
    const day = { ...store.getState().day, ...p };
    store.setState({ day });
    if (key) {
      const { statusFrom, statusTimes, current } = day;
      deviceStorage.setItem(key, JSON.stringify({ statusFrom, statusTimes, current }));
    }
  };

  /** The statuses of the day: the one that ended is added up, the new one starts. */
  const onAgent = (agent: AgentState["agent"]) => {
    if (!key || !agent?.status) return;
    const day = store.getState().day;
    const at = now();
    const from = midnightOf(at);
    if (day.statusFrom !== from) {
      // A new day (or the first status seen): the count starts afresh.
      set({ statusFrom: from, statusTimes: [], current: null });
      return onAgent(agent);
    }
    const c = day.current;
    if (c && c.status === agent.status && c.reason === agent.reason) return;
    const since = Math.max(from, Math.min(agent.since || at, at));
    let statusTimes = day.statusTimes;
    if (c) {
      const ms = Math.max(0, since - Math.max(from, c.since));
      const i = statusTimes.findIndex((s) => s.status === c.status && s.reason === c.reason);
      statusTimes =
        i < 0
          ? [...statusTimes, { status: c.status, reason: c.reason, ms }]
          : statusTimes.map((s, k) => (k === i ? { ...s, ms: s.ms + ms } : s));
    }
    set({ statusTimes, current: { status: agent.status, reason: agent.reason, since } });
  };

  const readCalls = async () => {
    const client = ctx.client;
    const me = ctx.user?.extension ?? "";
    if (!client || !me) return;
    const mine = ++reading;
    const run = ctx.run;
    const { startDate, endDate } = platformDay(now(), null);
    try {
      const records = await readDayRecords(client, { startDate, endDate });
      if (mine !== reading || run !== ctx.run) return;
      // Every answered call, as the supervisor's board counts them: one answered and hung up
      // within half a second has a billsec of 0 and was handled all the same.
      const handled = conversationsOf(records, me).filter((c) => c.answeredAt !== null);
      set({
        records: "ready",
        calls: handled.length,
        handleSec: handled.length ? handled.reduce((sum, c) => sum + c.talkSec, 0) / handled.length : null,
      });
    } catch (e) {
      if (mine !== reading || run !== ctx.run) return;
      console.warn("agentbar: today's call records could not be read", e);
      set({ records: "unavailable" });
    }
  };

  let unsubscribe: (() => void) | undefined;
  return {
    begin(agent: string) {
      key = `${MY_DAY_KEY}.${agent}`;
      const kept = keptDay(readJson(deviceStorage, key), midnightOf(now()));
      store.setState({ day: { ...store.getState().day, ...(kept ?? {}), records: "loading" } });
      unsubscribe = store.subscribe((s, before) => {
        if (s.agent !== before.agent) onAgent(s.agent);
      });
      onAgent(store.getState().agent);
      void readCalls();
    },
    /** A call that ended: its records come a moment later. */
    onCalls(calls: readonly Call[], before: readonly Call[]) {
      if (!key) return;
      const ended = calls.some((c) => c.state === "ended" && before.find((b) => b.id === c.id)?.state !== "ended");
      if (!ended) return;
      clearTimeout(timer);
      timer = setTimeout(() => void readCalls(), rereadMs);
    },
    stop() {
      key = undefined;
      clearTimeout(timer);
      unsubscribe?.();
      unsubscribe = undefined;
      reading++;
    },
  };
}
