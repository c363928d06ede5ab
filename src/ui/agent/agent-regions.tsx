import type { Layout } from "../layout";
import { lazy } from "../lazy";
import { useAgent } from "../model/model";
import type { ShellRegions } from "../shell/shell";
import { MyDayCard } from "./my-day";
import { PhoneWatchLine } from "./phone-watch-line";
import { QueueList } from "./queue-list";
import { StatusControl } from "./status-control";

// After-call work comes with the first call that ends; its code comes then.
const WrapUpPanel = lazy(() => import("./wrap-up-panel").then((m) => m.WrapUpPanel));

function WrapUp({ compact = false }: { compact?: boolean }) {
  return useAgent().wrapUp.value ? <WrapUpPanel compact={compact} /> : null;
}

/**
 * Where the toolbar goes in each layout: the bar holds the status and the wrap-up in its one
 * line; the side panel stacks status, wrap-up and queues around the phone; the full page puts
 * the status in its header, the wrap-up above the phone and the queues beside the history. The
 * phone watch's line (calls cannot ring here) goes with the wrap-up.
 */
export function agentRegions(layout: Layout): Pick<ShellRegions, "toolbar" | "work" | "queues"> {
  if (layout === "bar") {
    return {
      toolbar: (
        <div class="agent-toolbar compact">
          <StatusControl compact />
          <PhoneWatchLine compact />
          <WrapUp compact />
        </div>
      ),
    };
  }
  return {
    toolbar: <StatusControl />,
    work: (
      <>
        <PhoneWatchLine />
        <WrapUp />
      </>
    ),
    queues: (
      <>
        <MyDayCard />
        <QueueList />
      </>
    ),
  };
}
