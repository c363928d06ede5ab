import { agentRegions } from "./agent/agent-regions";
import { Announcer } from "./announcer";
import { Brand } from "./brand";
import { lazy } from "./lazy";
import { useModel } from "./model/model";
import { PhonePanel } from "./phone/phone-panel";
import { Shell } from "./shell/shell";
import { SignInScreen } from "./sign-in/sign-in-screen";

// The bar has no room for the history, so its page never loads it.
const HistoryPanel = lazy(() => import("./history/history-panel").then((m) => m.HistoryPanel));
// Agents never see the wallboard: its code comes only for a supervisor.
const WallboardPanel = lazy(() => import("./supervisor/wallboard-panel").then((m) => m.WallboardPanel));
const WallboardSummary = lazy(() => import("./supervisor/wallboard-panel").then((m) => m.WallboardSummary));

function wallboardRegion(layout: "bar" | "side" | "full") {
  return layout === "bar" ? <WallboardSummary /> : <WallboardPanel compact={layout === "side"} />;
}

function Restoring() {
  const { t, layout } = useModel();
  return (
    <div class={`restoring layout-${layout}`} aria-busy="true">
      <Brand compact={layout === "bar"} />
      <p>
        <span class="spinner" aria-hidden="true" />
        {t.value.signIn.restoring}
      </p>
    </div>
  );
}

export function App() {
  const { session, layout, phone, agent, supervisor } = useModel();
  const status = session.value.status;
  return (
    <>
      {status === "restoring" ? (
        <Restoring />
      ) : status === "signed-in" || status === "signing-out" ? (
        <Shell
          layout={layout}
          regions={
            phone
              ? {
                  phone: <PhonePanel layout={layout} />,
                  ...(layout === "bar" ? {} : { history: <HistoryPanel /> }),
                  ...(agent ? agentRegions(layout) : {}),
                  ...(supervisor?.allowed.value ? { wallboard: wallboardRegion(layout) } : {}),
                }
              : {}
          }
        />
      ) : (
        <SignInScreen layout={layout} />
      )}
      <Announcer />
    </>
  );
}
