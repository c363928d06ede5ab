import type { ReadonlySignal } from "@preact/signals";
import {
  matchesShortcut,
  parseShortcut,
  SHORTCUT_ACTIONS,
  type SettingsState,
  type ShortcutAction,
} from "../../session";
import type { AgentUi } from "./agent-ui";
import type { PhoneUi } from "./phone-ui";

const answered = new Set(["active", "remote-held", "held"]);
const talking = new Set(["active", "remote-held", "connecting", "early", "dialing"]);

/**
 * The toolbar's keyboard shortcuts (settings: Alt+A answer, Alt+H hang up, Alt+O hold, Alt+M
 * mute, Alt+R ready, Alt+B break by default), anywhere on the page. Each acts on the call it
 * obviously means: the ringing one for Answer, the one talking for the others; the agent session
 * chooses whether the platform or the phone carries it out, as for the buttons.
 */
export function installShortcuts(o: {
  target: Pick<Document, "addEventListener">;
  settings: ReadonlySignal<SettingsState>;
  phone: PhoneUi;
  agent: AgentUi | null;
}): void {
  const { phone, agent } = o;
  const run = (action: ShortcutAction): boolean => {
    const live = phone.live.value;
    const ringing = live.find((c) => c.direction === "inbound" && c.state === "ringing");
    const current = live.find((c) => talking.has(c.state)) ?? live.find((c) => answered.has(c.state));
    const quiet = (p: Promise<unknown>) =>
      void p.catch((e: unknown) => console.warn(`agentbar: shortcut ${action} failed`, e));
    const actions = phone.actions;
    switch (action) {
      case "answer":
        if (!ringing) return false;
        quiet(actions.answer(ringing.id));
        return true;
      case "hangup":
        if (!current) return false;
        quiet(actions.hangUp(current.id));
        return true;
      case "mute":
        if (!current || !answered.has(current.state)) return false;
        quiet(actions.mute(current.id, !current.muted));
        return true;
      case "hold":
        if (!current || !answered.has(current.state)) return false;
        quiet(phone.view(current).held ? actions.resume(current.id) : actions.hold(current.id));
        return true;
      case "ready":
        if (!agent || agent.phase.value !== "on") return false;
        agent.act(agent.actions.choose({ kind: "ready" }));
        return true;
      case "break":
        if (!agent || agent.phase.value !== "on") return false;
        agent.menuOpen.value = true;
        return true;
    }
  };
  o.target.addEventListener("keydown", (e) => {
    if (e.repeat) return;
    const keys = o.settings.value.shortcuts;
    for (const action of SHORTCUT_ACTIONS) {
      const s = parseShortcut(keys[action]);
      if (s && matchesShortcut(s, e) && run(action)) {
        e.preventDefault();
        return;
      }
    }
  });
}
