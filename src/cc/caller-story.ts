import { listCdrs } from "../api/cdrs";
import type { KeyValueStorage } from "../session";
import { conversationsOf } from "../session/conversations";
import type { Call } from "../softphone";
import type { AgentContext } from "./agent-context";
import type { CallerStory } from "./agent-state";
import { PARTY } from "./cc-call";
import { CC, conversationOf } from "./queue-calls";
import { dispositionFor } from "./wrap-up-storage";

/** After this long without the platform's answer the card says the earlier calls are slow to come. */
export const STORY_SLOW_MS = 1500;
/** Records read for a caller: the newest page (its count is the platform's `rowCount` all the same). */
const STORY_RECORDS = 50;

/** Calls a caller's story is read for: calls that came in, not the call center's own legs for the agent. */
const OWN_LEGS = new Set(["dial", "consult", "monitor", "intercept", "three-way"]);

function numberOf(call: Call): string {
  if (call.direction !== "inbound" || OWN_LEGS.has(call.context[CC.action] ?? "")) return "";
  return call.context[PARTY.number] || call.remote.number;
}

/**
 * The caller's story: when a call rings, the number's earlier calls are read at once from the
 * platform's call records (`GET /api/cdrs?cidNumber=`, the spec's filter), while the card shows
 * without waiting for them: how many earlier conversations, the last one's time and whether it was
 * answered, and the outcome and notes kept after it (wrap-up-storage.ts). Only what the platform
 * shows this agent is told: a kept outcome is shown only for a conversation whose record the
 * platform gave back. The story is kept in the store by call, for the card and the agent's other
 * tabs, and goes with the call.
 */
export function createCallerStories(o: { ctx: AgentContext; deviceStorage: KeyValueStorage; slowMs?: number }) {
  const { ctx, deviceStorage } = o;
  const { store } = ctx;
  const slowMs = o.slowMs ?? STORY_SLOW_MS;
  const timers = new Map<string, ReturnType<typeof setTimeout>>();

  const patch = (callId: string, run: number, p: Partial<CallerStory>) => {
    const s = store.getState().callerStories;
    if (run !== ctx.run || !s[callId]) return;
    store.setState({ callerStories: { ...s, [callId]: { ...s[callId]!, ...p } } });
  };

  const read = async (call: Call, number: string) => {
    const client = ctx.client;
    const run = ctx.run;
    const me = ctx.user?.extension ?? "";
    store.setState({
      callerStories: {
        ...store.getState().callerStories,
        [call.id]: { number, status: "loading", count: 0, more: false, last: null },
      },
    });
    if (!client) return patch(call.id, run, { status: "unavailable" });
    timers.set(
      call.id,
      setTimeout(() => {
        if (store.getState().callerStories[call.id]?.status === "loading") patch(call.id, run, { status: "slow" });
      }, slowMs),
    );
    // This very conversation (a leg taken back after a reload has records already) is not an earlier one.
    const current = new Set([conversationOf(call), call.context[CC.customerUuid], call.context[CC.callId]]);
    try {
      const page = await listCdrs(client, { callerNumber: number, perPage: STORY_RECORDS });
      const earlier = conversationsOf(
        page.data.filter((r) => r.callerNumber === number),
        me,
      ).filter((c) => c.direction === "incoming" && c.number === number && !c.uuids.some((u) => current.has(u)));
      const last = earlier[0];
      const kept = last ? last.uuids.map((u) => dispositionFor(deviceStorage, u)).find(Boolean) : undefined;
      patch(call.id, run, {
        status: "ready",
        count: earlier.length,
        // A full page may not hold every earlier call.
        more: page.data.length >= STORY_RECORDS && page.pageCount > 1,
        last: last
          ? {
              at: last.startedAt ?? 0,
              answered: last.answeredAt !== null,
              disposition: kept?.disposition ?? "",
              notes: kept?.notes ?? "",
            }
          : null,
      });
    } catch (e) {
      console.warn("agentbar: the caller's earlier calls could not be read", e);
      patch(call.id, run, { status: "unavailable" });
    } finally {
      clearTimeout(timers.get(call.id));
      timers.delete(call.id);
    }
  };

  return {
    /** Reads the story of each call that starts ringing; drops the stories of calls gone. */
    onCalls(calls: readonly Call[]) {
      const stories = store.getState().callerStories;
      for (const call of calls) {
        if (stories[call.id] || call.state === "ended") continue;
        const number = numberOf(call);
        if (number) void read(call, number);
      }
      const ids = new Set(calls.map((c) => c.id));
      const gone = Object.keys(stories).filter((id) => !ids.has(id));
      if (gone.length) {
        const kept = { ...store.getState().callerStories };
        for (const id of gone) delete kept[id];
        store.setState({ callerStories: kept });
      }
    },
    stop() {
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
    },
  };
}
