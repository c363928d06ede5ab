import { describe, expect, it, vi } from "vitest";
import { ccCallOf } from "./cc-call";
import { CC } from "./queue-calls";
import { agentRigs, call, invite, queueCall } from "./test-support/agent-rig";

const setup = agentRigs();

describe("calls through the call center", () => {
  it("the dial pad's numbers go out with ccDial while the agent works; SIP addresses stay with the phone", async () => {
    const t = setup();
    await t.working();
    expect(await t.hooks.dialer!("(555) 010-0199")).toBe(true);
    expect(t.fcc.commands.at(-1)).toEqual({
      func: "ccDial",
      body: { agent: "1001", extn: "1001", destNumber: "5550100199" },
    });
    expect(t.store.getState().dialling).toEqual({
      number: "5550100199",
      callId: "dial-leg-1",
      at: expect.any(Number),
      failed: null,
    });
    expect(await t.hooks.dialer!("bob@example.com")).toBe(false);
    t.settings.getState().change({ outboundCalls: "phone" });
    expect(await t.hooks.dialer!("5550100199")).toBe(false);
  });

  it("shows a click-to-dial's progress until the phone rings; Cancel ends the platform's leg", async () => {
    const t = setup();
    await t.working();
    const dialling = t.actions.dial("5550199");
    // At once, before the platform answers.
    expect(t.store.getState().dialling).toMatchObject({ number: "5550199", failed: null });
    await dialling;
    // The platform's leg reaches the phone: the call's card takes over.
    t.callsStore.setState({
      calls: [call({ id: "d1", direction: "outbound", context: { [CC.action]: "dial", [CC.callId]: "dial-leg-1" } })],
    });
    expect(t.store.getState().dialling).toBeNull();

    t.callsStore.setState({ calls: [] });
    await t.actions.dial("5550198");
    await t.actions.cancelDial();
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccKill", body: { destUUID: "dial-leg-1" } });
    expect(t.store.getState().dialling).toBeNull();
  });

  it("Cancel before the platform answers ccDial ends the leg it then names; a refusal then is no error", async () => {
    const t = setup();
    await t.working();
    let held = t.fcc.holdNextDial();
    const dialling = t.actions.dial("5550199");
    await held.asked;
    await t.actions.cancelDial();
    expect(t.store.getState().dialling).toBeNull();
    held.answer();
    await dialling;
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccKill", body: { destUUID: "dial-leg-1" } });
    expect(t.store.getState()).toMatchObject({ dialling: null, error: null });
    // The leg was under way to the phone: it is turned away when it arrives.
    expect(t.hooks.incoming!(invite({ "X-CC-Action": "dial", "X-CC-Agent-UUID": "dial-leg-1" }))).toMatchObject({
      reject: 603,
    });

    held = t.fcc.holdNextDial();
    t.fcc.refuse = { code: 500, message: "can not find group?" };
    const refused = t.actions.dial("5550198");
    await held.asked;
    await t.actions.cancelDial();
    held.answer();
    await refused;
    expect(t.store.getState()).toMatchObject({ dialling: null, error: null });
  });

  it("the leg of a click-to-dial cancelled before ccDial answered is turned away if it reaches the phone first, and not killed as well", async () => {
    const t = setup();
    await t.working();
    let held = t.fcc.holdNextDial();
    const dialling = t.actions.dial("5550199");
    await held.asked;
    await t.actions.cancelDial();
    expect(t.hooks.incoming!(invite({ "X-CC-Action": "dial", "X-CC-Agent-UUID": "dial-leg-1" }))).toMatchObject({
      reject: 603,
      context: { [CC.action]: "dial" },
    });
    held.answer();
    await dialling;
    expect(t.fcc.commands.filter((x) => x.func === "ccKill")).toEqual([]);

    // The next click-to-dial is the agent's: its leg rings through.
    t.fcc.dialLeg = "dial-leg-2";
    held = t.fcc.holdNextDial();
    const next = t.actions.dial("5550198");
    await held.asked;
    expect(
      t.hooks.incoming!(invite({ "X-CC-Action": "dial", "X-CC-Agent-UUID": "dial-leg-2" }))?.reject,
    ).toBeUndefined();
    held.answer();
    await next;
    expect(t.store.getState().dialling).toMatchObject({ number: "5550198", callId: "dial-leg-2" });
  });

  it("a refused click-to-dial leaves no progress and says why", async () => {
    const t = setup();
    await t.working();
    t.fcc.refuse = { code: 500, message: "can not find group?" };
    await expect(t.actions.dial("5550199")).rejects.toMatchObject({ command: "dial", message: "can not find group?" });
    expect(t.store.getState()).toMatchObject({
      dialling: null,
      error: { command: "dial", message: "can not find group?" },
    });
  });

  it("a click-to-dial whose phone does not ring within 30 s fails, saying so, and its leg is ended", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: new Date("2026-03-02T09:00:00Z") });
    const t = setup();
    await t.working();
    await t.actions.dial("5550199");
    await vi.advanceTimersByTimeAsync(29_000);
    expect(t.store.getState().dialling?.failed).toBeNull();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(t.store.getState().dialling).toMatchObject({ number: "5550199", failed: "no-ring" });
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccKill", body: { destUUID: "dial-leg-1" } });
    // Dismissing the failure sends nothing more.
    await t.actions.cancelDial();
    expect(t.store.getState().dialling).toBeNull();
    expect(t.fcc.commands.filter((x) => x.func === "ccKill")).toHaveLength(1);
  });

  it("a click-to-dial the platform ends before the phone rings fails, saying so", async () => {
    const t = setup();
    await t.working();
    t.fcc.call = {
      uuid: "dial-leg-1",
      kind: "dial",
      direction: "outbound",
      queue: "",
      member_uuid: "",
      customer_uuid: "",
      cid_name: "5550199",
      cid_number: "5550199",
      answered: false,
      held: false,
      consult: null,
    };
    await t.actions.dial("5550199");
    await t.until((s) => s.platformCall?.uuid === "dial-leg-1");
    expect(t.store.getState().dialling?.failed).toBeNull();
    t.fcc.call = null;
    await t.until((s) => s.dialling?.failed === "ended");
  });

  it("consult and three-way to an agent name the extension its calls ring", async () => {
    const t = setup();
    await t.working();
    t.fcc.others = [
      { ...t.fcc.record(), agent_id: "1002", extn: "1003", name: "Bob Agent", status: "Available", state: "READY" },
    ];
    await t.actions.loadColleagues();
    expect(t.store.getState().colleagues).toEqual([
      { number: "1002", name: "Bob Agent", status: "Available", callstate: "IDLE", extension: "1003" },
    ]);
    t.fcc.call = {
      uuid: "leg-1",
      kind: "queue",
      direction: "inbound",
      queue: "support",
      member_uuid: "m1",
      customer_uuid: "c1",
      cid_name: "Carla",
      cid_number: "5550100",
      answered: true,
      held: false,
      consult: null,
    };
    t.callsStore.setState({ calls: [{ ...queueCall(), state: "active", answeredAt: Date.now() }] });
    await t.actions.threeWay("call-1", { kind: "agent", number: "1002" });
    expect(t.fcc.commands.at(-1)).toEqual({
      func: "ccThreeWay",
      body: { agent: "1001", callID: "leg-1", destAgent: "1002", destExtn: "1003" },
    });
    t.fcc.refuse = { code: 404, message: "agent '1004' not found" };
    await expect(t.actions.consult("call-1", { kind: "agent", number: "1004" })).rejects.toMatchObject({
      command: "consult",
    });
    // An agent the toolbar knows no extension of: its number, the extension on this platform.
    expect(t.fcc.commands.at(-1)).toEqual({
      func: "ccConsult",
      body: { agent: "1001", callID: "leg-1", destAgent: "1004", destExtn: "1004" },
    });
  });

  it("hold waits for the platform to report the call held; transfer names a queue, an agent or a number", async () => {
    const t = setup();
    await t.working();
    t.fcc.call = {
      uuid: "leg-1",
      kind: "queue",
      direction: "inbound",
      queue: "support",
      member_uuid: "m1",
      customer_uuid: "c1",
      cid_name: "Carla",
      cid_number: "5550100",
      answered: true,
      held: false,
      consult: null,
    };
    t.callsStore.setState({ calls: [{ ...queueCall(), state: "active", answeredAt: Date.now() }] });
    await t.actions.hold("call-1");
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccHold", body: { callID: "leg-1" } });
    expect(ccCallOf(t.callsStore.getState().calls[0]!, t.store.getState(), t.callsStore.getState().calls)?.held).toBe(
      true,
    );
    await t.actions.resume("call-1");
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccUnHold", body: { callID: "leg-1" } });

    await t.actions.transfer("call-1", { kind: "queue", name: "sales" });
    expect(t.fcc.commands.at(-1)).toEqual({ func: "ccTransfer", body: { callID: "leg-1", destNumber: "sales" } });
    t.fcc.refuse = { code: 404, message: "agent '1099' not found" };
    await expect(t.actions.consult("call-1", { kind: "agent", number: "1099" })).rejects.toMatchObject({
      message: "agent '1099' not found",
    });
    await t.actions.threeWay("call-1", { kind: "number", number: "5550142" });
    expect(t.fcc.commands.at(-1)).toEqual({
      func: "ccThreeWay",
      body: { agent: "1001", callID: "leg-1", destAgent: "PSTN", destExtn: "5550142" },
    });
  });

  it("tells the agent a supervisor is on its call where the platform says so: by event, then by agent_state, and when the supervisor leaves", async () => {
    const t = setup();
    await t.working();
    t.fcc.call = {
      uuid: "leg-1",
      kind: "queue",
      direction: "inbound",
      queue: "support",
      member_uuid: "m1",
      customer_uuid: "c1",
      cid_name: "Carla",
      cid_number: "5550100",
      answered: true,
      held: false,
      consult: null,
    };
    t.callsStore.setState({ calls: [{ ...queueCall(), state: "active", answeredAt: Date.now() }] });
    const card = () => {
      const live = t.callsStore.getState().calls;
      return ccCallOf(live[0]!, t.store.getState(), live)?.supervised;
    };
    expect(card()).toBeNull();
    t.fcc.emit({
      "CC-Action": "agent-supervision",
      "CC-Agent": "1001",
      "CC-Agent-UUID": "leg-1",
      "CC-Supervision-Mode": "listen",
      "CC-Supervisor": "1010",
      "CC-Supervisor-Name": "Sam Supervisor",
    });
    // The platform's word `listen` is read as the app's `monitor`.
    expect(t.store.getState().supervised).toEqual({ mode: "monitor", by: "Sam Supervisor", callId: "leg-1" });
    expect(card()).toEqual({ mode: "monitor", by: "Sam Supervisor" });
    // Another agent's supervision is not this agent's; another call of this agent's is not this card's.
    t.fcc.emit({
      "CC-Action": "agent-supervision",
      "CC-Agent": "1002",
      "CC-Agent-UUID": "leg-2",
      "CC-Supervision-Mode": "whisper",
      "CC-Supervisor": "1010",
    });
    expect(card()).toEqual({ mode: "monitor", by: "Sam Supervisor" });
    t.fcc.emit({
      "CC-Action": "agent-supervision",
      "CC-Agent": "1001",
      "CC-Agent-UUID": "leg-1",
      "CC-Supervision-Mode": "none",
      "CC-Supervisor": "1010",
    });
    expect(t.store.getState().supervised).toBeNull();

    // Without events, agent_state tells it (on a platform that lists it), and its absence clears it.
    t.fcc.supervision = { mode: "whisper", by: "1010", by_name: "Sam Supervisor" };
    await t.actions.refresh();
    expect(card()).toEqual({ mode: "whisper", by: "Sam Supervisor" });
    t.fcc.supervision = undefined;
    await t.actions.refresh();
    expect(card()).toBeNull();
  });

  it("the card shows who the platform says the agent talks to", () => {
    const c = { ...call({ context: { [CC.action]: "consult", [CC.callId]: "leg-9" } }), state: "active" as const };
    const platformCall = {
      uuid: "leg-9",
      kind: "handover",
      direction: "inbound",
      queue: "support",
      member_uuid: "",
      customer_uuid: "c9",
      cid_name: "Carla Customer",
      cid_number: "5550100",
      answered: true,
      held: false,
      consult: null,
    };
    expect(ccCallOf(c, { platformCall, agent: null }, [c])?.party).toEqual({
      name: "Carla Customer",
      number: "5550100",
    });
    // A call of the phone alone, with no platform call, is not a call-center call.
    expect(ccCallOf(call({}), { platformCall: null, agent: null }, [])).toBeUndefined();
  });
});
