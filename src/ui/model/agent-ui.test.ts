import { signal } from "@preact/signals";
import { describe, expect, it } from "vitest";
import { PHONE_UNREACHABLE_REASON, createAgentStore, type AgentSession, type PhoneWatch } from "../../cc";
import { createSettingsStore, memoryStorage } from "../../session";
import { catalogues } from "../i18n/all";
import { createAgentUi } from "./agent-ui";

describe("the phone's watch, announced", () => {
  it("says each change once: the trouble, the way back; not every change of the state around it", () => {
    const store = createAgentStore();
    const said: string[] = [];
    createAgentUi({
      session: { store } as unknown as AgentSession,
      settings: signal(createSettingsStore(memoryStorage()).getState()),
      t: signal(catalogues.en),
      announce: (text) => said.push(text),
    });
    const agent = (status: string, reason = "") => ({
      number: "1001",
      status,
      state: "Waiting",
      callstate: "IDLE",
      reason,
      since: 0,
    });
    const watch = (patch: Partial<PhoneWatch>) =>
      store.setState({ phoneWatch: { ...store.getState().phoneWatch, ...patch } });
    store.setState({ phase: "on", agent: agent("Available") });

    watch({ trouble: "lost" });
    watch({ breakSetAt: 1 });
    store.setState({ pending: { command: "break", reason: PHONE_UNREACHABLE_REASON } });
    store.setState({ pending: null, agent: agent("On Break", PHONE_UNREACHABLE_REASON) });
    store.setState({ agent: agent("On Break", PHONE_UNREACHABLE_REASON) });
    watch({ trouble: null });
    expect(said).toEqual([
      "Your phone is unreachable: calls cannot ring in this tab.",
      "Status: On break · Phone unreachable.",
      "Your phone is reachable again. You stay on break until you choose Ready.",
    ]);

    said.length = 0;
    watch({ trouble: "asleep", breakSetAt: 0 });
    watch({ breakSetAt: 5 });
    watch({ trouble: null, woke: { at: 6 } });
    store.setState({ agent: agent("On Break", PHONE_UNREACHABLE_REASON) });
    expect(said).toEqual([
      "This tab is asleep: calls cannot ring in it.",
      "This tab was asleep; you were set On break · Phone unreachable.",
    ]);

    // A tab showing another tab's phone gets a fresh copy of the watch with every change there.
    said.length = 0;
    watch({ trouble: null, breakSetAt: 7, woke: { at: 8 }, elsewhere: true });
    watch({ woke: { at: 8 } });
    store.setState({ agent: agent("On Break", PHONE_UNREACHABLE_REASON) });
    expect(said).toEqual(["The tab with your phone was asleep; you were set On break · Phone unreachable."]);
  });
});
