import type { ComponentType } from "preact";
import { showsWallboard } from "../cc";
import { afterStart } from "./after-start";
import { withEnglishPanels } from "./i18n";
import { agentRegions } from "./agent/agent-regions";
import type { Layout } from "./layout";
import { lazy } from "./lazy";
import { useModel } from "./model/model";
import { PhonePanel } from "./phone/phone-panel";
import { Shell } from "./shell/shell";

// The bar has no room for the history, so its page never loads it; the full page loads it once ready for calls.
const HistoryPanel = lazy(() =>
  afterStart.then(() => withEnglishPanels(import("./history/history-panel"))).then((m) => m.HistoryPanel),
);

/**
 * The signed-in screen: the phone, the toolbar, the history, and for a supervisor the wallboard
 * (`Wallboard`: agents never load its code).
 */
export function AgentScreen({ Wallboard }: { Wallboard: ComponentType<{ layout: Layout }> }) {
  const { session, layout, phone, agent } = useModel();
  return (
    <Shell
      layout={layout}
      regions={
        phone
          ? {
              phone: <PhonePanel layout={layout} />,
              ...(layout === "bar" ? {} : { history: <HistoryPanel /> }),
              ...(agent ? agentRegions(layout) : {}),
              ...(showsWallboard(session.value.user) ? { wallboard: <Wallboard layout={layout} /> } : {}),
            }
          : {}
      }
    />
  );
}
