import type { AgentStateCall } from "../../api/cc";
import type { CallCenterEventData } from "../agent-status";
import type { EventConnector } from "../event-feed";
import { json, type Route } from "../../session/test-support/fake-platform";

/**
 * A scripted call center for unit tests of the agent session: one agent's status, state and
 * call behind the platform's `/api/cc` shapes, and an event feed the test opens and feeds.
 */
export class FakeCallCenter {
  status = "On Break";
  reason = "";
  state = "Waiting";
  callstate = "IDLE";
  call: AgentStateCall | null = null;
  /** A supervisor on the call, as a platform that tells agents lists it; undefined: the platform does not say. */
  supervision: { mode: string; by: string; by_name: string } | null | undefined;
  /** When the status last changed here, ms since epoch. */
  statusChangedAt = Date.now();
  /**
   * How far this platform's local time is from the browser's, ms: a platform in another time zone
   * writes its zone-less times (status_since) this far off.
   */
  zoneShiftMs = 0;
  /** Rows as XSwitch writes them: `state` (READY, UNREADY, LOGOUT) without mod_callcenter's status or a break reason. */
  onlyState = false;
  /** Whether a status command takes effect (false: answered 200 but nothing changes). */
  applies = true;
  /** Whether a status change is told by an event (else only agent_state shows it). */
  tells = true;
  /**
   * A platform that shows only what the spec shows: agent_state rows with the spec's seven fields
   * (callstate from the call), ccDial without data, and no events.
   */
  specOnly = false;
  /** The callID ccDial answers with. */
  dialLeg = "dial-leg-1";
  private heldDial: { asked: () => void; answered: Promise<void> } | undefined;
  /** The next command (or the next of this function, with `func`) is refused with this envelope. */
  refuse: { code: number; message: string; func?: string } | undefined;
  readonly commands: { func: string; body: Record<string, unknown> }[] = [];
  stateReads = 0;
  /** The query of each agent_state read (`queue=support`). */
  readonly stateQueries: string[] = [];
  /** Other agents' rows, listed before this agent's in agent_state. */
  others: ReturnType<FakeCallCenter["record"]>[] = [];
  /** Whether agent_state lists this agent at all. */
  listed = true;
  private sink: ((e: CallCenterEventData) => void) | undefined;
  private openChange: ((open: boolean) => void) | undefined;
  feedLogin = "";
  feedClosed = false;

  constructor(
    readonly agent = "1001",
    readonly queues = ["support"],
    readonly agentInfo: Record<string, string> = { wrap_up_time: "10" },
  ) {}

  readonly route: Route = ({ method, url, body }) => {
    const path = url.pathname;
    if (method === "GET" && /^\/api\/users\/\d+$/.test(path)) {
      return json(200, {
        id: 3,
        login: "agent1",
        name: "Alice Agent",
        extn: this.agent,
        domain: "agentbar.local",
        type: "AGENT",
        agent_info: this.agentInfo,
      });
    }
    if (method === "GET" && /^\/api\/users\/\d+\/queue\/name$/.test(path))
      return json(
        200,
        this.queues.map((name) => ({ name })),
      );
    if (method === "GET" && path === "/api/cc/agent_state") {
      this.stateReads++;
      this.stateQueries.push(url.searchParams.toString());
      return json(200, [...this.others, ...(this.listed ? [this.specOnly ? this.specRecord() : this.record()] : [])]);
    }
    // The platform's call records: none in this scripted call center (the agent's day reads them).
    if (method === "GET" && path === "/api/cdrs") return json(200, { rowCount: 0, page: 1, pageCount: 1, data: [] });
    const func = /^\/api\/cc\/ccc\/(\w+)$/.exec(path)?.[1];
    if (method !== "POST" || !func) return undefined;
    this.commands.push({ func, body });
    const answer = this.command(func, body);
    const held = func === "ccDial" ? this.heldDial : undefined;
    if (!held) return answer;
    this.heldDial = undefined;
    held.asked();
    return held.answered.then(() => answer);
  };

  /** The next ccDial stays under way until `answer()`; `asked` resolves when it arrives. */
  holdNextDial(): { asked: Promise<void>; answer: () => void } {
    let asked!: () => void;
    let answer!: () => void;
    const arrived = new Promise<void>((resolve) => (asked = resolve));
    this.heldDial = { asked, answered: new Promise<void>((resolve) => (answer = resolve)) };
    return { asked: arrived, answer };
  }

  private command(func: string, body: Record<string, unknown>): Response {
    if (this.refuse && (!this.refuse.func || this.refuse.func === func)) {
      const { code, message } = this.refuse;
      this.refuse = undefined;
      return json(200, { code, message });
    }
    if (this.applies) {
      if (func === "ccGoReady") this.setStatus(body.onDemand ? "Available (On Demand)" : "Available");
      if (func === "ccGoBreak") this.setStatus("On Break", String(body.reason ?? ""));
      if (func === "ccLogout") this.setStatus("Logged Out");
      if (func === "ccLogin" && this.status === "Logged Out") this.setStatus("On Break");
      if (func === "ccHold" && this.call) this.call = { ...this.call, held: true };
      if (func === "ccUnHold" && this.call) this.call = { ...this.call, held: false };
      if (func === "ccConsult" && this.call)
        this.call = {
          ...this.call,
          consult: { uuid: "consult-leg", target: String(body.destExtn ?? ""), answered: false },
        };
      if (func === "ccCancelConsult" && this.call) this.call = { ...this.call, consult: null };
    }
    return json(200, {
      code: 200,
      message: "success",
      ...(func === "ccDial" && !this.specOnly ? { data: { callID: this.dialLeg } } : {}),
    });
  }

  setStatus(status: string, reason = ""): void {
    this.status = status;
    this.reason = reason;
    this.statusChangedAt = Date.now();
    if (this.tells && !this.specOnly)
      this.emit({
        "CC-Action": "agent-status-change",
        "CC-Agent": this.agent,
        "CC-Agent-Status": status,
        ...(reason ? { "CC-Agent-Break-Reason": reason } : {}),
      });
  }

  emit(data: Record<string, string>): void {
    this.sink?.({
      "Event-Name": "CUSTOM",
      "Event-Subclass": "callcenter::info",
      "Event-Date-Timestamp": String(Date.now() * 1000),
      ...data,
    });
  }

  /** Opens or closes the event feed as the channel would. */
  setOpen(open: boolean): void {
    this.openChange?.(open);
  }

  readonly events: EventConnector = (o) => {
    this.sink = o.onEvent;
    this.openChange = o.onOpenChange;
    this.feedLogin = o.login;
    this.feedClosed = false;
    return {
      close: () => {
        this.feedClosed = true;
        this.sink = undefined;
      },
    };
  };

  /** The agent's row with the spec's fields alone; callstate follows the call. */
  specRecord() {
    const { agent_id, extn, group_id, queue_id, agent_uuid, state } = this.record();
    const c = this.call;
    const callstate = !c ? "IDLE" : c.consult ? "CONSULTING" : c.held ? "HOLD" : c.answered ? "TALKING" : "RINGING";
    return { agent_id, extn, group_id, queue_id, agent_uuid, state, callstate };
  }

  record() {
    const state = this.status.startsWith("Available") ? "READY" : this.status === "On Break" ? "UNREADY" : "LOGOUT";
    return {
      agent_id: this.agent,
      extn: this.agent,
      group_id: this.queues[0],
      queue_id: "1",
      agent_uuid: this.call?.uuid ?? "",
      state,
      callstate: this.callstate,
      name: "Alice Agent",
      status: this.onlyState ? "" : this.status,
      cc_state: this.state,
      reason: this.onlyState ? "" : this.reason,
      status_since: localStamp(this.statusChangedAt + this.zoneShiftMs),
      no_answer_count: 0,
      ready_time: "",
      wrap_up_until: "",
      call: this.call,
      ...(this.supervision !== undefined ? { supervision: this.supervision } : {}),
    };
  }
}

/** The platform's text form of a time: YYYY-MM-DD HH:MM:SS, local, without a zone. */
function localStamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
