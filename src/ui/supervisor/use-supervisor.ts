import { useModel } from "../model/model";
import type { SupervisorUi } from "../model/supervisor-ui";

/** The supervisor's view model of the page (the board, its alerts, supervision): every supervisor panel reads it. */
export function useSupervisor(): SupervisorUi {
  const { supervisor } = useModel();
  if (!supervisor) throw new Error("no supervisor view in this app");
  return supervisor;
}
