import type { ComponentType } from "preact";
import type { EventFeed } from "./cc";
import { createSupervision, createWallboard } from "./cc/supervisor";
import type { SessionStore } from "./session";
import type { Phone } from "./softphone";
import type { Layout } from "./ui/layout";
import { ModelContext, type UiModel } from "./ui/model/model";
import { withSupervisor } from "./ui/model/supervisor-model";
import { WallboardPanel, WallboardSummary } from "./ui/supervisor/wallboard-panel";

export interface WallboardDeps {
  /** The signed-in screen's model. */
  model: UiModel;
  session: SessionStore;
  /** The page's one event feed, which the agent's toolbar reads too. */
  feed: EventFeed;
  /** The supervisor's own phone: monitor, whisper, barge in and intercept legs ring it. */
  phone: Phone;
}

/**
 * The supervisor's part of the page, loaded the first time a supervisor's screen shows (agents
 * never download it): the wallboard on the page's event feed, what a supervisor does to agents'
 * calls, and the region that shows them (the full page's main region, a compact list in the side
 * panel, the agents by status in the bar).
 */
export function startWallboard(deps: WallboardDeps): ComponentType<{ layout: Layout }> {
  const wallboard = createWallboard({ session: deps.session, feed: deps.feed });
  const supervision = createSupervision({ session: deps.session, phone: deps.phone, wallboard: wallboard.store });
  const model = withSupervisor(deps.model, { wallboard, supervision });
  return function WallboardRegion({ layout }: { layout: Layout }) {
    return (
      <ModelContext.Provider value={model}>
        {layout === "bar" ? <WallboardSummary /> : <WallboardPanel compact={layout === "side"} />}
      </ModelContext.Provider>
    );
  };
}
