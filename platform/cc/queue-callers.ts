import { randomUUID } from "node:crypto";
import type { Channel } from "../switch/types";
import { timestamp } from "../store/db";
import type { HeardReport, SimulatedParty, SimulatedWorld } from "./simulated-world";

export interface QueueCallerOptions {
  queue: string;
  callerIdNumber: string;
  callerIdName: string;
  /** The tone the caller plays, so a test can tell the agent hears it. */
  toneHz?: number;
  /** Seconds the caller waits for an agent before hanging up (abandoning). */
  patienceSeconds?: number;
  /** Keys pressed once an agent has answered. */
  dtmf?: string;
  /** Seconds after the agent answers before the keys are pressed. */
  dtmfDelaySeconds?: number;
  /** What the caller's call carries besides who calls (an IVR's input), as headers: `{"X-IVR-Account": "12345"}`. */
  data?: Readonly<Record<string, string>>;
}

export type QueueCallerState = "waiting" | "talking" | "abandoned" | "ended";

export interface QueueCallerReport {
  id: string;
  /** The caller's channel uuid (CC-Member-Session-UUID). */
  uuid: string;
  queue: string;
  callerIdNumber: string;
  callerIdName: string;
  toneHz: number | null;
  state: QueueCallerState;
  /** The agent that answered (its number), '' until one did. */
  agent: string;
  joinedAt: string;
  answeredAt: string;
  endedAt: string;
  heard: HeardReport;
}

interface QueueCaller {
  id: string;
  options: QueueCallerOptions;
  party: SimulatedParty;
  state: QueueCallerState;
  agent: string;
  joinedAt: number;
  answeredAt?: number;
  endedAt?: number;
  timers: ReturnType<typeof setTimeout>[];
}

/** How many finished callers are remembered for their reports. */
const KEEP_FINISHED = 200;

/**
 * Simulated customers sent into a queue (`/sim/queue-callers`): each calls the queue with its
 * caller id, plays its tone, gives up after its patience, presses its keys once an agent answers,
 * and reports what it heard.
 */
export class QueueCallers {
  private readonly callers = new Map<string, QueueCaller>();

  constructor(private readonly world: SimulatedWorld) {}

  async start(options: QueueCallerOptions): Promise<QueueCallerReport> {
    const party = await this.world.call({
      destination: options.queue,
      callerIdName: options.callerIdName,
      callerIdNumber: options.callerIdNumber,
      toneHz: options.toneHz,
      ...(options.data ? { data: options.data } : {}),
    });
    const caller: QueueCaller = {
      id: randomUUID(),
      options,
      party,
      state: "waiting",
      agent: "",
      joinedAt: Date.now(),
      timers: [],
    };
    this.callers.set(caller.id, caller);
    const ch = party.channel;
    ch.on("bridge", (partner: Channel) => this.bridged(caller, partner));
    ch.once("hangup", () => this.ended(caller));
    if (ch.state === "hungup") this.ended(caller);
    if (options.patienceSeconds !== undefined) {
      caller.timers.push(
        setTimeout(() => {
          if (caller.state !== "waiting") return;
          caller.state = "abandoned";
          party.hangup();
        }, options.patienceSeconds * 1000),
      );
    }
    this.forgetOld();
    return this.report(caller);
  }

  private bridged(caller: QueueCaller, partner: Channel) {
    const agent = partner.variables.get("cc_agent");
    if (!agent || caller.state !== "waiting") {
      // Bridged again later (a transfer, an intercept): note who has the caller now.
      if (agent) caller.agent = agent;
      return;
    }
    caller.state = "talking";
    caller.agent = agent;
    caller.answeredAt = Date.now();
    if (caller.options.dtmf) {
      const digits = caller.options.dtmf;
      caller.timers.push(
        setTimeout(() => caller.party.pressDtmf(digits), (caller.options.dtmfDelaySeconds ?? 1) * 1000),
      );
    }
  }

  private ended(caller: QueueCaller) {
    if (caller.endedAt) return;
    caller.endedAt = Date.now();
    if (caller.state !== "abandoned") caller.state = caller.state === "waiting" ? "abandoned" : "ended";
    for (const t of caller.timers) clearTimeout(t);
  }

  get(id: string): QueueCallerReport | undefined {
    const caller = this.callers.get(id);
    return caller ? this.report(caller) : undefined;
  }

  list(): QueueCallerReport[] {
    return [...this.callers.values()].map((c) => this.report(c));
  }

  hangup(id: string): QueueCallerReport | undefined {
    const caller = this.callers.get(id);
    if (!caller) return undefined;
    caller.party.hangup();
    this.ended(caller);
    return this.report(caller);
  }

  close(): void {
    for (const caller of this.callers.values()) {
      for (const t of caller.timers) clearTimeout(t);
      if (!caller.endedAt) caller.party.hangup();
    }
  }

  private forgetOld() {
    const finished = [...this.callers.values()].filter((c) => c.endedAt);
    for (const c of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.callers.delete(c.id);
  }

  private report(c: QueueCaller): QueueCallerReport {
    const at = (ms?: number) => (ms ? timestamp(new Date(ms)) : "");
    return {
      id: c.id,
      uuid: c.party.channel.uuid,
      queue: c.options.queue,
      callerIdNumber: c.options.callerIdNumber,
      callerIdName: c.options.callerIdName,
      toneHz: c.options.toneHz ?? null,
      state: c.state,
      agent: c.agent,
      joinedAt: at(c.joinedAt),
      answeredAt: at(c.answeredAt),
      endedAt: at(c.endedAt),
      heard: c.party.heard(),
    };
  }
}
