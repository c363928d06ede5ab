import type { PlatformClient } from "../api";
import { cc, type AgentStateCall } from "../api/cc";
import type { Dialer } from "../session";
import { isLive, parseDialInput, type Call } from "../softphone";
import type { AgentContext } from "./agent-context";
import { track, type DialFailure } from "./agent-state";
import { statusKind } from "./agent-status";
import type { AgentSync } from "./agent-sync";
import { CC, ccLabelsOf } from "./queue-calls";

/** How long a click-to-dial waits for the platform's leg to reach the phone. */
export const DIAL_WAIT_MS = 30_000;

/**
 * Calls placed through the call center (ccDial): the platform rings the agent's phone first (its
 * leg answers by itself), then the number. Until the phone rings the store's `dialling` shows the
 * call with Cancel, and why it failed if the phone never rings; then the call's own card takes over.
 */
export interface ClickToDial {
  dial(number: string): Promise<void>;
  /**
   * Ends a click-to-dial before the phone rings (ccKill of the platform's leg; before ccDial has
   * answered, whatever it brings is ended), or puts its failure away.
   */
  cancel(): Promise<void>;
  /** The dial pad's numbers go through the call center while the agent works in it (the setting allowing). */
  dialer: Dialer;
  /** Whether a leg reaching the phone (its call-center labels) is a cancelled click-to-dial's, to be declined. */
  turnsAway(context: Readonly<Record<string, string>> | undefined): boolean;
  /** A read of agent_state showed this call (when asked for at `askedAt`): the leg may have gone before the phone rang. */
  follow(platformCall: AgentStateCall | null, askedAt: number): void;
  /** The phone's calls changed: once the leg rings, the call's card takes over. */
  onCalls(calls: readonly Call[]): void;
  stop(): void;
}

export function createClickToDial({ ctx, sync }: { ctx: AgentContext; sync: AgentSync }): ClickToDial {
  const { store, now } = ctx;
  let noRingTimer: ReturnType<typeof setTimeout> | undefined;

  /** A click-to-dial that failed before the phone rang says why; a leg the platform still rings is ended. */
  const failed = (failure: DialFailure) => {
    const d = store.getState().dialling;
    if (!d) return;
    store.setState({ dialling: { ...d, failed: failure } });
    const client = ctx.client;
    if (failure === "no-ring" && d.callId && client) {
      void cc
        .kill(client, { destUUID: d.callId })
        .catch((e: unknown) => console.info("agentbar: ending a click-to-dial that never rang failed", e));
    }
  };

  /** Removes `at` from the click-to-dials cancelled under way; whether it was there. */
  const takeCancelled = (at: number): boolean => {
    const { cancelledDials } = store.getState().tracking;
    if (!cancelledDials.includes(at)) return false;
    track(store, { cancelledDials: cancelledDials.filter((x) => x !== at) });
    return true;
  };

  /** The leg of a click-to-dial cancelled before ccDial answered is ended, unless the phone turned it away already. */
  const endCancelledLeg = (client: PlatformClient, callId: string | undefined) => {
    const { cancelledLegs } = store.getState().tracking;
    if (!callId || cancelledLegs.includes(callId)) return;
    track(store, { cancelledLegs: [...cancelledLegs, callId] });
    void cc
      .kill(client, { destUUID: callId })
      .catch((e: unknown) => console.info("agentbar: ending a cancelled click-to-dial failed", e));
  };

  const dial = async (number: string): Promise<void> => {
    const client = ctx.requireClient("dial");
    const myRun = ctx.run;
    const at = now();
    track(store, { dialSeenAt: 0 });
    store.setState({ error: null, dialling: { number, callId: "", at, failed: null } });
    clearTimeout(noRingTimer);
    noRingTimer = setTimeout(() => {
      const d = store.getState().dialling;
      if (d?.at === at && !d.failed) failed("no-ring");
    }, DIAL_WAIT_MS);
    try {
      const { callID } = await cc.dial(client, {
        agent: store.getState().number,
        extn: ctx.user?.extension ?? store.getState().number,
        destNumber: number,
      });
      if (myRun !== ctx.run) return;
      if (takeCancelled(at)) return endCancelledLeg(client, callID);
      // The platform's leg may reach the phone before its answer does: then the call card has taken over.
      const d = store.getState().dialling;
      if (d?.at === at && callID) store.setState({ dialling: { ...d, callId: callID } });
      sync.schedulePoll(0);
    } catch (e) {
      // Cancelled meanwhile: nothing was dialled, as the agent wanted.
      if (takeCancelled(at)) return;
      if (store.getState().dialling?.at === at) store.setState({ dialling: null });
      throw ctx.fail("dial", e);
    }
  };

  return {
    dial,
    async cancel() {
      const d = store.getState().dialling;
      if (!d) return;
      store.setState({ dialling: null });
      if (d.failed) return;
      // The platform has not said which leg it rings yet: the request's outcome is ended when it comes.
      if (!d.callId) {
        track(store, { cancelledDials: [...store.getState().tracking.cancelledDials, d.at] });
        return;
      }
      const client = ctx.requireClient("cancel-dial");
      try {
        await cc.kill(client, { destUUID: d.callId });
      } catch (e) {
        throw ctx.fail("cancel-dial", e);
      }
    },
    async dialer(input) {
      const s = store.getState();
      if (
        ctx.settings.getState().outboundCalls !== "call-center" ||
        s.phase !== "on" ||
        statusKind(s.agent?.status ?? "") === "logged-out"
      )
        return false;
      const parsed = parseDialInput(input);
      if (!parsed.ok || parsed.target.kind !== "number") return false;
      await dial(parsed.target.number);
      return true;
    },
    turnsAway(context) {
      // A known leg, or a click-to-dial leg arriving while a cancelled ccDial has not answered and
      // no other click-to-dial waits for its own leg (the leg may come before the answer).
      if (context?.[CC.action] !== "dial") return false;
      const leg = context[CC.callId] ?? "";
      const { cancelledLegs, cancelledDials } = store.getState().tracking;
      if (cancelledLegs.includes(leg)) return true;
      const d = store.getState().dialling;
      const otherWaiting = !!d && !d.failed && !d.callId;
      if (!cancelledDials.length || otherWaiting) return false;
      if (leg) track(store, { cancelledLegs: [...cancelledLegs, leg] });
      return true;
    },
    follow(platformCall, askedAt) {
      const d = store.getState().dialling;
      // ccDial named no leg (the spec shows none): agent_state's agent_uuid, read after the dial, is its leg.
      if (d && !d.callId && !d.failed && platformCall?.uuid && !platformCall.kind && askedAt >= d.at) {
        store.setState({ dialling: { ...d, callId: platformCall.uuid } });
        return;
      }
      if (!d?.callId || d.failed) return;
      const { dialSeenAt } = store.getState().tracking;
      if (platformCall?.uuid === d.callId) track(store, { dialSeenAt: Math.max(dialSeenAt, askedAt) });
      else if (dialSeenAt && askedAt > dialSeenAt) failed("ended");
    },
    onCalls(calls) {
      if (store.getState().dialling && calls.some((c) => isLive(c) && ccLabelsOf(c)?.action === "dial"))
        store.setState({ dialling: null });
    },
    stop() {
      clearTimeout(noRingTimer);
    },
  };
}
