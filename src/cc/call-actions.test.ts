import { afterEach, describe, expect, it } from "vitest";
import type { Call } from "../softphone";
import type { AgentStateCall } from "../api/cc";
import { callViewOf } from "./call-controls";
import { actionsOf, dispatcherOf, type AgentActions, type Command } from "./commands";
import { CC } from "./queue-calls";
import { agentRig, call, queueCall, type AgentRig } from "./test-support/agent-rig";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The platform's view of the queue call on leg-1, as agent_state reports it. */
const platformCall = (patch: Partial<AgentStateCall> = {}): AgentStateCall => ({
  uuid: "leg-1",
  kind: "queue",
  direction: "inbound",
  queue: "support",
  member_uuid: "m1",
  customer_uuid: "c1",
  cid_name: "Carla Customer",
  cid_number: "5550100",
  answered: true,
  held: false,
  consult: null,
  ...patch,
});

/** The agent at work with one answered call: a queue call of the call center, or a call of the phone alone. */
async function withCall(kind: "queue" | "plain", patch: Partial<Call> = {}): Promise<AgentRig & { id: string }> {
  const t = agentRig(cleanups);
  await t.working();
  const c =
    kind === "queue"
      ? queueCall()
      : call({
          id: "call-1",
          direction: "outbound",
          remote: { number: "5550199", name: "", uri: "sip:5550199@agentbar.local", withheld: false },
        });
  if (kind === "queue") t.fcc.call = platformCall();
  t.callsStore.setState({ calls: [{ ...c, state: "active", answeredAt: Date.now(), ...patch }] });
  return Object.assign(t, { id: "call-1" });
}

const ccCommands = (t: AgentRig) =>
  t.fcc.commands.filter((c) => !["ccLogin", "ccGoReady", "ccGoBreak"].includes(c.func));

describe("call actions: the platform for a call of the call center, the phone for any other", () => {
  const cases: {
    action: string;
    run: (a: AgentActions, id: string) => Promise<void>;
    platform: { func: string; body: Record<string, unknown> };
    sip: { method: string; args: unknown[] };
  }[] = [
    {
      action: "hold",
      run: (a, id) => a.hold(id),
      platform: { func: "ccHold", body: { callID: "leg-1" } },
      sip: { method: "hold", args: [] },
    },
    {
      action: "transfer to a number",
      run: (a, id) => a.transfer(id, { kind: "number", number: "5550142" }),
      platform: { func: "ccTransfer", body: { callID: "leg-1", destNumber: "5550142" } },
      sip: { method: "transfer", args: ["5550142"] },
    },
    {
      action: "transfer to what was typed",
      run: (a, id) => a.transfer(id, { kind: "address", address: "555-0142" }),
      platform: { func: "ccTransfer", body: { callID: "leg-1", destNumber: "5550142" } },
      sip: { method: "transfer", args: ["555-0142"] },
    },
    {
      action: "transfer to a queue",
      run: (a, id) => a.transfer(id, { kind: "queue", name: "sales" }),
      platform: { func: "ccTransfer", body: { callID: "leg-1", destNumber: "sales" } },
      sip: { method: "transfer", args: ["sales"] },
    },
    {
      action: "consult an agent",
      run: (a, id) => a.consult(id, { kind: "agent", number: "1002" }),
      platform: { func: "ccConsult", body: { agent: "1001", callID: "leg-1", destAgent: "1002", destExtn: "1002" } },
      sip: { method: "startConsult", args: ["1002"] },
    },
  ];

  for (const c of cases) {
    it(`${c.action}: the platform's function on the call's callID for a queue call, the phone's SIP for a plain call`, async () => {
      const cc = await withCall("queue");
      await c.run(cc.actions, cc.id);
      expect(ccCommands(cc)).toEqual([c.platform]);
      expect(cc.phone.sip).toEqual([]);

      const plain = await withCall("plain");
      await c.run(plain.actions, plain.id);
      expect(plain.phone.sip).toEqual([{ method: c.sip.method, id: "call-1", args: c.sip.args }]);
      expect(ccCommands(plain)).toEqual([]);
    });
  }

  it("resume: ccUnHold once the platform holds the call, the phone's re-INVITE for a call it holds itself; swap holds the other call", async () => {
    const cc = await withCall("queue");
    cc.fcc.call = platformCall({ held: true });
    await cc.actions.refresh();
    expect(
      callViewOf(cc.callsStore.getState().calls[0]!, cc.store.getState(), cc.callsStore.getState().calls),
    ).toMatchObject({ via: "platform", held: true });
    await cc.actions.resume(cc.id);
    expect(ccCommands(cc)).toEqual([{ func: "ccUnHold", body: { callID: "leg-1" } }]);
    expect(cc.phone.sip).toEqual([]);

    const plain = await withCall("plain", { state: "held", held: true });
    await plain.actions.resume(plain.id);
    await plain.actions.swap(plain.id);
    expect(plain.phone.sip.map((s) => s.method)).toEqual(["resume", "swap"]);
    expect(ccCommands(plain)).toEqual([]);
  });

  it("a consultation: ccCancelConsult or the agent leaving (the platform hands the customer over); the phone's own REFER or hang-up of the second line", async () => {
    const cc = await withCall("queue");
    await cc.actions.consult(cc.id, { kind: "number", number: "5550142" });
    expect(
      callViewOf(cc.callsStore.getState().calls[0]!, cc.store.getState(), cc.callsStore.getState().calls).controls,
    ).toEqual(["mute", "dtmf", "complete-consult", "cancel-consult", "hang-up"]);
    await cc.actions.cancelConsult(cc.id);
    await cc.actions.consult(cc.id, { kind: "agent", number: "1002" });
    await cc.actions.completeConsult(cc.id);
    expect(ccCommands(cc).map((c) => c.func)).toEqual(["ccConsult", "ccCancelConsult", "ccConsult"]);
    expect(cc.phone.sip).toEqual([{ method: "hangup", id: "call-1", args: [] }]);

    const plain = await withCall("plain", { consultForCallId: "call-0" });
    await plain.actions.cancelConsult(plain.id);
    await plain.actions.completeConsult(plain.id);
    expect(plain.phone.sip.map((s) => s.method)).toEqual(["cancelConsult", "completeConsult"]);
    expect(ccCommands(plain)).toEqual([]);
  });

  it("three-way: ccThreeWay for a queue call; a plain call has none, and nothing is sent", async () => {
    const cc = await withCall("queue");
    await cc.actions.threeWay(cc.id, { kind: "number", number: "5550142" });
    expect(ccCommands(cc)).toEqual([
      { func: "ccThreeWay", body: { agent: "1001", callID: "leg-1", destAgent: "PSTN", destExtn: "5550142" } },
    ]);

    const plain = await withCall("plain");
    await expect(plain.actions.threeWay(plain.id, { kind: "number", number: "5550142" })).rejects.toMatchObject({
      kind: "not-available",
      command: "three-way",
    });
    expect(
      callViewOf(plain.callsStore.getState().calls[0]!, plain.store.getState(), plain.callsStore.getState().calls)
        .controls,
    ).not.toContain("three-way");
    expect(plain.phone.sip).toEqual([]);
    expect(ccCommands(plain)).toEqual([]);
  });

  it("answer, reject (603), busy (486), mute, keypad tones and hang-up are the phone's for every call", async () => {
    for (const kind of ["queue", "plain"] as const) {
      const t = await withCall(kind);
      const ringing = (id: string) => (kind === "queue" ? queueCall(id) : call({ id }));
      t.callsStore.setState({
        calls: [...t.callsStore.getState().calls, ringing("call-2"), ringing("call-3"), ringing("call-4")],
      });
      await t.actions.answer("call-2");
      await t.actions.reject("call-3");
      await t.actions.reject("call-4", "busy");
      await t.actions.mute(t.id, true);
      await t.actions.sendDtmf(t.id, "1#");
      await t.actions.hangUp(t.id);
      expect(t.phone.sip).toEqual([
        { method: "answer", id: "call-2", args: [] },
        { method: "reject", id: "call-3", args: [603] },
        { method: "reject", id: "call-4", args: [486] },
        { method: "setMuted", id: "call-1", args: [true] },
        { method: "sendDtmf", id: "call-1", args: ["1#"] },
        { method: "hangup", id: "call-1", args: [] },
      ]);
      expect(ccCommands(t)).toEqual([]);
    }
  });

  it("a transfer to a SIP address is the phone's alone: the platform's call refuses it in words, sending nothing", async () => {
    const cc = await withCall("queue");
    await expect(cc.actions.transfer(cc.id, { kind: "address", address: "bob@example.com" })).rejects.toMatchObject({
      kind: "invalid-target",
      command: "transfer",
    });
    expect(cc.store.getState().error).toMatchObject({ kind: "invalid-target", command: "transfer" });
    expect(ccCommands(cc)).toEqual([]);
  });

  it("dial: through the call center (ccDial) while the agent works in it; from the phone when set so, or for a SIP address", async () => {
    const t = agentRig(cleanups);
    await t.working();
    await t.actions.dial("555 0199");
    expect(ccCommands(t)).toEqual([{ func: "ccDial", body: { agent: "1001", extn: "1001", destNumber: "5550199" } }]);
    await t.actions.dial("bob@example.com");
    t.settings.getState().change({ outboundCalls: "phone" });
    await t.actions.dial("5550199");
    expect(t.phone.dialled).toEqual(["bob@example.com", "5550199"]);
  });

  it("the controls a card shows: the platform's hold and transfers for a queue call, the phone's for a plain one", async () => {
    const cc = await withCall("queue");
    const ccView = callViewOf(cc.callsStore.getState().calls[0]!, cc.store.getState(), cc.callsStore.getState().calls);
    expect(ccView).toMatchObject({ via: "platform", cc: { callId: "leg-1", queue: "support" } });
    expect(ccView.controls).toEqual(["mute", "dtmf", "hold", "transfer", "consult", "three-way", "hang-up"]);

    const ringing = { ...call({ id: "r", context: { [CC.action]: "queue", [CC.callId]: "leg-2" } }) };
    expect(callViewOf(ringing, cc.store.getState(), [ringing]).controls).toEqual(["answer", "reject", "busy"]);

    const plain = await withCall("plain");
    const plainView = callViewOf(
      plain.callsStore.getState().calls[0]!,
      plain.store.getState(),
      plain.callsStore.getState().calls,
    );
    expect(plainView).toMatchObject({ via: "phone", cc: undefined });
    expect(plainView.controls).toEqual(["mute", "dtmf", "hold", "transfer", "consult", "hang-up"]);
    const ended = { ...plain.callsStore.getState().calls[0]!, state: "ended" as const };
    expect(callViewOf(ended, plain.store.getState(), [ended]).controls).toEqual(["call-back", "dismiss"]);
  });
});

describe("commands as data", () => {
  it("a command takes the same path as the action it names", async () => {
    const cc = await withCall("queue");
    await cc.dispatch({ type: "hold", callId: cc.id });
    expect(ccCommands(cc)).toEqual([{ func: "ccHold", body: { callID: "leg-1" } }]);
    const plain = await withCall("plain");
    await plain.dispatch({ type: "hold", callId: plain.id });
    expect(plain.phone.sip).toEqual([{ method: "hold", id: "call-1", args: [] }]);
  });

  it("every action goes through a command and back to the same action, with its arguments", async () => {
    const seen: unknown[][] = [];
    const spy = new Proxy({} as AgentActions, {
      get:
        (_t, name) =>
        (...args: unknown[]) => (seen.push([name, ...args]), Promise.resolve()),
    });
    const sent: Command[] = [];
    const dispatch = dispatcherOf(spy);
    const remote = actionsOf((c) => (sent.push(structuredClone(c)), dispatch(c)));
    const target = { kind: "agent", number: "1002" } as const;
    const calls: [keyof AgentActions, unknown[]][] = [
      ["choose", [{ kind: "break", reason: "Lunch" }]],
      ["clearNext", []],
      ["dial", ["5550100"]],
      ["cancelDial", []],
      ["answer", ["c"]],
      ["reject", ["c", "busy"]],
      ["hangUp", ["c"]],
      ["mute", ["c", true]],
      ["sendDtmf", ["c", "12"]],
      ["hold", ["c"]],
      ["resume", ["c"]],
      ["swap", ["c"]],
      ["transfer", ["c", target]],
      ["consult", ["c", target]],
      ["completeConsult", ["c"]],
      ["cancelConsult", ["c"]],
      ["threeWay", ["c", target]],
      ["acceptRefer", ["c"]],
      ["rejectRefer", ["c"]],
      ["dismiss", ["c"]],
      ["setDisposition", ["Resolved"]],
      ["setNotes", ["Call back on Friday"]],
      ["setCallNotes", ["call-1", "Wants a refund"]],
      ["extendWrapUp", [30]],
      ["finishWrapUp", []],
      ["refresh", []],
      ["loadColleagues", []],
      ["retry", []],
      ["dismissError", []],
      ["dismissPhoneNote", []],
    ];
    expect(calls.map(([name]) => name).sort()).toEqual(Object.keys(remote).sort());
    for (const [name, args] of calls) await (remote[name] as (...a: unknown[]) => Promise<void>)(...args);
    expect(seen).toEqual(calls.map(([name, args]) => [name, ...args]));
    // Commands are plain data: they survive a structured clone (postMessage, BroadcastChannel).
    expect(sent).toHaveLength(calls.length);
  });
});
