import { defaultOptions } from "../../config";
import { openDatabase, type Db } from "../../store/db";
import { readDemoData, seedDemoData } from "../../demo-data";
import { parseAgentInfo } from "../../store/users";
import { CallCenter } from "../call-center";
import { CallControlEngine, type CallControlEngineOptions } from "../call-control";
import { ccCaller, type CcCaller } from "../cc-caller";
import { CcService } from "../cc-functions";
import type { CcEvent } from "../cc-event";
import { CallCenterDirectory } from "../directory";
import type { FakeChannel } from "./fake-switch";
import { FakeSwitch } from "./fake-switch";

/**
 * A call center on the demo data (support: 1001, 1002 at level 1 and 1003 at level 2,
 * longest-idle-agent; sales: 1002 and 1004, ring-all) with a fake switch, for unit tests.
 */
export class CallCenterFixture {
  readonly db: Db;
  readonly sw = new FakeSwitch();
  readonly directory: CallCenterDirectory;
  readonly cc: CallCenter;
  readonly control: CallControlEngine;
  readonly service: CcService;
  readonly events: CcEvent[] = [];

  constructor(options?: CallControlEngineOptions) {
    this.db = openDatabase(":memory:", (fresh) => seedDemoData(fresh, readDemoData(defaultOptions.demoFile))).db;
    this.directory = new CallCenterDirectory(this.db);
    for (const extn of ["1001", "1002", "1003", "1004", "1010"]) this.sw.registered.add(extn);
    this.cc = new CallCenter(this.directory, this.sw);
    this.control = new CallControlEngine(this.cc, this.sw, options);
    this.service = new CcService(this.cc, this.control, this.sw);
    this.cc.events.on("event", (e) => this.events.push(e));
  }

  /** A demo user as a caller of the call-center functions. */
  caller(login: string): CcCaller {
    const id = (this.db.prepare("SELECT id FROM users WHERE login = ?").get(login) as { id: number }).id;
    return ccCaller(this.directory.user(id)!, this.directory);
  }

  /** Runs a call-center function as a demo user. */
  run(login: string, func: string, body: unknown) {
    return this.service.run(func, body, this.caller(login));
  }

  /** A queue call answered by an agent: [customer, agent leg]. */
  async answeredCall(queue: string, extn: string): Promise<[FakeChannel, FakeChannel]> {
    const customer = await this.customer(queue);
    const leg = this.ringingAt(extn);
    leg.remoteAnswer();
    await settle();
    return [customer, leg];
  }

  close() {
    this.cc.close();
    this.db.close();
  }

  /** Changes an agent's agent_info settings, as PUT /api/users would. */
  setAgentInfo(extn: string, changes: Record<string, string>) {
    const row = this.db.prepare("SELECT id, agent_info FROM users WHERE extn = ?").get(extn) as {
      id: number;
      agent_info: string;
    };
    this.db
      .prepare("UPDATE users SET agent_info = ? WHERE id = ?")
      .run(JSON.stringify({ ...parseAgentInfo(row.agent_info), ...changes }), row.id);
  }

  agentInfo(extn: string): Record<string, unknown> {
    const row = this.db.prepare("SELECT agent_info FROM users WHERE extn = ?").get(extn) as { agent_info: string };
    return parseAgentInfo(row.agent_info);
  }

  /** Signs an agent in and makes it Available. */
  ready(extn: string, status: "Available" | "Available (On Demand)" = "Available") {
    const agent = this.cc.agent(extn)!;
    this.cc.signIn(agent, extn, this.directory.queuesOf(extn)[0] ?? "");
    this.cc.setStatus(agent, status);
    return agent;
  }

  /** A customer calls a queue. */
  async customer(queue: string, name = "Carla Customer", number = "5550100"): Promise<FakeChannel> {
    const ch = await this.sw.dial(queue, { name, number });
    await settle();
    return ch;
  }

  /** Live legs ringing at an extension. */
  ringing(extn: string): FakeChannel[] {
    return this.sw.all.filter((c) => c.extension === extn && c.direction === "outbound" && c.state === "ringing");
  }

  /** The one leg ringing at an extension; fails when there is none or more than one. */
  ringingAt(extn: string): FakeChannel {
    const legs = this.ringing(extn);
    if (legs.length !== 1) throw new Error(`expected one leg ringing at ${extn}, found ${legs.length}`);
    return legs[0]!;
  }

  /** Events since the last call, as "action agent/queue value" lines that read like a log. */
  take(): string[] {
    const out = this.events.splice(0).map(describe);
    return out;
  }
}

/** Lets queued dispatch passes and other microtasks run. */
export async function settle() {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

export function describe(e: CcEvent): string {
  const a = e["CC-Action"];
  switch (a) {
    case "agent-status-change":
      return `${a} ${e["CC-Agent"]} ${e["CC-Agent-Status"]}${e["CC-Agent-Break-Reason"] ? ` (${e["CC-Agent-Break-Reason"]})` : ""}`;
    case "agent-state-change":
      return `${a} ${e["CC-Agent"]} ${e["CC-Agent-State"]}`;
    case "members-count":
      return `${a} ${e["CC-Queue"]} ${e["CC-Count"]}`;
    case "member-queue-start":
      return `${a} ${e["CC-Queue"]}`;
    case "member-queue-end":
      return `${a} ${e["CC-Queue"]} ${e["CC-Cause"]}${e["CC-Cancel-Reason"] ? ` ${e["CC-Cancel-Reason"]}` : ""}`;
    case "bridge-agent-fail":
    case "bridge-agent-end":
      return `${a} ${e["CC-Agent"]} ${e["CC-Hangup-Cause"]}`;
    case "agent-supervision":
      return `${a} ${e["CC-Agent"]} ${e["CC-Supervision-Mode"]} by ${e["CC-Supervisor"]}`;
    case "agent-max-no-answer":
      return `${a} ${e["CC-Agent"]} ${e["CC-Agent-No-Answer-Count"]}`;
    default:
      return `${a} ${e["CC-Agent"]}`;
  }
}
